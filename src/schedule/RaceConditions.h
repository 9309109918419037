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

/// An atomic() update's vectorized loop that runs over an RVar and a pure Var the update writes
/// at (an RVar's loop fused with a split of the Var: lanes [r0 x0, r1 x0, r0 x1, ...]) folds its
/// lanes into several points, some lanes into one point; vector code folds lanes into one point
/// only, and would lose all but one lane's term at a repeated point. Such loops become serial,
/// with a warning naming the Func, the loop and the variables. For lowering's private copies.
void serialize_grouped_vector_folds(lang::Function &f);

}  // namespace dsl::schedule
