// Post-training quantization (dsl/nn/QuantizeModel.h): calibrate on the samples, then write
// the model in QDQ form.
#include <algorithm>
#include <limits>
#include <sstream>

#include "dsl/Error.h"
#include "dsl/nn/QuantizeModel.h"
#include "ir/Error.h"
#include "nn/graph/Calibration.h"
#include "nn/graph/GraphEdit.h"
#include "nn/graph/QdqInsertion.h"
#include "nn/graph/Rewrite.h"
#include "nn/model/CompiledModel.h"
#include "nn/onnx/OnnxReader.h"
#include "nn/onnx/OnnxWriter.h"

namespace dsl::nn {

namespace {

graph::RangeMethod range_method(Calibration c) {
    switch (c) {
        case Calibration::Percentile:
            return graph::RangeMethod::Percentile;
        case Calibration::Entropy:
            return graph::RangeMethod::Entropy;
        default:
            return graph::RangeMethod::MinMax;
    }
}

/// Runs the float model on every sample and hands each observed value to `observe`.
template <typename Observe>
void run_samples(const model::CompiledModel &m, const std::string &path,
                 const std::vector<std::map<std::string, Buffer<>>> &samples,
                 const std::vector<std::string> &observed, Observe observe) {
    for (size_t s = 0; s < samples.size(); s++) {
        std::map<std::string, Buffer<>> out;
        try {
            out = m.run(samples[s]);
        } catch (const RuntimeError &e) {
            throw RuntimeError(path + ": calibration sample " + std::to_string(s) + ": " +
                               e.what());
        }
        for (const std::string &v : observed) {
            const Buffer<> &b = out.at(v);
            user_assert(b.type() == Float(32))
                << path << ": value \"" << v << "\" is " << b.type()
                << ", not float32; only float activations are quantized.";
            internal_assert(graph::is_dense(b)) << "model output " << v << " is not dense";
            observe(v, b);
        }
    }
}

}  // namespace

QuantizationReport quantize_model(const std::string &path,
                                  const std::vector<std::map<std::string, Buffer<>>> &samples,
                                  const std::string &output, const QuantizationOptions &options) {
    user_assert(!samples.empty()) << path
                                  << ": quantizing needs at least one sample of the inputs to "
                                     "calibrate the activations' ranges on.";
    // QuantizeLinear needs opset 10, and per axis 13. Some of ONNX's version adapters need
    // ranks its shape inference cannot find; compiling the model as it is finds them.
    const int64_t opset = options.per_channel ? 13 : 10;
    std::map<std::string, graph::ValueInfo> known;
    graph::Graph g;
    try {
        g = onnx::read_model(path, opset);
    } catch (const CompileError &) {
        graph::Graph original = onnx::read_model(path);
        if (original.opset >= opset) throw;
        known = model::CompiledModel(original, options.model).value_info();
        g = onnx::read_model(path, opset, known);
    }
    graph::fold_into_convolutions(g);
    QuantizationReport report;
    // The candidates: every quantizable op but those the options keep float.
    const std::vector<graph::QuantizableOp> ops = graph::quantizable_ops(g);
    std::vector<graph::QuantizableOp> candidates;
    for (const graph::QuantizableOp &op : ops) {
        const bool end = options.keep_first_and_last && (op.first_layer || op.last_layer);
        if (end || options.keep_float.count(op.node)) {
            report.kept_float.push_back(op.node);
            report.reasons[op.node] = end ? "first or last layer" : "named by keep_float";
        } else {
            candidates.push_back(op);
        }
    }
    for (const std::string &name : options.keep_float) {
        bool found = false;
        for (const graph::QuantizableOp &op : ops)
            found = found || op.node == name;
        user_assert(found) << path << ": keep_float names \"" << name
                           << "\", which is not a quantizable node (a Conv or MatMul of "
                              "constant float weights) of the model.";
    }

    // The values to observe become outputs of a copy of the graph.
    std::vector<std::string> observed;
    for (const graph::QuantizableOp &op : candidates) {
        for (const std::string &v : {op.input, op.output}) {
            if (std::find(observed.begin(), observed.end(), v) == observed.end())
                observed.push_back(v);
        }
    }
    graph::Graph probe = g;
    for (const std::string &v : observed) {
        bool listed = false;
        for (const graph::ValueInfo &o : probe.outputs)
            listed = listed || o.name == v;
        if (!listed) {
            graph::ValueInfo info;
            info.name = v;
            probe.outputs.push_back(info);
        }
    }
    std::map<std::string, graph::ActivationStatistics> stats;
    if (!observed.empty()) {
        ModelOptions mo = options.model;
        mo.fuse_quantized = false;
        model::CompiledModel m(probe, mo);
        run_samples(m, path, samples, observed, [&](const std::string &v, const Buffer<> &b) {
            // Channels: numpy axis 1 of a tensor of rank 3 or more (N, C, spatial...), when
            // each channel has several values (not a squeeze-and-excitation's 1x1).
            int64_t channels = 1, inner = 1;
            if (b.dimensions() >= 3) {
                channels = b.extent(b.dimensions() - 2);
                for (int d = 0; d + 2 < b.dimensions(); d++)
                    inner *= b.extent(d);
                if (inner == 1) channels = 1;
            }
            stats[v].observe_range(static_cast<const float *>(b.data()), b.number_of_elements(),
                                   channels, inner);
        });
        if (options.calibration != Calibration::MinMax) {
            run_samples(m, path, samples, observed, [&](const std::string &v, const Buffer<> &b) {
                stats[v].observe_histogram(static_cast<const float *>(b.data()),
                                           b.number_of_elements());
            });
        }
    }
    std::map<std::string, std::pair<float, float>> ranges;
    for (const std::string &v : observed) {
        float lo = 0, hi = 0;
        stats[v].range(range_method(options.calibration), options.percentile, &lo, &hi);
        ranges[v] = {lo, hi};
    }
    // Operators whose activations would keep too few levels per channel stay float.
    graph::QdqPlan plan;
    plan.per_channel = options.per_channel;
    for (const graph::QuantizableOp &op : candidates) {
        double levels = std::numeric_limits<double>::infinity();
        for (const std::string &v : {op.input, op.output}) {
            levels =
                std::min(levels, stats[v].median_channel_levels(ranges[v].first, ranges[v].second));
        }
        if (levels < options.min_channel_levels) {
            report.kept_float.push_back(op.node);
            std::ostringstream why;
            why.precision(3);
            why << "its median channel spans " << levels << " steps of uint8";
            report.reasons[op.node] = why.str();
            continue;
        }
        plan.ops.push_back(op);
        report.quantized.push_back(op.node);
        for (const std::string &v : {op.input, op.output}) {
            report.ranges[v] = ranges[v];
            plan.activations[v] = graph::activation_quantization(ranges[v].first, ranges[v].second);
        }
    }
    graph::insert_qdq(g, plan);
    onnx::write_model(g, path, output, known);
    return report;
}

}  // namespace dsl::nn
