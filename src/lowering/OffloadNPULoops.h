#pragma once
/// NPU offload (DESIGN.md §3, pass 9): each loop scheduled with npu (or npu_gemm) and the loops
/// inside it become one call of the runtime's NPU GEMM (runtime/NPU.c), which writes and runs
/// the instruction stream for the call's sizes.

#include "ir/Module.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

/// Replaces every NPU loop of `s` (storage flattened) by a call of dsl_runtime_npu_gemm. The
/// nest must be a contraction c[...] += i32(a[...]) * i32(b[...]) of int8 loads into int32,
/// with indices affine in the loops; anything else is a CompileError naming the stage and
/// saying what does not map. Sets `module.uses_npu` when it offloads anything.
ir::Stmt offload_npu_loops(const Environment &env, const ir::Stmt &s, ir::Module &module);

}  // namespace dsl::lowering
