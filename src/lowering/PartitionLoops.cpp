#include "lowering/PartitionLoops.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/LinearBounds.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Bodies larger than this many nodes (counted as a tree) are not copied: the compile time of
/// three copies would outweigh what the steady state gains.
constexpr int kMaxBodyNodes = 60000;
/// The edges of a loop partitioned on likely conditions are partitioned in turn only when its
/// body is at most this many nodes.
constexpr int kMaxEdgeNodes = 3000;
/// A loop whose body holds only loops of at most this many iterations is partitioned too: in a
/// histogram's update over pixels with the channels innermost, the clamps of the pixel's
/// coordinates are in the loop over pixels.
constexpr int64_t kMaxShortLoop = 4;

class CountNodes : public IRVisitor {
  public:
    int count = 0;
    /// Whether the body holds a loop other than a short one of constant count (at most
    /// kMaxShortLoop iterations: the channels of a pixel, which LLVM unrolls).
    bool has_loop = false;
    /// Whether it holds any loop at all.
    bool has_inner_loop = false;
    void include(const Expr &e) override {
        if (e.defined() && count <= kMaxBodyNodes) {
            count++;
            IRVisitor::include(e);
        }
    }
    void include(const Stmt &s) override {
        if (s.defined() && count <= kMaxBodyNodes) {
            count++;
            if (const auto *loop = s.as<For>()) {
                auto trips = as_const_int(loop->extent);
                has_loop |= !trips || *trips > kMaxShortLoop;
                has_inner_loop = true;
            }
            IRVisitor::include(s);
        }
    }
};

/// What a loop body may change: the buffers it stores to, and whether it calls outside code
/// (which may write anything).
class Writes : public IRVisitor {
  public:
    std::set<std::string> buffers;
    bool calls_out = false;

  protected:
    using IRVisitor::visit;
    void visit(const Store *op) override {
        buffers.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        calls_out |= op->call_type != Call::CallType::Intrinsic;
        IRVisitor::visit(op);
    }
};

/// Whether an expression reads memory the loop may change, or calls outside code: its value may
/// then change from one iteration to the next even when it names nothing the loop binds (an
/// update that takes the max of the value it stores: fuzzer case 763053). A load of a buffer the
/// loop never writes (a look-up table) at an index fixed over the loop is fixed too.
class ReadsChangingMemory : public IRVisitor {
  public:
    explicit ReadsChangingMemory(const Writes &writes) : writes_(writes) {}
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Load *op) override {
        found |= writes_.calls_out || writes_.buffers.count(op->name) > 0;
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        found |= op->call_type != Call::CallType::Intrinsic;
        IRVisitor::visit(op);
    }

  private:
    const Writes &writes_;
};

/// Rewrites a loop body into its steady state: every clamp of a linear expression of the loop
/// variable by a loop-invariant bound becomes the expression, and the range of the loop variable
/// where that is exact is recorded as bounds on it.
///
/// Across inner loops (`across_loops`, for a loop whose body holds a condition marked likely),
/// an expression may also use the variables of loops inside whose bounds do not move with this
/// one (a tap of a kernel, a pixel of a tile): the clamp or condition must then hold for each of
/// their values. A condition marked likely, `likely(a && b ...)`, has each conjunct that bounds the
/// loop variable so replaced by true.
class SteadyState : public IRMutator {
  public:
    SteadyState(const std::string &var, const Writes &writes, bool across_loops = false)
        : var_(var), writes_(writes), across_loops_(across_loops) {}
    /// After mutating the body: whether any range was recorded, and the bounds on the loop
    /// variable in the steady state (at least each of `lower`, at most each of `upper`).
    bool found_range() const { return !requirements_.empty(); }
    void bounds(std::vector<Expr> &lower, std::vector<Expr> &upper) const {
        for (const Requirement &r : requirements_) {
            VarBound v = solve_linear({r.coeff, make_zero(Int(64))}, r.gap, r.at_most);
            (v.lower ? lower : upper).push_back(v.value);
        }
    }
    /// How many conjuncts of likely conditions, or clamps of values marked likely, were found
    /// true (exact) in the steady state.
    int likely_conjuncts = 0;

