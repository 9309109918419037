#include "lowering/VectorizeLoops.h"

#include <iostream>
#include <optional>

#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/StoreFold.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Thrown when a loop body holds something this pass cannot widen; the loop then stays serial.
struct CannotVectorize {
    std::string reason;
};

/// Widens the body of one vectorized loop: the loop variable becomes a ramp of `L` lanes, and
/// every expression that depends on it becomes a vector. Scalars meeting vectors are broadcast.
/// Stores and loads under a condition that differs between lanes are predicated.
///
/// The body may already hold vectors of `n` lanes (a vectorized loop inside this one): such an
/// expression becomes `n * L` lanes, lane `k * n + i` being lane `i` at the loop's k-th value,
/// so the inner loop's lanes stay adjacent (a VectorReduce over them keeps its groups).
///
/// A store whose place does not depend on the lane, of an associative update (an RVar loop
/// the race check let through: atomic() or allow_race_conditions()), folds the lanes' terms
/// with a VectorReduce before folding them into the running value.
class Widen : public IRMutator {
  public:
    Widen(const std::string &var, Expr min, int lanes) : var_(var), lanes_(lanes) {
        ramp_ = Ramp::make(std::move(min), make_one(Int(32)), lanes);
    }
    using IRMutator::mutate;

  protected:
    using IRMutator::visit;

    static int lanes_of(const Expr &e) { return e.type().lanes(); }

    /// `e`, the mutated form of an expression of `before` lanes, as a value of `target * L`
    /// lanes where `target` is the lanes of the expression it meets (`before` is 1 or
    /// `target`): unchanged values are repeated, widened scalars spread over the inner lanes.
    Expr fit(const Expr &e, int before, int target) const {
        int want = target * lanes_;
        if (lanes_of(e) == want) return e;
        if (lanes_of(e) == before) {
            return before == 1 ? Broadcast::make(e, want) : Broadcast::make(e, lanes_);
        }
        internal_assert(before == 1 && lanes_of(e) == lanes_)
            << "vectorizing: " << lanes_of(e) << " lanes where " << before << " or " << want
            << " were expected";
        std::vector<int> indices;
        for (int k = 0; k < lanes_; k++) {
            for (int i = 0; i < target; i++)
                indices.push_back(k);
        }
        return Shuffle::make({e}, indices);
    }
    bool widened(const Expr &mutated, const Expr &original) const {
        return lanes_of(mutated) != lanes_of(original);
    }

    Expr visit(const Variable *op) override {
        if (op->name == var_) return ramp_;
        if (const Expr *v = widened_lets_.find(op->name))
            return Variable::make(v->type(), op->name);
        return op;
    }

#define DSL_WIDEN_BINARY(T)                                                         \
    Expr visit(const T *op) override {                                              \
        Expr a = mutate(op->a), b = mutate(op->b);                                  \
        if (a.same_as(op->a) && b.same_as(op->b)) return op;                        \
        if (widened(a, op->a) || widened(b, op->b)) {                               \
            int n = lanes_of(op->a);                                                \
            return T::make(fit(a, lanes_of(op->a), n), fit(b, lanes_of(op->b), n)); \
        }                                                                           \
        return T::make(a, b);                                                       \
    }
    DSL_WIDEN_BINARY(Add)
    DSL_WIDEN_BINARY(Sub)
    DSL_WIDEN_BINARY(Mul)
    DSL_WIDEN_BINARY(Div)
    DSL_WIDEN_BINARY(Mod)
    DSL_WIDEN_BINARY(Min)
    DSL_WIDEN_BINARY(Max)
    DSL_WIDEN_BINARY(EQ)
    DSL_WIDEN_BINARY(NE)
    DSL_WIDEN_BINARY(LT)
    DSL_WIDEN_BINARY(LE)
    DSL_WIDEN_BINARY(GT)
    DSL_WIDEN_BINARY(GE)
    DSL_WIDEN_BINARY(And)
    DSL_WIDEN_BINARY(Or)
#undef DSL_WIDEN_BINARY

