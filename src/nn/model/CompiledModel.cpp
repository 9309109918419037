// Compiling a graph node by node into kernels, folding constants, and the run loop.
#include "nn/model/CompiledModel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <thread>

#include "autoschedule/Model.h"
#include "dsl/Error.h"
#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "nn/graph/Fusion.h"
#include "nn/graph/GraphEdit.h"
#include "nn/graph/OpBuilder.h"
#include "nn/ops/AutoScheduled.h"
#include "nn/ops/Elements.h"
#include "nn/ops/NameScope.h"

namespace dsl::nn::model {

namespace {

/// A name usable for Funcs and Params: letters, digits and '_'.
std::string sanitize(const std::string &s) {
    std::string r;
    for (char c : s)
        r += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (r.empty() || std::isdigit(static_cast<unsigned char>(r[0]))) r = "v" + r;
    return r;
}

std::string dims_text(const std::vector<int64_t> &dims) {
    std::string s = "(";
    for (size_t i = 0; i < dims.size(); i++)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + ")";
}

/// The estimate of an input's extent that is not known while compiling, on a GPU target.
constexpr int kGpuExtentEstimate = 64;

/// Whether `e` has more than `limit` nodes (counting stops there).
bool larger_than(const Expr &e, int limit) {
    struct Counter : ir::IRVisitor {
        int left;
        explicit Counter(int l) : left(l) {}
        void include(const Expr &x) override {
            if (left < 0 || !x.defined()) return;
            left--;
            ir::IRVisitor::include(x);
        }
    } counter(limit);
    counter.include(e);
    return counter.left < 0;
}

/// The graph's expression for extent `d` of `value`, simplified: an opaque symbol of its own
/// when the expression stays large. Exporters compute shapes at run time (Shape, Gather,
/// Concat, then Reshape with -1); with symbolic sizes, composing those expressions value after
/// value grew to hundreds of thousands of nodes in PP-OCRv4's recogniser, which took seconds to
/// simplify at every node. The graph's shapes only decide fusion and constant extents; what a
/// step's output really has is computed from its inputs when it runs, so nothing is lost.
Expr graph_extent(const Expr &e, const std::string &value, size_t d) {
    Expr s = ir::simplify(e);
    if (larger_than(s, 200))
        return ir::Variable::make(Int(32), value + ".shape[" + std::to_string(d) + "]");
    return s;
}

/// "Conv.3, Conv.4": the layers a step computes, for the profile's lines.
std::string joined(const std::vector<std::string> &layers) {
    std::string t;
    for (const std::string &l : layers)
        t += (t.empty() ? "" : ", ") + l;
    return t;
}

/// DSL_NN_PROFILE's report: each kernel's time, slowest first, with what the NPU did for it;
/// then, on a target with `npu`, the NPU's totals and its share of the multiply-adds.
void print_profile(std::vector<std::pair<double, std::string>> times,
                   const std::vector<StepReport> &steps, bool npu) {
    double total = 0;
    for (const auto &t : times)
        total += t.first;
    std::sort(times.begin(), times.end(),
              [](const auto &a, const auto &b) { return a.first > b.first; });
    std::fprintf(stderr, "dsl-nn profile: %zu kernels, %.3f ms\n", times.size(), total * 1e3);
    for (const auto &t : times) {
        std::fprintf(stderr, "  %9.3f ms %5.1f%%  %s\n", t.first * 1e3,
                     total > 0 ? 100 * t.first / total : 0.0, t.second.c_str());
    }
    if (!npu) return;
    const RunTotals t = run_totals(steps);
    std::fprintf(stderr,
                 "dsl-nn NPU: %d steps, %llu cycles, GEMM %.1f%% of them, %llu ALU rows, DRAM "
                 "%llu bytes read and %llu written\n",
                 t.npu_steps, static_cast<unsigned long long>(t.npu.cycles),
                 100 * t.npu.gemm_utilisation, static_cast<unsigned long long>(t.npu.alu_rows),
                 static_cast<unsigned long long>(t.npu.dram_bytes_read),
                 static_cast<unsigned long long>(t.npu.dram_bytes_written));
    std::fprintf(
        stderr,
        "dsl-nn NPU: %lld of the %lld multiply-adds of convolutions and products (%.1f%%)\n",
        static_cast<long long>(t.npu_macs), static_cast<long long>(t.macs),
        t.macs ? 100.0 * static_cast<double>(t.npu_macs) / static_cast<double>(t.macs) : 0.0);
    std::fprintf(stderr, "  %10s %6s %12s  %s\n", "cycles", "GEMM", "MACs", "layer (step)");
    for (const StepReport &r : steps) {
        if (r.npu.cycles == 0) continue;
        const std::string layers = joined(r.layers);
        std::fprintf(stderr, "  %10llu %5.1f%% %12lld  %s (%s)\n",
                     static_cast<unsigned long long>(r.npu.cycles), 100 * r.npu.gemm_utilisation,
                     static_cast<long long>(r.macs), layers.c_str(), r.node.c_str());
    }
}

/// What the NPU did between two readings of its totals.
NPUStats npu_difference(const NPUStats &after, const NPUStats &before) {
    NPUStats d;
    d.cycles = after.cycles - before.cycles;
    d.gemm_steps = after.gemm_steps - before.gemm_steps;
    d.macs = after.macs - before.macs;
    d.alu_rows = after.alu_rows - before.alu_rows;
    d.dram_bytes_read = after.dram_bytes_read - before.dram_bytes_read;
    d.dram_bytes_written = after.dram_bytes_written - before.dram_bytes_written;
    d.instructions = after.instructions - before.instructions;
    for (int e = 0; e < 3; e++) {
        d.busy_cycles[e] = after.busy_cycles[e] - before.busy_cycles[e];
        d.stall_cycles[e] = after.stall_cycles[e] - before.stall_cycles[e];
    }
    d.gemm_utilisation =
        d.cycles ? static_cast<double>(d.gemm_steps) / static_cast<double>(d.cycles) : 0.0;
    return d;
}

/// Multiply-adds per output element of a convolution or matrix product `node` whose inputs
/// have the shapes `shape(i)` (outermost first); 0 for other operators or unknown extents.
double macs_per_element(const graph::Node &node, const std::function<Shape(int)> &shape) {
    auto product = [](const Shape &s, size_t from, size_t to) {
        double p = 1;
        for (size_t a = from; a < to && a < s.size(); a++) {
            int64_t v = 0;
            if (!is_const(s[a], &v)) return 0.0;
            p *= static_cast<double>(v);
        }
        return p;
    };
    const std::string &op = node.op_type;
    if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv") {
        const Shape w = shape(op == "QLinearConv" ? 3 : 1);  // (M, C / groups, kernel...)
        return w.size() < 3 ? 0.0 : product(w, 1, w.size());
    }
    if (op == "ConvTranspose") {
        // Each input point meets (M / groups) * taps weights; the output is `strides` times
        // larger along each spatial axis.
        const Shape w = shape(1);  // (C, M / groups, kernel...)
        int64_t groups = 1;
        auto g = node.attributes.find("group");
        if (g != node.attributes.end()) groups = g->second.i;
        double strides = 1;
        auto st = node.attributes.find("strides");
        if (st != node.attributes.end()) {
            for (int64_t v : st->second.ints)
                strides *= static_cast<double>(v);
        }
        if (w.size() < 3) return 0.0;
        return product(w, 0, 1) / static_cast<double>(groups) * product(w, 2, w.size()) / strides;
    }
    if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul" || op == "Gemm") {
        const Shape a = shape(0);
        if (a.empty()) return 0.0;
        bool trans_a = false;
        auto t = node.attributes.find("transA");
        if (op == "Gemm" && t != node.attributes.end()) trans_a = t->second.i != 0;
        const size_t k = trans_a && a.size() >= 2 ? a.size() - 2 : a.size() - 1;
        return product(a, k, k + 1);
    }
    return 0.0;
}

}  // namespace