  protected:
    using IRMutator::visit;

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        bind(op->name, value);
        Expr body = mutate(op->body);
        unbind(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }
    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        bind(op->name, value);
        Stmt body = mutate(op->body);
        unbind(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }
    Stmt visit(const For *op) override {
        Expr min = mutate(op->min), extent = mutate(op->extent);
        bind(op->name, Expr());
        bool ranged = across_loops_ && invariant(min) && invariant(extent);
        if (ranged) ranges_[op->name] = {min, min + extent - 1};
        Stmt body = mutate(op->body);
        if (ranged) ranges_.erase(op->name);
        unbind(op->name);
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
            return op;
        }
        return For::make(op->name, min, extent, op->for_type, op->device_api, body);
    }
    Expr visit(const Min *op) override { return clamp_of(op, true); }
    Expr visit(const Max *op) override { return clamp_of(op, false); }
    Expr visit(const Call *op) override {
        if (!across_loops_ || !op->is_intrinsic(Call::Intrinsic::Likely)) {
            return IRMutator::visit(op);
        }
        Expr condition = mutate(op->args[0]);
        if (!condition.type().is_bool()) return likely(condition);
        std::vector<Expr> kept;
        for (const Expr &c : conjuncts(condition)) {
            if (holds_in_steady_state(c)) {
                likely_conjuncts++;
            } else {
                kept.push_back(c);
            }
        }
        if (kept.empty()) return const_true(condition.type().lanes());
        Expr rest = kept[0];
        for (size_t i = 1; i < kept.size(); i++)
            rest = rest && kept[i];
        return likely(rest);
    }

  private:
    /// Records that `form <= limit + slack` (at_most) or `>= limit + slack` must hold. Of two such
    /// conditions whose sides differ by a constant (the pixels and taps of an unrolled tile: x + 1
    /// <= b, x + 2 <= b, ...), only the stronger is kept.
    void require(const LinearForm &form, const Expr &limit, bool at_most, int64_t slack = 0) {
        // coeff * v <= gap (or >=), the gap in 64 bits, with the constant terms of both sides
        // added outside the casts (so that two gaps' difference simplifies to a constant).
        auto [l, kl] = split_constant(simplify(limit));
        auto [rt, kr] = split_constant(simplify(form.rest));
        Expr gap =
            simplify(cast(Int(64), l) - cast(Int(64), rt) + make_const(Int(64), kl - kr + slack));
        for (Requirement &r : requirements_) {
            if (r.coeff != form.coeff || r.at_most != at_most) continue;
            auto d = as_const_int(simplify(gap - r.gap));
            if (!d) continue;
            if (at_most ? *d < 0 : *d > 0) r.gap = gap;
            return;
        }
        requirements_.push_back({form.coeff, gap, at_most});
    }

    /// `e` as a term plus a constant (`x + 3` as (x, 3)), peeling Int(32) additions and
    /// subtractions of constants.
    static std::pair<Expr, int64_t> split_constant(const Expr &e) {
        if (auto k = as_const_int(e); k && e.type().is_scalar()) {
            return {make_zero(e.type()), *k};
        }
        if (const auto *add = e.as<Add>()) {
            if (auto k = as_const_int(add->b)) {
                auto [t, c] = split_constant(add->a);
                return {t, c + *k};
            }
        }
        if (const auto *sub = e.as<Sub>()) {
            if (auto k = as_const_int(sub->b)) {
                auto [t, c] = split_constant(sub->a);
                return {t, c - *k};
            }
        }
        return {e, 0};
    }

    struct Requirement {
        int64_t coeff;
        Expr gap;
        bool at_most;
    };
    std::vector<Requirement> requirements_;

    static Expr likely(const Expr &e) { return Call::make(e.type(), Call::Intrinsic::Likely, {e}); }

    /// Whether a comparison of Int(32) values holds for each value of the loop variable in a
    /// range that could be found (and for each value of the loops inside); records that range.
    bool holds_in_steady_state(const Expr &condition) {
        if (const auto *lanes = condition.as<Broadcast>())
            return holds_in_steady_state(lanes->value);
        auto c = as_comparison(condition);
        if (!c || c->a.type().element_of() != Int(32)) return false;
        // a <= b for every value inside: the largest a against the smallest b.
        auto ea = extreme(c->a, c->at_most), eb = extreme(c->b, !c->at_most);
        if (!ea || !eb) return false;
        auto fa = linear(*ea), fb = linear(*eb);
        if (!fa || !fb || fa->coeff == fb->coeff) return false;
        require({fa->coeff - fb->coeff, fa->rest}, fb->rest, c->at_most, c->slack);
        return true;
    }

    /// The largest (`upper`) or smallest value `e` takes over its lanes and the loops inside, as a
    /// scalar in the loop variable and invariant names, where that is simple to say.
    std::optional<Expr> extreme(const Expr &e, bool upper) const {
        // Without loops inside to range over, a scalar is its own extreme (linear() reads it
        // through the lets).
        if (e.type().is_scalar() && (ranges_.empty() || invariant(e))) return e;
        if (const auto *c = e.as<Call>(); c && c->is_intrinsic(Call::Intrinsic::Likely)) {
            return extreme(c->args[0], upper);
        }
        if (const auto *v = e.as<Variable>()) {
            if (v->name == var_) return e;
            auto r = ranges_.find(v->name);
            if (r != ranges_.end()) return upper ? r->second.second : r->second.first;
            auto it = lets_.find(v->name);
            if (it != lets_.end() && !it->second.empty() && it->second.back().defined()) {
                return extreme(it->second.back(), upper);
            }
            return std::nullopt;
        }
        if (const auto *b = e.as<Broadcast>()) return extreme(b->value, upper);
        if (const auto *r = e.as<Ramp>()) {
            auto s = as_const_int(r->stride);
            auto base = extreme(r->base, upper);
            if (!s || !base) return std::nullopt;
            // The last lane is the largest for a positive stride.
            bool last = upper == (*s > 0);
            return last ? *base + make_const(Int(32), *s * (r->lanes - 1)) : *base;
        }
        if (const auto *add = e.as<Add>()) {
            auto a = extreme(add->a, upper), b = extreme(add->b, upper);
            if (!a || !b) return std::nullopt;
            return *a + *b;
        }
        if (const auto *sub = e.as<Sub>()) {
            auto a = extreme(sub->a, upper), b = extreme(sub->b, !upper);
            if (!a || !b) return std::nullopt;
            return *a - *b;
        }
        if (const auto *mul = e.as<Mul>()) {
            auto product = constant_factor(mul);
            if (!product) return std::nullopt;
            auto [k, other] = *product;
            auto a = extreme(other, k >= 0 ? upper : !upper);
            if (!a) return std::nullopt;
            return *a * make_const(Int(32), k);
        }
        return std::nullopt;
    }

    template <typename T>
    Expr clamp_of(const T *op, bool is_min) {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (across_loops_ && op->type.element_of() == Int(32)) {
            // `min(likely(e), bound)`: e is what the clamp gives in most iterations.
            for (int side = 0; side < 2; side++) {
                const auto *marked = (side == 0 ? a : b).template as<Call>();
                if (!marked || !marked->is_intrinsic(Call::Intrinsic::Likely)) continue;
                Expr moving = marked->args[0];
                if (record(moving, side == 0 ? b : a, is_min)) {
                    likely_conjuncts++;
                    return moving;
                }
            }
        }
        if (op->type.element_of() == Int(32)) {
            if (record(a, b, is_min)) return a;
            if (record(b, a, is_min)) return b;
        }
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return T::make(a, b);
    }

    /// Whether `min(moving, bound)` (or max) is `moving` over a range of the loop variable that
    /// could be found; records that range. min: the largest value of `moving` (over its lanes and
    /// the loops inside) at most the smallest of `bound`; max: the smallest at least the largest.
    bool record(const Expr &moving, const Expr &bound, bool is_min) {
        if (!invariant(bound)) return false;
        auto m = extreme(moving, is_min), b = extreme(bound, !is_min);
        if (!m || !b) return false;
        auto form = linear(*m);
        if (!form || form->coeff == 0) return false;
        require(*form, *b, is_min);
        return true;
    }

    std::optional<LinearForm> linear(const Expr &e) const {
        return linear_form(
            e, var_, [this](const Expr &x) { return invariant(x); },
            [this](const std::string &name) {
                auto it = lets_.find(name);
                return it != lets_.end() && !it->second.empty() ? it->second.back() : Expr();
            });
    }

    /// Uses neither the loop variable nor any name bound inside the loop, and reads no memory the
    /// loop may change.
    bool invariant(const Expr &e) const {
        if (expr_uses_var(e, var_)) return false;
        ReadsChangingMemory reads(writes_);
        reads.include(e);
        if (reads.found) return false;
        for (const auto &[name, values] : lets_) {
            if (!values.empty() && expr_uses_var(e, name)) return false;
        }
        return true;
    }

    void bind(const std::string &name, const Expr &value) { lets_[name].push_back(value); }
    void unbind(const std::string &name) { lets_[name].pop_back(); }

    std::string var_;
    const Writes &writes_;
    bool across_loops_;
    // Names bound inside the loop, innermost binding last: a Let's value, or undefined for a
    // loop variable.
    std::map<std::string, std::vector<Expr>> lets_;
    // The first and last values of the loops inside whose bounds do not move with this loop.
    std::map<std::string, std::pair<Expr, Expr>> ranges_;
};

