#pragma once
/// The code of `Stage::prefetch`: at the top of an iteration of a stage's loop, the cache lines of
/// the region of a Func or an input that the iteration `offset` steps further on will read.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lowering/Environment.h"
#include "lowering/Regions.h"
#include "schedule/Schedule.h"

namespace dsl::lowering {

/// Throws a CompileError for a prefetch of the stage's schedule (`schedule`: its own or a
/// specialization's) whose loops a later directive removed or reordered, or that lies in a
/// vectorized loop (a prefetch per lane is not something a vector loop can hold).
void check_prefetches(const lang::Function &f, int stage, const schedule::StageSchedule &schedule);

/// The prefetches of stage `stage` of `f` (its schedule, or a specialization's) placed at its
/// loop `var`, as one statement for the top of that loop's body; undefined if none is placed
/// there. `inside`: the Funcs computed inside the loop (computed_inside); `reads(name)`: what
/// one iteration of the loop reads of the Func or input `name`, directly or through `inside`
/// (required_over_loop, with the loops inside ranging). The region of each prefetch also
/// counts what the Funcs computed further out, and read by the iteration, read of the target
/// over what the iteration needs of them (through any chain of such Funcs without updates).
///
/// For a target of N dimensions the statement is, with L the elements per 64-byte line:
///   let lo.d = ..., hi.d = ...   (the region, the `from` loop moved `offset` iterations on,
///                                 clamped to the target's data or tested against it)
///   for prefetch in [0, 1 if the region is not empty (and inside, for GuardWithIf) else 0):
///     for d.N-1 in [lo, hi]: ... for d.1 in [lo, hi]:
///       for line in [0, (hi.0 - lo.0) / L]: prefetch(target(lo.0 + line * L, d.1, ...))
///       prefetch(target(hi.0, d.1, ...))
/// Throws a CompileError naming the stage and the target where the target is not something the
/// iteration reads, is computed inside the loop, or is inlined.
/// `notes` receives a line per prefetch for the loop nest printout, keyed by its outer loop.
Stmt prefetches_at(const Environment &env, const lang::Function &f, int stage,
                   const std::vector<schedule::Prefetch> &prefetches, const std::string &var,
                   const std::vector<std::string> &inside,
                   const std::function<Box(const std::string &)> &reads,
                   std::map<std::string, std::string> &notes);

}  // namespace dsl::lowering
