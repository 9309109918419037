#pragma once
/// Common-subexpression elimination.

#include "ir/IR.h"

namespace dsl::ir {

/// Rewrites `e` so that every non-trivial subexpression that occurs more than once is computed
/// once, in a `Let` named `cse<N>` at the top of the expression:
///   (x*y + 1) * (x*y + 1)   becomes   let cse0 = x*y + 1 in cse0 * cse0
/// Lets already in `e` are inlined first so that equal subexpressions written under different
/// names are found too. Calls with side effects are never shared. Constants, variables and
/// broadcasts of them are never extracted: they are free to recompute.
Expr common_subexpression_elimination(const Expr &e);

/// Applies `common_subexpression_elimination` to every expression of `s`.
Stmt common_subexpression_elimination(const Stmt &s);

}  // namespace dsl::ir
