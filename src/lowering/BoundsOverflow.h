#pragma once
/// Run-time checks that the bounds bounds inference computes fit in 32 bits.
///
/// Regions are int32 expressions of the output's size and the Params: `f(x * n)` with a large
/// `n` makes them wrap, and storage sized from wrapped bounds is then read and written far
/// outside itself. Each bound is recomputed in 64 bits from the (already checked) values it is
/// made of, and a difference stops the pipeline with an error naming the Func.

#include <string>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "lang/Function.h"

namespace dsl::lowering {

/// Asserts, for each int32 let of `lets` (in order; each may use the earlier ones) computed
/// with arithmetic that can overflow, that every intermediate value fits in 32 bits. `func` is
/// the Func whose bounds they are.
std::vector<ir::Stmt> bounds_overflow_checks(const lang::Function &func,
                                             const std::vector<std::pair<std::string, Expr>> &lets);

}  // namespace dsl::lowering
