// The simplifier's driver: dispatch, constant folding, facts about values, variables and lets,
// and the public entry points. The rules themselves live in SimplifyArith.cpp,
// SimplifyMinMax.cpp, SimplifyCompare.cpp, SimplifyVector.cpp and SimplifyStmt.cpp.
#include "ir/Simplify.h"

#include "ir/IROperator.h"
#include "ir/ReferenceEvaluator.h"
#include "ir/SimplifyInternal.h"
#include "ir/Substitute.h"

namespace dsl::ir {

namespace simplify_internal {

std::optional<int64_t> const_int(const Expr &e) {
    if (auto i = as_const_int(e)) return i;
    if (auto u = as_const_uint(e)) {
        if (*u <= uint64_t(INT64_MAX)) return static_cast<int64_t>(*u);
    }
    return std::nullopt;
}

Expr int_const(Type t, int64_t v) {
    return make_const(t, v);
}

Expr split_constant(const Expr &e, int64_t *c) {
    if (const auto *add = e.as<Add>()) {
        if (auto v = const_int(add->b)) {
            *c = *v;
            return add->a;
        }
    }
    *c = 0;
    return e;
}

namespace {

/// A sum of terms times integer constants, plus a constant (constant_difference).
struct LinearSum {
    std::vector<std::pair<Expr, int128>> terms;
    int128 constant = 0;
    int nodes = 0;

