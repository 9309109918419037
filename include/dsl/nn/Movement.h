#pragma once
/// Operators that move data without arithmetic on it: reshapes, transposes, slices, gathers,
/// concatenation, padding, and the tensors made of shapes. Axes count outermost first (numpy
/// order); negative axes count from the end. Sizes may be expressions known only when the
/// pipeline runs (a Reshape's shape read from another tensor).

#include <string>
#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// `x` with `shape` (its element count must equal x's): the elements in row-major order.
Tensor reshape(const Tensor &x, const Shape &shape);
/// A 2-D view: the axes before `axis`, and those from it.
Tensor flatten(const Tensor &x, int axis = 1);
/// Removes the given axes, which must have extent 1 (all axes of extent 1 when empty).
Tensor squeeze(const Tensor &x, const std::vector<int> &axes);
/// Inserts axes of extent 1 at the given positions of the result.
Tensor unsqueeze(const Tensor &x, const std::vector<int> &axes);
/// The axes permuted: result axis i is x's axis perm[i] (reversed when perm is empty).
Tensor transpose(const Tensor &x, std::vector<int> perm = {});
/// The tensors joined along `axis`; the other extents must match.
Tensor concat(const std::vector<Tensor> &xs, int axis);
/// Parts of `x` along `axis` of the given extents (which sum to its extent).
std::vector<Tensor> split(const Tensor &x, int axis, const std::vector<Expr> &sizes);
/// numpy's x[start:end:step] on the given axes (ONNX's clamping of out-of-range bounds, negative
/// bounds counted from the end, negative steps). Bounds may be int64 expressions.
Tensor slice(const Tensor &x, const std::vector<Expr> &starts, const std::vector<Expr> &ends,
             const std::vector<int> &axes, const std::vector<Expr> &steps);
/// x's slices along `axis` at `indices` (negative indices count from the end): the result has
/// x's axes before `axis`, then the indices' axes, then x's axes after it.
Tensor gather(const Tensor &x, const Tensor &indices, int axis);
/// out[i][j][k] = x[index[i][j][k]][j][k] for axis 0 (and alike for the others).
Tensor gather_elements(const Tensor &x, const Tensor &indices, int axis);
/// Slices of x addressed by the last axis of `indices` (`batch_dims` leading axes shared).
Tensor gather_nd(const Tensor &x, const Tensor &indices, int batch_dims = 0);
/// How a scatter combines an update with the element it lands on.
enum class ScatterReduction { None, Add, Mul, Max, Min };
/// `x` with `updates` written at `indices` along `axis` (as gather_elements reads them).
Tensor scatter_elements(const Tensor &x, const Tensor &indices, const Tensor &updates, int axis,
                        ScatterReduction reduction = ScatterReduction::None);
/// `x` with slices of `updates` written at the addresses in the last axis of `indices`.
Tensor scatter_nd(const Tensor &x, const Tensor &indices, const Tensor &updates,
                  ScatterReduction reduction = ScatterReduction::None);
/// x broadcast (numpy) with `shape`.
Tensor expand(const Tensor &x, const Shape &shape);
/// x repeated `repeats[i]` times along axis i.
Tensor tile(const Tensor &x, const std::vector<Expr> &repeats);
enum class PadMode { Constant, Reflect, Edge };
/// x with `before[i]` and `after[i]` elements added on axis i (negative: removed).
Tensor pad(const Tensor &x, const std::vector<Expr> &before, const std::vector<Expr> &after,
           PadMode mode = PadMode::Constant, const Expr &value = Expr());
/// Rearranges (N, C*b*b, H, W) into (N, C, H*b, W*b): depth-column-row order, or
/// column-row-depth when `crd`.
Tensor depth_to_space(const Tensor &x, int block, bool crd = false);
Tensor space_to_depth(const Tensor &x, int block);
/// The upper (or lower) triangle of the last two axes from diagonal k; zeros elsewhere.
Tensor trilu(const Tensor &x, const Expr &k, bool upper);
/// A 2-D identity-like matrix of `shape` and type `t` with ones on diagonal k.
Tensor eye_like(const Shape &shape, Type t, int k = 0);
/// One-hot encoding: `values` is {off, on}; the new axis of extent `depth` is at `axis`.
Tensor one_hot(const Tensor &indices, const Expr &depth, const Tensor &values, int axis = -1);
/// start, start + delta, ... below limit (above it for a negative delta), in type `t`.
Tensor range(const Expr &start, const Expr &limit, const Expr &delta, Type t);
/// The extents of x from axis `start` to `end` (exclusive), as a 1-D int64 tensor.
Tensor shape_of(const Tensor &x, int start = 0, int end = INT32_MAX);
/// The number of elements of x, as an int64 scalar.
Tensor size_of(const Tensor &x);
/// A tensor of `shape` filled with `value`.
Tensor full(const Shape &shape, const Expr &value);
/// Each element's index along `axis`'s running sum (exclusive and/or from the end).
Tensor cumsum(const Tensor &x, int axis, bool exclusive = false, bool reverse = false);

/// The inverse of max pooling: a tensor of `shape` that holds x's elements at the positions
/// `indices` gives them, and zeros elsewhere. The indices are flattened (row-major) over
/// `index_shape` (the unpooled input's shape; `shape` when empty), which may be smaller than
/// `shape` (the extra points stay zero).
Tensor max_unpool(const Tensor &x, const Tensor &indices, const Shape &shape,
                  const Shape &index_shape = {});

/// A window function of `size` points in type `t`: Hann, Hamming or Blackman, periodic (divided
/// by size) or symmetric (by size - 1).
enum class WindowFunction { Hann, Hamming, Blackman };
Tensor window_function(WindowFunction kind, const Expr &size, Type t, bool periodic = true);
/// numpy's einsum for explicit or implicit equations ("ij,jk->ik", "ii", "bij,bjk"); letters
/// absent from the output are summed over. No ellipsis.
Tensor einsum(const std::string &equation, const std::vector<Tensor> &inputs);

}  // namespace dsl::nn
