#include "ir/Bounds.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/IntervalArithmetic.h"
#include "ir/Substitute.h"

namespace dsl::ir {

namespace {

using namespace interval_rules;

// ---------------------------------------------------------------------------------------------
// The walk over the IR: the scope, lets, vectors, and which rule applies at each node.

/// Whether an expression mentions a variable of the scope, and whether it mentions free
/// variables or opaque values (loads, calls to Funcs); decides when a vector is its own bound.
class ScopeUse : public IRVisitor {
  public:
    explicit ScopeUse(const Scope<Interval> &s) : scope(s) {}
    const Scope<Interval> &scope;
    bool uses_scope = false, uses_free_var = false, opaque = false;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        (scope.contains(op->name) ? uses_scope : uses_free_var) = true;
    }
    void visit(const Let *op) override {
        if (scope.contains(op->name)) uses_scope = true;  // shadowing: stay conservative
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        opaque = true;
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->call_type != Call::CallType::Intrinsic) opaque = true;
        IRVisitor::visit(op);
    }
};

class BoundsOfExpr : public IRVisitor {
  public:
    explicit BoundsOfExpr(const Scope<Interval> &outer) : scope(&outer) {}

    Interval get(const Expr &e) {
        if (e.type().is_vector() && wraps(e.type().element_of()) && !e.as<Broadcast>()) {
            // A vector of symbols alone is bounded by its own extreme lanes, exactly. Worth it
            // where the rules below would have to give up on wrapping.
            ScopeUse use(scope);
            use.include(e);
            if (!use.uses_scope && use.uses_free_var && !use.opaque) return lanes_extremes(e);
        }
        result = Interval();
        include(e);
        return result;
    }

  private:
    Scope<Interval> scope;
    Interval result;

    static Interval lanes_extremes(const Expr &e) {
        bool b = e.type().is_bool();
        return Interval(VectorReduce::make(b ? VectorReduce::Op::And : VectorReduce::Op::Min, e, 1),
                        VectorReduce::make(b ? VectorReduce::Op::Or : VectorReduce::Op::Max, e, 1));
    }

    using IRVisitor::visit;

    void visit(const IntImm *op) override { result = point(op); }
    void visit(const UIntImm *op) override { result = point(op); }
    void visit(const FloatImm *op) override {
        result = std::isfinite(op->value) ? point(op) : Interval::everything();
    }
    void visit(const StringImm *) override { result = Interval::everything(); }

    void visit(const Variable *op) override {
        if (const Interval *i = scope.find(op->name)) {
            Type t = op->type.element_of();
            for (const Expr &end : {i->min, i->max}) {
                internal_assert(!end.defined() || end.type() == t)
                    << "the interval of " << op->name << " in the scope has an end " << end
                    << " of type " << end.type() << ", but " << op->name << " is " << op->type
                    << " (the ends must be scalars of its element type)";
            }
            result = *i;
        } else if (op->type.is_scalar()) {
            result = point(op);
        } else {
            result = lanes_extremes(op);
        }
    }

    void visit(const Cast *op) override;

    void visit(const Add *op) override {
        result = add_intervals(op->type.element_of(), get(op->a), get(op->b));
    }
    void visit(const Sub *op) override {
        Type t = op->type.element_of();
        if (same_operand(op->a, op->b)) {
            Interval x = get(op->a);
            if (!t.is_float()) {
                result = point(make_zero(t));  // even where it wraps
                return;
            }
            if (float_ends(x)) {
                result = float_interval(t, 0, 0);  // finite, so never inf - inf
                return;
            }
        }
        result = sub_intervals(t, get(op->a), get(op->b));
    }
    void visit(const Mul *op) override {
        result = mul_intervals(op->type.element_of(), get(op->a), get(op->b));
    }
    void visit(const Div *op) override {
        Type t = op->type.element_of();
        if (same_operand(op->a, op->b)) {
            // x / x is 1, or 0 for x == 0 (integers) or NaN for 0 and inf (floats).
            Interval x = get(op->a);
            auto xi = int_ends(x);
            auto xf = float_ends(x);
            bool nonzero = (xi && (xi->lo > 0 || xi->hi < 0)) || (xf && (xf->lo > 0 || xf->hi < 0));
            if (nonzero) {
                result = point(make_one(t));
                return;
            }
            if (!t.is_float()) {
                result = xi && xi->lo == 0 && xi->hi == 0 ? point(make_zero(t))
                                                          : Interval(make_zero(t), make_one(t));
                return;
            }
        }
        result = div_intervals(t, get(op->a), get(op->b));
    }
    void visit(const Mod *op) override {
        Type t = op->type.element_of();
        if (!t.is_float() && same_operand(op->a, op->b)) {
            result = point(make_zero(t));
            return;
        }
        result = mod_intervals(t, get(op->a), get(op->b));
    }