    Expr visit(const Not *op) override {
        Expr a = mutate(op->a);
        return a.same_as(op->a) ? Expr(op) : Not::make(a);
    }

    Expr visit(const Cast *op) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return op;
        return Cast::make(op->type.with_lanes(v.type().lanes()), v);
    }

    Expr visit(const Select *op) override {
        Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
        if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
            return op;
        if (!widened(c, op->condition) && !widened(t, op->true_value) &&
            !widened(f, op->false_value)) {
            return Select::make(c, t, f);
        }
        int n = lanes_of(op->true_value);
        // A scalar condition that stays scalar may pick vectors.
        Expr cond = widened(c, op->condition) || n == lanes_of(op->condition)
                        ? fit(c, lanes_of(op->condition), n)
                        : c;
        return Select::make(cond, fit(t, n, n), fit(f, n, n));
    }

    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        int n = lanes_of(op->index);
        if (n == 1) {
            if (index.type().is_scalar() && !mask_.defined()) {
                if (index.same_as(op->index)) return op;
                return Load::make(op->type, op->name, index, op->predicate, op->alignment);
            }
            // Lanes past a guarded tail must not touch memory: loads share the active mask.
            Expr predicate = mask_.defined() ? mask_ : make_bool(true, lanes_);
            return Load::make(op->type.with_lanes(lanes_), op->name, fit(index, 1, 1), predicate,
                              op->alignment);
        }
        Expr predicate = mutate(op->predicate);
        if (!widened(index, op->index) && !widened(predicate, op->predicate) && !mask_.defined()) {
            if (index.same_as(op->index) && predicate.same_as(op->predicate)) return op;
            return Load::make(op->type, op->name, index, predicate, op->alignment);
        }
        predicate = fit(predicate, lanes_of(op->predicate), n);
        if (mask_.defined()) predicate = And::make(predicate, fit(mask_, 1, n));
        return Load::make(op->type.with_lanes(n * lanes_), op->name, fit(index, n, n), predicate,
                          op->alignment);
    }

    Expr visit(const Call *op) override {
        std::vector<Expr> args;
        bool changed = mutate_exprs(op->args, &args);
        if (!changed) return op;
        bool vector = false;
        for (size_t i = 0; i < args.size(); i++)
            vector |= widened(args[i], op->args[i]);
        if (!vector) return op->with_args(args);
        if (op->call_type == Call::CallType::Extern ||
            op->call_type == Call::CallType::PureExtern) {
            return scalarized_extern_call(op, args);
        }
        if (op->call_type != Call::CallType::Intrinsic)
            throw CannotVectorize{"it calls " + op->name};
        if (op->intrinsic == Call::Intrinsic::Print) {
            // Prints the vectors as they are; its value is its first value's.
            Type t = args.size() > 2 ? args[2].type() : op->type;
            return Call::make(t, op->intrinsic, args);
        }
        if (op->intrinsic == Call::Intrinsic::Require) {
            // Checks every lane of the condition; the value is the value's, vector or not.
            return Call::make(args[1].type(), op->intrinsic, args);
        }
        if (op->intrinsic == Call::Intrinsic::Trace) {
            // One event of the vectors (a load's or store's lanes); a load's value is the
            // vector, other events' the id.
            const auto *event = op->args[0].as<IntImm>();
            bool access = event && (event->value == 0 || event->value == 1);
            internal_assert(access)
                << "a tracing event other than a load or store in a vector loop";
            int before = 1;
            for (size_t i = 4; i < args.size(); i++)
                before = std::max(before, lanes_of(op->args[i]));
            for (size_t i = 4; i < args.size(); i++)
                args[i] = fit(args[i], lanes_of(op->args[i]), before);
            return Call::make(event->value == 0 ? args[4].type() : op->type, op->intrinsic, args);
        }
        int n = op->type.lanes();
        for (size_t i = 0; i < args.size(); i++) {
            int before = lanes_of(op->args[i]);
            if (before != 1 && before != n)
                throw CannotVectorize{"it calls " + op->name + " on vectors of another width"};
            args[i] = fit(args[i], before, n);
        }
        return Call::make(op->type.with_lanes(n * lanes_), op->intrinsic, args);
    }

    /// A C function takes scalars: one call per lane, in lane order, on each argument's lane
    /// (the vectors bound to lets first, so that each is computed once).
    Expr scalarized_extern_call(const Call *op, std::vector<Expr> args) {
        internal_assert(op->type.is_scalar()) << "a vector-valued extern call " << op->name;
        const int n = lanes_;
        std::vector<std::pair<std::string, Expr>> lets;
        for (size_t i = 0; i < args.size(); i++) {
            args[i] = fit(args[i], lanes_of(op->args[i]), 1);
            if (args[i].as<Variable>() || args[i].as<Broadcast>()) continue;
            std::string name = op->name + ".arg" + std::to_string(i) + "." + var_ + "." +
                               std::to_string(extern_lets_++);
            lets.push_back({name, args[i]});
            args[i] = Variable::make(args[i].type(), name);
        }
        std::vector<Expr> lanes;
        for (int lane = 0; lane < n; lane++) {
            std::vector<Expr> scalar;
            for (const Expr &a : args) {
                const auto *b = a.as<Broadcast>();
                scalar.push_back(b ? b->value : Shuffle::make_extract_element(a, lane));
            }
            lanes.push_back(op->with_args(scalar));
        }
        Expr e = Shuffle::make_concat(lanes);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            e = Let::make(it->first, it->second, e);
        return e;
    }

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        if (widened(value, op->value)) {
            ScopedBinding<Expr> bind(widened_lets_, op->name, value);
            Expr body = mutate(op->body);
            return Let::make(op->name, value, body);
        }
        Expr body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }

    Expr visit(const Ramp *op) override {
        Expr base = mutate(op->base), stride = mutate(op->stride);
        if (!widened(base, op->base) && !widened(stride, op->stride)) {
            if (base.same_as(op->base) && stride.same_as(op->stride)) return op;
            return Ramp::make(base, stride, op->lanes);
        }
        if (lanes_of(op->base) != 1) throw CannotVectorize{"it holds a ramp of vectors"};
        int n = op->lanes;
        if (!widened(stride, op->stride)) {
            // base + j * stride for j < n, at base = b + k * s for k < L: one ramp when s is
            // n strides (an inner vector of a row, and the outer loop over whole rows).
            Expr joined = simplify(base);
            if (const auto *outer = joined.as<Ramp>()) {
                Expr gap = simplify(
                    Sub::make(outer->stride, Mul::make(stride, make_const(stride.type(), n))));
                if (is_const_zero(gap)) return Ramp::make(outer->base, stride, n * lanes_);
            }
            return Add::make(
                fit(base, 1, n),
                Broadcast::make(Ramp::make(make_zero(op->base.type()), stride, n), lanes_));
        }
        Expr steps = Broadcast::make(
            Ramp::make(make_zero(op->base.type()), make_one(op->base.type()), n), lanes_);
        return Add::make(fit(base, 1, n), Mul::make(fit(stride, 1, n), steps));
    }
    Expr visit(const Broadcast *op) override {
        Expr value = mutate(op->value);
        if (!widened(value, op->value)) {
            return value.same_as(op->value) ? Expr(op) : Broadcast::make(value, op->lanes);
        }
        // Lane k * (m * count) + i is lane i % m of the value at the k-th value of the loop.
        int m = lanes_of(op->value), n = lanes_of(op->value) * op->lanes;
        std::vector<int> indices;
        for (int k = 0; k < lanes_; k++) {
            for (int i = 0; i < n; i++)
                indices.push_back(k * m + i % m);
        }
        return Shuffle::make({value}, indices);
    }
    Expr visit(const Shuffle *op) override {
        std::vector<Expr> vectors;
        bool changed = mutate_exprs(op->vectors, &vectors);
        if (!changed) return op;
        bool any = false;
        for (size_t v = 0; v < vectors.size(); v++)
            any |= widened(vectors[v], op->vectors[v]);
        if (!any) return Shuffle::make(vectors, op->indices);
        // Where each original lane lives: its vector, and its lane there.
        std::vector<int> offset;
        int total = 0;
        for (size_t v = 0; v < vectors.size(); v++) {
            int n = lanes_of(op->vectors[v]);
            vectors[v] = fit(vectors[v], n, n);
            offset.push_back(total);
            total += n * lanes_;
        }
        std::vector<int> indices;
        for (int k = 0; k < lanes_; k++) {
            for (int idx : op->indices) {
                size_t v = 0;
                int first = 0;
                while (idx >= first + lanes_of(op->vectors[v])) {
                    first += lanes_of(op->vectors[v]);
                    v++;
                }
                int n = lanes_of(op->vectors[v]);
                indices.push_back(offset[v] + k * n + (idx - first));
            }
        }
        return Shuffle::make(vectors, indices);
    }
    Expr visit(const VectorReduce *op) override {
        Expr value = mutate(op->value);
        if (!widened(value, op->value)) {
            return value.same_as(op->value) ? Expr(op)
                                            : VectorReduce::make(op->op, value, op->type.lanes());
        }
        // Groups of adjacent lanes stay adjacent: one group per output lane, as before.
        return VectorReduce::make(op->op, value, op->type.lanes() * lanes_);
    }

    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        if (widened(value, op->value)) {
            ScopedBinding<Expr> bind(widened_lets_, op->name, value);
            Stmt body = mutate(op->body);
            return LetStmt::make(op->name, value, body);
        }
        Stmt body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

    /// The store of a fold whose place does not change with the lane: the lanes' terms are
    /// folded together first (lanes past a guarded tail give the identity), then into the
    /// running value, once. `n` is the lanes of the store as it was (its running value too).
    Stmt fold_lanes(const Store *op, const StoreFold &fold, Expr term, int n) {
        term = fit(term, lanes_of(fold.term), n);
        // Which lanes contribute: the store's predicate, where it now differs between this
        // loop's lanes (an inner vector's mask naming this loop's variable), and the mask.
        Expr predicate = mutate(op->predicate);
        const bool per_lane = widened(predicate, op->predicate);
        Expr active = per_lane ? fit(predicate, lanes_of(op->predicate), n) : Expr();
        if (mask_.defined()) {
            Expr m = fit(mask_, 1, n);
            active = active.defined() ? And::make(active, m) : m;
        }
        if (active.defined()) {
            term = Select::make(active, term, fold_identity(fold.op, term.type()));
        }
        // Lanes k * n + i for k < L hold the terms of lane i: gather them side by side.
        auto by_place = [&](const Expr &v) {
            if (n == 1) return v;
            std::vector<int> indices;
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < lanes_; k++)
                    indices.push_back(k * n + i);
            }
            return Shuffle::make({v}, indices);
        };
        Expr folded = VectorReduce::make(fold.op, by_place(term), n);
        // A place is stored (and its running value loaded) where any of its lanes is active.
        Expr stored =
            per_lane ? VectorReduce::make(VectorReduce::Op::Or, by_place(active), n) : predicate;
        const auto *load = fold.running.as<Load>();
        Expr running = Load::make(load->type, load->name, load->index, stored, load->alignment);
        Expr value =
            fold.subtract ? Sub::make(running, folded) : fold_combine(fold.op, running, folded);
        Stmt store = Store::make(op->name, value, op->index, stored, op->alignment);
        if (!mask_.defined() || per_lane) return store;
        return IfThenElse::make(VectorReduce::make(VectorReduce::Op::Or, mask_, 1), store);
    }

    Stmt visit(const Store *op) override {
        Expr index = mutate(op->index);
        int n = lanes_of(op->index);
        if (!widened(index, op->index)) {
            // One place for every lane. A fold of the lanes' terms into it (an associative
            // update over an RVar) reduces them first.
            if (auto fold = find_store_fold(op)) {
                Expr term = mutate(fold->term);
                if (widened(term, fold->term)) return fold_lanes(op, *fold, term, n);
            }
            // A value that does not vary with the lane is stored once; under a mask (the tail
            // of a guarded split where a single lane is left, its coordinate known), if any
            // lane is on, computed without the mask under that test.
            Expr mask = mask_;
            mask_ = Expr();
            Expr value = mutate(op->value);
            mask_ = mask;
            Expr predicate = mutate(op->predicate);
            if (widened(value, op->value) || widened(predicate, op->predicate)) {
                throw CannotVectorize{"every lane would store to the same place (" + op->name +
                                      ")"};
            }
            Stmt store = value.same_as(op->value) && index.same_as(op->index) &&
                                 predicate.same_as(op->predicate)
                             ? Stmt(op)
                             : Store::make(op->name, value, index, predicate, op->alignment);
            if (!mask.defined()) return store;
            return IfThenElse::make(VectorReduce::make(VectorReduce::Op::Or, mask, 1), store);
        }
        Expr value = mutate(op->value);
        Expr predicate = n == 1 ? make_bool(true, lanes_)
                                : fit(mutate(op->predicate), lanes_of(op->predicate), n);
        if (mask_.defined()) {
            Expr m = fit(mask_, 1, n);
            predicate = n == 1 ? m : And::make(predicate, m);
        }
        return Store::make(op->name, fit(value, lanes_of(op->value), n), index, predicate,
                           op->alignment);
    }

    Stmt visit(const IfThenElse *op) override {
        // The tail of a guarded split where one lane is left (`if (ki <= 0)` with ki from 0):
        // its body runs once, for that lane, as scalars.
        if (!op->else_case.defined() && !mask_.defined()) {
            if (auto lane = single_lane(op->condition))
                return mutate(substitute(var_, make_const(Int(32), *lane), op->then_case));
        }
        Expr condition = mutate(op->condition);
        if (condition.type().is_scalar()) return IRMutator::visit(op);
        // A condition that differs between lanes: predicate both branches.
        Expr saved = mask_;
        mask_ = saved.defined() ? And::make(saved, condition) : condition;
        Stmt then_case = mutate(op->then_case);
        Stmt else_case;
        if (op->else_case.defined()) {
            Expr negated = Not::make(condition);
            mask_ = saved.defined() ? And::make(saved, negated) : negated;
            else_case = mutate(op->else_case);
        }
        mask_ = saved;
        return else_case.defined() ? Block::make(then_case, else_case) : then_case;
    }

    Stmt visit(const For *op) override {
        Expr min = mutate(op->min), extent = mutate(op->extent);
        if (min.type().is_vector() || extent.type().is_vector()) {
            throw CannotVectorize{"the bounds of the inner loop " + op->name +
                                  " depend on the vectorized loop"};
        }
        if (mask_.defined())
            throw CannotVectorize{"a loop lies under a condition that differs between lanes"};
        return IRMutator::visit(op);
    }

    Stmt visit(const Allocate *op) override {
        throw CannotVectorize{"it allocates " + op->name};
    }
    Stmt visit(const Atomic *op) override {
        throw CannotVectorize{"its stores to " + op->name +
                              " are atomic (a stage scheduled atomic() with a parallel loop "
                              "over its RVars), one element at a time"};
    }
    Stmt visit(const AssertStmt *) override {
        throw CannotVectorize{"it holds an assertion"};
    }
    Stmt visit(const Evaluate *op) override {
        const auto *call = op->value.as<Call>();
        if (!call || !call->is_intrinsic(Call::Intrinsic::Trace))
            throw CannotVectorize{"it evaluates an expression for its effects"};
        // A tracing event of the vector's lanes.
        Stmt s = IRMutator::visit(op);
        if (!mask_.defined()) return s;
        // Under a condition that differs between lanes: an event of each lane that runs.
        const auto *widened_call = s.as<Evaluate>()->value.as<Call>();
        const int n = lanes_of(widened_call->args[4]);
        if (n < lanes_) {
            return IfThenElse::make(VectorReduce::make(VectorReduce::Op::Or, mask_, 1), s);
        }
        Expr mask = fit(mask_, 1, n / lanes_);
        std::vector<Stmt> events;
        for (int lane = 0; lane < n; lane++) {
            std::vector<Expr> args = widened_call->args;
            for (size_t i = 4; i < args.size(); i++) {
                if (lanes_of(args[i]) == n) args[i] = Shuffle::make_extract_element(args[i], lane);
            }
            events.push_back(IfThenElse::make(Shuffle::make_extract_element(mask, lane),
                                              Evaluate::make(call->with_args(args))));
        }
        return Block::make(events);
    }

  private:
    /// The one value of the loop's variable (from its first) for which `c` holds, when `c`
    /// says `var <= first`, `var < first + 1` or `var == first`.
    std::optional<int64_t> single_lane(const Expr &c) const {
        const auto first = as_const_int(ramp_.as<Ramp>()->base);
        if (!first) return std::nullopt;
        auto is_var = [&](const Expr &e) {
            const auto *v = e.as<Variable>();
            return v && v->name == var_;
        };
        auto bound = [&](const Expr &a, const Expr &b, int64_t past) -> std::optional<int64_t> {
            const auto limit = as_const_int(b);
            if (!is_var(a) || !limit || *limit + past != *first) return std::nullopt;
            return *first;
        };
        if (const auto *le = c.as<LE>()) return bound(le->a, le->b, 0);
        if (const auto *lt = c.as<LT>()) return bound(lt->a, lt->b, -1);
        if (const auto *eq = c.as<EQ>()) return bound(eq->a, eq->b, 0);
        return std::nullopt;
    }

    std::string var_;
    int lanes_;
    int extern_lets_ = 0;  // names the lets of scalarized extern calls
    Expr ramp_;
    Expr mask_;
    Scope<Expr> widened_lets_;
};