/// Whether a body holds a condition or value marked likely that uses `var` (directly or through a
/// Let).
class UsesLikely : public IRVisitor {
  public:
    explicit UsesLikely(const std::string &var) { names_.insert(var); }
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::Intrinsic::Likely) && uses(op->args[0])) found = true;
        if (!found) IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        include(op->value);
        if (uses(op->value)) names_.insert(op->name);
        include(op->body);
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        if (uses(op->value)) names_.insert(op->name);
        include(op->body);
    }

  private:
    bool uses(const Expr &e) const {
        for (const std::string &n : names_) {
            if (expr_uses_var(e, n)) return true;
        }
        return false;
    }
    std::set<std::string> names_;
};

/// The loop split into the iterations before the steady state, the steady state and those after:
/// [min, first), [first, end), [end, min + extent), each possibly empty, in order.
Stmt three_loops(const For *op, const SteadyState &steady, const Stmt &before_body,
                 const Stmt &steady_body, const Stmt &after_body) {
    std::vector<Expr> lower, upper;
    steady.bounds(lower, upper);
    Expr loop_end = op->min + op->extent;
    Expr first = op->min;
    for (const Expr &l : lower)
        first = max(first, l);
    first = simplify(min(first, loop_end));
    std::string first_name = names::steady_first(op->name), end_name = names::steady_end(op->name);
    Expr first_var = Variable::make(Int(32), first_name);
    Expr end = loop_end;
    for (const Expr &u : upper)
        end = min(end, u + 1);
    end = simplify(max(end, first_var));
    Expr end_var = Variable::make(Int(32), end_name);
    auto loop = [&](const Expr &from, const Expr &to, const Stmt &body) {
        return For::make(op->name, from, to - from, op->for_type, op->device_api, body);
    };
    // (A steady state bounded on one side only, a sliding window's iterations after the first,
    // has no edge loop on the other.)
    std::vector<Stmt> parts;
    if (!lower.empty()) parts.push_back(loop(op->min, first_var, before_body));
    parts.push_back(loop(first_var, end_var, steady_body));
    if (!upper.empty()) parts.push_back(loop(end_var, loop_end, after_body));
    Stmt loops = Block::make(parts);
    if (op->for_type == ForType::Parallel) {
        // One parallel loop whose iterations pick their body: three loops would fork and join
        // the threads three times (the edges' tasks of a row or two each), which costs more
        // than a test per task. Both edges have the same body: a parallel loop is partitioned
        // on its likely conditions only.
        internal_assert(before_body.same_as(after_body))
            << "a parallel loop's edges were given different bodies";
        Expr i = Variable::make(Int(32), op->name);
        Expr in_steady = i >= first_var && i < end_var;
        loops = For::make(op->name, op->min, op->extent, op->for_type, op->device_api,
                          IfThenElse::make(in_steady, steady_body, before_body));
    }
    return LetStmt::make(first_name, first, LetStmt::make(end_name, end, loops));
}

