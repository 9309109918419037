#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Computes once, just before the loop, every costly pure call inside a parallel loop or a GPU
/// kernel whose arguments do not change in it: a pure extern function (`define_pure_extern`,
/// Halide's `HalidePureExtern_*`) or a transcendental (exp, log, pow, sin, cos, tan, atan2) of
/// values from outside the loop. Such a loop's body becomes a function of its own (a task of
/// the thread pool, a kernel), which LLVM cannot hoist out of, so without this pass the call
/// runs once per iteration (a parallel loop of 32 rows: 32 calls instead of 1); and a GPU
/// kernel cannot call a host function at all, while a value computed before the launch is just
/// one more argument of the kernel. The whole invariant expression around the call is lifted
/// (`f(p) * 2 + q`), scalars only (a vector's lanes lift through their Broadcast). Loads are
/// never lifted (the loop may write the memory), nor impure calls, nor anything that reads a
/// name bound inside the loop. Integer divisions and remainders by a non-constant that do not
/// change in a loop leave it too, serial loops included (outside GPU kernels): LLVM does not
/// move a division it cannot prove safe to run early, so the quotients of a fused loop's
/// counter (a parallel loop over blocks of rows and channels) were computed again for every
/// vector of a row. A pure call may then run where the loop would not have reached
/// it (an empty loop, a branch not taken): that is what pure means (Halide's rule too).
Stmt hoist_invariant_calls(const Stmt &s);

}  // namespace dsl::lowering
