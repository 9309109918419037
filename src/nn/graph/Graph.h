#pragma once
/// The graph layer's model (DESIGN.md §8): nodes that name their input and output values, the
/// values' declared types and shapes, and the constants. It knows ONNX's operators and
/// attributes but not protobuf: onnx/ fills it, model/ compiles it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Type.h"

namespace dsl::nn::graph {

/// One extent of a declared shape: a number, or a symbol shared by every extent that names it
/// ("N", "height"), or unknown (neither).
struct Dim {
    int64_t value = -1;
    std::string symbol;
    bool known() const { return value >= 0; }
};

/// A value of the graph as the model declares it (graph inputs and outputs, value_info).
struct ValueInfo {
    std::string name;
    /// Unset when the model does not say (or the type is not a tensor of numbers).
    std::optional<Type> type;
    /// The ONNX type name when it is not one dsl has ("string", "complex64", "sequence", ...).
    std::string unsupported_type;
    /// Unset when the model does not declare a shape.
    std::optional<std::vector<Dim>> shape;
};

/// A node attribute. Tensors are held as buffers (dimension 0 the innermost axis).
struct Attribute {
    enum class Kind { Float, Int, String, Tensor, Floats, Ints, Strings, Graph, Other };
    Kind kind = Kind::Other;
    double f = 0;
    int64_t i = 0;
    std::string s;
    Buffer<> t;
    std::vector<double> floats;
    std::vector<int64_t> ints;
    std::vector<std::string> strings;
};

struct Node {
    std::string name;  ///< may be empty in the file; the reader fills one in
    std::string op_type;
    std::string domain;  ///< "" (or "ai.onnx") for the standard operators
    /// Value names; an empty name is an omitted optional input or output.
    std::vector<std::string> inputs, outputs;
    std::map<std::string, Attribute> attributes;

    /// How the node is named in messages: `node "conv1" (Conv)`.
    std::string describe() const;
};

struct Graph {
    std::string name;
    /// The file the graph came from, for messages.
    std::string source;
    /// The version of the standard operator set the model imports.
    int64_t opset = 0;
    /// Inputs that are not initializers, in order; outputs in order.
    std::vector<ValueInfo> inputs, outputs;
    /// Declared types and shapes of intermediate values.
    std::map<std::string, ValueInfo> value_info;
    /// Constant values (initializers; also inputs with a default), by name.
    std::map<std::string, Buffer<>> initializers;
    /// In file order (not necessarily topological).
    std::vector<Node> nodes;
};

/// The dsl type of an ONNX element type code (TensorProto.DataType: 1 float, 7 int64, 9 bool,
/// ...); unset, with `*unsupported` naming it, when dsl has none (strings, complex numbers).
std::optional<Type> element_type(int64_t code, std::string *unsupported = nullptr);

/// The ONNX name of a type ("float", "int64", "bool", ...).
std::string onnx_type_name(Type t);

}  // namespace dsl::nn::graph
