// The QDQ form of a quantized model (graph/QdqInsertion.h).
#include "nn/graph/QdqInsertion.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/Error.h"
#include "nn/graph/GraphEdit.h"

namespace dsl::nn::graph {

namespace {

bool is_op(const Node &n, const char *op) {
    return n.domain.empty() && n.op_type == op;
}

/// A dense float32 constant, or undefined.
Buffer<> float_constant(const GraphEdit &e, const std::string &name) {
    Buffer<> b = e.constant(name);
    if (!b.defined() || !dense_floats(b, b.number_of_elements())) return Buffer<>();
    return b;
}

/// Whether Clip node `n` has constant bounds (or none).
bool constant_bounds(const GraphEdit &e, const Node &n) {
    for (size_t k = 1; k < n.inputs.size() && k < 3; k++) {
        if (!n.inputs[k].empty() && !float_constant(e, n.inputs[k]).defined()) return false;
    }
    return true;
}

}  // namespace

std::vector<QuantizableOp> quantizable_ops(const Graph &g) {
    Graph copy = g;  // GraphEdit edits; nothing is changed here
    GraphEdit e(copy);
    std::string problem;
    std::vector<QuantizableOp> ops;
    const std::vector<size_t> order = topological_order(g, &problem);
    std::vector<size_t> layers;
    for (size_t i : order) {
        const Node &n = g.nodes[i];
        if (is_op(n, "Conv") || is_op(n, "ConvTranspose") || is_op(n, "MatMul") ||
            is_op(n, "Gemm")) {
            layers.push_back(i);
        }
    }
    for (size_t i : order) {
        const Node &n = g.nodes[i];
        if (n.outputs.size() != 1 || n.inputs.size() < 2) continue;
        Buffer<> w = float_constant(e, n.inputs[1]);
        if (!w.defined()) continue;
        if (is_op(n, "Conv")) {
            if (w.dimensions() < 3) continue;
            if (n.inputs.size() > 2 && !n.inputs[2].empty() &&
                !float_constant(e, n.inputs[2]).defined()) {
                continue;
            }
        } else if (is_op(n, "MatMul")) {
            if (w.dimensions() != 2) continue;
        } else {
            continue;
        }
        // The input must be a float activation (not a constant).
        if (e.constant(n.inputs[0]).defined()) continue;
        QuantizableOp op{n.name, n.op_type, n.inputs[0], n.outputs[0]};
        op.first_layer = i == layers.front();
        op.last_layer = i == layers.back();
        // The node alone reading `value`, or null.
        auto sole_reader = [&](const std::string &value) -> const Node * {
            const std::vector<size_t> readers = e.readers(value);
            if (readers.size() != 1 || e.is_graph_output(value)) return nullptr;
            const Node &r = g.nodes[readers[0]];
            return r.outputs.size() == 1 ? &r : nullptr;
        };
        // A MatMul's bias: an Add of a constant along the columns.
        const Node *r = sole_reader(op.output);
        if (r && is_op(n, "MatMul") && is_op(*r, "Add") && r->inputs.size() == 2) {
            const std::string &other = r->inputs[r->inputs[0] == op.output ? 1 : 0];
            Buffer<> b = float_constant(e, other);
            if (b.defined() && b.number_of_elements() == w.extent(0) &&
                b.extent(0) == w.extent(0)) {
                op.output = r->outputs[0];
                r = sole_reader(op.output);
            }
        }
        if (r && (is_op(*r, "Relu") || (is_op(*r, "Clip") && constant_bounds(e, *r))) &&
            r->inputs[0] == op.output) {
            op.output = r->outputs[0];
        }
        ops.push_back(op);
    }
    return ops;
}

ActivationQuantization activation_quantization(float lo, float hi) {
    lo = std::min(lo, 0.0f);
    hi = std::max(hi, 0.0f);
    ActivationQuantization q;
    if (hi - lo <= 0) return q;  // all zeros: any scale is exact
    q.scale = (hi - lo) / 255.0f;
    q.zero_point =
        static_cast<int>(std::min(255.0f, std::max(0.0f, std::nearbyint(-lo / q.scale))));
    return q;
}

namespace {

class Inserter {
  public:
    Inserter(Graph &g, const QdqPlan &plan) : e_(g), plan_(plan) {}

