// The public face of the compiled model (dsl/nn/Model.h).
#include "dsl/nn/Model.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "nn/graph/DataDependentShapes.h"
#include "nn/graph/InputShapes.h"
#include "nn/graph/OpBuilder.h"
#include "nn/graph/QdqFusion.h"
#include "nn/graph/Rewrite.h"
#include "nn/model/CompiledModel.h"
#include "nn/onnx/OnnxReader.h"

namespace dsl::nn {

namespace model {

/// The compiled model, or, when graph inputs decide its structure, one compiled model per
/// distinct value of those inputs, compiled when run() first meets it.
class Specializations {
  public:
    Specializations(graph::Graph g, const ModelOptions &options)
        : graph_(std::move(g)), options_(options) {
        try {
            general_ = std::make_shared<CompiledModel>(graph_, options_);
        } catch (const graph::NeedsInputValues &e) {
            specialized_.push_back(e.input());
        }
        // The declared inputs and outputs, without compiling (for a specialized model).
        for (const graph::ValueInfo &v : graph_.inputs)
            inputs_.push_back(describe(v));
        for (const graph::ValueInfo &v : graph_.outputs)
            outputs_.push_back(describe(v));
    }

    std::map<std::string, Buffer<>> run(const std::map<std::string, Buffer<>> &inputs) {
        CompiledModel *m = general_ ? general_.get() : &specialization(inputs);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            last_ = m;
        }
        return m->run(inputs);
    }

    std::vector<NodePlacement> placement() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (general_) return general_->placement();
        return last_ ? last_->placement() : std::vector<NodePlacement>{};
    }
    std::vector<StepReport> last_run() {
        std::lock_guard<std::mutex> lock(mutex_);
        return last_ ? last_->last_run() : std::vector<StepReport>{};
    }

    const std::vector<ModelValue> &inputs() const {
        return general_ ? general_->inputs() : inputs_;
    }
    const std::vector<ModelValue> &outputs() const {
        return general_ ? general_->outputs() : outputs_;
    }
    int compiled_pipelines() const {
        int n = general_ ? general_->compiled_pipelines() : 0;
        for (const auto &kv : cache_)
            n += kv.second->compiled_pipelines();
        return n;
    }
    const std::vector<std::string> &specialized_inputs() const { return specialized_; }
    int64_t peak_intermediate_bytes() const {
        int64_t peak = general_ ? general_->peak_intermediate_bytes() : 0;
        for (const auto &kv : cache_)
            peak = std::max(peak, kv.second->peak_intermediate_bytes());
        return peak;
    }

    static ModelValue describe(const graph::ValueInfo &v) {
        ModelValue mv;
        mv.name = v.name;
        mv.type = v.type ? graph::onnx_type_name(*v.type)
                         : (v.unsupported_type.empty() ? "?" : v.unsupported_type);
        if (v.shape) {
            for (const graph::Dim &d : *v.shape)
                mv.shape.push_back(d.known() ? std::to_string(d.value)
                                             : (d.symbol.empty() ? "?" : d.symbol));
        }
        return mv;
    }

  private:
    /// The model compiled for the values `inputs` gives the specialized inputs.
    CompiledModel &specialization(const std::map<std::string, Buffer<>> &inputs) {
        std::lock_guard<std::mutex> lock(mutex_);
        while (true) {
            std::map<std::string, Buffer<>> fixed;
            std::string key;
            for (const std::string &name : specialized_) {
                auto it = inputs.find(name);
                if (it == inputs.end() || !it->second.defined())
                    throw RuntimeError(graph_.source + ": input \"" + name + "\" is not given.");
                // A copy: the compiled model keeps the values as constants.
                Buffer<> copy = dense_copy(it->second, name);
                fixed[name] = copy;
                const auto *bytes = static_cast<const char *>(copy.data());
                key += name + "=" + shape_key(copy) +
                       std::string(bytes, static_cast<size_t>(copy.number_of_elements() *
                                                              copy.type().bytes())) +
                       ";";
            }
            auto found = cache_.find(key);
            if (found != cache_.end()) return *found->second;
            try {
                auto compiled = std::make_shared<CompiledModel>(graph_, options_, fixed);
                return *(cache_[key] = compiled);
            } catch (const graph::NeedsInputValues &e) {
                if (std::count(specialized_.begin(), specialized_.end(), e.input())) throw;
                specialized_.push_back(e.input());
            }
        }
    }

