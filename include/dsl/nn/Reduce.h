#pragma once
/// Reductions over axes, the arg-reductions, the softmax family and cumulative sums. Axes count
/// outermost first; negative axes count from the end. Floats of 16 bits accumulate in float32.

#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

/// Reduces `axes` of x (all axes when empty); reduced axes are kept with extent 1 when
/// `keepdims`, else removed.
Tensor reduce(const Tensor &x, Reduction kind, std::vector<int> axes = {}, bool keepdims = true);
/// The index (int64) of the largest (smallest) element along `axis`: the first one, or the last
/// one when `select_last_index`.
Tensor argmax(const Tensor &x, int axis, bool keepdims = true, bool select_last_index = false);
Tensor argmin(const Tensor &x, int axis, bool keepdims = true, bool select_last_index = false);
/// exp(x) / sum(exp(x)) along `axis`, computed without overflow.
Tensor softmax(const Tensor &x, int axis = -1);
Tensor log_softmax(const Tensor &x, int axis = -1);
/// 1 at the first largest element along `axis`, 0 elsewhere.
Tensor hardmax(const Tensor &x, int axis = -1);

/// The k largest (or smallest) elements along `axis`, in order, and their indices (int64); ties
/// go to the lower index. Each element's rank is counted against the whole axis (quadratic in
/// its extent: for the short axes of detection heads, not for sorting long ones).
struct TopK {
    Tensor values, indices;
};
TopK top_k(const Tensor &x, const Expr &k, int axis = -1, bool largest = true);

}  // namespace dsl::nn
