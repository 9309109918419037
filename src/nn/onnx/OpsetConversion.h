#pragma once
/// Raising a model's opset with ONNX's version converter (for the operators a rewrite adds:
/// per-channel QuantizeLinear and DequantizeLinear need opset 13). Only onnx/ sees protobuf.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>

#include "nn/graph/Graph.h"

namespace dsl::nn::onnx {

/// The version of the standard operator set `m` imports (0 when none).
int64_t standard_opset(const ::onnx::ModelProto &m);

/// Converts `m` in place to standard opset `opset` (no change, and no copy, when it is that or
/// later). A CompileError naming `path` when ONNX's converter cannot convert one of its
/// operators. Some of its adapters need an input's rank (Softmax's, from opset 12 to 13, whose
/// axis changed meaning), which ONNX's shape inference cannot always find (behind a Reshape to a
/// computed shape): `known` gives the types and ranks the compiler found
/// (CompiledModel::value_info()), declared for those inputs before converting.
void raise_opset(::onnx::ModelProto &m, int64_t opset, const std::string &path,
                 const std::map<std::string, graph::ValueInfo> &known = {});

}  // namespace dsl::nn::onnx