    void run() {
        user_assert(!plan_.per_channel || e_.graph().opset >= 13)
            << e_.graph().source << ": weights quantized per channel need opset 13 or later "
            << "(the model imports opset " << e_.graph().opset << "); quantize per tensor instead.";
        for (const QuantizableOp &op : plan_.ops)
            quantize_weights(op);
        for (const auto &kv : plan_.activations)
            quantize_activation(kv.first, kv.second);
        e_.remove_unused_constants();
    }

  private:
    int node_index(const std::string &name) {
        for (size_t i = 0; i < e_.graph().nodes.size(); i++) {
            if (e_.graph().nodes[i].name == name) return static_cast<int>(i);
        }
        return -1;
    }

    /// v -> QuantizeLinear -> DequantizeLinear -> every reader of v.
    void quantize_activation(const std::string &v, const ActivationQuantization &q) {
        const std::vector<size_t> readers = e_.readers(v);
        const int producer = e_.producer(v);
        // A graph output keeps its name: its producer writes a new value, quantized into it.
        const bool output = e_.is_graph_output(v) && producer >= 0;
        if (readers.empty() && !output) return;
        std::string source = v;
        if (output) {
            source = e_.fresh_name(v + "_float");
            for (std::string &o : e_.node(static_cast<size_t>(producer)).outputs) {
                if (o == v) o = source;
            }
        }
        const std::string scale =
            e_.add_initializer(v + "_scale", scalar_constant(Float(32), q.scale));
        const std::string zero_point =
            e_.add_initializer(v + "_zero_point", scalar_constant(UInt(8), q.zero_point));
        Node quantize;
        quantize.name = e_.fresh_name(v + "_QuantizeLinear");
        quantize.op_type = "QuantizeLinear";
        quantize.inputs = {source, scale, zero_point};
        quantize.outputs = {e_.fresh_name(v + "_quantized")};
        Node dequantize;
        dequantize.name = e_.fresh_name(v + "_DequantizeLinear");
        dequantize.op_type = "DequantizeLinear";
        dequantize.inputs = {quantize.outputs[0], scale, zero_point};
        dequantize.outputs = {output ? v : e_.fresh_name(v + "_dequantized")};
        for (size_t r : readers) {
            for (std::string &in : e_.node(r).inputs) {
                if (in == v) in = dequantize.outputs[0];
            }
        }
        e_.add_node(std::move(quantize));
        e_.add_node(std::move(dequantize));
    }

