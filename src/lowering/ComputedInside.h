#pragma once
/// Funcs computed inside a consumer's loops, and what they read there: so that a producer can
/// be computed at a loop of a Func that reads it only through other Funcs computed further in
/// (the packed panel of a matrix product, computed at a loop of the product but read by the
/// register tile computed inside it; a padded input computed per row of a convolution but read
/// by its tiles).

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lowering/Environment.h"
#include "lowering/Regions.h"

namespace dsl::lowering {

/// The Funcs computed inside the loops `loops` of stage `stage` of `func`: at one of those
/// loops, or at a loop of a Func computed there (recursively). In realization order. The
/// compute levels' stages must be resolved already.
std::vector<std::string> computed_inside(const Environment &env, const std::string &func, int stage,
                                         const std::set<std::string> &loops);

/// What all iterations of a loop read of `callee`: `direct(name)` (what the stage that owns the
/// loop reads of the Func `name` over those iterations) merged with what each Func of `inside`
/// (computed_inside of the loop) reads of it over the region the loop needs of that Func.
/// Throws a CompileError if a Func of `inside` reads it under a split that rounds up or shifts
/// inwards (its loops then pass the region bounds inference gives them), unless `for_hints`
/// (a prefetch: the region is only a hint, and it is clamped to the data anyway).
/// `inside_region`: the loop's iterations run only points of the stage's region, so what
/// `direct` gives lies inside each Func's whole-pipeline region (BoundsFor::ExactIteration),
/// and the regions of the Funcs of `inside` need no clamp into theirs either.
Box required_over_loop(const Environment &env, const std::vector<std::string> &inside,
                       const std::string &callee,
                       const std::function<Box(const std::string &)> &direct,
                       bool for_hints = false, bool inside_region = false);

}  // namespace dsl::lowering
