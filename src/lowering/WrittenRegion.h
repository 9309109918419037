#pragma once
/// The region a loop nest writes of a Func, and storage widened to hold it.

#include <string>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "lang/Function.h"
#include "lowering/Regions.h"

namespace dsl::lowering {

/// Every point the `Provide`s to `func` in `s` can write, as bounds in terms of the variables
/// defined outside `s` (the loops and lets inside it are replaced by their ranges). A dimension
/// no bound is known for is unbounded.
Box box_written(const std::string &func, const ir::Stmt &s);

/// Widens the lets `<f>.<x>.min_realized` / `.max_realized` / `.extent_realized` among `lets`
/// to cover `box` (dimensions of `box` that are unbounded or empty are left as they are).
void widen_realized(const lang::Function &f, const Box &box,
                    std::vector<std::pair<std::string, Expr>> &lets);

/// Widens the lets `<f>.<x>.min_realized` / `.max_realized` / `.extent_realized` among `lets`
/// to cover everything `body` writes of `f`. For a Func stored outside the loop where it is
/// computed: the storage is sized from what the consumers read over all iterations, which a
/// rounding split computed per iteration can exceed.
void widen_realized_to_writes(const lang::Function &f, const ir::Stmt &body,
                              std::vector<std::pair<std::string, Expr>> &lets);

}  // namespace dsl::lowering
