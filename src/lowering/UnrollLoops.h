#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Replaces every loop marked `Unrolled` by one copy of its body per iteration. The loop's
/// extent must be a constant by now (the inner loop of a split by a constant is); otherwise the
/// error names the loop and says how to make it constant.
Stmt unroll_loops(const Stmt &s);

}  // namespace dsl::lowering
