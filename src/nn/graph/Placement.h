#pragma once
/// Placement of the quantized operators (DESIGN.md §8, "place"): on a target with `npu`, each
/// QLinearConv and QLinearMatMul that maps onto the NPU's GEMM core runs there, as TFLite's int8
/// arithmetic (nn::quantized_conv, nn::quantized_matmul); the rest stays on the CPU. Operators
/// on either device then rescale in fixed point, so that the CPU computes what the NPU would:
/// a model's outputs are the same bytes on host-npu as on the CPU with
/// ModelOptions::fixed_point_requantization.

#include <string>

#include "dsl/nn/Conv.h"
#include "dsl/nn/Quantize.h"
#include "dsl/nn/Tensor.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

/// How one QLinearConv or QLinearMatMul computes (inputs: x, x_scale, x_zero_point, w, w_scale,
/// w_zero_point, y_scale, y_zero_point[, bias]).
struct QLinearPlan {
    enum class Kind {
        Float,       ///< ONNX's rescaling by a float32 factor, on the CPU
        FixedPoint,  ///< TFLite's fixed-point rescaling, on the CPU
        NPU          ///< the sums and the fixed-point rescaling on the NPU
    };
    Kind kind = Kind::Float;
    /// Kind::FixedPoint and NPU: the multipliers and shifts (int32, one per output channel:
    /// quantize_multiplier of x_scale * w_scale / y_scale); Kind::NPU: also the zero points
    /// of x and y as the NPU's int8 values see them (a uint8 one less 128).
    Requantization requantization;
};

/// Decides for the node of `ctx` (QLinearConv when `conv`, else QLinearMatMul), and records the
/// placement and its reason through ctx.place() on a target with `npu`.
QLinearPlan plan_qlinear(BuildContext &ctx, bool conv);

/// QLinearConv on the NPU: x and the result uint8 or int8 (uint8 shifted by 128 to int8 and
/// back), weights int8 with zero points 0; groups 1 or depthwise.
Tensor npu_qlinear_conv(BuildContext &ctx, const QLinearPlan &plan, const Window &window,
                        int groups);
/// QLinearMatMul on the NPU: a (M, K) and the result uint8 or int8, b (K, N) int8 constant with
/// zero points 0.
Tensor npu_qlinear_matmul(BuildContext &ctx, const QLinearPlan &plan);

}  // namespace dsl::nn::graph