/// What the compiler knows of a value: its type, its shape in terms of the model's symbols,
/// and its contents when it is a constant.
struct KnownValue {
    Type type;
    Shape shape;
    Buffer<> constant;
};

/// What a kernel reads: runtime tensors (as ImageParams) and elements of small tensors (as
/// scalar Params), with the graph-level meaning of their names.
struct KernelInputs {
    std::vector<std::string> runtime_inputs;
    std::vector<std::shared_ptr<ImageParam>> params;
    std::vector<CompiledModel::ValueParam> value_params;
    /// Kernel-level names (ImageParam extents, value params) -> graph-level expressions.
    std::map<std::string, Expr> to_graph;
    /// The convolutions and products computed (Step's), and the multiply-adds per output
    /// element of each.
    std::vector<std::string> layers;
    std::vector<double> layer_macs;

    void add_layer(const std::string &name, double macs) {
        layers.push_back(name);
        layer_macs.push_back(macs);
    }
    /// Multiply-adds per output element in all (Step's).
    double macs_per_element() const {
        return std::accumulate(layer_macs.begin(), layer_macs.end(), 0.0);
    }

    /// Adds what `o` reads. A kernel may take two fused values that both read a third (the two
    /// branches of a hard-swish over one convolution): what they share counts once.
    void merge(const KernelInputs &o) {
        for (size_t k = 0; k < o.layers.size(); k++) {
            if (std::find(layers.begin(), layers.end(), o.layers[k]) == layers.end())
                add_layer(o.layers[k], o.layer_macs[k]);
        }
        // (Two kernels' ImageParams of one value are two arguments: each Func reads its own.)
        for (size_t k = 0; k < o.runtime_inputs.size(); k++) {
            if (std::find(params.begin(), params.end(), o.params[k]) == params.end()) {
                runtime_inputs.push_back(o.runtime_inputs[k]);
                params.push_back(o.params[k]);
            }
        }
        for (const CompiledModel::ValueParam &vp : o.value_params) {
            bool known = false;
            for (const CompiledModel::ValueParam &have : value_params)
                known |= have.param == vp.param;
            if (!known) value_params.push_back(vp);
        }
        to_graph.insert(o.to_graph.begin(), o.to_graph.end());
    }
};

namespace {
/// What the compiler knows of the value `name` that `t` computes from `in`: its type and its
/// shape in the graph's symbols.
KnownValue known_value(const Tensor &t, const KernelInputs &in, const std::string &name) {
    KnownValue kv;
    kv.type = t.type();
    for (const Expr &e : t.shape())
        kv.shape.push_back(graph_extent(ir::substitute(in.to_graph, e), name, kv.shape.size()));
    return kv;
}
}  // namespace

/// A value fused into its consumer (graph/Fusion.h): its tensor and what computing it reads,
/// waiting for the consumer's kernel.
struct PendingValue {
    std::string where;
    Tensor tensor;
    KernelInputs inputs;
    /// The consumers still to take it (a value fused into one kernel through several).
    int readers = 1;
};

class ModelCompiler {
  public:
    ModelCompiler(const graph::Graph &g, const ModelOptions &options,
                  const std::map<std::string, Buffer<>> &fixed, const std::string &aot_name,
                  CompiledModel *out)
        : g_(g),
          options_(options),
          target_(options.fp_contract ? options.target.with_feature(Target::Feature::FP_CONTRACT)
                                      : options.target),
          fixed_(fixed),
          aot_name_(aot_name),
          out_(out) {}