    /// Whether `a` and `b` are one pure expression, so that `a op b` sees the same value twice;
    /// interval arithmetic alone treats the operands as independent and cannot see it.
    static bool same_operand(const Expr &a, const Expr &b) {
        return equal(a, b) && !any_call(a, [](const Call *op) { return !op->is_pure(); });
    }

    /// `x op x` for a comparison: known unless x may be NaN.
    bool compare_same(IRNodeType kind, const Expr &a, const Expr &b) {
        if (!same_operand(a, b)) return false;
        if (a.type().is_float() && !float_ends(get(a))) return false;
        bool reflexive = kind == IRNodeType::EQ || kind == IRNodeType::LE || kind == IRNodeType::GE;
        result = point(make_bool(reflexive));
        return true;
    }
    void visit(const Min *op) override { result = min_max_intervals(true, get(op->a), get(op->b)); }
    void visit(const Max *op) override {
        result = min_max_intervals(false, get(op->a), get(op->b));
    }

#define DSL_BOUNDS_COMPARE(T)                                                                    \
    void visit(const T *op) override {                                                           \
        if (compare_same(IRNodeType::T, op->a, op->b)) return;                                   \
        result =                                                                                 \
            compare_intervals(IRNodeType::T, op->a.type().element_of(), get(op->a), get(op->b)); \
    }
    DSL_BOUNDS_COMPARE(EQ)
    DSL_BOUNDS_COMPARE(NE)
    DSL_BOUNDS_COMPARE(LT)
    DSL_BOUNDS_COMPARE(LE)
    DSL_BOUNDS_COMPARE(GT)
    DSL_BOUNDS_COMPARE(GE)
#undef DSL_BOUNDS_COMPARE

    void visit(const And *op) override {
        Interval a = bool_interval(get(op->a)), b = bool_interval(get(op->b));
        if (a.empty || b.empty) {
            result = Interval::nothing();
            return;
        }
        result = Interval(make_and(a.min, b.min), make_and(a.max, b.max));
    }
    void visit(const Or *op) override {
        Interval a = bool_interval(get(op->a)), b = bool_interval(get(op->b));
        if (a.empty || b.empty) {
            result = Interval::nothing();
            return;
        }
        result = Interval(make_or(a.min, b.min), make_or(a.max, b.max));
    }
    void visit(const Not *op) override {
        Interval a = bool_interval(get(op->a));
        result = a.empty ? a : Interval(make_not(a.max), make_not(a.min));
    }

    void visit(const Select *op) override {
        Interval c = bool_interval(get(op->condition));
        // Each side is bounded knowing that the condition holds (or not) for its lanes.
        Interval t = get_given(op->condition, true, op->true_value);
        Interval f = get_given(op->condition, false, op->false_value);
        if (c.empty) {
            result = Interval::nothing();
        } else if (is_const_true(c.min)) {
            result = t;
        } else if (is_const_false(c.max)) {
            result = f;
        } else if (c.is_single_point() && !t.empty && !f.empty) {
            // One condition for every lane: choose the ends with it.
            result = Interval(make_select(c.min, t.min, f.min), make_select(c.min, t.max, f.max));
        } else {
            result = Interval::make_union(t, f);
        }
    }