    /// A dense copy of `b` (which may have any strides).
    static Buffer<> dense_copy(const Buffer<> &b, const std::string &name) {
        std::vector<int> sizes;
        for (int d = 0; d < b.dimensions(); d++)
            sizes.push_back(b.extent(d));
        Buffer<> copy(b.type(), sizes, name);
        const int bytes = b.type().bytes();
        const int64_t n = b.number_of_elements();
        std::vector<int> index(sizes.size(), 0);
        const auto *src = static_cast<const char *>(b.data());
        auto *dst = static_cast<char *>(copy.data());
        for (int64_t i = 0; i < n; i++) {
            int64_t offset = 0;
            for (int d = 0; d < b.dimensions(); d++)
                offset += int64_t(index[static_cast<size_t>(d)]) * b.stride(d);
            std::memcpy(dst + i * bytes, src + offset * bytes, static_cast<size_t>(bytes));
            for (int d = 0; d < b.dimensions(); d++) {
                if (++index[static_cast<size_t>(d)] < sizes[static_cast<size_t>(d)]) break;
                index[static_cast<size_t>(d)] = 0;
            }
        }
        return copy;
    }
    static std::string shape_key(const Buffer<> &b) {
        std::string s = graph::onnx_type_name(b.type()) + "(";
        for (int d = 0; d < b.dimensions(); d++)
            s += std::to_string(b.extent(d)) + ",";
        return s + ")";
    }

    graph::Graph graph_;
    ModelOptions options_;
    std::shared_ptr<CompiledModel> general_;
    std::vector<std::string> specialized_;
    std::vector<ModelValue> inputs_, outputs_;
    std::map<std::string, std::shared_ptr<CompiledModel>> cache_;
    /// The model of the last run (general_ or a specialization).
    CompiledModel *last_ = nullptr;
    std::mutex mutex_;
};

}  // namespace model

Model Model::load(const std::string &path, const ModelOptions &options) {
    Model m;
    graph::Graph g = onnx::read_model(path);
    graph::fix_input_shapes(g, options.shapes);
    graph::fold_into_convolutions(g);
    graph::count_selected_elements(g);
    if (options.fuse_quantized) graph::fuse_quantized_groups(g);
    m.impl_ = std::make_shared<model::Specializations>(std::move(g), options);
    return m;
}

const std::vector<ModelValue> &Model::inputs() const {
    return impl_->inputs();
}

const std::vector<ModelValue> &Model::outputs() const {
    return impl_->outputs();
}

std::map<std::string, Buffer<>> Model::run(const std::map<std::string, Buffer<>> &inputs) const {
    return impl_->run(inputs);
}

int Model::compiled_pipelines() const {
    return impl_->compiled_pipelines();
}

int64_t Model::peak_intermediate_bytes() const {
    return impl_->peak_intermediate_bytes();
}

RunTotals run_totals(const std::vector<StepReport> &steps) {
    RunTotals t;
    for (const StepReport &r : steps) {
        t.macs += r.macs;
        if (r.npu.cycles == 0) continue;
        t.npu_steps++;
        t.npu_macs += r.macs;
        t.npu.cycles += r.npu.cycles;
        t.npu.gemm_steps += r.npu.gemm_steps;
        t.npu.macs += r.npu.macs;
        t.npu.alu_rows += r.npu.alu_rows;
        t.npu.dram_bytes_read += r.npu.dram_bytes_read;
        t.npu.dram_bytes_written += r.npu.dram_bytes_written;
        t.npu.instructions += r.npu.instructions;
        for (int e = 0; e < 3; e++) {
            t.npu.busy_cycles[e] += r.npu.busy_cycles[e];
            t.npu.stall_cycles[e] += r.npu.stall_cycles[e];
        }
    }
    t.npu.gemm_utilisation =
        t.npu.cycles ? static_cast<double>(t.npu.gemm_steps) / static_cast<double>(t.npu.cycles)
                     : 0.0;
    return t;
}

std::vector<NodePlacement> Model::placement() const {
    return impl_->placement();
}

std::vector<StepReport> Model::last_run() const {
    return impl_->last_run();
}

const std::vector<std::string> &Model::specialized_inputs() const {
    return impl_->specialized_inputs();
}

ModelSummary summarize_model(const std::string &path) {
    graph::Graph g = onnx::read_model(path);
    ModelSummary s;
    s.opset = g.opset;
    for (const graph::ValueInfo &v : g.inputs)
        s.inputs.push_back(model::Specializations::describe(v));
    for (const graph::ValueInfo &v : g.outputs)
        s.outputs.push_back(model::Specializations::describe(v));
    const auto &table = graph::builders();
    for (const graph::Node &n : g.nodes) {
        std::string op = (n.domain.empty() ? "" : n.domain + ".") + n.op_type;
        s.operator_counts[op]++;
        if (!n.domain.empty()) {
            s.unsupported.push_back(n.describe() + ": domain \"" + n.domain +
                                    "\" is not supported");
        } else if (n.op_type != "Constant" && !table.count(n.op_type)) {
            s.unsupported.push_back(n.describe() + ": operator " + n.op_type +
                                    " is not supported yet");
        }
    }
    for (const graph::ValueInfo &v : g.inputs) {
        if (!v.type) {
            s.unsupported.push_back("input \"" + v.name + "\": type " +
                                    (v.unsupported_type.empty() ? "unknown" : v.unsupported_type) +
                                    " is not supported");
        }
    }
    return s;
}

}  // namespace dsl::nn
