#pragma once
/// A graph compiled into dsl pipelines (DESIGN.md §8, model/): the steps in execution order,
/// each a kernel whose output shape is an expression of its inputs' extents (and of the values
/// of small integer tensors, such as a Reshape's shape), so that one compilation runs every
/// input size the graph allows. Constants are folded while compiling.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dsl/nn/Model.h"
#include "dsl/nn/Tensor.h"
#include "nn/graph/Graph.h"
#include "nn/model/Kernel.h"
#include "nn/model/MemoryPool.h"

namespace dsl::nn::model {

class CompiledModel {
  public:
    /// Compiles `g`; the graph inputs in `fixed` become constants of those values (the model
    /// specialized on them; run() is still given them and checks their type and shape). With
    /// an `aot_name`, the steps' kernels are only lowered, as functions `<aot_name>_k<i>`, for
    /// compiling ahead of time (model/AotModel.cpp); run() may not be called.
    CompiledModel(const graph::Graph &g, const ModelOptions &options,
                  const std::map<std::string, Buffer<>> &fixed = {},
                  const std::string &aot_name = "");

    std::map<std::string, Buffer<>> run(const std::map<std::string, Buffer<>> &inputs) const;

    const std::vector<ModelValue> &inputs() const { return inputs_; }
    const std::vector<ModelValue> &outputs() const { return outputs_; }
    int compiled_pipelines() const { return compiled_pipelines_; }

    /// One element of a runtime tensor that a step's shapes or indices depend on, bound to a
    /// scalar Param when the step runs.
    struct ValueParam {
        std::string value;
        int element = 0;
        /// An int64 Param, or a double one for a float tensor.
        bool is_float = false;
        std::string name;
        std::shared_ptr<ir::ParameterContents> param;
    };
    /// One output of one node, compiled.
    struct Step {
        std::string where;  ///< the node, for messages
        std::string output;
        Type type;
        /// Runtime tensors read as buffers, and their ImageParams.
        std::vector<std::string> inputs;
        std::vector<std::shared_ptr<ImageParam>> params;
        /// The names of params[i].extent(d), d = 0 ... (innermost first).
        std::vector<std::vector<std::string>> extent_names;
        std::vector<ValueParam> value_params;
        /// The output's shape, outermost first, in terms of the inputs' extents and value params.
        Shape shape;
        std::shared_ptr<Kernel> kernel;
        /// Whether the output is a model output (its own memory) or an intermediate (pooled).
        bool pooled = true;
        /// The intermediates this step reads for the last time: their blocks return to the
        /// pool after it.
        std::vector<std::string> last_uses;
        /// Multiply-adds of convolutions and matrix products per element of the output (0 for
        /// other kernels), for StepReport::macs.
        double macs_per_element = 0;
        /// The convolutions and matrix products the step computes (node names).
        std::vector<std::string> layers;
        /// Its schedule has GPU loops: it leaves its result on the device (else it runs on the
        /// host and reads its inputs there).
        bool gpu = false;

        /// The output's extents, innermost first, given the inputs' extents (under
        /// extent_names) and the value params' values (under their names) in `bindings`.
        std::vector<int64_t> extents(const std::map<std::string, Expr> &bindings) const;

        /// The extents of the last run and what they were computed from (the inputs' extents
        /// and the value params' bits, in order): a run on inputs of the same shapes reuses
        /// them rather than simplifying the shape again (run() holds the pool's lock).
        mutable std::optional<std::vector<int64_t>> memo_key;
        mutable std::vector<int64_t> memo_extents;
    };

    /// The most bytes the intermediate tensors held at once, over the runs so far.
    int64_t peak_intermediate_bytes() const;

    const std::vector<Step> &steps() const { return steps_; }
    /// The values known while compiling: initializers and folded constants (by name).
    const std::map<std::string, Buffer<>> &constants() const { return constants_; }
    const std::string &source() const { return source_; }
    const std::vector<NodePlacement> &placement() const { return placement_; }
    /// What compiling found of each value of the graph: its type and rank, with the extents
    /// that are constants (for onnx/OpsetConversion.h's `known`).
    const std::map<std::string, graph::ValueInfo> &value_info() const { return value_info_; }
    /// The steps of the last run (Model::last_run()).
    std::vector<StepReport> last_run() const;

  private:
    std::string source_;
    std::vector<ModelValue> inputs_, outputs_;
    /// The declared element type and rank of each input, for checking what run() is given.
    std::vector<Type> input_types_;
    std::vector<std::vector<int64_t>> input_dims_;  ///< -1 where not a fixed number
    std::map<std::string, Buffer<>> constants_;
    std::vector<Step> steps_;
    int compiled_pipelines_ = 0;
    std::vector<NodePlacement> placement_;
    std::map<std::string, graph::ValueInfo> value_info_;
    /// Whether the target has `npu`: run() then records each step's NPU counters.
    bool npu_ = false;
    /// The target has a GPU API: kernels leave their results on the device.
    bool gpu_ = false;
    mutable std::vector<StepReport> last_run_;
    /// Intermediates' memory, kept between runs; run() holds the lock (one run at a time).
    mutable std::mutex pool_mutex_;
    mutable MemoryPool pool_;

    friend class ModelCompiler;
};

}  // namespace dsl::nn::model