    /// The interval of `value` where `condition` is `holds`: integer variables of the scope that
    /// the condition compares directly are narrowed first (`select(x < 0, 0, x)` for x in
    /// [-5, 5] is [0, 5]). Only for a scalar condition: with a
    /// vector one, a lane of `value` could read another lane of v (a Shuffle), where the
    /// condition says nothing.
    Interval get_given(const Expr &condition, bool holds, const Expr &value) {
        std::vector<std::pair<std::string, Interval>> facts;
        if (condition.type().is_scalar()) find_facts(condition, holds, facts);
        bool impossible = false;
        std::vector<std::string> pushed;
        for (const auto &[name, fact] : facts) {
            Interval narrowed = Interval::make_intersection(scope.get(name), fact);
            impossible = impossible || narrowed.is_empty();
            // Only where the narrowed ends fold to constants: symbolic ones would only trade a
            // simple result for a tangle of min and max that the simplifier has to undo.
            auto simple = [](const Expr &e) { return !e.defined() || is_const(e); };
            if (narrowed.is_empty() || !simple(narrowed.min) || !simple(narrowed.max)) continue;
            scope.push(name, narrowed);
            pushed.push_back(name);
        }
        Interval r = impossible ? Interval::nothing() : get(value);
        for (const std::string &name : pushed)
            scope.pop(name);
        return r;
    }

    void find_facts(const Expr &c, bool holds, std::vector<std::pair<std::string, Interval>> &out) {
        if (const auto *call = c.as<Call>()) {
            if (call->is_intrinsic(Call::Intrinsic::Likely)) find_facts(call->args[0], holds, out);
            return;
        }
        if (const auto *n = c.as<Not>()) {
            find_facts(n->a, !holds, out);
            return;
        }
        if (const auto *a = c.as<And>()) {
            if (holds) {
                find_facts(a->a, true, out);
                find_facts(a->b, true, out);
            }
            return;
        }
        if (const auto *o = c.as<Or>()) {
            if (!holds) {
                find_facts(o->a, false, out);
                find_facts(o->b, false, out);
            }
            return;
        }
        // `a k b`, with k negated where the condition does not hold.
        using K = IRNodeType;
        Expr a, b;
        K k = c.node_type();
        if (const auto *x = c.as<LT>()) a = x->a, b = x->b;
        if (const auto *x = c.as<LE>()) a = x->a, b = x->b;
        if (const auto *x = c.as<GT>()) a = x->a, b = x->b;
        if (const auto *x = c.as<GE>()) a = x->a, b = x->b;
        if (const auto *x = c.as<EQ>()) a = x->a, b = x->b;
        if (const auto *x = c.as<NE>()) a = x->a, b = x->b;
        if (!a.defined()) return;
        if (!holds) k = negated(k);
        compare_fact(k, a, b, out);
        compare_fact(mirrored(k), b, a, out);
    }

    static IRNodeType negated(IRNodeType k) {
        switch (k) {
            case IRNodeType::LT:
                return IRNodeType::GE;
            case IRNodeType::LE:
                return IRNodeType::GT;
            case IRNodeType::GT:
                return IRNodeType::LE;
            case IRNodeType::GE:
                return IRNodeType::LT;
            case IRNodeType::EQ:
                return IRNodeType::NE;
            default:
                return IRNodeType::EQ;
        }
    }

    /// `a k b` is `b mirrored(k) a`.
    static IRNodeType mirrored(IRNodeType k) {
        switch (k) {
            case IRNodeType::LT:
                return IRNodeType::GT;
            case IRNodeType::LE:
                return IRNodeType::GE;
            case IRNodeType::GT:
                return IRNodeType::LT;
            case IRNodeType::GE:
                return IRNodeType::LE;
            default:
                return k;
        }
    }

    /// `v k other` for a scoped integer variable v: the interval v must lie in. An end that
    /// wraps (v < 0 for an unsigned v) only loosens the fact.
    void compare_fact(IRNodeType k, const Expr &v, const Expr &other,
                      std::vector<std::pair<std::string, Interval>> &out) {
        const auto *var = v.as<Variable>();
        Type t = v.type().element_of();
        if (!var || !scope.contains(var->name) || !t.is_int_or_uint() || t.is_bool()) return;
        Interval o = get(other);
        if (o.is_empty()) return;
        Expr one = make_one(t);
        Interval fact;
        switch (k) {
            case IRNodeType::LT:
                fact = Interval(Expr(), make_sub(o.max, one));
                break;
            case IRNodeType::LE:
                fact = Interval(Expr(), o.max);
                break;
            case IRNodeType::GT:
                fact = Interval(make_add(o.min, one), Expr());
                break;
            case IRNodeType::GE:
                fact = Interval(o.min, Expr());
                break;
            case IRNodeType::EQ:
                fact = o;
                break;
            default:
                return;
        }
        out.push_back({var->name, fact});
    }

