// Batch-norm folding and Pad folding into convolutions (graph/Rewrite.h).
#include "nn/graph/Rewrite.h"

#include "nn/graph/GraphEdit.h"

#include <cmath>

namespace dsl::nn::graph {

namespace {

class Folder {
  public:
    explicit Folder(Graph &g) : e_(g), g_(g) {}

    RewriteCounts run() {
        RewriteCounts counts;
        for (size_t i = 0; i < g_.nodes.size(); i++) {
            if (g_.nodes[i].op_type == "BatchNormalization" && g_.nodes[i].domain.empty() &&
                fold_batch_norm(i)) {
                counts.batch_norms++;
            }
        }
        for (size_t i = 0; i < g_.nodes.size(); i++) {
            if (g_.nodes[i].op_type == "Pad" && g_.nodes[i].domain.empty() && fold_pad(i))
                counts.pads++;
        }
        e_.commit();
        return counts;
    }

  private:
    bool fold_batch_norm(size_t bn_index) {
        const Node bn = g_.nodes[bn_index];
        if (bn.inputs.size() != 5 || GraphEdit::int_attr(bn, "training_mode", 0) != 0 ||
            GraphEdit::int_attr(bn, "spatial", 1) != 1) {
            return false;
        }
        for (size_t k = 1; k < bn.outputs.size(); k++) {
            if (!bn.outputs[k].empty()) return false;  // running statistics asked for
        }
        const std::string &x = bn.inputs[0];
        const int p = e_.producer(x);
        if (p < 0 || e_.is_graph_output(x) || e_.readers(x).size() != 1) return false;
        const Node &conv = g_.nodes[static_cast<size_t>(p)];
        if (!conv.domain.empty() || conv.outputs.size() != 1 ||
            (conv.op_type != "Conv" && conv.op_type != "ConvTranspose" && conv.op_type != "Gemm"))
            return false;
        Buffer<> w = e_.constant(conv.inputs.size() > 1 ? conv.inputs[1] : "");
        if (!w.defined() || w.type() != Float(32) || w.dimensions() < 2) return false;
        const std::string bias_name = conv.inputs.size() > 2 ? conv.inputs[2] : "";
        Buffer<> bias = e_.constant(bias_name);
        if (!bias_name.empty() && !bias.defined()) return false;

        // The weights' layout: which axis (numpy order) is the output channel, and the groups.
        const int rank = w.dimensions();
        std::vector<int64_t> dims;  // numpy order
        for (int d = rank - 1; d >= 0; d--)
            dims.push_back(w.extent(d));
        int64_t channels = 0, groups = 1;
        int channel_axis = 0;
        if (conv.op_type == "Conv") {
            channels = dims[0];
        } else if (conv.op_type == "ConvTranspose") {
            groups = GraphEdit::int_attr(conv, "group", 1);
            channels = dims[1] * groups;
            channel_axis = 1;
        } else {
            if (rank != 2 || GraphEdit::float_attr(conv, "alpha", 1.0) != 1.0) return false;
            channel_axis = GraphEdit::int_attr(conv, "transB", 0) ? 0 : 1;
            channels = dims[static_cast<size_t>(channel_axis)];
        }
        const float *scale = dense_floats(e_.constant(bn.inputs[1]), channels);
        const float *shift = dense_floats(e_.constant(bn.inputs[2]), channels);
        const float *mean = dense_floats(e_.constant(bn.inputs[3]), channels);
        const float *var = dense_floats(e_.constant(bn.inputs[4]), channels);
        const float *wf = dense_floats(w, w.number_of_elements());
        if (!scale || !shift || !mean || !var || !wf) return false;
        // The bias: one value per channel (a Gemm's C may also be a single value).
        std::vector<float> b(static_cast<size_t>(channels), 0.0f);
        if (bias.defined()) {
            const double beta =
                conv.op_type == "Gemm" ? GraphEdit::float_attr(conv, "beta", 1.0) : 1.0;
            if (const float *bf = dense_floats(bias, channels)) {
                for (int64_t c = 0; c < channels; c++)
                    b[static_cast<size_t>(c)] = static_cast<float>(beta * bf[c]);
            } else if (const float *one = dense_floats(bias, 1)) {
                for (float &v : b)
                    v = static_cast<float>(beta * one[0]);
            } else {
                return false;
            }
            // A Gemm's C must broadcast along the rows: (N) or (1, N).
            if (conv.op_type == "Gemm" && bias.dimensions() == 2 && bias.extent(1) != 1)
                return false;
        }
        const double epsilon = GraphEdit::float_attr(bn, "epsilon", 1e-5);
        std::vector<float> factor(static_cast<size_t>(channels));
        for (int64_t c = 0; c < channels; c++) {
            factor[static_cast<size_t>(c)] =
                static_cast<float>(scale[c] / std::sqrt(static_cast<double>(var[c]) + epsilon));
            b[static_cast<size_t>(c)] =
                static_cast<float>((static_cast<double>(b[static_cast<size_t>(c)]) - mean[c]) *
                                       factor[static_cast<size_t>(c)] +
                                   shift[c]);
        }
        // New weights: each element times its output channel's factor.
        std::vector<int> sizes;
        for (int d = 0; d < rank; d++)
            sizes.push_back(w.extent(d));
        Buffer<> w2(Float(32), sizes, "folded_weights");
        auto *out = static_cast<float *>(w2.data());
        int64_t inner = 1;  // elements per step of the channel axis
        for (size_t a = static_cast<size_t>(channel_axis) + 1; a < dims.size(); a++)
            inner *= dims[a];
        const int64_t axis_extent = dims[static_cast<size_t>(channel_axis)];
        const int64_t n = w.number_of_elements();
        for (int64_t i = 0; i < n; i++) {
            int64_t c = (i / inner) % axis_extent;
            if (conv.op_type == "ConvTranspose") {
                // (in channel, out channel within its group, ...): the group comes from the
                // input channel.
                const int64_t in_channel = i / (inner * axis_extent);
                c += (in_channel / (dims[0] / groups)) * axis_extent;
            }
            out[i] = wf[i] * factor[static_cast<size_t>(c)];
        }
        Buffer<> b2(Float(32), {static_cast<int>(channels)}, "folded_bias");
        for (int64_t c = 0; c < channels; c++)
            static_cast<float *>(b2.data())[c] = b[static_cast<size_t>(c)];

        Node &target = g_.nodes[static_cast<size_t>(p)];
        target.inputs[1] = e_.add_initializer(target.inputs[1] + "_bn_folded", w2);
        const std::string b_name = e_.add_initializer(bn.outputs[0] + "_bn_folded_bias", b2);
        if (target.inputs.size() > 2)
            target.inputs[2] = b_name;
        else
            target.inputs.push_back(b_name);
        if (target.op_type == "Gemm") {
            Attribute &beta = target.attributes["beta"];
            beta.kind = Attribute::Kind::Float;
            beta.f = 1.0;
        }
        target.outputs[0] = bn.outputs[0];
        e_.remove(bn_index);
        return true;
    }

