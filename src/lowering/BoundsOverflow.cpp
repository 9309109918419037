#include "lowering/BoundsOverflow.h"

#include <set>

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The same int32 expression computed in int64: variables and constants are widened and the
/// arithmetic, comparisons and selects over them redone. What it cannot redo (loads, calls,
/// casts) is taken as its 32-bit value.
class Widen : public IRMutator {
  public:
    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        if (e.type() == Int(32) || e.type().is_bool()) return IRMutator::mutate(e);
        return e;
    }

    /// The 64-bit values of its additions, subtractions and multiplications.
    std::vector<Expr> intermediates;

  protected:
    Expr as_int64(const Expr &e) { return Cast::make(Int(64), e); }

    Expr visit(const IntImm *op) override { return make_const(Int(64), op->value); }
    Expr visit(const Variable *op) override {
        if (op->type != Int(32)) return op;
        return as_int64(op);
    }
    template <typename T>
    Expr arith(const T *op) {
        if (op->type != Int(32)) return op;
        Expr e = T::make(mutate(op->a), mutate(op->b));
        intermediates.push_back(e);
        return e;
    }
    template <typename T>
    Expr minmax(const T *op) {
        if (op->type != Int(32)) return op;
        return T::make(mutate(op->a), mutate(op->b));
    }
    template <typename T>
    Expr compare(const T *op) {
        if (op->a.type() != Int(32)) return op;
        return T::make(mutate(op->a), mutate(op->b));
    }
    Expr visit(const Add *op) override { return arith(op); }
    Expr visit(const Sub *op) override { return arith(op); }
    Expr visit(const Mul *op) override { return arith(op); }
    Expr visit(const Div *op) override { return minmax(op); }
    Expr visit(const Mod *op) override { return minmax(op); }
    Expr visit(const Min *op) override { return minmax(op); }
    Expr visit(const Max *op) override { return minmax(op); }
    Expr visit(const EQ *op) override { return compare(op); }
    Expr visit(const NE *op) override { return compare(op); }
    Expr visit(const LT *op) override { return compare(op); }
    Expr visit(const LE *op) override { return compare(op); }
    Expr visit(const GT *op) override { return compare(op); }
    Expr visit(const GE *op) override { return compare(op); }
    Expr visit(const And *op) override { return IRMutator::visit(op); }
    Expr visit(const Or *op) override { return IRMutator::visit(op); }
    Expr visit(const Not *op) override { return IRMutator::visit(op); }
    Expr visit(const Select *op) override {
        if (op->type != Int(32)) return op;
        return Select::make(mutate(op->condition), mutate(op->true_value), mutate(op->false_value));
    }
    Expr visit(const Let *op) override { return whole(op); }
    // Anything else: its own 32-bit value (bools: unchanged).
    Expr whole(const BaseExprNode *op) {
        Expr e(op);
        return e.type() == Int(32) ? as_int64(e) : e;
    }
    Expr visit(const Cast *op) override { return whole(op); }
    Expr visit(const Load *op) override { return whole(op); }
    Expr visit(const Call *op) override { return whole(op); }
    Expr visit(const UIntImm *op) override { return whole(op); }
    Expr visit(const FloatImm *op) override { return whole(op); }
    Expr visit(const StringImm *op) override { return whole(op); }
    Expr visit(const Ramp *op) override { return whole(op); }
    Expr visit(const Broadcast *op) override { return whole(op); }
    Expr visit(const Shuffle *op) override { return whole(op); }
    Expr visit(const VectorReduce *op) override { return whole(op); }
};

}  // namespace

std::vector<Stmt> bounds_overflow_checks(const lang::Function &func,
                                         const std::vector<std::pair<std::string, Expr>> &lets) {
    // The extents of the storage are checked in 64 bits where it is allocated, with a message
    // about its size.
    std::set<std::string> extents;
    for (const std::string &var : func.args())
        extents.insert(names::realized_extent(func.name(), var));
    // Each let's inputs are checked before it (or are arguments), so checking its own
    // intermediate values in 64 bits covers it. (The 32-bit values themselves cannot be
    // compared: LLVM assumes that int32 arithmetic does not overflow.)
    Expr lo = make_const(Int(64), INT32_MIN), hi = make_const(Int(64), INT32_MAX);
    std::vector<Stmt> checks;
    for (const auto &[name, value] : lets) {
        if (value.type() != Int(32) || extents.count(name)) continue;
        Widen widen;
        widen.mutate(value);
        if (widen.intermediates.empty()) continue;
        Expr fits, culprit;
        for (auto it = widen.intermediates.rbegin(); it != widen.intermediates.rend(); ++it) {
            Expr in_range = lo <= *it && *it <= hi;
            fits = fits.defined() ? (in_range && fits) : in_range;
            culprit = culprit.defined() ? select(in_range, culprit, *it) : *it;
        }
        Expr report = Call::make(
            Int(32), "dsl_runtime_error_bounds_overflow",
            {StringImm::make(func.name()), StringImm::make(name), Cast::make(Float(64), culprit)},
            Call::CallType::Extern);
        checks.push_back(AssertStmt::make(fits, report));
    }
    return checks;
}

}  // namespace dsl::lowering