class PartitionLoops : public IRMutator {
  public:
    explicit PartitionLoops(bool has_likely) : has_likely_(has_likely) {}

  protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        if (std::optional<Stmt> s = partition_on_likely(op)) return *s;
        Stmt body = mutate(op->body);
        Stmt unchanged = body.same_as(op->body) ? Stmt(op)
                                                : For::make(op->name, op->min, op->extent,
                                                            op->for_type, op->device_api, body);
        // A loop that runs at most once (a split's tail) has no steady state to separate.
        if (op->for_type != ForType::Serial || at_most_one_iteration(op->extent)) return unchanged;
        CountNodes size;
        size.include(body);
        // Innermost loops only (but for short loops inside): where the clamps of vector indices
        // are, and where copying the body costs least (a loop around partitioned loops would
        // copy all three).
        if (size.count > kMaxBodyNodes || size.has_loop) return unchanged;
        if (size.has_inner_loop && !body.same_as(op->body)) return unchanged;
        Writes writes;
        writes.include(body);
        SteadyState steady(op->name, writes);
        Stmt steady_body = steady.mutate(body);
        if (!steady.found_range()) return unchanged;

        return three_loops(op, steady, body, steady_body, body);
    }

  private:
    /// A serial or parallel loop (not a short one of constant count) whose body holds a likely
    /// condition on its variable, split where those conditions hold for every iteration of the
    /// loops inside. The three loops' bodies are partitioned in turn (on the conditions that
    /// remain, over the loops inside), but not the edge loops themselves again. A parallel loop
    /// becomes three parallel loops run one after another (its iterations are independent, so
    /// any grouping of them is one of the orders it allows): rows of a stencil in parallel, the
    /// usual schedule, then read the steady state's rows without the boundary's tests.
    std::optional<Stmt> partition_on_likely(const For *op) {
        const bool host_loop =
            op->for_type == ForType::Serial ||
            (op->for_type == ForType::Parallel && op->device_api == DeviceAPI::None);
        if (!has_likely_ || !host_loop || at_most_one_iteration(op->extent)) {
            return std::nullopt;
        }
        if (auto trips = as_const_int(op->extent); trips && *trips <= kMaxShortLoop) {
            return std::nullopt;
        }
        UsesLikely likely(op->name);
        likely.include(op->body);
        if (!likely.found) return std::nullopt;
        CountNodes size;
        size.include(op->body);
        if (size.count > kMaxBodyNodes) return std::nullopt;
        Writes writes;
        writes.include(op->body);
        SteadyState steady(op->name, writes, true);
        Stmt steady_body = steady.mutate(op->body);
        if (steady.likely_conjuncts == 0) return std::nullopt;
        // The edges (a few iterations: an image's border rows, a sliding window's first) are
        // partitioned in turn only while small: each level of nested likely loops copies what
        // is inside it, so partitioning every edge grows the code exponentially with the depth
        // (a fuzzed pipeline of boundary conditions and sliding windows made 15,000 lines of
        // loops that LLVM took minutes over).
        Stmt edge_body = size.count <= kMaxEdgeNodes ? mutate(op->body) : op->body;
        return three_loops(op, steady, edge_body, mutate(steady_body), edge_body);
    }

    bool has_likely_;
};

}  // namespace

Stmt partition_loops(const Stmt &s) {
    bool has_likely =
        any_call(s, [](const Call *op) { return op->is_intrinsic(Call::Intrinsic::Likely); });
    return PartitionLoops(has_likely).mutate(s);
}

}  // namespace dsl::lowering
