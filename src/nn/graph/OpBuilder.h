#pragma once
/// The bridge from an ONNX node to the operator library: each ONNX operator has a builder that
/// reads the node's attributes (per opset) and calls the ops/ functions on the node's inputs.
/// Builders know ONNX's semantics but not protobuf, and not how groups are compiled: the
/// compiler hands them a BuildContext.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "dsl/Error.h"
#include "dsl/Target.h"
#include "dsl/nn/Tensor.h"
#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

/// What a builder sees of the node it builds.
class BuildContext {
  public:
    BuildContext(const Node &node, int64_t opset) : node_(node), opset_(opset) {}
    virtual ~BuildContext() = default;

    const Node &node() const { return node_; }
    int64_t opset() const { return opset_; }
    /// `node "name" (Op)`, for messages.
    std::string where() const { return node_.describe(); }

    int inputs() const { return static_cast<int>(node_.inputs.size()); }
    /// Whether optional input `i` is given.
    bool has_input(int i) const;
    /// Input `i` as a tensor; a CompileError naming the node when it is missing.
    virtual Tensor input(int i) = 0;
    /// Input `i`'s value when it is a constant known while compiling (an initializer, a Constant
    /// node or a folded value); undefined otherwise.
    virtual Buffer<> constant(int i) = 0;
    /// The elements of input `i`, a 1-D (or 0-D) integer tensor whose values size the result
    /// (a Reshape's shape, a Slice's starts): constants when they are known, otherwise scalar
    /// parameters read when the model runs. Its length must be known when compiling.
    virtual std::vector<Expr> values(int i) = 0;
    /// Input `i`'s shape as the graph knows it while compiling: constants where the model's
    /// sizes are fixed, symbols elsewhere (for operators such as Shape, which fold when it is
    /// all constant).
    virtual Shape graph_shape(int i) = 0;
    /// Input `i`'s values when they must be known while compiling (axes, which decide ranks).
    /// When they are a graph input's, the compiler specializes the model on that input's
    /// values when it runs (NeedsInputValues); otherwise a CompileError naming `what`.
    virtual std::vector<int64_t> constant_values(int i, const std::string &what) = 0;

    /// The target the node is compiled for.
    virtual const Target &target() const = 0;
    /// Whether QLinear operators rescale in TFLite's fixed-point arithmetic (the NPU's) rather
    /// than with ONNX's float factor: ModelOptions::fixed_point_requantization, or a target with
    /// `npu` (so that the operators left on the CPU compute as those placed on the NPU).
    virtual bool fixed_point_requantization() const = 0;
    /// Records where the node runs, and why not on the NPU (Model::placement()).
    virtual void place(bool npu, const std::string &reason) = 0;
    /// How many of the node's outputs the model uses.
    virtual int outputs_used() const = 0;
    /// `t`, computed before the node's outputs by a kernel of its own, as a tensor the outputs
    /// read: for a computation several outputs share (a recurrent layer's states), which each
    /// output's kernel would otherwise compute again. `part` names it among the node's values
    /// ("<first output>/<part>"). Where `t` reads no runtime value (it would be folded), `t`.
    virtual Tensor shared(const Tensor &t, const std::string &part) = 0;

    bool has_attr(const std::string &name) const { return node_.attributes.count(name) != 0; }
    int64_t attr_int(const std::string &name, int64_t default_value) const;
    double attr_float(const std::string &name, double default_value) const;
    std::string attr_string(const std::string &name, const std::string &default_value) const;
    std::vector<int64_t> attr_ints(const std::string &name,
                                   const std::vector<int64_t> &default_value = {}) const;
    std::vector<double> attr_floats(const std::string &name) const;
    /// A tensor attribute; a CompileError when it is missing.
    Buffer<> attr_tensor(const std::string &name) const;
    /// An element-type attribute (an ONNX TensorProto.DataType code, such as Cast's `to`);
    /// `default_value` when it is absent, a CompileError naming the type dsl lacks.
    Type attr_type(const std::string &name, Type default_value) const;

    /// A CompileError: "<file>: node "x" (Op): <message>".
    [[noreturn]] void fail(const std::string &message) const;

  private:
    const Node &node_;
    int64_t opset_;
};

/// Thrown by constant_values(): compiling needs the values of graph input `input`.
class NeedsInputValues : public CompileError {
  public:
    NeedsInputValues(const std::string &message, std::string input)
        : CompileError(message), input_(std::move(input)) {}
    const std::string &input() const { return input_; }

  private:
    std::string input_;
};

/// Builds the node's outputs, one tensor per output the node names (an omitted optional output
/// may be left undefined).
using Builder = std::function<std::vector<Tensor>(BuildContext &)>;

/// The element of a scalar (or one-element) tensor input, as an expression: how operators read
/// scalar inputs that the model computes (Clip's bounds, Pad's value).
inline Expr scalar_of(const Tensor &t) {
    return t(Index(static_cast<size_t>(t.rank()), Expr(0)));
}

/// Every operator the graph layer can build, by op_type (domain "" only, for now).
const std::map<std::string, Builder> &builders();

// Each family adds its operators to the table.
void add_elementwise_builders(std::map<std::string, Builder> &table);
void add_movement_builders(std::map<std::string, Builder> &table);
void add_reduce_builders(std::map<std::string, Builder> &table);
void add_conv_builders(std::map<std::string, Builder> &table);
void add_norm_builders(std::map<std::string, Builder> &table);
void add_resize_builders(std::map<std::string, Builder> &table);
void add_quantize_builders(std::map<std::string, Builder> &table);
void add_recurrent_builders(std::map<std::string, Builder> &table);
void add_spectral_builders(std::map<std::string, Builder> &table);
void add_selection_builders(std::map<std::string, Builder> &table);

}  // namespace dsl::nn::graph