/// Whether a statement holds a vector (a vectorized loop inside it, already widened).
bool holds_vectors(const Stmt &s) {
    class Finder : public IRVisitor {
      public:
        bool found = false;

      protected:
        using IRVisitor::visit;
        void visit(const Ramp *) override { found = true; }
        void visit(const Broadcast *) override { found = true; }
    } finder;
    finder.include(s);
    return finder.found;
}

class VectorizeLoops : public IRMutator {
  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (op->for_type != ForType::Vectorized) return IRMutator::visit(op);
        Stmt body = mutate(op->body);
        // A vectorized loop inside: fold its ramps first (ramp(0, 1, 4) + x4(b) is ramp(b, 1,
        // 4)), so that widening them again can join whole rows into one dense ramp.
        if (holds_vectors(body)) body = simplify(body);
        auto extent = as_const_int(op->extent);
        user_assert(extent)
            << "cannot vectorize the loop " << op->name << ": its extent " << op->extent
            << " is not a constant. Give a width, e.g. vectorize(x, 16), which splits the "
               "loop first.";
        if (*extent == 1) return LetStmt::make(op->name, op->min, body);
        try {
            return Widen(op->name, op->min, static_cast<int>(*extent)).mutate(body);
        } catch (const CannotVectorize &c) {
            // Through lowering's warnings: stored with the code, and reported again when the
            // disk cache supplies it.
            user_warning << "the loop " << op->name << " stays scalar, because " << c.reason
                         << "; vectorize another loop of it (or none).";
            return For::make(op->name, op->min, op->extent, ForType::Serial, op->device_api, body);
        }
    }
};

}  // namespace

Stmt vectorize_loops(const Stmt &s) {
    return VectorizeLoops().mutate(s);
}

}  // namespace dsl::lowering