    bool fold_pad(size_t pad_index) {
        const Node pad = g_.nodes[pad_index];
        auto mode = pad.attributes.find("mode");
        if (mode != pad.attributes.end() && mode->second.s != "constant") return false;
        if (pad.outputs.size() != 1 || e_.is_graph_output(pad.outputs[0])) return false;
        std::vector<int64_t> pads;
        if (g_.opset < 11) {
            auto it = pad.attributes.find("pads");
            if (it == pad.attributes.end() || GraphEdit::float_attr(pad, "value", 0.0) != 0.0)
                return false;
            pads = it->second.ints;
        } else {
            if (pad.inputs.size() > 3 && !pad.inputs[3].empty()) return false;  // axes
            Buffer<> p = e_.constant(pad.inputs.size() > 1 ? pad.inputs[1] : "");
            if (!p.defined() || p.type() != Int(64) || p.dimensions() != 1) return false;
            for (int i = 0; i < p.extent(0); i++)
                pads.push_back(static_cast<const int64_t *>(p.data())[i]);
            if (pad.inputs.size() > 2 && !pad.inputs[2].empty()) {
                Buffer<> v = e_.constant(pad.inputs[2]);
                if (!v.defined() || v.number_of_elements() != 1) return false;
                const auto *bytes = static_cast<const uint8_t *>(v.data());
                for (int k = 0; k < v.type().bytes(); k++) {
                    if (bytes[k] != 0) return false;  // not a pad of zeros
                }
            }
        }
        const size_t rank = pads.size() / 2;
        if (rank < 3 || pads.size() != 2 * rank) return false;
        for (size_t a = 0; a < pads.size(); a++) {
            const bool batch_or_channel = a % rank < 2;
            if (pads[a] < 0 || (batch_or_channel && pads[a] != 0)) return false;
        }
        const std::vector<size_t> consumers = e_.readers(pad.outputs[0]);
        if (consumers.empty()) return false;
        for (size_t c : consumers) {
            const Node &conv = g_.nodes[c];
            auto auto_pad = conv.attributes.find("auto_pad");
            if (conv.op_type != "Conv" || !conv.domain.empty() ||
                conv.inputs[0] != pad.outputs[0] ||
                (auto_pad != conv.attributes.end() && auto_pad->second.s != "NOTSET") ||
                (conv.inputs.size() > 1 && conv.inputs[1] == pad.outputs[0]) ||
                (conv.inputs.size() > 2 && conv.inputs[2] == pad.outputs[0])) {
                return false;
            }
            auto conv_pads = conv.attributes.find("pads");
            if (conv_pads != conv.attributes.end() &&
                (conv_pads->second.kind != Attribute::Kind::Ints ||
                 conv_pads->second.ints.size() != 2 * (rank - 2))) {
                return false;  // the Conv reports it
            }
        }
        const size_t spatial = rank - 2;
        for (size_t c : consumers) {
            Node &conv = g_.nodes[c];
            Attribute &a = conv.attributes["pads"];
            if (a.kind != Attribute::Kind::Ints) {
                a.kind = Attribute::Kind::Ints;
                a.ints.assign(2 * spatial, 0);
            }
            for (size_t s = 0; s < spatial; s++) {
                a.ints[s] += pads[2 + s];
                a.ints[spatial + s] += pads[rank + 2 + s];
            }
            conv.inputs[0] = pad.inputs[0];
        }
        e_.remove(pad_index);
        return true;
    }

    GraphEdit e_;
    Graph &g_;
};

}  // namespace

RewriteCounts fold_into_convolutions(Graph &g) {
    return Folder(g).run();
}

}  // namespace dsl::nn::graph