    void compile();

  private:
    class Context;
    std::vector<const graph::Node *> topological_order();
    void declare_inputs();
    void build(const graph::Node &node);
    void constant_node(const graph::Node &node);
    /// Compiles `t` (the value `name` of node `where`) into a kernel: a step of the model, or
    /// when it reads no runtime value, a constant computed now.
    void make_step(const std::string &where, const std::string &name, const Tensor &t,
                   const KernelInputs &in, KnownValue *kv);
    /// Gives a pending value a kernel of its own (its consumer could not absorb it).
    void materialize(const std::string &name);
    /// Compiles the kernels of the steps (in parallel), once every node is built.
    void compile_deferred();
    /// Which step frees each intermediate's memory (Step::last_uses).
    void plan_memory();
    [[noreturn]] void fail(const std::string &message) const {
        throw CompileError(g_.source + ": " + message);
    }

    const graph::Graph &g_;
    const ModelOptions &options_;
    /// The target of every kernel (options_.target, with fp_contract as the options say).
    const Target target_;
    /// Graph inputs compiled as constants (the model is specialized on their values).
    const std::map<std::string, Buffer<>> &fixed_;
    /// For AOT compilation: the prefix of the steps' function names (empty for the JIT).
    const std::string &aot_name_;
    CompiledModel *out_;
    std::map<std::string, KnownValue> known_;
    /// The values to fuse into their consumers, those waiting for it, and those whose consumer
    /// turned out not to read them point for point.
    std::set<std::string> fuse_;
    /// The values some node reads or the model returns.
    std::set<std::string> read_;
    std::map<std::string, PendingValue> pending_;
    /// The nodes that read each value.
    std::map<std::string, int> readers_;
    /// A step's kernel, compiled after the graph is built.
    struct DeferredKernel {
        size_t step;
        Func func;
        std::string name;
        bool jit;
    };
    std::vector<DeferredKernel> deferred_;
    /// Context::place()'s records, by node name.
    std::map<std::string, NodePlacement> placements_;
    /// The names input_name has given.
    std::set<std::string> input_names_;

  public:
    /// The name of a new ImageParam for the runtime value `value`: "in_<value>", numbered from
    /// its second use in the model (the first number no other ImageParam has). Two ImageParams of
    /// one kernel never share a name, even when a fused producer and its consumer both read the
    /// value, or when two values differ only in characters that sanitizing replaces (a kernel with
    /// two inputs of one name has no key for the JIT's caches, and was lowered again at every
    /// load). The numbering follows the graph's order, so a model's kernels are named the same at
    /// every load.
    std::string input_name(const std::string &value) {
        const std::string base = sanitize("in_" + value);
        std::string name = base;
        for (int n = 1; !input_names_.insert(name).second; n++)
            name = base + "_" + std::to_string(n);
        return name;
    }
};

/// The BuildContext of one node: inputs that are constants become tensors of their buffers,
/// the others ImageParams of the kernel being built.
class ModelCompiler::Context : public graph::BuildContext {
  public:
    Context(ModelCompiler &c, const graph::Node &node) : BuildContext(node, c.g_.opset), c_(c) {}

    Tensor input(int i) override {
        if (!has_input(i)) {
            fail("input " + std::to_string(i) + " is missing (the operator needs it).");
        }
        auto it = tensors_.find(i);
        if (it != tensors_.end()) return it->second;
        const std::string &name = node().inputs[static_cast<size_t>(i)];
        const KnownValue &k = c_.known_.at(name);
        Tensor t;
        auto pending = c_.pending_.find(name);
        if (pending != c_.pending_.end()) {
            // A fused producer: its computation becomes part of this kernel.
            t = pending->second.tensor;
            in.merge(pending->second.inputs);
            fused.push_back(name);
        } else if (k.constant.defined()) {
            t = Tensor(k.constant, sanitize("const_" + name));
        } else {
            t = runtime_tensor(name);
        }
        tensors_[i] = t;
        return t;
    }

    int outputs_used() const override {
        int n = 0;
        for (const std::string &o : node().outputs)
            n += !o.empty() && c_.read_.count(o);
        return n;
    }

    Tensor shared(const Tensor &t, const std::string &part) override {
        if (in.runtime_inputs.empty() && in.value_params.empty()) return t;
        const std::string name = node().outputs.at(0) + "/" + part;
        c_.known_[name] = known_value(t, in, name);
        // Its kernel is made once the node's build settles (ModelCompiler::build), with what
        // computing it reads so far.
        shared_values.push_back({name, t, in});
        return runtime_tensor(name);
    }

    /// A value a kernel of its own computes, made before the node's outputs.
    struct SharedValue {
        std::string name;
        Tensor tensor;
        KernelInputs inputs;
    };
    std::vector<SharedValue> shared_values;

    Buffer<> constant(int i) override {
        if (!has_input(i)) return Buffer<>();
        return c_.known_.at(node().inputs[static_cast<size_t>(i)]).constant;
    }

