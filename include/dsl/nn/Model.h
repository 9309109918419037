#pragma once
/// Running ONNX models: `Model::load` reads a model, checks it and compiles every operator into
/// dsl pipelines (through the JIT's memory and disk caches); `run` evaluates it on any inputs
/// whose sizes the model allows, without compiling again.
///
///   nn::Model m = nn::Model::load("resnet.onnx");
///   std::map<std::string, Buffer<>> out = m.run({{"data", image}});
///
/// Buffers hold tensors with dimension 0 the innermost axis: a numpy array of shape (1, 3, 224,
/// 224) is a Buffer of extents (224, 224, 3, 1). `load_npy` / `save_npy` (dsl/nn/Npy.h) convert.
/// Problems with the file or the graph are CompileErrors naming the file and the node; problems
/// with the inputs given to `run` are RuntimeErrors naming the input.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/NPU.h"
#include "dsl/Target.h"

namespace dsl::nn {

namespace model {
class Specializations;
}

struct ModelOptions {
    Target target = Target::host();
    /// Lets a multiply and the add of its result be one fused multiply-add (the target feature
    /// `fp_contract`), as ONNX Runtime and oneDNN do: twice the arithmetic throughput of
    /// convolutions and matrix products, results rounded once instead of twice. False rounds
    /// every operation on its own.
    bool fp_contract = true;
    /// Runs a quantized model's QDQ groups (QuantizeLinear of a Conv or MatMul of
    /// DequantizeLinears) as the integer operators they stand for: 8-bit dot products summed in
    /// int32 instead of float arithmetic on dequantized values. The results differ from the
    /// float computation by the rounding of the float sums and of the bias (at most one step of
    /// the output's scale, almost everywhere none). False runs the groups as written.
    bool fuse_quantized = true;
    /// Rescales QLinearConv and QLinearMatMul results in TFLite's fixed-point arithmetic (an
    /// int32 multiplier and shift per channel, dsl/Math.h's quantize_multiplier) instead of
    /// ONNX's float32 factor: the NPU's arithmetic, so that a model run on the CPU with this
    /// option gives the same bytes as on a target with `npu`, where it is always on. The two
    /// rescalings differ by one step where a value lies within rounding of a half.
    bool fixed_point_requantization = false;
    /// Schedules the kernels that no operator schedules (a normalisation, a softmax, a pooling of
    /// an elementwise result) with the built-in autoscheduler, from the tensors' shapes, where
    /// those are known when compiling (nn::schedule_output). False gives them the default
    /// schedule: producers inlined, vectors along the innermost axis, threads over the others.
    bool auto_schedule = true;
    /// Compiles for these extents of the inputs they name (outermost first: {"x", {1, 3, 640,
    /// 640}}), where the model leaves them symbolic (or checks them where it declares them):
    /// every kernel then has constant loop extents and shapes (faster code, and less of it to
    /// compile), and run() takes inputs of these extents only. Inputs not named keep the
    /// model's extents.
    std::map<std::string, std::vector<int64_t>> shapes;
};

/// Where the graph layer placed a quantized operator (QLinearConv, QLinearMatMul) on a target
/// with `npu`: on the NPU when it maps onto its GEMM core, else on the CPU with the reason.
struct NodePlacement {
    std::string node, op_type;
    bool npu = false;
    std::string reason;
};

/// One step (kernel) of a run: the node whose result it computes (`node "x" (Op)`; a fused
/// group is named by its last node), its output, the convolutions and matrix products it
/// computes (node names) and their multiply-adds (counted from the shapes, whichever device ran
/// them), and the NPU's counters and cycle model over the programs the step ran (zero for a
/// step on the CPU).
struct StepReport {
    std::string node, output;
    std::vector<std::string> layers;
    int64_t macs = 0;
    NPUStats npu;
    /// On a target with a GPU API: the step launched GPU kernels (else it ran on the host).
    bool gpu = false;
};

/// A run's steps summed: all their multiply-adds, those of the steps that ran programs on the
/// NPU, how many those were, and the NPU's counters over them (its GEMM utilisation: GEMM steps
/// over the summed cycles).
struct RunTotals {
    int64_t macs = 0, npu_macs = 0;
    int npu_steps = 0;
    NPUStats npu;
};
RunTotals run_totals(const std::vector<StepReport> &steps);

/// A declared input or output of a model.
struct ModelValue {
    std::string name;
    /// "float", "int64", ... as ONNX names them.
    std::string type;
    /// The declared extents, outermost first: numbers, symbols ("N"), or "?".
    std::vector<std::string> shape;
};

class Model {
  public:
    /// Reads, checks and compiles the ONNX model at `path`.
    static Model load(const std::string &path, const ModelOptions &options = {});

