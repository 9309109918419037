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
Stmt partition_loops(const Stmt &s);

}  // namespace dsl::lowering