    std::vector<Expr> values(int i) override {
        if (!has_input(i)) fail("input " + std::to_string(i) + " is missing.");
        const std::string &name = node().inputs[static_cast<size_t>(i)];
        const KnownValue &k = c_.known_.at(name);
        if (!(k.type.is_int() || k.type.is_uint() || k.type.is_float())) {
            fail("input " + std::to_string(i) + " (\"" + name + "\") must hold numbers, not " +
                 graph::onnx_type_name(k.type) + ".");
        }
        const bool is_float = k.type.is_float();
        if (k.shape.size() > 1) {
            fail("input " + std::to_string(i) + " (\"" + name +
                 "\") must be a 1-D tensor of values, but has rank " +
                 std::to_string(k.shape.size()) + ".");
        }
        std::vector<Expr> r;
        if (k.constant.defined()) {
            for (int64_t e = 0; e < k.constant.number_of_elements(); e++) {
                r.push_back(is_float ? make_const(Float(64), element_as_double(k.constant, e))
                                     : make_const(Int(64), element_as_int(k.constant, e)));
            }
            return r;
        }
        // Its elements are read when the model runs, so it needs a kernel of its own.
        if (c_.pending_.count(name)) c_.materialize(name);
        int64_t n = 1;
        if (!k.shape.empty() && !is_const(k.shape[0], &n)) {
            fail("input " + std::to_string(i) + " (\"" + name +
                 "\") sizes the result, so its length must be known when compiling, but it "
                 "depends on the inputs.");
        }
        for (int64_t e = 0; e < n; e++) {
            CompiledModel::ValueParam vp;
            vp.value = name;
            vp.element = static_cast<int>(e);
            vp.is_float = is_float;
            vp.name = sanitize(name) + "_value" + std::to_string(e);
            Expr p;
            // (On a GPU target, an estimate for the schedule's analysis: 16, a size more often
            // than not.)
            const bool gpu = c_.target_.has_gpu_feature();
            if (is_float) {
                Param<double> param(vp.name);
                if (gpu) param.set_estimate(16.0);
                vp.param = param.contents();
                p = param;
            } else {
                Param<int64_t> param(vp.name);
                if (gpu) param.set_estimate(16);
                vp.param = param.contents();
                p = param;
            }
            // Where the graph needs it, the value is a symbol of its own.
            in.to_graph[vp.name] =
                ir::Variable::make(p.type(), name + "[" + std::to_string(e) + "]");
            r.push_back(p);
            in.value_params.push_back(vp);
        }
        return r;
    }

    std::vector<int64_t> constant_values(int i, const std::string &what) override {
        std::vector<int64_t> r;
        const std::string &name = has_input(i) ? node().inputs[static_cast<size_t>(i)] : "";
        for (const Expr &e : values(i)) {
            int64_t v = 0;
            if (is_const(e, &v)) {
                r.push_back(v);
                continue;
            }
            std::string message = c_.g_.source + ": " + where() + ": " + what +
                                  " must be known while compiling, but input \"" + name +
                                  "\" is computed by the model.";
            bool graph_input = false;
            for (const graph::ValueInfo &gi : c_.g_.inputs)
                graph_input |= gi.name == name;
            if (graph_input) throw graph::NeedsInputValues(message, name);
            fail(what +
                 " must be a constant (an initializer, a Constant node or a graph input), "
                 "not computed by the model.");
        }
        return r;
    }

    Shape graph_shape(int i) override {
        if (!has_input(i)) fail("input " + std::to_string(i) + " is missing.");
        return c_.known_.at(node().inputs[static_cast<size_t>(i)]).shape;
    }

    const Target &target() const override { return c_.target_; }
    bool fixed_point_requantization() const override {
        return c_.options_.fixed_point_requantization;
    }
    void place(bool npu, const std::string &reason) override {
        c_.placements_[node().name] = NodePlacement{node().name, node().op_type, npu, reason};
    }

    KernelInputs in;
    /// The pending values this kernel absorbed.
    std::vector<std::string> fused;

  private:
    /// The runtime value `name` read through an ImageParam of the kernel being built (one per
    /// value, shared by the inputs that name it).
    Tensor runtime_tensor(const std::string &name) {
        const KnownValue &k = c_.known_.at(name);
        size_t j = 0;
        while (j < in.runtime_inputs.size() && in.runtime_inputs[j] != name)
            j++;
        if (j == in.runtime_inputs.size()) {
            in.runtime_inputs.push_back(name);
            in.params.push_back(std::make_shared<ImageParam>(
                k.type, static_cast<int>(k.shape.size()), c_.input_name(name)));
        }
        Tensor t(*in.params[j]);
        // The graph's shape of the value stands for the ImageParam's extents. Where the graph
        // knows an extent, the operator sees the constant (and the kernel checks it when it
        // runs): constant loop extents, and shapes known while compiling.
        Shape shape = t.shape();
        const size_t r = k.shape.size();
        for (size_t d = 0; d < r; d++) {
            Expr e = in.params[j]->extent(static_cast<int>(d));
            const auto *v = e.as<ir::Variable>();
            internal_assert(v) << "an ImageParam's extent is not a variable";
            const Expr &g = k.shape[r - 1 - d];
            in.to_graph[v->name] = g;
            if (is_const(g, nullptr)) {
                in.params[j]->dim(static_cast<int>(d)).set_extent(g);
                shape[r - 1 - d] = g;
            } else if (c_.target_.has_gpu_feature()) {
                // The GPU schedule's tiles are chosen for an extent of this size; any extent
                // runs (tiles at the edges are guarded).
                in.params[j]->dim(static_cast<int>(d)).set_estimate(0, kGpuExtentEstimate);
            }
        }
        return Tensor(t.func(), shape);
    }

    ModelCompiler &c_;
    std::map<int, Tensor> tensors_;
};

std::vector<const graph::Node *> ModelCompiler::topological_order() {
    std::string problem;
    std::vector<size_t> order = graph::topological_order(g_, &problem);
    if (!problem.empty()) fail(problem);
    std::vector<const graph::Node *> nodes;
    for (size_t i : order)
        nodes.push_back(&g_.nodes[i]);
    return nodes;
}

