#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Versions loops on the conditions of uniform selects in vector addresses. A vector load or
/// store whose index is `select(c, a, b)` with a scalar condition `c` (all lanes choose alike:
/// an operand that numpy broadcasting reads at 0 when its extent is 1, `select(extent == 1,
/// x16(0), ramp(...))`) cannot be one dense access, so code generation gathers. Each outermost
/// serial or parallel loop whose body holds such selects, with conditions that do not change
/// inside it, becomes `if (!c1 && !c2 ...) { the loop with each c false } else { the loop }`:
/// the common case (no operand broadcast) gets dense vectors; the other keeps the selects.
/// Conditions that read memory or call functions are not hoisted; at most 8 per loop.
///
/// Likewise a small innermost loop whose stored values select between loads on a scalar
/// condition that does not change inside it (a Concat's `select(c < 24, x[ramp], y[ramp])`: both
/// sides loaded for every vector) becomes `if (c) { the loop, c true } else { the loop, c
/// false }`, each version in turn on the conditions left (at most 4 deep).
Stmt unswitch_uniform_selects(const Stmt &s);

}  // namespace dsl::lowering
