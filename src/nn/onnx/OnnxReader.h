#pragma once
/// Reading ONNX files (DESIGN.md §8): the only code that sees protobuf. A model file becomes a
/// graph::Graph; a TensorProto file (the test data of ONNX's backend tests) becomes a buffer.
/// Every problem is a CompileError that names the file, and the node where there is one.

#include <map>
#include <string>

#include "dsl/Buffer.h"
#include "nn/graph/Graph.h"

namespace dsl::nn::onnx {

/// Reads and checks (with ONNX's own checker, whose message is passed on) the model at `path`.
/// Initializers stored in external files are read from beside the model. A model importing a
/// standard opset below `min_opset` is first converted to `min_opset` (ONNX's version
/// converter; `known` as raise_opset's).
graph::Graph read_model(const std::string &path, int64_t min_opset = 0,
                        const std::map<std::string, graph::ValueInfo> &known = {});

/// Reads a serialized TensorProto. `*name` receives the tensor's name (may be empty).
Buffer<> read_tensor(const std::string &path, std::string *name = nullptr);

/// The contents of the file at `path`; a CompileError naming the file (as `what`: "model")
/// when it cannot be read.
std::string read_file(const std::string &path, const char *what);

}  // namespace dsl::nn::onnx
