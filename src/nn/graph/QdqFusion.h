#pragma once
/// Quantized groups (DESIGN.md §8): in the QDQ form of a quantized model, each integer operator
/// is written as float operators between DequantizeLinear and QuantizeLinear nodes. Run as
/// written, a convolution would dequantize its input and weights and compute in float. This
/// rewrite finds the groups and replaces each with the integer operator it stands for, so that
/// the sums run as 8-bit dot products (nn::integer_conv, nn::integer_matmul).

#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

/// What fuse_quantized_groups did.
struct QdqCounts {
    int convs = 0;    ///< Q(act(Conv(DQ(x), DQ(w), b))) -> QLinearConv (and a clamp)
    int matmuls = 0;  ///< Q(act(MatMul(DQ(a), DQ(b)))) -> QLinearMatMul (and a clamp)
    int linears = 0;  ///< Q(act(MatMul(DQ(a), DQ(b)) + bias)) -> MatMulInteger + int32 bias
};

/// Replaces, where the scales and zero points are constants (per tensor for the activations;
/// per tensor or per output channel for the weights) and the float values in between are read
/// by nothing else:
/// - QuantizeLinear(act(Conv(DequantizeLinear(x), DequantizeLinear(w), bias))) by a
///   QLinearConv whose int32 bias is the float bias (a constant, or a DequantizeLinear of
///   one) divided by x_scale * w_scale;
/// - QuantizeLinear(act(MatMul(DequantizeLinear(a), DequantizeLinear(b)))) by a QLinearMatMul,
///   and with a constant bias added (a Linear layer) by MatMulInteger, the int32 bias, and
///   the rescaling;
/// where act is nothing, Relu, or a Clip of constant bounds, which become a Max and Min of the
/// integer result with the quantized bounds (quantization is monotonic, so the two commute).
/// The graph computes the same values up to the rounding of the float sums and of the bias.
QdqCounts fuse_quantized_groups(Graph &g);

}  // namespace dsl::nn::graph