    const std::vector<ModelValue> &inputs() const;
    const std::vector<ModelValue> &outputs() const;

    /// Evaluates the model. Every input is given by name; the result holds every output.
    std::map<std::string, Buffer<>> run(const std::map<std::string, Buffer<>> &inputs) const;

    /// How many pipelines were compiled so far (constant folding included).
    int compiled_pipelines() const;
    /// The graph inputs whose values decide the model's structure (the axes of an Unsqueeze,
    /// say) when they are not constants: the model is compiled when it runs, once per distinct
    /// value of these inputs, rather than when it is loaded.
    const std::vector<std::string> &specialized_inputs() const;
    /// The most bytes the intermediate tensors held at once over the runs so far. Their memory
    /// is planned: a tensor's block is reused after the last pipeline that reads it, and kept
    /// for the next run.
    int64_t peak_intermediate_bytes() const;

    /// On a target with `npu`: each QLinearConv and QLinearMatMul of the model and where it
    /// runs (empty on other targets).
    std::vector<NodePlacement> placement() const;
    /// The steps of the last run, in order, with their multiply-adds and, on a target with
    /// `npu`, what the NPU did for each (DSL_NN_PROFILE=1 prints the same).
    std::vector<StepReport> last_run() const;

  private:
    std::shared_ptr<model::Specializations> impl_;
};

/// What `dsl-onnx info` reports: the inputs, outputs, operator counts, and the operators (or
/// types) that dsl cannot compile yet, without compiling anything.
struct ModelSummary {
    std::vector<ModelValue> inputs, outputs;
    int64_t opset = 0;
    std::map<std::string, int> operator_counts;
    /// One line per problem: `node "x" (Op): operator Op is not supported`.
    std::vector<std::string> unsupported;
};
ModelSummary summarize_model(const std::string &path);

/// Compiling a model ahead of time (`dsl-onnx compile`): one static library holding every
/// pipeline of the model, its constants, a static arena for its intermediate tensors and the
/// runtime, and a C header with one entry point,
///   int <name>_run(dsl_buffer_t *input..., dsl_buffer_t *output...);
/// inputs and outputs in the model's order. A plain C program links the library (with
/// -lpthread -ldl) and nothing else of dsl. The library runs the sizes it was compiled for.
struct StaticModelOptions {
    Target target = Target::host();
    bool fp_contract = true;                  ///< as ModelOptions::fp_contract
    bool fuse_quantized = true;               ///< as ModelOptions::fuse_quantized
    bool fixed_point_requantization = false;  ///< as ModelOptions::fixed_point_requantization
    bool auto_schedule = true;                ///< as ModelOptions::auto_schedule
    /// The inputs' extents, outermost first, where the model leaves them symbolic:
    /// {"x", {1, 3, 640, 640}}. Every extent must be known (declared or given here).
    std::map<std::string, std::vector<int64_t>> shapes;
    /// Names the files (<name>.a, <name>.h) and the entry point (<name>_run); a C identifier.
    std::string name = "model";
};

/// What compile_model_to_static_library wrote.
struct StaticModel {
    std::string library, header;
    /// The inputs and outputs with their extents, in the entry point's order.
    std::vector<ModelValue> inputs, outputs;
    /// The bytes of the static arena (intermediate tensors) and of the constants.
    int64_t arena_bytes = 0, constant_bytes = 0;
    /// The functions compiled, and the steps that call the function of an earlier step whose
    /// definitions differ from theirs only in names (a network's repeated blocks).
    int pipelines = 0, shared_steps = 0;
};

/// Compiles the model at `path` into `directory`: <name>.a, <name>.h, and the C ABI the header
/// includes (dsl/runtime/dsl_runtime.h), so that `-I directory` is all a C program needs.
/// CompileErrors name the file and the node, as Model::load's do.
StaticModel compile_model_to_static_library(const std::string &path, const std::string &directory,
                                            const StaticModelOptions &options = {});

}  // namespace dsl::nn