    /// Adds `scale * e`; false where `e` is too large to be worth it.
    bool add(const Expr &e, int128 scale) {
        constexpr int kMaxNodes = 48;
        constexpr int128 kMaxScale = int128(1) << 62;
        if (++nodes > kMaxNodes || scale > kMaxScale || scale < -kMaxScale) return false;
        if (auto c = as_const_int(e)) {
            constant += scale * *c;
            return true;
        }
        if (const auto *p = e.as<Add>()) return add(p->a, scale) && add(p->b, scale);
        if (const auto *p = e.as<Sub>()) return add(p->a, scale) && add(p->b, -scale);
        if (const auto *p = e.as<Mul>()) {
            if (auto c = as_const_int(p->b)) return add(p->a, scale * *c);
            if (auto c = as_const_int(p->a)) return add(p->b, scale * *c);
        }
        for (auto &[term, coeff] : terms) {
            if (equal(term, e)) {
                coeff += scale;
                return true;
            }
        }
        terms.emplace_back(e, scale);
        return true;
    }
};

}  // namespace

std::optional<int64_t> constant_difference(const Expr &a, const Expr &b) {
    const Type t = a.type();
    if (!t.is_scalar() || !no_overflow(t) || b.type() != t) return std::nullopt;
    // Only sums and differences are worth taking apart.
    auto arithmetic = [](const Expr &e) {
        return e.as<Add>() || e.as<Sub>() || e.as<Mul>() || is_const(e);
    };
    if (!arithmetic(a) && !arithmetic(b)) return std::nullopt;
    LinearSum sum;
    if (!sum.add(a, 1) || !sum.add(b, -1)) return std::nullopt;
    for (const auto &term : sum.terms) {
        if (term.second != 0) return std::nullopt;
    }
    if (sum.constant < INT64_MIN || sum.constant > INT64_MAX) return std::nullopt;
    return static_cast<int64_t>(sum.constant);
}

bool is_const_value(const Expr &e) {
    if (is_const(e)) return true;
    if (const auto *r = e.as<Ramp>()) return is_const(r->base) && is_const(r->stride);
    if (const auto *sh = e.as<Shuffle>()) {
        for (const Expr &v : sh->vectors) {
            if (!is_const_value(v)) return false;
        }
        return true;
    }
    return false;
}

namespace {

int64_t wrap_to(int128 v, Type t) {
    int bits = t.bits();
    uint64_t u = static_cast<uint64_t>(v);
    if (bits < 64) u &= (uint64_t(1) << bits) - 1;
    if (t.is_int() && bits < 64) {
        uint64_t sign = uint64_t(1) << (bits - 1);
        return static_cast<int64_t>((u ^ sign) - sign);
    }
    return static_cast<int64_t>(u);
}

Expr lane_const(Type et, const Scalar &s) {
    if (et.is_int()) return IntImm::make(et, s.i);
    if (et.is_uint()) return UIntImm::make(et, s.u);
    return FloatImm::make(et, s.f);
}

bool same_bits(Type et, const Scalar &a, const Scalar &b) {
    if (!et.is_float()) return a.u == b.u;
    if (std::isnan(a.f) && std::isnan(b.f)) return true;
    return a.f == b.f && std::signbit(a.f) == std::signbit(b.f);
}

/// A ramp of constants whose lanes the evaluator recomputes identically (wrap-around included).
std::optional<Expr> as_constant_ramp(const Value &v) {
    Type et = v.type.element_of();
    int lanes = v.type.lanes();
    if (!et.is_int_or_uint() || et.is_bool()) return std::nullopt;
    auto as_wide = [&](int i) { return et.is_int() ? int128(v.lanes[i].i) : int128(v.lanes[i].u); };
    int128 stride = as_wide(1) - as_wide(0);
    if (no_overflow(et)) {
        if (stride < et.int_min() || stride > et.int_max()) return std::nullopt;
        for (int i = 2; i < lanes; i++) {
            if (as_wide(i) - as_wide(i - 1) != stride) return std::nullopt;
        }
    } else {
        int64_t s = wrap_to(stride, et);
        for (int i = 2; i < lanes; i++) {
            if (wrap_to(as_wide(i) - as_wide(i - 1), et) != s) return std::nullopt;
        }
        stride = s;
    }
    Expr base = lane_const(et, v.lanes[0]);
    Expr step = et.is_int()
                    ? IntImm::make(et, static_cast<int64_t>(stride))
                    : UIntImm::make(et, static_cast<uint64_t>(static_cast<int64_t>(stride)));
    return Ramp::make(base, step, lanes);
}

/// The constant expression of a value: a scalar, a broadcast, a ramp, or else the concatenation
/// of its lanes.
std::optional<Expr> value_to_expr(const Value &v) {
    if (v.undefined) return std::nullopt;
    Type et = v.type.element_of();
    int lanes = v.type.lanes();
    bool uniform = true;
    for (int i = 1; i < lanes && uniform; i++)
        uniform = same_bits(et, v.lanes[0], v.lanes[i]);
    if (uniform) return broadcast_to(lane_const(et, v.lanes[0]), lanes);
    if (auto ramp = as_constant_ramp(v)) return ramp;
    std::vector<Expr> elements;
    for (int i = 0; i < lanes; i++)
        elements.push_back(lane_const(et, v.lanes[i]));
    return Shuffle::make_concat(elements);
}

}  // namespace

std::optional<Expr> fold(const Expr &e) {
    // Constant folding defers to the reference evaluator, so that it follows the documented
    // semantics bit for bit (float16 rounding, Euclidean division, wrap-around) by construction.
    try {
        return value_to_expr(evaluate(e));
    } catch (const InternalError &) {
        // Something the evaluator does not handle (a reinterpret of bools, ...): leave it.
        return std::nullopt;
    }
}

std::optional<Expr> fold_if_const(const Expr &e, std::initializer_list<Expr> operands) {
    for (const Expr &o : operands) {
        if (!is_const_value(o)) return std::nullopt;
    }
    return fold(e);
}

ExprInfo type_info(Type t) {
    ExprInfo info;
    if (!t.is_int_or_uint()) return info;
    if (t.is_int()) {
        info.min = t.int_min();
        info.max = t.int_max();
    } else {
        info.min = 0;
        if (t.bits() < 64) info.max = static_cast<int64_t>(t.uint_max());
    }
    return info;
}

ExprInfo make_info(Type t, std::optional<int128> lo, std::optional<int128> hi,
                   ModulusRemainder align, bool overflow_is_ub) {
    ExprInfo info;
    if (!t.is_int_or_uint()) return info;
    int128 type_lo = t.is_int() ? int128(t.int_min()) : 0;
    int128 type_hi = t.is_int() ? int128(t.int_max()) : int128(t.uint_max());
    bool may_wrap =
        !(no_overflow(t) && overflow_is_ub) && (!lo || !hi || *lo < type_lo || *hi > type_hi);
    if (may_wrap) {
        lo = type_lo;
        hi = type_hi;
        align = align.wrapped_to(t.bits());
    } else {
        // A 32/64-bit signed value lies within its type whatever the arithmetic said.
        lo = lo ? std::max(*lo, type_lo) : type_lo;
        hi = hi ? std::min(*hi, type_hi) : type_hi;
    }
    if (*lo > *hi) {
        // Every value overflows: the expression is undefined and nothing useful holds.
        return type_info(t);
    }
    if (*lo >= INT64_MIN && *lo <= INT64_MAX) info.min = static_cast<int64_t>(*lo);
    if (*hi >= INT64_MIN && *hi <= INT64_MAX) info.max = static_cast<int64_t>(*hi);
    info.alignment = align;
    if (info.is_const()) info.alignment = ModulusRemainder::constant(*info.min);
    if (align.is_constant() && !may_wrap && align.remainder >= *lo && align.remainder <= *hi) {
        info.min = info.max = align.remainder;
    }
    // Tighten the bounds to the nearest aligned values.
    if (align.modulus > 1 && info.min && info.max) {
        int64_t m = align.modulus;
        int128 r = align.remainder;
        int128 new_lo = *info.min + ((r - *info.min) % m + m) % m;
        int128 new_hi = *info.max - ((*info.max - r) % m + m) % m;
        if (new_lo <= new_hi) {
            info.min = static_cast<int64_t>(new_lo);
            info.max = static_cast<int64_t>(new_hi);
        }
    }
    return info;
}

ExprInfo unify_info(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo info;
    if (a.min && b.min) info.min = std::min(*a.min, *b.min);
    if (a.max && b.max) info.max = std::max(*a.max, *b.max);
    info.alignment = unify(a.alignment, b.alignment);
    return info;
}

Stmt no_op() {
    return Evaluate::make(make_zero(Int(32)));
}

bool is_no_op(const Stmt &s) {
    if (!s.defined()) return true;
    const auto *e = s.as<Evaluate>();
    return e && is_const(e->value);
}

Expr Simplifier::mutate(const Expr &e, ExprInfo *info) {
    if (!e.defined()) return e;
    ExprInfo local;
    ExprInfo *out = info ? info : &local;
    const uint64_t scope = scope_ids_.back();
    auto cached = cache_.find({e.get(), scope});
    if (cached != cache_.end()) {
        *out = cached->second.info;
        return cached->second.result;
    }
    Expr result = dispatch(e, out);
    // Keyed by the input and by the result, which is already simplified.
    std::vector<CacheKey> &keys = scope_keys_.back();
    for (const Expr &key : {e, result}) {
        if (cache_.emplace(CacheKey{key.get(), scope}, CacheEntry{key, result, *out}).second) {
            keys.push_back({key.get(), scope});
        }
    }
    return result;
}

Expr Simplifier::dispatch(const Expr &e, ExprInfo *out) {
    *out = ExprInfo{};
    switch (e.node_type()) {
        case IRNodeType::IntImm:
        case IRNodeType::UIntImm:
            if (auto v = const_int(e))
                *out = make_info(e.type(), *v, *v, ModulusRemainder::constant(*v));
            return e;
        case IRNodeType::FloatImm:
        case IRNodeType::StringImm:
            return e;
        case IRNodeType::Cast:
            return visit_cast(e.as<Cast>(), out);
        case IRNodeType::Variable:
            return visit_variable(e.as<Variable>(), out);
        case IRNodeType::Add:
            return visit_add(e.as<Add>(), out);
        case IRNodeType::Sub:
            return visit_sub(e.as<Sub>(), out);
        case IRNodeType::Mul:
            return visit_mul(e.as<Mul>(), out);
        case IRNodeType::Div:
            return visit_div(e.as<Div>(), out);
        case IRNodeType::Mod:
            return visit_mod(e.as<Mod>(), out);
        case IRNodeType::Min:
        case IRNodeType::Max:
            return visit_min_max(e, out);
        case IRNodeType::EQ:
        case IRNodeType::NE:
        case IRNodeType::LT:
        case IRNodeType::LE:
        case IRNodeType::GT:
        case IRNodeType::GE:
            return visit_compare(e, out);
        case IRNodeType::And:
        case IRNodeType::Or:
            return visit_and_or(e, out);
        case IRNodeType::Not:
            return visit_not(e.as<Not>(), out);
        case IRNodeType::Select:
            return visit_select(e.as<Select>(), out);
        case IRNodeType::Load:
            return visit_load(e.as<Load>(), out);
        case IRNodeType::Ramp:
            return visit_ramp(e.as<Ramp>(), out);
        case IRNodeType::Broadcast:
            return visit_broadcast(e.as<Broadcast>(), out);
        case IRNodeType::Call:
            return visit_call(e.as<Call>(), out);
        case IRNodeType::Let:
            return visit_let(e.as<Let>(), out);
        case IRNodeType::Shuffle:
            return visit_shuffle(e.as<Shuffle>(), out);
        case IRNodeType::VectorReduce:
            return visit_vector_reduce(e.as<VectorReduce>(), out);
        default:
            internal_error << "the simplifier met a statement node as an expression";
    }
    return e;
}

Expr Simplifier::rewrite(const Expr &e, ExprInfo *info) {
    if (rewrite_depth_ >= kMaxRewriteDepth) {
        // A chain of rewrites this long means two rules undo each other; stop rather than loop.
        *info = type_info(e.type());
        return e;
    }
    rewrite_depth_++;
    Expr result = mutate(e, info);
    rewrite_depth_--;
    return result;
}

ExprInfo Simplifier::variable_info(const Variable *op) {
    if (const ExprInfo *known = var_info_.find(op->name)) return *known;
    ExprInfo info = type_info(op->type);
    if (user_bounds_ && op->type.is_int_or_uint()) {
        if (const ConstantBounds *b = user_bounds_->find(op->name)) {
            if (b->min && (!info.min || *b->min > *info.min)) info.min = b->min;
            if (b->max && (!info.max || *b->max < *info.max)) info.max = b->max;
        }
    }
    return info;
}

Expr Simplifier::visit_variable(const Variable *op, ExprInfo *info) {
    if (const Expr *replacement = replacements_.find(op->name)) {
        if (replacement->defined()) {
            // Simplified when it was bound, in the scope it came from: return it as it is (a
            // second simplification here could resolve its names against inner lets).
            *info = var_info_.get(op->name);
            return *replacement;
        }
    }
    *info = variable_info(op);
    return op;
}

namespace {

/// The names of the variables `e` mentions.
std::vector<std::string> variable_names(const Expr &e) {
    struct Collect : IRVisitor {
        std::vector<std::string> names;
        using IRVisitor::visit;
        void visit(const Variable *op) override { names.push_back(op->name); }
    } collect;
    collect.include(e);
    return collect.names;
}

}  // namespace

bool Simplifier::bind_let(const std::string &name, const Expr &value, const ExprInfo &value_info) {
    scope_ids_.push_back(next_scope_id_++);
    scope_keys_.emplace_back();
    // Constants, variables, and broadcasts or ramps of them cost nothing to repeat, and
    // substituting them lets vector rules see through the let.
    auto leaf = [](const Expr &x) { return x.as<Variable>() || is_const(x); };
    const auto *bc = value.as<Broadcast>();
    const auto *ramp = value.as<Ramp>();
    // So does a variable plus a constant (the last point of a region of constant size).
    const auto *add = value.as<Add>();
    bool offset = add && add->a.as<Variable>() && is_const(add->b);
    bool cheap = leaf(value) || is_const_value(value) || (bc && leaf(bc->value)) ||
                 (ramp && leaf(ramp->base) && leaf(ramp->stride)) || offset;
    bool substitute = cheap;
    replacements_.push(name, substitute ? value : Expr());
    let_values_.push(name, substitute ? Expr() : value);
    var_info_.push(name, value_info);
    if (substitute) {
        for (const std::string &n : variable_names(value))
            names_in_replacements_[n]++;
    }
    return substitute;
}

std::optional<int64_t> Simplifier::constant_through_lets(const Expr &e) {
    // Each round replaces the lets the expression mentions by their values, which may mention
    // earlier lets; a few rounds reach the loop variables a region is made of. The size cap
    // keeps a long chain (local_laplacian's pyramids) from growing a large expression for
    // nothing.
    constexpr int kRounds = 6;
    constexpr int kMaxNodes = 400;
    struct CountNodes : IRVisitor {
        int nodes = 0;
        void include(const Expr &x) override {
            nodes++;
            IRVisitor::include(x);
        }
    };
    Expr x = e;
    struct Restore {
        bool &flag;
        bool value;
        ~Restore() { flag = value; }
    } restore{through_lets_, through_lets_};
    through_lets_ = true;
    for (int round = 0; round < kRounds; round++) {
        std::map<std::string, Expr> values;
        for (const std::string &n : variable_names(x)) {
            const Expr *value = let_values_.find(n);
            if (value && value->defined()) values.emplace(n, *value);
        }
        if (values.empty()) return std::nullopt;
        x = substitute(values, x);
        CountNodes count;
        count.include(x);
        if (count.nodes > kMaxNodes) return std::nullopt;
        x = mutate(x);
        if (auto c = as_const_int(x)) return c;
    }
    return std::nullopt;
}

void Simplifier::bind_opaque(const std::string &name, const ExprInfo &value_info) {
    scope_ids_.push_back(next_scope_id_++);
    scope_keys_.emplace_back();
    replacements_.push(name, Expr());
    let_values_.push(name, Expr());
    var_info_.push(name, value_info);
}

void Simplifier::unbind(const std::string &name) {
    // Nothing can look the closed scope's results up again.
    for (const CacheKey &key : scope_keys_.back())
        cache_.erase(key);
    scope_keys_.pop_back();
    scope_ids_.pop_back();
    const Expr &replacement = replacements_.get(name);
    if (replacement.defined()) {
        for (const std::string &n : variable_names(replacement))
            names_in_replacements_[n]--;
    }
    replacements_.pop(name);
    let_values_.pop(name);
    var_info_.pop(name);
}

std::string Simplifier::rename_if_captured(const std::string &name) {
    auto it = names_in_replacements_.find(name);
    if (it == names_in_replacements_.end() || it->second == 0) return name;
    // A substituted value mentions an outer `name`; binding it here would capture those
    // occurrences. The new name only needs to differ from every name in scope.
    std::string fresh;
    do {
        fresh = name + "_" + std::to_string(++rename_counter_);
    } while (replacements_.contains(fresh) || (user_bounds_ && user_bounds_->contains(fresh)) ||
             names_in_replacements_.count(fresh));
    return fresh;
}

Expr Simplifier::visit_let(const Let *op, ExprInfo *info) {
    ExprInfo value_info;
    Expr value = mutate(op->value, &value_info);
    std::string name = rename_if_captured(op->name);
    Expr body = op->body;
    if (name != op->name) body = substitute(op->name, Variable::make(value.type(), name), body);
    bool substituted = bind_let(name, value, value_info);
    body = mutate(body, info);
    unbind(name);
    if (substituted || !expr_uses_var(body, name)) return body;
    if (name == op->name && value.same_as(op->value) && body.same_as(op->body)) return op;
    return Let::make(name, value, body);
}

}  // namespace simplify_internal

using simplify_internal::Simplifier;

Expr simplify(const Expr &e) {
    return Simplifier(nullptr).mutate(e);
}

Expr simplify(const Expr &e, const Scope<ConstantBounds> &bounds) {
    return Simplifier(&bounds).mutate(e);
}

Stmt simplify(const Stmt &s) {
    return Simplifier(nullptr).mutate(s);
}

Stmt simplify(const Stmt &s, const Scope<ConstantBounds> &bounds) {
    return Simplifier(&bounds).mutate(s);
}

namespace {
ConstantBounds bounds_with(const Expr &e, const Scope<ConstantBounds> *bounds) {
    simplify_internal::ExprInfo info;
    Simplifier(bounds).mutate(e, &info);
    ConstantBounds result;
    if (e.type().is_int_or_uint()) {
        result.min = info.min;
        result.max = info.max;
    }
    return result;
}
}  // namespace

ConstantBounds constant_bounds(const Expr &e) {
    return bounds_with(e, nullptr);
}

ConstantBounds constant_bounds(const Expr &e, const Scope<ConstantBounds> &bounds) {
    return bounds_with(e, &bounds);
}

bool can_prove(const Expr &condition) {
    return is_const_true(simplify(condition));
}

bool can_prove(const Expr &condition, const Scope<ConstantBounds> &bounds) {
    return is_const_true(simplify(condition, bounds));
}

}  // namespace dsl::ir
