#pragma once
/// Convolutions and pooling over any number of spatial axes (1-D, 2-D, 3-D): tensors are
/// (N, C, D1, ..., Dk), weights (M, C / group, K1, ..., Kk).

#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// The geometry of a sliding window, per spatial axis. Empty strides and dilations mean 1;
/// empty pads mean 0.
struct Window {
    std::vector<int> kernel;  ///< extents of the window (taken from the weights for conv)
    std::vector<int> strides, dilations;
    std::vector<Expr> pads_begin, pads_end;
};

/// How pads follow from the input's extents (ONNX's auto_pad): as given, or split so that the
/// output has ceil(in / stride) points (the odd one at the end for SameUpper, at the start for
/// SameLower), or none.
enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

/// Fills in `w`'s pads for an input of spatial extents `in` (outermost first).
void resolve_pads(Window &w, const std::vector<Expr> &in, AutoPad mode);

/// out[n, m, o...] = bias[m] + sum over c, k... of x[n, g * C/group + c, o * stride - pad +
/// k * dilation] * w[m, c, k...], where g is m's group; padding reads zeros. `bias` may be
/// undefined.
Tensor conv(const Tensor &x, const Tensor &weights, const Tensor &bias, Window window,
            int groups = 1);
/// The transpose (gradient) of conv: weights (C, M / group, K...). `output_padding` adds points
/// at the end of each axis; pads remove them.
Tensor conv_transpose(const Tensor &x, const Tensor &weights, const Tensor &bias, Window window,
                      int groups = 1, const std::vector<int> &output_padding = {});

enum class PoolKind { Max, Average, Lp };
/// Pooling over `window`. Average counts the padding when `count_include_pad`; `ceil_mode`
/// rounds the output's extent up (a last window that starts inside the input or its leading
/// padding). Lp pooling uses `p`.
Tensor pool(const Tensor &x, PoolKind kind, Window window, bool ceil_mode = false,
            bool count_include_pad = false, int p = 2);
/// The flattened index (row-major over the whole input, or column-major over the spatial axes
/// when `column_major`) of each max-pool window's largest element (its first).
Tensor max_pool_indices(const Tensor &x, Window window, bool ceil_mode = false,
                        bool column_major = false);
/// Pooling over all spatial axes, keeping them with extent 1.
Tensor global_pool(const Tensor &x, PoolKind kind, int p = 2);

}  // namespace dsl::nn
