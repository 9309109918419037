#pragma once
/// Operators whose result's size depends on their input's values: ONNX's NonZero, Compress and
/// Unique.
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

/// ONNX's Unique: the distinct elements of `x` (flattened, when `axis` is negative), or its
/// distinct slices along `axis`, sorted ascending (slices lexicographically) or in order of
/// first occurrence. `count` is their number (unique_count, computed before).
struct UniqueResult {
    Tensor y;                ///< the distinct elements or slices
    Tensor indices;          ///< int64: where each first occurs in x
    Tensor inverse_indices;  ///< int64: for each element or slice of x, its index in y
    Tensor counts;           ///< int64: how often each occurs
};
UniqueResult unique(const Tensor &x, int axis, bool sorted, const Expr &count);
/// How many distinct elements (axis negative) or slices along `axis` x has, as an int64 scalar
/// tensor. O(n^2) comparisons, as unique's.
Tensor unique_count(const Tensor &x, int axis);

}  // namespace dsl::nn
