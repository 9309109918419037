#pragma once
/// The simplifier (DESIGN.md §3): rewrites expressions and statements into a simpler canonical
/// form, folding constants and using what it knows about the bounds and alignment of every
/// subexpression.
///
/// Canonical form (what rules and later passes may rely on):
///  - Constants are the right operand of commutative operators: `x + 3`, `min(x, 5)`.
///  - A signed integer minus a constant is an addition: `x - 3` becomes `x + -3`. Unsigned
///    subtraction stays a subtraction, so that its bounds stay useful.
///  - Constant terms are gathered at the outside of a sum: `(x + 3) + (y + 5)` is `(x + y) + 8`
///    (for 32/64-bit signed integers only where bounds show that `x + y` cannot overflow: a rule
///    never creates such a term that could overflow where the original did not, since later
///    rules reason as if no such term overflowed).
///  - `~x` is `-1 - x`.
///  - `a > b` is `b < a` and `a >= b` is `b <= a`; negations of integer comparisons are pushed in.
///  - Shifts of integers by a constant to the right are divisions by a power of two.
///
/// Semantics are those of include/dsl/Expr.h. Rules that rely on the absence of overflow apply
/// to 32- and 64-bit signed integers only; narrow and unsigned integers get ring identities, and
/// division or comparison reasoning only where bounds prove that nothing wraps. Floats get only
/// rewrites that are exact in IEEE arithmetic (no reassociation, no `x + 0.0 -> x`).
///
/// What it knows: the constant bounds and alignment (modulus/remainder) of every integer
/// subexpression, the caller's bounds, let values, loop ranges inside loop bodies, and what the
/// condition of an `IfThenElse` or a scalar `select` says, in each branch, about variables
/// compared with constants. Constant folding follows the reference evaluator exactly and leaves
/// alone what the semantics leave undefined (signed 32/64-bit overflow, float-to-int out of
/// range, min/max of NaN).
///
/// Cost: each node is simplified once per scope of variable facts, and a rewrite is simplified
/// only where it is new, so the time grows about linearly with the size of the IR.

#include <optional>

#include "ir/IR.h"
#include "ir/ModulusRemainder.h"
#include "ir/Scope.h"

namespace dsl::ir {

/// Known constant bounds of an integer variable, both inclusive; either may be unknown.
struct ConstantBounds {
    std::optional<int64_t> min, max;

    static ConstantBounds range(int64_t lo, int64_t hi) { return {lo, hi}; }
};

/// Simplifies `e`.
Expr simplify(const Expr &e);
/// Simplifies `e` knowing that each variable bound in `bounds` lies within its bounds (for
/// instance loop variables within their loop's range).
Expr simplify(const Expr &e, const Scope<ConstantBounds> &bounds);

/// Simplifies a statement: expressions inside it, constant conditions, empty loops and blocks,
/// and lets. Loop variables get their loop's bounds inside the loop body.
Stmt simplify(const Stmt &s);
Stmt simplify(const Stmt &s, const Scope<ConstantBounds> &bounds);

/// Whether the boolean `condition` holds for every value of its variables (every lane). False
/// means "could not prove it", never "it is false".
/// Like every rule, it assumes that 32- and 64-bit signed arithmetic in `condition` does not
/// overflow (so `x + 1 > x` is provable for an int32 x, but not for a uint8 one).
bool can_prove(const Expr &condition);
bool can_prove(const Expr &condition, const Scope<ConstantBounds> &bounds);

/// The constant bounds the simplifier derives for the integer expression `e` (both empty for
/// other types, or where nothing is known), over all lanes.
ConstantBounds constant_bounds(const Expr &e);
ConstantBounds constant_bounds(const Expr &e, const Scope<ConstantBounds> &bounds);

}  // namespace dsl::ir