void ModelCompiler::declare_inputs() {
    for (const auto &kv : g_.initializers) {
        KnownValue k;
        k.type = kv.second.type();
        for (int d = kv.second.dimensions() - 1; d >= 0; d--)
            k.shape.push_back(kv.second.extent(d));
        k.constant = kv.second;
        known_[kv.first] = k;
    }
    for (const graph::ValueInfo &v : g_.inputs) {
        ModelValue mv;
        mv.name = v.name;
        if (!v.type) {
            fail("graph input \"" + v.name + "\" is of type " +
                 (v.unsupported_type.empty() ? std::string("unknown") : v.unsupported_type) +
                 "; dsl takes tensors of numbers or bools.");
        }
        if (!v.shape) {
            fail("graph input \"" + v.name +
                 "\" declares no shape; dsl needs at least its rank (use symbols for sizes that "
                 "vary).");
        }
        mv.type = graph::onnx_type_name(*v.type);
        KnownValue k;
        k.type = *v.type;
        std::vector<int64_t> dims;
        for (size_t a = 0; a < v.shape->size(); a++) {
            const graph::Dim &d = (*v.shape)[a];
            if (d.known()) {
                if (d.value > std::numeric_limits<int32_t>::max()) {
                    fail("graph input \"" + v.name + "\" has an extent of " +
                         std::to_string(d.value) + ", above dsl's limit of 2^31 - 1.");
                }
                k.shape.push_back(static_cast<int>(d.value));
                mv.shape.push_back(std::to_string(d.value));
                dims.push_back(d.value);
            } else {
                std::string sym = d.symbol.empty() ? v.name + "." + std::to_string(a) : d.symbol;
                k.shape.push_back(ir::Variable::make(Int(32), sym));
                mv.shape.push_back(d.symbol.empty() ? "?" : d.symbol);
                dims.push_back(-1);
            }
        }
        auto fixed = fixed_.find(v.name);
        if (fixed != fixed_.end()) k.constant = fixed->second;
        known_[v.name] = k;
        out_->inputs_.push_back(mv);
        out_->input_types_.push_back(*v.type);
        out_->input_dims_.push_back(dims);
    }
}

void ModelCompiler::constant_node(const graph::Node &node) {
    Context ctx(*this, node);
    Buffer<> value;
    auto attr = [&](const char *name) { return node.attributes.count(name) != 0; };
    if (attr("value")) {
        value = ctx.attr_tensor("value");
    } else if (attr("value_float")) {
        value = Buffer<>(Float(32), {}, "value_float");
        *static_cast<float *>(value.data()) = static_cast<float>(ctx.attr_float("value_float", 0));
    } else if (attr("value_int")) {
        value = Buffer<>(Int(64), {}, "value_int");
        *static_cast<int64_t *>(value.data()) = ctx.attr_int("value_int", 0);
    } else if (attr("value_floats")) {
        std::vector<double> fs = ctx.attr_floats("value_floats");
        value = Buffer<>(Float(32), {static_cast<int>(fs.size())}, "value_floats");
        for (size_t i = 0; i < fs.size(); i++)
            static_cast<float *>(value.data())[i] = static_cast<float>(fs[i]);
    } else if (attr("value_ints")) {
        std::vector<int64_t> is = ctx.attr_ints("value_ints");
        value = Buffer<>(Int(64), {static_cast<int>(is.size())}, "value_ints");
        for (size_t i = 0; i < is.size(); i++)
            static_cast<int64_t *>(value.data())[i] = is[i];
    } else {
        ctx.fail(
            "only numeric values are supported (value, value_float(s), value_int(s)); "
            "strings and sparse tensors are not.");
    }
    KnownValue k;
    k.type = value.type();
    for (int d = value.dimensions() - 1; d >= 0; d--)
        k.shape.push_back(value.extent(d));
    k.constant = value;
    known_[node.outputs.at(0)] = k;
}

void ModelCompiler::build(const graph::Node &node) {
    if (!node.domain.empty()) {
        fail(node.describe() + ": operators of domain \"" + node.domain +
             "\" are not supported (only the standard ONNX operators are).");
    }
    if (node.op_type == "Constant") {
        constant_node(node);
        return;
    }
    const auto &table = graph::builders();
    auto it = table.find(node.op_type);
    if (it == table.end()) {
        fail(node.describe() + ": operator " + node.op_type + " is not supported yet.");
    }
    std::vector<Tensor> results;
    std::unique_ptr<Context> ctx;
    while (true) {
        ctx = std::make_unique<Context>(*this, node);
        try {
            results = it->second(*ctx);
        } catch (const graph::NeedsInputValues &) {
            throw;  // the model is specialized on that input (Model.cpp)
        } catch (const CompileError &e) {
            std::string what = e.what();
            // Name the node unless the builder did.
            if (what.find(node.describe()) == std::string::npos)
                fail(node.describe() + ": " + what);
            fail(what);
        }
        // A fused producer must be read point for point: the node's result has its shape.
        // Otherwise (it is broadcast, say) it gets a kernel of its own and the node is built
        // again. Extents the graph knows only as expressions of the inputs' sizes count as the
        // same: where they differ when the model runs, numpy broadcasting allows it only for an
        // extent of 1, and the fused producer is then read at 0 along that axis (still right,
        // computed once per point of the result).
        bool again = false;
        for (const std::string &v : ctx->fused) {
            const Shape &vs = known_.at(v).shape;
            bool same = !results.empty() && results[0].defined() &&
                        static_cast<size_t>(results[0].rank()) == vs.size();
            for (size_t a = 0; same && a < vs.size(); a++) {
                Expr r = ir::simplify(ir::substitute(ctx->in.to_graph, results[0].shape()[a]));
                same = ir::equal(r, vs[a]) || (!is_const(r, nullptr) && !is_const(vs[a], nullptr));
            }
            if (!same) {
                materialize(v);
                again = true;
            }
        }
        if (!again) break;
    }
    for (const std::string &v : ctx->fused) {
        auto p = pending_.find(v);
        if (p != pending_.end() && --p->second.readers <= 0) pending_.erase(p);
    }
    for (Context::SharedValue &v : ctx->shared_values) {
        KnownValue &kv = known_.at(v.name);
        make_step(node.describe(), v.name, v.tensor, v.inputs, &kv);
    }
    const double macs = macs_per_element(node, [&](int i) {
        return ctx->has_input(i) ? known_.at(node.inputs[static_cast<size_t>(i)]).shape : Shape();
    });
    if (macs > 0) {
        ctx->in.add_layer(node.name, macs);
    }
    for (size_t k = 0; k < node.outputs.size(); k++) {
        const std::string &name = node.outputs[k];
        if (name.empty()) continue;
        if (k >= results.size() || !results[k].defined()) {
            fail(node.describe() + ": output " + std::to_string(k) + " (\"" + name +
                 "\") is not supported.");
        }
        const Tensor &t = results[k];
        KnownValue kv = known_value(t, ctx->in, name);
        if (!read_.count(name)) {
            // Nothing reads it and the model does not return it (a recurrent layer's last
            // states, say, beside the sequence that is used): no kernel computes it.
            known_[name] = kv;
            continue;
        }
        const bool runtime = !ctx->in.runtime_inputs.empty() || !ctx->in.value_params.empty();
        if (runtime && fuse_.count(name)) {
            // Computed inside its consumer's kernel.
            pending_[name] = PendingValue{node.describe(), t, ctx->in, readers_.at(name)};
            known_[name] = kv;
            continue;
        }
        make_step(node.describe(), name, t, ctx->in, &kv);
        known_[name] = kv;
    }
}

