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
/// Func twice: once with the window's start replaced by the consumer's needs (what the tile's
/// test chooses at run time), once as before.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "ir/Interval.h"
#include "lang/Function.h"

namespace dsl::lowering {

/// The realization of `f` in one iteration of a consumer's loop. `lets` are func_bounds's
/// (Iteration mode) for the consumer's `required` region, `checks` its checks of the windows,
/// `realize(body)` wraps `body` in f's storage, and `produce_consume` is f's produce and the
/// consumer's consume. Returns the lets around the checks and the realization, and, where f's
/// storage is a small constant-size tile of bound_extent() windows, a copy for the iterations
/// whose windows start at the consumer's needs, in which they do by construction.
ir::Stmt exact_window_realization(const lang::Function &f,
                                  const std::vector<ir::Interval> &required,
                                  const std::vector<std::pair<std::string, Expr>> &lets,
                                  const std::vector<ir::Stmt> &checks,
                                  const std::vector<ir::Stmt> &produce_consume,
                                  const std::function<ir::Stmt(const ir::Stmt &)> &realize);

}  // namespace dsl::lowering