    void visit(const Load *op) override {
        result = type_range(op->type);
    }

    void visit(const Ramp *op) override {
        // Lane i is base + i * stride (wrapping as the type does).
        Type t = op->type.element_of();
        Interval base = get(op->base), stride = get(op->stride);
        if (t.is_float()) {
            // Each lane adds the stride to the rounded previous lane; only a zero stride is easy.
            result = stride.is_single_point() && is_const_zero(stride.min) ? base
                                                                           : Interval::everything();
            return;
        }
        int128 last = op->lanes - 1;
        auto b = int_ends(base), s = int_ends(stride);
        if (b && s) {
            result = from_exact(t, std::min(b->lo, b->lo + last * s->lo),
                                std::max(b->hi, b->hi + last * s->hi));
            return;
        }
        if (wraps(t)) {
            result = type_range(t);
            return;
        }
        // (lanes - 1) * stride is no value of the program, so it must not be clamped like one.
        Expr zero = make_zero(t), n = int_const(t, last);
        Interval steps;
        if (s) {
            int128 lo = std::min<int128>(0, last * s->lo), hi = std::max<int128>(0, last * s->hi);
            if (lo < lowest(t) || hi > highest(t)) {
                result = type_range(t);
                return;
            }
            steps = Interval(int_const(t, lo), int_const(t, hi));
        } else {
            // {i * s} for i in [0, lanes - 1] is the hull of 0 and (lanes - 1) * s.
            Interval scaled = mul_intervals(t, stride, point(n));
            bool up = nonneg(stride), down = nonpos(stride);
            steps = Interval(up     ? zero
                             : down ? scaled.min
                                    : min_of_lower(scaled.min, zero),
                             down ? zero
                             : up ? scaled.max
                                  : max_of_upper(scaled.max, zero));
        }
        result = add_intervals(t, base, steps);
    }

    void visit(const Broadcast *op) override {
        result = get(op->value);
    }

    void visit(const Call *op) override;
    void visit(const Let *op) override;

    void visit(const Shuffle *op) override {
        // Follow each lane through nested shuffles to the vector it is read from; only those
        // vectors count.
        std::vector<Expr> sources;
        std::function<void(const Shuffle *, int)> trace = [&](const Shuffle *s, int lane) {
            for (const Expr &v : s->vectors) {
                if (lane >= v.type().lanes()) {
                    lane -= v.type().lanes();
                    continue;
                }
                if (const auto *inner = v.as<Shuffle>()) {
                    trace(inner, inner->indices[lane]);
                } else if (std::none_of(sources.begin(), sources.end(),
                                        [&](const Expr &e) { return e.same_as(v); })) {
                    sources.push_back(v);
                }
                return;
            }
        };
        for (int index : op->indices)
            trace(op, index);
        Interval hull = Interval::nothing();
        for (const Expr &v : sources)
            hull = Interval::make_union(hull, get(v));
        result = hull;
    }

    void visit(const VectorReduce *op) override;
};

