#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Replaces every loop marked `Unrolled` by one copy of its body per iteration. The loop's
/// extent must be a constant by now (the inner loop of a split by a constant is); otherwise the
/// error names the loop and says how to make it constant.
Stmt unroll_loops(const Stmt &s);

/// The `count` copies of `body` for the iterations of a loop over `var` from `min`, in order:
/// `var` replaced by min, min + 1, ... (what unrolling puts in the loop's place).
std::vector<Stmt> iteration_copies(const std::string &var, const Expr &min, int64_t count,
                                   const Stmt &body);

}  // namespace dsl::lowering
