#pragma once
// What code generation tells LLVM about a loop (no LLVM headers: unit tests include this).
#include "ir/IR.h"

namespace dsl::codegen {

/// Whether a serial loop is one that runs a few iterations by construction: a split's tail,
/// or an edge of a partitioned loop (before or after its steady state). Code generation makes a
/// tail a branch (it runs at most once) and keeps LLVM from unrolling the edges at run time.
bool runs_few_iterations(const ir::For *op);

}  // namespace dsl::codegen