void ModelCompiler::make_step(const std::string &where, const std::string &name, const Tensor &t,
                              const KernelInputs &in, KnownValue *kv) {
    CompiledModel::Step step;
    step.where = where;
    step.output = name;
    step.type = t.type();
    step.inputs = in.runtime_inputs;
    step.params = in.params;
    for (const auto &p : in.params) {
        std::vector<std::string> names;
        for (int d = 0; d < p->dimensions(); d++)
            names.push_back(p->extent(d).as<ir::Variable>()->name);
        step.extent_names.push_back(names);
    }
    step.value_params = in.value_params;
    step.macs_per_element = in.macs_per_element();
    step.layers = in.layers;
    step.shape = t.shape();
    const bool folded = in.runtime_inputs.empty() && in.value_params.empty();
    // A constant is folded on this machine's CPU, also for a GPU target: compiling a model
    // (ahead of time too) needs no device.
    const Target target = folded ? target_.without_feature(Target::Feature::OpenCL)
                                       .without_feature(Target::Feature::CUDA)
                                 : target_;
    // The autoscheduler sets the schedule of every Func of the pipeline, some of which the
    // pipelines of other steps may hold too (the intermediates that another output of the same
    // node reads): the steps waiting to compile compile first, this one right after it is
    // scheduled, and then its Funcs go back to the default schedule they had (they had no
    // other, or it would not have been auto-scheduled), for the steps still to come.
    const bool automatic =
        options_.auto_schedule && !target.has_gpu_feature() && auto_schedules_on_cpu(t, target);
    if (automatic) compile_deferred();
    schedule_output(t, target, options_.auto_schedule);
    if (folded) {
        step.kernel = std::make_shared<Kernel>(t.func(), sanitize(where + "_" + name), target);
    } else if (aot_name_.empty()) {
        deferred_.push_back({out_->steps_.size(), t.func(), sanitize(where + "_" + name), true});
    } else {
        deferred_.push_back({out_->steps_.size(), t.func(),
                             aot_name_ + "_k" + std::to_string(out_->steps_.size()), false});
    }
    out_->compiled_pipelines_++;
    if (folded) {
        // Fold: run it now; the value becomes a constant of the model.
        std::vector<int> sizes;
        for (auto e = t.shape().rbegin(); e != t.shape().rend(); ++e) {
            int64_t v = 0;
            internal_assert(is_const(*e, &v)) << "a constant's shape is not constant";
            sizes.push_back(static_cast<int>(v));
        }
        Buffer<> b(t.type(), sizes, name);
        if (b.number_of_elements() > 0) step.kernel->run({}, {}, {}, {}, b);
        kv->constant = b;
    } else {
        out_->steps_.push_back(step);
        // A GPU schedule is the autoscheduler's over the whole pipeline, which resets the
        // schedules of every Func in it: a Func that this step computes may be inside the
        // pipeline of a later one (another output of the same node), so each step compiles
        // before the next is scheduled.
        if (target_.has_gpu_feature() || automatic) compile_deferred();
    }
    if (automatic) autoschedule::reset_schedules({t.func()});
}

void ModelCompiler::compile_deferred() {
    // Lowering and LLVM's compilation of one pipeline run on one thread; the pipelines are
    // independent, so they compile on as many threads as there are cores (the JIT's caches
    // take concurrent compilations). The first error wins.
    // Whether each runs kernels.
    if (target_.has_gpu_feature()) {
        for (const DeferredKernel &d : deferred_)
            out_->steps_[d.step].gpu = has_gpu_loops(d.func);
    }
    const size_t threads = std::max<size_t>(
        1, std::min<size_t>(deferred_.size(), std::thread::hardware_concurrency()));
    std::atomic<size_t> next{0};
    std::mutex error_mutex;
    std::exception_ptr error;
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < deferred_.size();) {
            const DeferredKernel &d = deferred_[i];
            try {
                out_->steps_[d.step].kernel =
                    std::make_shared<Kernel>(d.func, d.name, target_, d.jit);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; t++)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
    deferred_.clear();
    if (error) std::rethrow_exception(error);
}

