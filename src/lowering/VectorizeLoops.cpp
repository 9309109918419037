#include "lowering/VectorizeLoops.h"

#include <iostream>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Thrown when a loop body holds something this pass cannot widen; the loop then stays serial.
struct CannotVectorize {
    std::string reason;
};

/// Widens the body of one vectorized loop: the loop variable becomes a ramp of `lanes` lanes,
/// and every expression that depends on it becomes a vector. Scalars meeting vectors are
/// broadcast. Stores and loads under a condition that differs between lanes are predicated.
class Widen : public IRMutator {
  public:
    Widen(const std::string &var, Expr min, int lanes) : var_(var), lanes_(lanes) {
        ramp_ = Ramp::make(std::move(min), make_one(Int(32)), lanes);
    }
    using IRMutator::mutate;

  protected:
    using IRMutator::visit;

    Expr widen(const Expr &e) const {
        return e.type().is_vector() ? e : Broadcast::make(e, lanes_);
    }

    Expr visit(const Variable *op) override {
        if (op->name == var_) return ramp_;
        if (const Expr *v = widened_lets_.find(op->name))
            return Variable::make(v->type(), op->name);
        return op;
    }

#define DSL_WIDEN_BINARY(T)                                  \
    Expr visit(const T *op) override {                       \
        Expr a = mutate(op->a), b = mutate(op->b);           \
        if (a.same_as(op->a) && b.same_as(op->b)) return op; \
        if (a.type().is_vector() || b.type().is_vector()) {  \
            return T::make(widen(a), widen(b));              \
        }                                                    \
        return T::make(a, b);                                \
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
        bool vector = c.type().is_vector() || t.type().is_vector() || f.type().is_vector();
        if (!vector) return Select::make(c, t, f);
        return Select::make(c, widen(t), widen(f));  // a scalar condition may pick vectors
    }

    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        if (index.type().is_scalar() && !mask_.defined()) {
            if (index.same_as(op->index)) return op;
            return Load::make(op->type, op->name, index, op->predicate, op->alignment);
        }
        internal_assert(op->type.is_scalar()) << "vectorizing a load that is already a vector";
        // Lanes past a guarded tail must not touch memory: loads share the active mask.
        Expr predicate = mask_.defined() ? mask_ : make_bool(true, lanes_);
        return Load::make(op->type.with_lanes(lanes_), op->name, widen(index), predicate,
                          op->alignment);
    }

    Expr visit(const Call *op) override {
        std::vector<Expr> args;
        bool changed = mutate_exprs(op->args, &args);
        if (!changed) return op;
        bool vector = false;
        for (const Expr &a : args)
            vector |= a.type().is_vector();
        if (!vector) return op->with_args(args);
        if (op->call_type != Call::CallType::Intrinsic)
            throw CannotVectorize{"it calls the extern function " + op->name};
        if (op->intrinsic == Call::Intrinsic::Print) {
            // Prints the vectors as they are; its value is its first value's.
            Type t = args.size() > 2 ? args[2].type() : op->type;
            return Call::make(t, op->intrinsic, args);
        }
        for (Expr &a : args)
            a = widen(a);
        return Call::make(op->type.with_lanes(lanes_), op->intrinsic, args);
    }

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        if (value.type().is_vector()) {
            ScopedBinding<Expr> bind(widened_lets_, op->name, value);
            Expr body = mutate(op->body);
            return Let::make(op->name, value, body);
        }
        Expr body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }

    Expr visit(const Ramp *) override {
        throw CannotVectorize{"it already holds vectors"};
    }
    Expr visit(const Broadcast *) override {
        throw CannotVectorize{"it already holds vectors"};
    }
    Expr visit(const Shuffle *) override {
        throw CannotVectorize{"it already holds vectors"};
    }
    Expr visit(const VectorReduce *) override {
        throw CannotVectorize{"it already holds vectors"};
    }

    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        if (value.type().is_vector()) {
            ScopedBinding<Expr> bind(widened_lets_, op->name, value);
            Stmt body = mutate(op->body);
            return LetStmt::make(op->name, value, body);
        }
        Stmt body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

    Stmt visit(const Store *op) override {
        Expr index = mutate(op->index);
        if (index.type().is_scalar()) {
            // One place for every lane: a value that does not vary with the lane is stored
            // once; under a mask (the tail of a guarded split where a single lane is left, its
            // coordinate known), if any lane is on, computed without the mask under that test.
            Expr mask = mask_;
            mask_ = Expr();
            Expr value = mutate(op->value);
            mask_ = mask;
            if (value.type().is_vector()) {
                throw CannotVectorize{"every lane would store to the same place (" + op->name +
                                      ")"};
            }
            Stmt store = value.same_as(op->value) && index.same_as(op->index)
                             ? Stmt(op)
                             : Store::make(op->name, value, index, op->predicate, op->alignment);
            if (!mask.defined()) return store;
            return IfThenElse::make(VectorReduce::make(VectorReduce::Op::Or, mask, 1), store);
        }
        Expr value = mutate(op->value);
        Expr predicate = mask_.defined() ? mask_ : make_bool(true, lanes_);
        return Store::make(op->name, widen(value), index, predicate, op->alignment);
    }

    Stmt visit(const IfThenElse *op) override {
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
    Stmt visit(const AssertStmt *) override {
        throw CannotVectorize{"it holds an assertion"};
    }
    Stmt visit(const Evaluate *) override {
        throw CannotVectorize{"it evaluates an expression for its effects"};
    }

  private:
    std::string var_;
    int lanes_;
    Expr ramp_;
    Expr mask_;
    Scope<Expr> widened_lets_;
};

class VectorizeLoops : public IRMutator {
  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (op->for_type != ForType::Vectorized) return IRMutator::visit(op);
        Stmt body = mutate(op->body);
        auto extent = as_const_int(op->extent);
        user_assert(extent)
            << "cannot vectorize the loop " << op->name << ": its extent " << op->extent
            << " is not a constant. Give a width, e.g. vectorize(x, 16), which splits the "
               "loop first.";
        if (*extent == 1) return LetStmt::make(op->name, op->min, body);
        try {
            return Widen(op->name, op->min, static_cast<int>(*extent)).mutate(body);
        } catch (const CannotVectorize &c) {
            std::cerr << "dsl: warning: the loop " << op->name << " stays scalar, because "
                      << c.reason << ".\n";
            return For::make(op->name, op->min, op->extent, ForType::Serial, op->device_api, body);
        }
    }
};

}  // namespace

Stmt vectorize_loops(const Stmt &s) {
    return VectorizeLoops().mutate(s);
}

}  // namespace dsl::lowering
