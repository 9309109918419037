#pragma once
/// Operators whose result's size depends on their input's values: ONNX's NonZero and Compress.
/// The size is a scalar computed first (`count_nonzero`), read when the pipeline that builds the
/// result runs (the graph compiler gives it its own kernel, docs/nn.md); the result is then
/// gathered through a scan of the selection and a scatter of the selected positions.

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// The number of nonzero elements of `x` among its first `limit` in row-major order (all when
/// `limit` is undefined), as an int64 scalar tensor.
Tensor count_nonzero(const Tensor &x, const Expr &limit = Expr());

/// ONNX's NonZero: the indices of x's nonzero elements in row-major order, as int64 [rank,
/// count], where `count` is their number (count_nonzero(x), computed before).
Tensor nonzero(const Tensor &x, const Expr &count);

/// ONNX's Compress: the slices of `x` along `axis` where `condition` (1-D) is nonzero; with
/// `flatten`, the elements of x flattened (row-major), and the result is 1-D. Condition
/// elements past x's extent are ignored. `count` is the number of those selected:
/// count_nonzero(condition, selection_length(x, condition, axis, flatten)).
Tensor compress(const Tensor &x, const Tensor &condition, const Expr &count, int axis,
                bool flatten);

/// How many of the condition's elements select something: its length, or x's extent along
/// `axis` (its size when `flatten`) if that is shorter.
Expr selection_length(const Tensor &x, const Tensor &condition, int axis, bool flatten);

}  // namespace dsl::nn