void ModelCompiler::materialize(const std::string &name) {
    auto it = pending_.find(name);
    if (it == pending_.end()) return;
    PendingValue p = it->second;
    pending_.erase(it);
    make_step(p.where, name, p.tensor, p.inputs, &known_.at(name));
}

void ModelCompiler::compile() {
    // The model's Funcs are named the same at every compile (the caches' keys hold names).
    NameScope names;
    out_->source_ = g_.source;
    declare_inputs();
    fuse_ = graph::values_to_fuse(g_);
    for (const graph::Node &n : g_.nodes) {
        read_.insert(n.inputs.begin(), n.inputs.end());
        for (const std::string &v : std::set<std::string>(n.inputs.begin(), n.inputs.end()))
            readers_[v]++;
    }
    for (const graph::ValueInfo &v : g_.outputs)
        read_.insert(v.name);
    out_->npu_ = target_.has_feature(Target::Feature::NPU);
    out_->gpu_ = target_.has_gpu_feature();
    const std::vector<const graph::Node *> order = topological_order();
    for (const graph::Node *n : order)
        build(*n);
    for (const graph::Node *n : order) {
        auto p = placements_.find(n->name);
        if (p != placements_.end()) out_->placement_.push_back(p->second);
    }
    while (!pending_.empty())
        materialize(pending_.begin()->first);
    compile_deferred();
    for (const graph::ValueInfo &v : g_.outputs) {
        auto it = known_.find(v.name);
        if (it == known_.end()) {
            fail("graph output \"" + v.name + "\" is not produced by any node.");
        }
        ModelValue mv;
        mv.name = v.name;
        mv.type = graph::onnx_type_name(it->second.type);
        for (const Expr &e : it->second.shape) {
            int64_t c = 0;
            mv.shape.push_back(is_const(e, &c) ? std::to_string(c) : "?");
        }
        out_->outputs_.push_back(mv);
        if (it->second.constant.defined()) out_->constants_[v.name] = it->second.constant;
    }
    for (const auto &kv : g_.initializers)
        out_->constants_[kv.first] = kv.second;
    for (const auto &kv : known_) {
        graph::ValueInfo &v = out_->value_info_[kv.first];
        v.name = kv.first;
        v.type = kv.second.type;
        v.shape.emplace();
        for (const Expr &e : kv.second.shape) {
            graph::Dim d;
            int64_t c = 0;
            if (is_const(e, &c)) d.value = c;
            v.shape->push_back(d);
        }
    }
    plan_memory();
}

void ModelCompiler::plan_memory() {
    // Model outputs get memory of their own; every other step's output is pooled and released
    // after the last step that reads it (as a buffer or for its values), or at once if none does.
    std::set<std::string> outputs;
    for (const graph::ValueInfo &v : g_.outputs)
        outputs.insert(v.name);
    std::map<std::string, size_t> last;
    for (size_t i = 0; i < out_->steps_.size(); i++) {
        CompiledModel::Step &s = out_->steps_[i];
        s.pooled = !outputs.count(s.output);
        last[s.output] = i;
        for (const std::string &in : s.inputs)
            last[in] = i;
        for (const auto &vp : s.value_params)
            last[vp.value] = i;
    }
    for (const CompiledModel::Step &s : out_->steps_) {
        if (!s.pooled) continue;
        out_->steps_[last.at(s.output)].last_uses.push_back(s.output);
    }
}

std::vector<int64_t> CompiledModel::Step::extents(
    const std::map<std::string, Expr> &bindings) const {
    std::vector<int64_t> r;
    for (auto e = shape.rbegin(); e != shape.rend(); ++e) {
        Expr v = ir::simplify(ir::substitute(bindings, *e));
        int64_t extent = 0;
        internal_assert(is_const(v, &extent))
            << where << ": the shape of \"" << output << "\" is not known: " << v;
        r.push_back(extent);
    }
    return r;
}

std::vector<StepReport> CompiledModel::last_run() const {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    return last_run_;
}

int64_t CompiledModel::peak_intermediate_bytes() const {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    return pool_.peak();
}

CompiledModel::CompiledModel(const graph::Graph &g, const ModelOptions &options,
                             const std::map<std::string, Buffer<>> &fixed,
                             const std::string &aot_name) {
    ModelCompiler(g, options, fixed, aot_name, this).compile();
}

