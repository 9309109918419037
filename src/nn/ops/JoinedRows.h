#pragma once
// Pointwise convolutions over joined rows (conv, integer_conv): a 1x1 window at stride 1 without
// padding reads point p = y * W + x of each channel where a convolution over one axis of H * W
// points would, so rows of 20 or 40 points no longer leave a tile of 32 half empty at their end.
#include <functional>

#include "dsl/nn/Conv.h"
#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// Whether a pointwise convolution of `groups` groups is better computed over joined rows
/// (JoinedRows.cpp).
bool rows_joinable(const Tensor &x, const Window &w, int groups);

/// The length of a row as a joined point's index counts it, y * joined_row(W) + x: at least 1
/// (a map of empty rows computes nothing), so that bounds inference may divide by it. The
/// algorithm's index and the schedule's bounds must both use it for the fused loop to read its
/// point back.
inline Expr joined_row(const Expr &width) {
    return max(width, 1);
}

/// How the accumulation is tiled: computed at `loop` of `consumer` (the output, its points
/// fused into one loop) over `vw` vectors of `vec` points by `tm` channels.
using JoinedTile = std::function<void(Func consumer, const Var &loop, int vw, int vec, int tm)>;

/// The schedule of a pointwise convolution `out` (x, y, m, n) over maps of `width` by
/// `height` that reads its point p = y * joined_row(width) + x of an accumulation over joined rows:
/// see JoinedRows.cpp. It constrains the output to be dense along x with its rows one after
/// another. `tm` channels per tile (at most the channels' count; with `fit_registers`, fewer
/// where the target has too few vector registers for them: RegisterTiles.h), `acc` the
/// accumulator's type, `tile` the accumulation's schedule.
Tensor::Schedule joined_row_tiles(Expr width, Expr height, Type acc, int tm, bool fit_registers,
                                  JoinedTile tile);

}  // namespace dsl::nn
