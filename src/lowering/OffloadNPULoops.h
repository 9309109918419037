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

/// Whether `g` is only a conversion of the Func `c` to bytes point by point, one stage of one
/// value, `g(x, ...) = cast<int8_t or uint8_t>(c(x, ...))` at its own Vars: the Func whose
/// bytes an NPU program computing c can store itself, when g's loops are on the NPU.
bool converts_to_bytes(const lang::Function &g, const std::string &c);

}  // namespace dsl::lowering