void BoundsOfExpr::visit(const Cast *op) {
    Type to = op->type.element_of(), from = op->value.type().element_of();
    Interval a = get(op->value);
    if (a.empty) {
        result = a;
        return;
    }
    if (a.is_single_point() && !is_const(a.min)) {
        result = point(make_cast(to, a.min));
        return;
    }
    if (to.is_bool()) {
        // x != 0: known only when the interval holds nothing but zero, or no zero at all.
        result = bool_range();
        if (auto x = float_ends(a)) {
            if (x->lo > 0 || x->hi < 0) result = point(make_bool(true));
            if (x->lo == 0 && x->hi == 0) result = point(make_bool(false));
        } else if (auto y = int_ends(a)) {
            if (y->lo > 0 || y->hi < 0) result = point(make_bool(true));
            if (y->lo == 0 && y->hi == 0) result = point(make_bool(false));
        }
        return;
    }
    if (from.is_float()) {
        if (to.is_float()) {
            // Rounding is monotonic.
            if (auto x = float_ends(a)) {
                result = float_interval(to, x->lo, x->hi);
            } else {
                result = Interval(make_cast(to, a.min), make_cast(to, a.max));
            }
            return;
        }
        // Truncation is monotonic; values out of range are undefined, so clamping is sound.
        auto end = [&](const Expr &e, int128 otherwise) {
            if (!e.defined()) return int_const(to, otherwise);
            auto c = const_float(e);
            if (!c) return make_cast(to, e);
            double v = std::trunc(*c);
            if (v <= static_cast<double>(lowest(to))) return int_const(to, lowest(to));
            if (v >= static_cast<double>(highest(to))) return int_const(to, highest(to));
            return int_const(to, static_cast<int128>(v));
        };
        result = Interval(end(a.min, lowest(to)), end(a.max, highest(to)));
        return;
    }
    // From an integer (or bool): an unbounded end is the type's limit.
    if (!a.min.defined()) a.min = int_const(from, lowest(from));
    if (!a.max.defined()) a.max = int_const(from, highest(from));
    auto x = int_ends(a);
    if (to.is_float()) {
        // Conversion to float rounds monotonically.
        if (x) {
            result = float_interval(to, int_to_float(x->lo, to), int_to_float(x->hi, to));
        } else {
            result = Interval(make_cast(to, a.min), make_cast(to, a.max));
        }
        return;
    }
    if (x) {
        result = from_exact(to, x->lo, x->hi, true);  // integer casts wrap, in every type
    } else if (to.can_represent(from)) {
        result = Interval(make_cast(to, a.min), make_cast(to, a.max));
    } else {
        result = type_range(to);
    }
}

thread_local const FuncValueBounds *current_func_value_bounds = nullptr;

