#pragma once
/// Post-training quantization's graph side (DESIGN.md §8): which operators can run in int8, the
/// values calibration must observe for them, and the QDQ form of the quantized model — each
/// quantized value followed by QuantizeLinear and DequantizeLinear, each weight stored as int8
/// with its DequantizeLinear — which ONNX runtimes, and graph/QdqFusion.h, run as integer
/// operators.

#include <map>
#include <string>
#include <vector>

#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

/// An operator that can be quantized: a Conv of constant float32 weights (and a constant bias,
/// or none), or a MatMul whose B is a 2-D constant of float32.
struct QuantizableOp {
    std::string node;  ///< the node's name
    std::string op_type;
    /// The activation it reads, and the value its quantized result stands for: its output, or
    /// (for a MatMul) that plus a constant bias of one value per column, then the output of
    /// the Relu or Clip (of constant bounds) that alone reads it.
    std::string input, output;
    /// Whether it is the first or the last layer of the network: of its Conv, ConvTranspose,
    /// MatMul and Gemm nodes, in order of computation.
    bool first_layer = false, last_layer = false;
};

/// The quantizable operators of `g`, in an order in which every value is computed before it is
/// read.
std::vector<QuantizableOp> quantizable_ops(const Graph &g);

/// An activation as uint8: x = (q - zero_point) * scale.
struct ActivationQuantization {
    float scale = 1;
    int zero_point = 0;
};

/// The uint8 quantization of the range [lo, hi] (which holds 0): 0 is exact.
ActivationQuantization activation_quantization(float lo, float hi);

struct QdqPlan {
    std::vector<QuantizableOp> ops;
    /// Every op's input and output, with its quantization.
    std::map<std::string, ActivationQuantization> activations;
    /// Weights quantized per output channel (a Conv's) or per column (a MatMul's) rather than
    /// per tensor; needs opset 13.
    bool per_channel = true;
};

/// Rewrites `g` into the QDQ form of `plan`: each activation goes through QuantizeLinear and
/// DequantizeLinear before every reader (a graph output keeps its name, now the dequantized
/// value, its producer writing a new one); each op's
/// weights become int8 (symmetric, [-127, 127]) with a DequantizeLinear, a Conv's bias int32 of
/// scale input scale x weight scale. Constants nothing reads any more (the float weights) are
/// dropped.
void insert_qdq(Graph &g, const QdqPlan &plan);

}  // namespace dsl::nn::graph
