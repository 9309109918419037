#include "lowering/BoundsOverflow.h"

#include <map>
#include <set>
#include <utility>

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The same int32 expression computed in int64: variables and constants are widened and the
/// arithmetic, comparisons and selects over them redone. What it cannot redo (loads, calls,
/// casts) is taken as its 32-bit value. Each addition, subtraction and multiplication gets a
/// name (bounds expressions share subexpressions heavily: as a tree they can be huge).
class Widen : public IRMutator {
  public:
    explicit Widen(std::string prefix) : prefix_(std::move(prefix)) {}

    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        if (e.type() != Int(32) && !e.type().is_bool()) return e;
        auto it = done_.find(e.get());
        if (it != done_.end()) return it->second;
        Expr result = IRMutator::mutate(e);
        done_.emplace(e.get(), result);
        return result;
    }

    /// The 64-bit values of its additions, subtractions and multiplications, each defined in
    /// terms of the earlier ones.
    std::vector<std::pair<std::string, Expr>> intermediates;

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
        std::string name = prefix_ + std::to_string(intermediates.size());
        intermediates.emplace_back(name, e);
        return Variable::make(Int(64), name);
    }
    /// Operations that cannot overflow (division, min, max, comparisons) over int32 operands.
    template <typename T>
    Expr redo(const T *op) {
        if (op->a.type() != Int(32)) return op;
        return T::make(mutate(op->a), mutate(op->b));
    }
    Expr visit(const Add *op) override { return arith(op); }
    Expr visit(const Sub *op) override { return arith(op); }
    Expr visit(const Mul *op) override { return arith(op); }
    Expr visit(const Div *op) override { return redo(op); }
    Expr visit(const Mod *op) override { return redo(op); }
    Expr visit(const Min *op) override { return redo(op); }
    Expr visit(const Max *op) override { return redo(op); }
    Expr visit(const EQ *op) override { return redo(op); }
    Expr visit(const NE *op) override { return redo(op); }
    Expr visit(const LT *op) override { return redo(op); }
    Expr visit(const LE *op) override { return redo(op); }
    Expr visit(const GT *op) override { return redo(op); }
    Expr visit(const GE *op) override { return redo(op); }
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
    Expr visit(const Shuffle *op) override { return whole(op); }
    Expr visit(const VectorReduce *op) override { return whole(op); }

  private:
    std::string prefix_;
    std::map<const IRNode *, Expr> done_;
};

/// `op` over `terms` as a balanced tree, so that thousands of terms stay shallow.
template <typename Op>
Expr balanced(const std::vector<Expr> &terms, size_t begin, size_t end, Op op) {
    if (end - begin == 1) return terms[begin];
    size_t middle = begin + (end - begin) / 2;
    return op(balanced(terms, begin, middle, op), balanced(terms, middle, end, op));
}

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
    std::vector<Stmt> checks;
    for (const auto &[name, value] : lets) {
        if (value.type() != Int(32) || extents.count(name)) continue;
        Widen widen(name + ".wide");
        widen.mutate(value);
        if (widen.intermediates.empty()) continue;
        std::vector<Expr> values;
        for (const auto &[t, e] : widen.intermediates)
            values.push_back(Variable::make(Int(64), t));
        auto max_of = [](const Expr &a, const Expr &b) { return max(a, b); };
        auto min_of = [](const Expr &a, const Expr &b) { return min(a, b); };
        Expr highest = balanced(values, 0, values.size(), max_of);
        Expr lowest = balanced(values, 0, values.size(), min_of);
        Expr fits =
            make_const(Int(64), INT32_MIN) <= lowest && highest <= make_const(Int(64), INT32_MAX);
        Expr culprit = select(highest > make_const(Int(64), INT32_MAX), highest, lowest);
        Expr report = Call::make(
            Int(32), "dsl_runtime_error_bounds_overflow",
            {StringImm::make(func.name()), StringImm::make(name), Cast::make(Float(64), culprit)},
            Call::CallType::Extern);
        Stmt check = AssertStmt::make(fits, report);
        for (auto it = widen.intermediates.rbegin(); it != widen.intermediates.rend(); ++it)
            check = LetStmt::make(it->first, it->second, check);
        checks.push_back(check);
    }
    return checks;
}

}  // namespace dsl::lowering