    /// An op's weights as int8 (per output channel or per tensor) with a DequantizeLinear, and
    /// a Conv's bias as int32.
    void quantize_weights(const QuantizableOp &op) {
        const int i = node_index(op.node);
        internal_assert(i >= 0) << "quantized op " << op.node << " is not in the graph";
        Node &n = e_.node(static_cast<size_t>(i));
        const std::string w_name = n.inputs[1];
        Buffer<> w = float_constant(e_, w_name);
        const auto *wf = static_cast<const float *>(w.data());
        const bool conv = op.op_type == "Conv";
        // dims in numpy order; a Conv's channels are axis 0, a MatMul's B columns are axis 1.
        const int64_t count = w.number_of_elements();
        const int64_t channels = plan_.per_channel ? w.extent(conv ? w.dimensions() - 1 : 0) : 1;
        // Element i's channel: a Conv's is i / (elements per channel), a MatMul's i % N.
        const int64_t per_channel = count / std::max<int64_t>(channels, 1);
        auto channel_of = [&](int64_t k) -> int64_t {
            if (channels == 1) return 0;
            return conv ? k / per_channel : k % channels;
        };
        std::vector<float> scales(static_cast<size_t>(channels), 0.0f);
        for (int64_t k = 0; k < count; k++) {
            float &s = scales[static_cast<size_t>(channel_of(k))];
            s = std::max(s, std::abs(wf[k]));
        }
        for (float &s : scales)
            s = s > 0 ? s / 127.0f : 1.0f;
        std::vector<int> sizes;
        for (int d = 0; d < w.dimensions(); d++)
            sizes.push_back(w.extent(d));
        Buffer<> wq(Int(8), sizes);
        auto *q = static_cast<int8_t *>(wq.data());
        for (int64_t k = 0; k < count; k++) {
            const float v = std::nearbyint(wf[k] / scales[static_cast<size_t>(channel_of(k))]);
            q[k] = static_cast<int8_t>(std::min(127.0f, std::max(-127.0f, v)));
        }
        Buffer<> scale_buffer = per_tensor_or_axis(scales);
        const std::string scale_name = e_.add_initializer(w_name + "_scale", scale_buffer);
        Node dq;
        dq.name = e_.fresh_name(w_name + "_DequantizeLinear");
        dq.op_type = "DequantizeLinear";
        dq.inputs = {e_.add_initializer(w_name + "_quantized", wq), scale_name};
        dq.outputs = {e_.fresh_name(w_name + "_dequantized")};
        if (channels > 1) {
            dq.attributes["axis"].kind = Attribute::Kind::Int;
            dq.attributes["axis"].i = conv ? 0 : 1;
        }
        n.inputs[1] = dq.outputs[0];
        e_.add_node(std::move(dq));
        // Adding a node may move the graph's nodes: the op's node is looked up again.
        auto node = [&]() -> Node & { return e_.node(static_cast<size_t>(i)); };

        if (!conv || node().inputs.size() < 3 || node().inputs[2].empty()) return;
        // The bias in int32 at the scale of the products: input scale x weight scale.
        auto x = plan_.activations.find(op.input);
        internal_assert(x != plan_.activations.end()) << "no quantization for " << op.input;
        Buffer<> b = float_constant(e_, node().inputs[2]);
        std::vector<double> bias;
        std::vector<float> bias_scales;
        for (int64_t c = 0; c < b.number_of_elements(); c++) {
            bias.push_back(static_cast<const float *>(b.data())[c]);
            if (channels > 1 || c == 0)
                bias_scales.push_back(x->second.scale * scales[static_cast<size_t>(c)]);
        }
        Buffer<> bq = int32_bias(bias, x->second.scale, scales);
        Node bdq;
        bdq.name = e_.fresh_name(node().inputs[2] + "_DequantizeLinear");
        bdq.op_type = "DequantizeLinear";
        bdq.inputs = {
            e_.add_initializer(node().inputs[2] + "_quantized", bq),
            e_.add_initializer(node().inputs[2] + "_scale", per_tensor_or_axis(bias_scales))};
        bdq.outputs = {e_.fresh_name(node().inputs[2] + "_dequantized")};
        if (bias_scales.size() > 1) {
            bdq.attributes["axis"].kind = Attribute::Kind::Int;
            bdq.attributes["axis"].i = 0;
        }
        node().inputs[2] = bdq.outputs[0];
        e_.add_node(std::move(bdq));
    }

    /// One scale as a scalar, several as a 1-D tensor.
    static Buffer<> per_tensor_or_axis(const std::vector<float> &scales) {
        if (scales.size() == 1) return scalar_constant(Float(32), scales[0]);
        Buffer<> b(Float(32), {static_cast<int>(scales.size())});
        std::memcpy(b.data(), scales.data(), scales.size() * sizeof(float));
        return b;
    }

    GraphEdit e_;
    const QdqPlan &plan_;
};

}  // namespace

void insert_qdq(Graph &g, const QdqPlan &plan) {
    Inserter(g, plan).run();
}

}  // namespace dsl::nn::graph
