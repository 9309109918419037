#pragma once
/// Stage::compute_with: the stages of several Funcs run in one loop nest, fused from the
/// outermost loop down to a chosen one.
///
/// The Funcs whose stages are fused form a group. Lowering realizes a group's Funcs one after
/// the other (realization_order keeps them together) and produces all their stages where the
/// last of them is produced: the stages of each Func in order, each fused stage inside the loops
/// of the stage it is fused with. A fused loop runs over both stages' ranges (lined up as the
/// LoopAlignStrategy says); each stage skips the iterations outside its own range.

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lowering/Environment.h"

namespace dsl::lowering {

/// The groups of Funcs that compute_with fuses (transitively), each as a set of names. Funcs
/// fused with nothing are in none.
std::vector<std::set<std::string>> compute_with_groups(const Environment &env);

/// Checks every compute_with of the pipeline once compute levels are resolved (same placement,
/// same outer loops, no specializations, no data flowing between the fused Funcs), and records
/// the groups in env.fused.
void check_compute_with(Environment &env);

/// The stages of the group of `f` (env.fused), in an order that keeps each Func's stages in
/// order, the fused ones merged into one loop nest. `stage_nest` builds the loops of one stage.
Stmt fused_group_stages(const Environment &env, const std::string &f,
                        const std::function<Stmt(const lang::Function &, int)> &stage_nest);

/// Drops the tests of ifs that the ranges of the loops around them make always true: once
/// bounds are known, the two ranges of a fused loop are often the same, and neither stage then
/// needs its range test. (Only tests linear in one loop's variable whose truth the simplifier
/// can show at both ends of its range.)
Stmt drop_guards_implied_by_loops(const Stmt &s);

/// The loops of `f`'s stage `stage` that compute_with fuses with another stage (as a fused
/// stage or as the stage others are fused with): splits of these loops are not partitioned
/// into a main part and a tail, so that the loop nests keep one loop per level.
std::set<std::string> fused_loops(const Environment &env, const lang::Function &f, int stage);

}  // namespace dsl::lowering
