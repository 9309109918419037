#pragma once
/// Matrix products: numpy's matmul (1-D operands promoted, batch axes broadcast) and Gemm; and
/// determinants.

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// numpy.matmul: the product of the last two axes, the leading axes broadcast; a 1-D operand is
/// a row (a) or a column (b) vector whose added axis is removed from the result.
Tensor matmul(const Tensor &a, const Tensor &b);
/// alpha * op(a) * op(b) + beta * c, op transposing when asked; a and b are 2-D, c (optional:
/// undefined) broadcasts to the result.
Tensor gemm(const Tensor &a, const Tensor &b, const Tensor &c, float alpha = 1.0f,
            float beta = 1.0f, bool trans_a = false, bool trans_b = false);

/// The determinant of each matrix of x [..., M, M] (ONNX's Det), by Gaussian elimination with
/// partial pivoting (as LAPACK's LU): M steps, each a Func computed at root. M must be known
/// when compiling. The result has x's leading axes.
Tensor det(const Tensor &x);

}  // namespace dsl::nn
