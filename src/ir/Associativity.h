#pragma once
/// Recognises updates that fold a new term into a Func's running value with an associative
/// operator, `f(args) = op(f(args), term)`, so that the terms may be folded in another grouping
/// (which is what rfactor does).

#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/IRVisitor.h"

namespace dsl::ir {

/// The operator of one element of an associative update.
enum class AssociativeOp : uint8_t {
    Add,  ///< x + e; also x - e, folded as x + (0 - e)
    Mul,
    Min,
    Max,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    And,      ///< logical, on bools
    Or,       ///< logical, on bools
    Xor,      ///< x != e on bools
    ArgBest,  ///< an element of an argmin / argmax Tuple (see AssociativeUpdate::key)
};

/// An update `f(args) = op(f(args), term)`, element by element.
struct AssociativeUpdate {
    /// Per element: the operator, the term folded into the running value (it does not read
    /// the Func), and the operator's identity.
    std::vector<AssociativeOp> ops;
    std::vector<Expr> terms;
    std::vector<Expr> identities;
    /// For argmin / argmax: the element compared, and the comparison (LT or GT) by which a new
    /// key `k` replaces the running key `x` when `k < x` (resp. `k > x`): strictly, so that
    /// the first of equal keys stays. The other ArgBest elements follow the key's choice.
    int key = -1;
    IRNodeType better = IRNodeType::LT;
    /// Whether partial results may be folded in any order. argmin / argmax may not: with equal
    /// keys, the earlier one wins.
    bool commutative = true;

    /// Folds `b` into `a` (one Expr per element; `a` comes first in the order of the update).
    std::vector<Expr> combine(const std::vector<Expr> &a, const std::vector<Expr> &b) const;
};

/// Analyses the update `func(args) = values` (one value per Tuple element). Returns nullopt
/// when an element is not of a recognised form; `why` then says which one and why.
std::optional<AssociativeUpdate> find_associative_update(const std::string &func,
                                                         const std::vector<Expr> &args,
                                                         const std::vector<Expr> &values,
                                                         std::string *why);

/// Whether `e` calls the Func `func` anywhere.
bool calls_func(const Expr &e, const std::string &func);

/// The same over whatever it visits (lang::visit_definitions: every definition of a Func):
/// `found` once a call of `func` is met.
class CallsFunc : public IRVisitor {
  public:
    explicit CallsFunc(const std::string &func) : func_(func) {}
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        found |= op->call_type == Call::CallType::Func && op->name == func_;
        IRVisitor::visit(op);
    }

  private:
    const std::string &func_;
};

}  // namespace dsl::ir
