#pragma once
/// Linear quantization (ONNX's QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear): real
/// values x stand for integers q with x = (q - zero_point) * scale. Scales and zero points are
/// scalars, or 1-D tensors along `axis` (per channel).

#include "dsl/Math.h"
#include "dsl/nn/Conv.h"
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

/// q - zero_point as int32 (ONNX's ConvInteger and MatMulInteger): the zero point undefined
/// (0), a scalar or one element, or one per index of `axis` of q.
Tensor subtract_zero_point(const Tensor &q, const Tensor &zero_point, int axis);

/// The int32 matrix product sum_k (a - a_zero_point)(b - b_zero_point) of 8-bit integers (ONNX's
/// MatMulInteger, and QLinearMatMul's sums): a (..., M, K) uint8 or int8, b (K, N) uint8 or int8;
/// A's zero point undefined (0), one value, or one per row (M); B's undefined, one value, or one
/// per column (N). Computed as a dot product of unsigned by signed bytes (an int8 operand is
/// shifted by 128 and a uint8 weight by -128, which the zero points' terms absorb) plus
/// per-row and per-column terms, with B packed four k at a time per column: on a target with
/// avx512_vnni each 16 x 4 products are one vpdpbusd, elsewhere vpmaddwd.
Tensor integer_matmul(const Tensor &a, const Tensor &b, const Tensor &a_zero_point,
                      const Tensor &b_zero_point);
/// The int32 2-D convolution sum (x - x_zero_point)(w - w_zero_point) + bias of 8-bit integers
/// (ONNX's ConvInteger, and QLinearConv's sums): x (N, C, H, W) uint8 or int8 with one zero
/// point, its padding read as that zero point; w (M, C, KH, KW) uint8 or int8, a constant, with
/// one zero point or one per output channel; bias {M} int32 or undefined; groups 1, dilation 1.
/// As integer_matmul: unsigned by signed bytes on vpdpbusd (vpmaddwd without avx512_vnni), x
/// packed four channels per pixel in the pipeline, w on the host when the pipeline is built.
Tensor integer_conv(const Tensor &x, const Tensor &w, const Tensor &x_zero_point,
                    const Tensor &w_zero_point, const Tensor &bias, Window window);
/// Whether integer_conv takes these operands.
bool integer_conv_applies(const Tensor &x, const Tensor &w, const Tensor &x_zero_point,
                          const Window &window, int groups);
/// ConvInteger's sums (QLinearConv's before rescaling) for any convolution of 8-bit integers,
/// with `groups` groups and any dilation: integer_conv where it applies. Otherwise (depthwise
/// and grouped convolutions), where every sum has fewer than 2^24 / 255^2 products, float32
/// sums them exactly at the float convolution's speed (weights converted on the host when they
/// are constants, the input once per element), and int32 adds the bias; else conv of
/// subtract_zero_point in int32.
Tensor integer_conv_sums(const Tensor &x, const Tensor &w, const Tensor &x_zero_point,
                         const Tensor &w_zero_point, const Tensor &bias, const Window &window,
                         int groups);
/// ONNX's QLinear rescaling of int32 sums `acc` of products of two quantized operands with
/// scales `scale_a` (per tensor) and `scale_b` (per tensor, or per index of `axis` of acc), into
/// the zero point's type: saturate(round_half_to_even(acc * (scale_a * scale_b / y_scale)) +
/// y_zero_point), the factor in float32.
Tensor requantize_linear(const Tensor &acc, const Tensor &scale_a, const Tensor &scale_b, int axis,
                         const Tensor &y_scale, const Tensor &y_zero_point);

/// TFLite's MultiplyByQuantizedMultiplier (dsl/Math.h).
using dsl::multiply_by_quantized_multiplier;

/// The rescaling of requantize_linear in TFLite's fixed-point arithmetic (the NPU's):
/// saturate(y_zero_point + multiply_by_quantized_multiplier(acc, multiplier, shift)) in the zero
/// point's type, `multiplier` and `shift` int32, one value or one per index of `axis` of acc
/// (from quantize_multiplier of scale_a * scale_b / y_scale). It differs from the float32
/// factor by at most one step, where a product lies within rounding of a half.
Tensor requantize_fixed_point(const Tensor &acc, const Tensor &multiplier, const Tensor &shift,
                              int axis, const Tensor &y_zero_point);

/// How int32 accumulators of int8 products become int8 outputs, per output channel m, as
/// TFLite's int8 kernels do: clamp(output_zero_point + multiply_by_quantized_multiplier(acc,
/// multiplier[m], shift[m]), min, max). Weights are symmetric (zero point 0); the input's zero
/// point is `input_zero_point`.
struct Requantization {
    int32_t input_zero_point = 0, output_zero_point = 0;
    /// int32 tensors of shape {M}.
    Tensor multiplier, shift;
    int32_t min = -128, max = 127;
    /// The result's type: int8, or uint8 (with min and max within [0, 255] and the zero point
    /// a uint8 one).
    Type type = Int(8);
};

/// TFLite's int8 convolution (2-D: x (N, C, H, W) int8, weights (M, C / groups, KH, KW) int8,
/// bias {M} int32 or undefined; `window` as conv's; groups 1, or C for a depthwise convolution
/// with M = C, which the NPU runs with its channels on diagonal weight blocks): acc = bias[m] + sum
/// (x - x_zero) * w, with the padding read as the input's zero point, then requantized to
/// q.type (int8 or uint8: the NPU's STORE writes either).
/// Written so that the accumulation maps onto the NPU's GEMM core: on a target with `npu`, its
/// schedule runs the sum there (npu_gemm; the zero point folded into the bias, the padded input
/// computed first) and the requantization on the CPU; elsewhere all of it on the CPU.
Tensor quantized_conv(const Tensor &x, const Tensor &weights, const Tensor &bias, Window window,
                      const Requantization &q, int groups = 1);

/// TFLite's int8 matrix product: a (M, K) int8 with zero point q.input_zero_point, b (K, N)
/// int8 (symmetric), bias {N} int32 or undefined; acc = bias[n] + sum (a - z) b, requantized
/// per output column n. On the NPU as quantized_conv is.
Tensor quantized_matmul(const Tensor &a, const Tensor &b, const Tensor &bias,
                        const Requantization &q);

}  // namespace dsl::nn
