#pragma once
/// Elementwise operators of the NN library: unary math, activations, and the binary, comparison
/// and logical operators with numpy broadcasting (shapes aligned at their last axes; an extent
/// of 1 stretches). Every result is a new Func, unscheduled (so inlined into what reads it,
/// unless you schedule it).

#include <string>
#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// `f` applied to every element of `x`; the result's type is the type `f` returns.
Tensor map(const Tensor &x, const std::function<Expr(const Expr &)> &f,
           const std::string &name = "map");
/// `f` applied to the elements of `xs` broadcast together.
Tensor zip(const std::vector<Tensor> &xs, const std::function<Expr(const std::vector<Expr> &)> &f,
           const std::string &name = "zip");

// Arithmetic. Both operands have one type. Integer division truncates toward zero and
// overflow wraps (as in C and ONNX); floats follow IEEE.
Tensor add(const Tensor &a, const Tensor &b);
Tensor sub(const Tensor &a, const Tensor &b);
Tensor mul(const Tensor &a, const Tensor &b);
Tensor div(const Tensor &a, const Tensor &b);
/// The remainder of a / b: with the sign of b (Python's %) unless `fmod`, then with the sign of
/// a (C's fmod; required for floats by ONNX).
Tensor mod(const Tensor &a, const Tensor &b, bool fmod = false);
/// a to the power b, in a's type (b may have another type).
Tensor pow(const Tensor &a, const Tensor &b);
/// The elementwise maximum, minimum, sum and mean of one or more tensors.
Tensor max(const std::vector<Tensor> &xs);
Tensor min(const std::vector<Tensor> &xs);
Tensor sum(const std::vector<Tensor> &xs);
Tensor mean(const std::vector<Tensor> &xs);

// Comparisons and logic: results are bool tensors.
Tensor equal(const Tensor &a, const Tensor &b);
Tensor less(const Tensor &a, const Tensor &b);
Tensor less_equal(const Tensor &a, const Tensor &b);
Tensor greater(const Tensor &a, const Tensor &b);
Tensor greater_equal(const Tensor &a, const Tensor &b);
Tensor logical_and(const Tensor &a, const Tensor &b);
Tensor logical_or(const Tensor &a, const Tensor &b);
Tensor logical_xor(const Tensor &a, const Tensor &b);
Tensor logical_not(const Tensor &a);
Tensor bitwise_and(const Tensor &a, const Tensor &b);
Tensor bitwise_or(const Tensor &a, const Tensor &b);
Tensor bitwise_xor(const Tensor &a, const Tensor &b);
Tensor bitwise_not(const Tensor &a);
/// a shifted by b bits, left or right (unsigned types).
Tensor bit_shift(const Tensor &a, const Tensor &b, bool left);
/// `a` where `cond` holds, else `b`, all three broadcast together.
Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b);
/// Each element converted to `t`: floats to integers truncate toward zero and saturate; to
/// bool, nonzero is true.
Tensor cast(const Tensor &x, Type t);
Tensor is_nan(const Tensor &x);
/// Infinities of the chosen signs.
Tensor is_inf(const Tensor &x, bool positive = true, bool negative = true);

// Unary math, in the tensor's type (float16 and bfloat16 are computed in float32).
Tensor neg(const Tensor &x);
Tensor abs(const Tensor &x);
/// -1, 0 or 1.
Tensor sign(const Tensor &x);
Tensor reciprocal(const Tensor &x);
Tensor floor(const Tensor &x);
Tensor ceil(const Tensor &x);
/// Rounds half to even.
Tensor round(const Tensor &x);
Tensor sqrt(const Tensor &x);
Tensor exp(const Tensor &x);
Tensor log(const Tensor &x);
Tensor sin(const Tensor &x);
Tensor cos(const Tensor &x);
Tensor tan(const Tensor &x);
Tensor asin(const Tensor &x);
Tensor acos(const Tensor &x);
Tensor atan(const Tensor &x);
Tensor sinh(const Tensor &x);
Tensor cosh(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor asinh(const Tensor &x);
Tensor acosh(const Tensor &x);
Tensor atanh(const Tensor &x);
Tensor erf(const Tensor &x);

// Activations.
Tensor relu(const Tensor &x);
Tensor leaky_relu(const Tensor &x, float alpha = 0.01f);
/// max(0, x) + slope * min(0, x), with `slope` broadcast to x.
Tensor prelu(const Tensor &x, const Tensor &slope);
Tensor elu(const Tensor &x, float alpha = 1.0f);
Tensor selu(const Tensor &x, float alpha = 1.67326319217681884765625f,
            float gamma = 1.05070102214813232421875f);
Tensor celu(const Tensor &x, float alpha = 1.0f);
Tensor sigmoid(const Tensor &x);
Tensor hard_sigmoid(const Tensor &x, float alpha = 0.2f, float beta = 0.5f);
Tensor hard_swish(const Tensor &x);
Tensor softplus(const Tensor &x);
Tensor softsign(const Tensor &x);
/// The Gaussian error linear unit: exact (with erf), or the tanh approximation.
Tensor gelu(const Tensor &x, bool tanh_approximation = false);
/// x limited to [lo, hi]; an undefined bound is no limit.
Tensor clip(const Tensor &x, const Expr &lo, const Expr &hi);
Tensor thresholded_relu(const Tensor &x, float alpha = 1.0f);
/// x + bias below -lambd, x - bias above lambd, 0 between.
Tensor shrink(const Tensor &x, float bias = 0.0f, float lambd = 0.5f);

}  // namespace dsl::nn
