#pragma once
// What the quantised operators (quantized_conv, quantized_matmul) share.
#include <string>
#include <vector>

#include "dsl/nn/Quantize.h"
#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// The schedule of a quantised operator whose int32 accumulation `acc` has two updates, the sum
/// and the requantization, read point by point by the int8 output: `roots` (the padded input,
/// the weights' sums) and `acc` computed at root; on a target with `npu` both updates on the
/// NPU (the GEMM core, then the ALU), otherwise vectors along `inner`.
Tensor::Schedule quantized_schedule(Func acc, std::vector<Func> roots, Var inner);

/// Whether `t` is uint8 or int8.
bool is_byte(Type t);

/// Checks that `q` requantizes to int8 or uint8 within the type's range (`what` names the
/// operator in the error).
void check_requantized_type(const Requantization &q, const std::string &what);

/// A zero point's value at index `i` of its axis, as int32: 0 when undefined, else its only
/// element (one value for the whole tensor) or element i.
Expr zero_point_at(const Tensor &z, const Expr &i);

/// Whether a zero point is known to be 0: undefined, or a constant buffer of zeros (symmetric
/// int8 weights, whose products need no sums of the other operand).
bool zero_constant(const Tensor &z);

}  // namespace dsl::nn