void BoundsOfExpr::visit(const Call *op) {
    using I = Call::Intrinsic;
    Type t = op->type.element_of();
    if (op->call_type == Call::CallType::Func && current_func_value_bounds) {
        auto it = current_func_value_bounds->find({op->name, op->value_index});
        if (it != current_func_value_bounds->end()) {
            result = it->second;
            return;
        }
    }
    if (op->call_type != Call::CallType::Intrinsic || op->intrinsic == I::Reinterpret ||
        op->intrinsic == I::None) {
        result = type_range(t);
        return;
    }
    if (op->intrinsic == I::Likely || op->intrinsic == I::MemoizeTag) {
        result = get(op->args[0]);
        return;
    }
    if (op->intrinsic == I::ExternBoundsQuery) {
        // What an extern stage asks for: itself, unless it depends on what varies here.
        ScopeUse use(scope);
        use.include(Expr(op));
        result = use.uses_scope ? type_range(t) : point(op);
        return;
    }
    if (op->intrinsic == I::PromiseClamped) {
        // The promised range, where it is tighter than what the value is known to be.
        Interval promised(get(op->args[1]).min, get(op->args[2]).max);
        result = Interval::make_intersection(get(op->args[0]), promised);
        return;
    }
    if (op->intrinsic == I::Print) {
        // The value of its first value.
        result = op->args.size() > 2 ? get(op->args[2]) : Interval::single_point(make_zero(t));
        return;
    }
    if (op->intrinsic == I::Require) {
        result = get(op->args[1]);  // its value, where it has one
        return;
    }
    if (op->intrinsic == I::Trace) {
        // A load's value, or an id the handler chooses.
        const auto *event = op->args[0].as<IntImm>();
        result = event && event->value == 0 ? get(op->args[4]) : Interval::everything();
        return;
    }
    std::vector<Interval> args;
    bool points = true, constant = true;
    for (const Expr &arg : op->args) {
        args.push_back(get(arg));
        if (args.back().empty) {
            result = Interval::nothing();
            return;
        }
        points = points && args.back().is_single_point();
        constant = constant && points && is_const(args.back().min);
    }
    if (points && !constant) {
        // The same intrinsic of the same single values.
        std::vector<Expr> values;
        for (const Interval &i : args)
            values.push_back(i.min);
        result = point(Call::make(t, op->intrinsic, values));
        return;
    }
    const Interval &a = args[0];
    Type at = op->args[0].type().element_of();
    if (op->args.size() == 2 && same_operand(op->args[0], op->args[1]) && !at.is_float()) {
        // x & x and x | x are x; x ^ x and absd(x, x) are 0.
        if (op->intrinsic == I::BitwiseAnd || op->intrinsic == I::BitwiseOr) {
            result = a;
            return;
        }
        if (op->intrinsic == I::BitwiseXor || op->intrinsic == I::Absd) {
            result = point(make_zero(t));
            return;
        }
    }
    std::optional<FloatEnds> fa = float_ends(a);
    std::optional<IntEnds> ia = int_ends(a);
    Expr zero = make_zero(t);
    auto apply = [&](const Expr &e) { return e.defined() ? Call::make(t, op->intrinsic, {e}) : e; };
    switch (op->intrinsic) {
        case I::Abs:
            if (fa || ia) {
                double lo = fa ? fa->lo : 0, hi = fa ? fa->hi : 0;
                if (ia) {
                    int128 mlo = ia->lo >= 0 ? ia->lo : ia->hi <= 0 ? -ia->hi : 0;
                    result = from_exact(t, mlo, std::max(abs128(ia->lo), abs128(ia->hi)));
                } else {
                    double mlo = lo >= 0 ? std::fabs(lo) : hi <= 0 ? std::fabs(hi) : 0;
                    result = float_interval(t, mlo, std::max(std::fabs(lo), std::fabs(hi)));
                }
            } else if (nonneg(a)) {
                result = Interval(make_cast(t, a.min), make_cast(t, a.max));
            } else if (at.is_float()) {
                result = nonpos(a) ? Interval(make_neg(a.max), make_neg(a.min))
                                   : Interval(zero, max_of_upper(make_neg(a.min), a.max));
            } else if (a.is_bounded()) {
                // In the unsigned result type, 0 - x is |x| for x <= 0, and too big otherwise.
                result = Interval(
                    zero, make_max(make_sub(zero, make_cast(t, a.min)), make_cast(t, a.max)));
            } else {
                result = type_range(t);
            }
            return;
        case I::Absd: {
            const Interval &b = args[1];
            if (auto ib = int_ends(b); ia && ib) {
                int128 gap = ia->lo > ib->hi   ? ia->lo - ib->hi
                             : ib->lo > ia->hi ? ib->lo - ia->hi
                                               : 0;
                result = from_exact(t, gap, std::max(ia->hi - ib->lo, ib->hi - ia->lo));
            } else if (auto fb = float_ends(b); fa && fb) {
                double gap = fa->lo > fb->hi   ? fa->lo - fb->hi
                             : fb->lo > fa->hi ? fb->lo - fa->hi
                                               : 0;
                result = float_interval(t, gap, std::max(fa->hi - fb->lo, fb->hi - fa->lo));
            } else if (at.is_float()) {
                result =
                    Interval(zero, max_of_upper(make_sub(a.max, b.min), make_sub(b.max, a.min)));
            } else {
                result = type_range(t);
            }
            return;
        }
        case I::BitwiseAnd:
        case I::BitwiseOr:
        case I::BitwiseXor: {
            const Interval &b = args[1];
            if (auto ib = int_ends(b); ia && ib) {
                if (constant) {
                    int128 v = op->intrinsic == I::BitwiseAnd  ? (ia->lo & ib->lo)
                               : op->intrinsic == I::BitwiseOr ? (ia->lo | ib->lo)
                                                               : (ia->lo ^ ib->lo);
                    result = from_exact(t, v, v);
                } else {
                    IntEnds r = bitwise_int_ends(op->intrinsic, *ia, *ib);
                    result = from_exact(t, r.lo, r.hi);
                }
            } else if (op->intrinsic == I::BitwiseAnd && (nonneg(a) || nonneg(b))) {
                // x & y lies between 0 and any non-negative operand.
                Expr hi = nonneg(a) && nonneg(b) ? min_of_upper(a.max, b.max)
                          : nonneg(a)            ? a.max
                                                 : b.max;
                result = Interval(zero, hi.defined() ? hi : int_const(t, highest(t)));
            } else {
                result = type_range(t);
            }
            return;
        }
        case I::BitwiseNot:
            // ~x is -1 - x: decreasing, and never out of range.
            if (ia) {
                int128 top = t.is_int() ? -1 : highest(t);
                result = from_exact(t, top - ia->hi, top - ia->lo);
            } else {
                Expr top = int_const(t, t.is_int() ? -1 : highest(t));
                result = Interval(make_sub(top, a.max), make_sub(top, a.min));
            }
            return;
        case I::ShiftLeft:
        case I::ShiftRight: {
            const Interval &s = args[1];
            bool left = op->intrinsic == I::ShiftLeft;
            auto is = int_ends(s);
            if (ia && is) {
                result = shift_int_ends(left, t, *ia, *is);
            } else if (is && is->lo == is->hi && (is->lo >= 0) != left) {
                // A right shift by a fixed amount is monotonic and cannot overflow.
                Expr lo = a.min.defined() ? a.min : int_const(t, lowest(t));
                Expr hi = a.max.defined() ? a.max : int_const(t, highest(t));
                result = Interval(Call::make(t, op->intrinsic, {lo, s.min}),
                                  Call::make(t, op->intrinsic, {hi, s.min}));
            } else {
                result = type_range(t);
            }
            return;
        }
        case I::Floor:
        case I::Ceil:
        case I::Round:
        case I::Trunc:
            if (fa) {
                double (*f)(double) =
                    op->intrinsic == I::Floor   ? static_cast<double (*)(double)>(std::floor)
                    : op->intrinsic == I::Ceil  ? static_cast<double (*)(double)>(std::ceil)
                    : op->intrinsic == I::Round ? static_cast<double (*)(double)>(std::nearbyint)
                                                : static_cast<double (*)(double)>(std::trunc);
                result = monotonic_float(t, *fa, f);
            } else {
                result = Interval(apply(a.min), apply(a.max));
            }
            return;
        case I::Sqrt:
            if (fa && fa->lo >= 0) {
                result = monotonic_float(t, *fa, [](double v) { return std::sqrt(v); });
            } else if (!fa && nonneg(a)) {
                result = Interval(apply(a.min), apply(a.max));
            } else {
                result = Interval::everything();  // sqrt of a negative is NaN
            }
            return;
        case I::Exp:
            if (fa) {
                result = monotonic_float(t, *fa, [](double v) { return std::exp(v); });
            } else {
                result = Interval(a.min.defined() ? apply(a.min) : zero, apply(a.max));
            }
            return;
        case I::Log:
            if (fa && fa->lo >= 0) {
                result = monotonic_float(t, *fa, [](double v) { return std::log(v); });
            } else {
                result = Interval::everything();
            }
            return;
        case I::Sin:
        case I::Cos:
            result = fa ? float_interval(t, -1, 1) : Interval::everything();
            return;
        case I::Atan2:
            result =
                fa && float_ends(args[1]) ? float_interval(t, -M_PI, M_PI) : Interval::everything();
            return;
        case I::IsNan:
            // Constant float ends exclude NaN (see Bounds.h).
            result = fa ? point(make_bool(false)) : bool_range();
            return;
        case I::Popcount:
        case I::CountLeadingZeros:
        case I::CountTrailingZeros:
            result = from_exact(t, 0, t.bits());
            return;
        default:
            result = type_range(t);
            return;
    }
}

