#pragma once
/// Matrix products: numpy's matmul (1-D operands promoted, batch axes broadcast) and Gemm.

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// numpy.matmul: the product of the last two axes, the leading axes broadcast; a 1-D operand is
/// a row (a) or a column (b) vector whose added axis is removed from the result.
Tensor matmul(const Tensor &a, const Tensor &b);
/// alpha * op(a) * op(b) + beta * c, op transposing when asked; a and b are 2-D, c (optional:
/// undefined) broadcasts to the result.
Tensor gemm(const Tensor &a, const Tensor &b, const Tensor &c, float alpha = 1.0f,
            float beta = 1.0f, bool trans_a = false, bool trans_b = false);

}  // namespace dsl::nn
