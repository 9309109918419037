#pragma once
/// Tiles whose bound_extent() window is exactly the consumer's tile.
///
/// A Func computed inside a consumer's loop with bound_extent() on its dimensions computes, in
/// each iteration, a window of constant size that starts where the consumer's needs start,
/// slid into the pipeline's region near its edges (func_bounds). Its storage is small and of
/// constant size: a register tile. But the consumer reads it at `needed - window_min`, which
/// the compiler cannot prove constant, so the code generator keeps the tile in memory and the
/// tile makes a round trip through the stack at every loop around its sum.
///
/// Where the window starts exactly at the consumer's needs, which is every iteration but the
/// ones that the slide moves, those reads are at constant offsets. This pass computes such a
/// Func in a copy with the window's start replaced by the consumer's needs (what the tile's
/// test chooses at run time), besides the realization as it is.
///
/// A consumer's partial tile (the last of a GuardWithIf split) needs fewer points than the
/// window holds: there the window slides back and computes points nobody reads (a row of 64
/// in tiles of 6 computes 66). Where the split asks for it (TailStrategy::PartialTile), for a
/// window of a few points, each smaller count of needed points gets a copy too, which computes
/// exactly those.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "ir/Interval.h"
#include "lang/Function.h"

namespace dsl::lowering {

using LetList = std::vector<std::pair<std::string, Expr>>;

/// func_bounds in Iteration mode for the consumer's region, with some bound_extent()s' extents
/// replaced (by Var name); the checks of the windows go to the vector.
using IterationBounds =
    std::function<LetList(const std::map<std::string, int> &extents, std::vector<ir::Stmt> *)>;

/// The realization of `f` in one iteration of a consumer's loop over the `required` region:
/// the lets of `bounds`, the checks, and `realize(body)` (f's storage around `body`) of f's
/// produce and the consumer's consume (`produce_consume`). Where f's storage is a small
/// constant-size tile of bound_extent() windows, preceded by the copies that compute exactly
/// the consumer's needs, each behind a test that it applies; the copies for fewer points than
/// a window only where the consumer's needs depend on a loop that the guard of a PartialTile
/// split may stop short of a tile (one of `partial_loops`).
ir::Stmt exact_window_realization(const lang::Function &f,
                                  const std::vector<ir::Interval> &required,
                                  const IterationBounds &bounds,
                                  const std::vector<ir::Stmt> &produce_consume,
                                  const std::function<ir::Stmt(const ir::Stmt &)> &realize,
                                  const std::set<std::string> &partial_loops);

}  // namespace dsl::lowering
