#pragma once
/// Linear quantization (ONNX's QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear): real
/// values x stand for integers q with x = (q - zero_point) * scale. Scales and zero points are
/// scalars, or 1-D tensors along `axis` (per channel).

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// q = saturate(round_half_to_even(x / scale) + zero_point), in the zero point's type (uint8
/// when `zero_point` is undefined).
Tensor quantize_linear(const Tensor &x, const Tensor &scale, const Tensor &zero_point,
                       int axis = 1);
/// x = (q - zero_point) * scale, in the scale's type.
Tensor dequantize_linear(const Tensor &q, const Tensor &scale, const Tensor &zero_point,
                         int axis = 1);
/// uint8 quantization with a scale and zero point chosen from x's range (which always includes
/// 0): (max - min) / 255 and round(-min / scale).
struct DynamicQuantization {
    Tensor y, scale, zero_point;
};
DynamicQuantization dynamic_quantize_linear(const Tensor &x);

}  // namespace dsl::nn