std::map<std::string, Buffer<>> CompiledModel::run(
    const std::map<std::string, Buffer<>> &given) const {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    std::map<std::string, Buffer<>> values = constants_;
    // DSL_NN_PROFILE=1: each kernel's time, printed after the run, slowest first.
    const char *env = std::getenv("DSL_NN_PROFILE");
    const bool profile = env && *env && std::string(env) != "0";
    std::vector<std::pair<double, std::string>> times;
    last_run_.clear();
    for (size_t i = 0; i < inputs_.size(); i++) {
        const std::string &name = inputs_[i].name;
        auto it = given.find(name);
        if (it == given.end() || !it->second.defined()) {
            throw RuntimeError(source_ + ": input \"" + name + "\" is not given.");
        }
        const Buffer<> &b = it->second;
        if (b.type() != input_types_[i]) {
            throw RuntimeError(source_ + ": input \"" + name + "\" must hold " + inputs_[i].type +
                               " but holds " + graph::onnx_type_name(b.type()) + ".");
        }
        const std::vector<int64_t> &dims = input_dims_[i];
        std::vector<int64_t> got;
        for (int d = b.dimensions() - 1; d >= 0; d--)
            got.push_back(b.extent(d));
        bool ok = got.size() == dims.size();
        for (size_t a = 0; ok && a < dims.size(); a++)
            ok = dims[a] < 0 || dims[a] == got[a];
        if (!ok) {
            std::string want;
            for (size_t a = 0; a < inputs_[i].shape.size(); a++)
                want += (a ? ", " : "") + inputs_[i].shape[a];
            throw RuntimeError(source_ + ": input \"" + name + "\" has shape " + dims_text(got) +
                               " but the model takes (" + want + ").");
        }
        // The kernels read their inputs indexed from 0 with rows that follow one another
        // (nn::Tensor's layout): a crop or any other strided buffer is copied, and
        // coordinates start at 0.
        const bool rows = b.dimensions() < 2 || b.stride(1) == b.extent(0);
        Buffer<> v = graph::is_dense(b) && rows ? b : b.copy();
        for (int d = 0; d < v.dimensions(); d++) {
            if (v.dim(d).min() != 0) v.translate(d, -v.dim(d).min());
        }
        // On a GPU, the kernels copy the input to the device: into a view's device copy,
        // released after the run, never the caller's (which would go stale when the caller
        // writes the buffer again).
        if (gpu_ && v.dimensions() > 0) v = v.translated(0, 0);
        values[name] = v;
    }
    for (const Step &s : steps_) {
        std::vector<Buffer<>> buffers;
        std::vector<const ImageParam *> params;
        std::vector<int64_t> key;
        for (size_t j = 0; j < s.inputs.size(); j++) {
            const Buffer<> &b = values.at(s.inputs[j]);
            buffers.push_back(b);
            params.push_back(s.params[j].get());
            for (size_t d = 0; d < s.extent_names[j].size(); d++)
                key.push_back(b.extent(static_cast<int>(d)));
        }
        std::vector<std::shared_ptr<ir::ParameterContents>> scalar_params;
        std::vector<uint64_t> scalars;
        if (gpu_ && !s.gpu) {
            // All of the step runs on the host: what kernels wrote comes home first.
            for (Buffer<> &b : buffers)
                b.copy_to_host();
        }
        for (const ValueParam &vp : s.value_params) {
            Buffer<> &b = values.at(vp.value);
            b.copy_to_host();
            if (vp.element >= b.number_of_elements()) {
                throw RuntimeError(s.where + ": input \"" + vp.value + "\" has " +
                                   std::to_string(b.number_of_elements()) +
                                   " elements; the model declared more.");
            }
            scalar_params.push_back(vp.param);
            if (vp.is_float) {
                double v = element_as_double(b, vp.element);
                uint64_t bits;
                std::memcpy(&bits, &v, sizeof bits);
                scalars.push_back(bits);
            } else {
                scalars.push_back(static_cast<uint64_t>(element_as_int(b, vp.element)));
            }
            key.push_back(static_cast<int64_t>(scalars.back()));
        }
        if (s.memo_key != key) {
            std::map<std::string, Expr> bindings;
            size_t k = 0;
            for (size_t j = 0; j < s.inputs.size(); j++) {
                for (size_t d = 0; d < s.extent_names[j].size(); d++)
                    bindings[s.extent_names[j][d]] = Expr(static_cast<int32_t>(key[k++]));
            }
            for (size_t i = 0; i < s.value_params.size(); i++) {
                const ValueParam &vp = s.value_params[i];
                const uint64_t bits = scalars[i];
                if (vp.is_float) {
                    double v;
                    std::memcpy(&v, &bits, sizeof v);
                    bindings[vp.name] = make_const(Float(64), v);
                } else {
                    bindings[vp.name] = make_const(Int(64), static_cast<int64_t>(bits));
                }
            }
            s.memo_extents = s.extents(bindings);
            s.memo_key = key;
        }
        std::vector<int> sizes;
        int64_t n = 1;
        for (int64_t extent : s.memo_extents) {
            if (extent < 0 || extent > std::numeric_limits<int32_t>::max()) {
                throw RuntimeError(s.where + ": output \"" + s.output +
                                   "\" would have an extent of " + std::to_string(extent) +
                                   "; check the inputs' shapes.");
            }
            n *= extent;
            if (n > std::numeric_limits<int32_t>::max()) {
                throw RuntimeError(s.where + ": output \"" + s.output +
                                   "\" would have more than 2^31 - 1 elements.");
            }
            sizes.push_back(static_cast<int>(extent));
        }
        Buffer<> out =
            s.pooled ? pool_.allocate(s.type, sizes, s.output) : Buffer<>(s.type, sizes, s.output);
        auto start = std::chrono::steady_clock::now();
        StepReport report{s.where, s.output, s.layers,
                          static_cast<int64_t>(static_cast<double>(n) * s.macs_per_element),
                          NPUStats()};
        const NPUStats before = npu_ ? npu_total_stats() : NPUStats();
        if (n > 0) s.kernel->run(params, buffers, scalar_params, scalars, out);
        if (npu_) report.npu = npu_difference(npu_total_stats(), before);
        report.gpu = s.gpu;
        last_run_.push_back(report);
        if (profile) {
            times.push_back(
                {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                 s.where + " -> " + s.output + " " + dims_text([&] {
                     std::vector<int64_t> d(sizes.rbegin(), sizes.rend());
                     return d;
                 }()) +
                     (s.layers.empty() ? "" : ", computing " + joined(s.layers)) +
                     (gpu_ && !s.gpu ? " [on the host]" : "")});
        }
        values[s.output] = out;
        for (const std::string &dead : s.last_uses) {
            pool_.release(values.at(dead));
            values.erase(dead);
        }
    }
    if (profile) print_profile(times, last_run_, npu_);
    std::map<std::string, Buffer<>> result;
    for (const ModelValue &o : outputs_) {
        Buffer<> &b = values.at(o.name);
        // Results are the caller's on the host (their device copies go with the run).
        if (gpu_) {
            b.copy_to_host();
            b.device_free();
        }
        result[o.name] = b;
    }
    return result;
}

}  // namespace dsl::nn::model