void BoundsOfExpr::visit(const Let *op) {
    Interval value = get(op->value);
    if (value.empty) {
        result = value;
        return;
    }
    // A cheap end is bound as it is; any other is named, and results that use the name get
    // wrapped in a Let of it, so that nothing is computed twice and no name escapes.
    auto cheap = [](const Expr &e) { return !e.defined() || is_const(e) || e.as<Variable>(); };
    Type elem = op->value.type().element_of();
    std::string min_name = op->name + ".min", max_name = op->name + ".max";
    bool one_name = value.is_single_point();
    if (one_name) max_name = min_name;
    Interval binding(cheap(value.min) ? value.min : Variable::make(elem, min_name),
                     cheap(value.max) ? value.max : Variable::make(elem, max_name));
    Interval body;
    {
        ScopedBinding<Interval> bind(scope, op->name, binding);
        body = get(op->body);
    }
    auto close = [&](Expr e) {
        if (!e.defined()) return e;
        if (!cheap(value.max) && !one_name && expr_uses_var(e, max_name)) {
            e = Let::make(max_name, value.max, e);
        }
        if (!cheap(value.min) && expr_uses_var(e, min_name)) e = Let::make(min_name, value.min, e);
        return e;
    };
    if (!body.empty) body = Interval(close(body.min), close(body.max));
    result = body;
}

