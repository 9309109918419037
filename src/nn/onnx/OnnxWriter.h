#pragma once
/// Writing ONNX files (DESIGN.md §8): a graph::Graph back into a model (the quantized models of
/// `dsl-onnx quantize`), and buffers as TensorProto files.

#include <cstdint>
#include <map>
#include <string>

#include "dsl/Buffer.h"
#include "nn/graph/Graph.h"

namespace dsl::nn::onnx {

/// Writes `g` as an ONNX model at `path`. The model `source` it was read from provides what the
/// graph does not hold: the model's metadata and opset imports, the declared types of inputs,
/// outputs and intermediate values, and the subgraphs of control-flow nodes (found by node
/// name). Initializers are stored in the file. A CompileError names the file on failure.
/// `known` is raise_opset's, for converting the source to the graph's opset.
void write_model(const graph::Graph &g, const std::string &source, const std::string &path,
                 const std::map<std::string, graph::ValueInfo> &known = {});

/// ONNX's TensorProto.DataType code of a dsl type.
int32_t onnx_element_type(Type t);

/// Writes `b` as a serialized TensorProto named `name`.
void write_tensor(const std::string &path, const Buffer<> &b, const std::string &name);

}  // namespace dsl::nn::onnx
