#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Splits each innermost serial loop whose body clamps an expression of the loop variable (the
/// index arithmetic of a boundary condition such as repeat_edge, a clamp in the algorithm, a
/// vectorized loop's lanes) into three loops: the iterations before every clamp is a no-op, the
/// steady state where all of them are, and the iterations after. The steady state's body has the
/// clamps removed, so its vector loads are dense instead of gathers. Only clamps `min(e, b)` /
/// `max(e, b)` of 32-bit integers count, where `e` is linear in the loop variable over its lanes
/// and `b` does not change inside the loop.
///
/// Conditions marked likely (`likely(c)`, a conjunction of comparisons) partition any serial loop
/// whose variable they bound linearly, not only innermost ones, and are solved across the loops
/// inside (whose bounds must not move with it) and the lanes of vectors: the steady state is
/// where the condition holds for each of their iterations. Its body has those conjuncts replaced
/// by true and the clamps of linear expressions removed (with the range where each is exact);
/// the three loops' bodies are then partitioned in turn, on what remains. Short loops of
/// constant count (a kernel's taps, which LLVM unrolls) are not partitioned on likely conditions.
Stmt partition_loops(const Stmt &s);

}  // namespace dsl::lowering
