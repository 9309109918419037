#pragma once
/// The legality check for loops over reduction variables that run their iterations at the same
/// time (parallel or vectorized).

#include "lang/Function.h"

namespace dsl::schedule {

/// Refuses, with a CompileError naming the Func, the stage and the loop, every parallel or
/// vectorized loop of an update of `f` that runs over an RVar (or over a loop split or fused
/// from one) unless its iterations provably never touch the same point of `f`:
///   - for each variable the loop runs over, some coordinate the update writes is
///     `c * var + rest` with a nonzero constant `c` and `rest` independent of every variable that
///     changes inside the loop, so that distinct iterations write distinct points;
///   - every read of `f` in the update is at exactly the point it writes.
/// Stages marked `allow_race_conditions()` are not checked.
void check_race_conditions(const lang::Function &f);

}  // namespace dsl::schedule