void BoundsOfExpr::visit(const VectorReduce *op) {
    Type t = op->type.element_of();
    Interval v = get(op->value);
    int group = op->value.type().lanes() / op->type.lanes();
    if (v.empty || op->op == VectorReduce::Op::Min || op->op == VectorReduce::Op::Max ||
        op->op == VectorReduce::Op::And || op->op == VectorReduce::Op::Or) {
        result = v;
        return;
    }
    bool is_add = op->op == VectorReduce::Op::Add;
    auto fv = float_ends(v);
    auto iv = int_ends(v);
    if (t.is_float() && fv) {
        // The lanes are combined one after another, each step rounded, as the evaluator does;
        // rounding is monotonic, so doing the same to the ends (or corners) bounds the result.
        double lo = fv->lo, hi = fv->hi;
        for (int k = 1; k < group; k++) {
            if (is_add) {
                lo = round_to(t, lo + fv->lo);
                hi = round_to(t, hi + fv->hi);
            } else {
                double c[4] = {lo * fv->lo, lo * fv->hi, hi * fv->lo, hi * fv->hi};
                lo = round_to(t, *std::min_element(c, c + 4));
                hi = round_to(t, *std::max_element(c, c + 4));
            }
            if (std::isnan(lo) || std::isnan(hi)) break;
        }
        result = float_interval(t, lo, hi);
        return;
    }
    if (iv) {
        int128 lo = iv->lo, hi = iv->hi;
        for (int k = 1; k < group; k++) {
            if (is_add) {
                lo += iv->lo;
                hi += iv->hi;
                continue;
            }
            int128 c[4];
            if (__builtin_mul_overflow(lo, iv->lo, &c[0]) ||
                __builtin_mul_overflow(lo, iv->hi, &c[1]) ||
                __builtin_mul_overflow(hi, iv->lo, &c[2]) ||
                __builtin_mul_overflow(hi, iv->hi, &c[3])) {
                result = type_range(t);
                return;
            }
            lo = *std::min_element(c, c + 4);
            hi = *std::max_element(c, c + 4);
        }
        result = from_exact(t, lo, hi);
        return;
    }
    if (v.is_single_point()) {
        // Every lane is the same value p: p + p + ... or p * p * ..., in the evaluator's order.
        Expr acc = v.min;
        for (int k = 1; k < group; k++)
            acc = is_add ? make_add(acc, v.min) : make_mul(acc, v.min);
        result = point(acc);
        return;
    }
    if (is_add && !t.is_float() && !wraps(t)) {
        Expr n = int_const(t, group);
        result = Interval(make_mul(v.min, n), make_mul(v.max, n));
        return;
    }
    result = type_range(t);
}

}  // namespace

ScopedFuncValueBounds::ScopedFuncValueBounds(const FuncValueBounds *bounds)
    : previous_(current_func_value_bounds) {
    current_func_value_bounds = bounds;
}

ScopedFuncValueBounds::~ScopedFuncValueBounds() {
    current_func_value_bounds = previous_;
}

Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope) {
    internal_assert(e.defined()) << "bounds of an undefined Expr";
    BoundsOfExpr walker(scope);
    Interval r = walker.get(e);
    Type t = e.type().element_of();
    if (!r.empty && t.is_int_or_uint()) {
        if (!r.min.defined()) r.min = int_const(t, lowest(t));
        if (!r.max.defined()) r.max = int_const(t, highest(t));
    }
    return r;
}

Interval bounds_of_expr(const Expr &e) {
    Scope<Interval> empty;
    return bounds_of_expr_in_scope(e, empty);
}

}  // namespace dsl::ir
