// QDQ groups replaced by integer operators (graph/QdqFusion.h).
#include "nn/graph/QdqFusion.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "nn/graph/GraphEdit.h"
#include "nn/ops/Quantized.h"

namespace dsl::nn::graph {

namespace {

bool is_op(const Node &n, const char *op) {
    return n.domain.empty() && n.op_type == op;
}

/// Element `i` of a dense constant, as a double (integers and float32 only).
double element(const Buffer<> &b, int64_t i) {
    const Type t = b.type();
    const auto *p = static_cast<const uint8_t *>(b.data());
    if (t == Float(32)) {
        float v;
        std::memcpy(&v, p + i * 4, 4);
        return v;
    }
    if (t == Int(32)) {
        int32_t v;
        std::memcpy(&v, p + i * 4, 4);
        return v;
    }
    if (t == Int(8)) return static_cast<int8_t>(p[i]);
    return p[i];  // uint8
}

/// ONNX's quantization of one value: saturate(round_half_to_even(v / scale) + zero_point).
double quantize(double v, float scale, double zero_point, Type t) {
    const float q = std::nearbyint(static_cast<float>(v) / scale);
    const double lo = t.is_int() ? -128 : 0, hi = t.is_int() ? 127 : 255;
    return std::min(hi, std::max(lo, static_cast<double>(q) + zero_point));
}

/// A DequantizeLinear feeding a group: its node, its quantized input, and its constants.
struct Dequantized {
    size_t node = 0;
    std::string q, scale, zero_point;  ///< value names (zero_point may be empty)
    Buffer<> scale_value, zero_point_value;
    int64_t axis = 1;
    /// The number of scales: 1, or one per index of `axis`.
    int64_t count() const { return scale_value.number_of_elements(); }
};

class Fuser {
  public:
    explicit Fuser(Graph &g) : e_(g) {}

    QdqCounts run() {
        const size_t n = e_.graph().nodes.size();  // not the nodes added on the way
        for (size_t i = 0; i < n; i++) {
            if (!e_.removed(i) && is_op(e_.node(i), "QuantizeLinear")) fuse_at(i);
        }
        // Dequantizations read by nothing now.
        for (size_t d : dequantizations_) {
            const std::string &out = e_.node(d).outputs[0];
            if (!e_.removed(d) && e_.readers(out).empty() && !e_.is_graph_output(out)) e_.remove(d);
        }
        e_.commit();
        return counts_;
    }

  private:
    /// Whether `value` is read by `reader` alone, and is not a graph output.
    bool read_only_by(const std::string &value, size_t reader) const {
        const std::vector<size_t> r = e_.readers(value);
        return r.size() == 1 && r[0] == reader && !e_.is_graph_output(value);
    }

    /// The DequantizeLinear producing `value`, with constant float32 scales and 8-bit zero
    /// points (or int32 ones, a bias's, with `int32`); false when there is none.
    bool dequantized(const std::string &value, Dequantized *d, bool int32 = false) const {
        const int p = e_.producer(value);
        if (p < 0) return false;
        const Node &n = e_.graph().nodes[static_cast<size_t>(p)];
        if (!is_op(n, "DequantizeLinear") || n.inputs.size() < 2 || n.outputs.size() != 1 ||
            GraphEdit::int_attr(n, "block_size", 0) != 0) {
            return false;
        }
        d->node = static_cast<size_t>(p);
        d->q = n.inputs[0];
        d->scale = n.inputs[1];
        d->zero_point = n.inputs.size() > 2 ? n.inputs[2] : "";
        d->scale_value = e_.constant(d->scale);
        if (!is_dense(d->scale_value) || d->scale_value.type() != Float(32) ||
            d->scale_value.dimensions() > 1) {
            return false;
        }
        d->axis = GraphEdit::int_attr(n, "axis", 1);
        if (d->zero_point.empty()) return true;
        d->zero_point_value = e_.constant(d->zero_point);
        const Type zt = d->zero_point_value.type();
        return is_dense(d->zero_point_value) && (is_byte(zt) || (int32 && zt == Int(32))) &&
               d->zero_point_value.number_of_elements() == d->count();
    }

    /// An activation between the float result and its quantization: [lo, hi].
    struct Activation {
        int node = -1;
        double lo = -std::numeric_limits<double>::infinity();
        double hi = std::numeric_limits<double>::infinity();
    };

    /// Reads a Relu or a Clip of constant bounds producing `value`.
    bool activation(const std::string &value, Activation *a) const {
        const int p = e_.producer(value);
        if (p < 0) return false;
        const Node &n = e_.graph().nodes[static_cast<size_t>(p)];
        if (is_op(n, "Relu")) {
            a->lo = 0;
        } else if (is_op(n, "Clip")) {
            if (e_.graph().opset < 11) {
                a->lo = GraphEdit::float_attr(n, "min", a->lo);
                a->hi = GraphEdit::float_attr(n, "max", a->hi);
            } else {
                for (size_t k = 1; k < 3 && k < n.inputs.size(); k++) {
                    if (n.inputs[k].empty()) continue;
                    Buffer<> b = e_.constant(n.inputs[k]);
                    if (!is_dense(b) || b.type() != Float(32) || b.number_of_elements() != 1)
                        return false;
                    (k == 1 ? a->lo : a->hi) = element(b, 0);
                }
            }
        } else {
            return false;
        }
        a->node = p;
        return true;
    }

    void fuse_at(size_t qi) {
        const Node q = e_.node(qi);
        if (q.inputs.size() < 2 || q.outputs.size() != 1 ||
            GraphEdit::int_attr(q, "block_size", 0) != 0) {
            return;
        }
        Buffer<> ys = e_.constant(q.inputs[1]);
        if (!is_dense(ys) || ys.type() != Float(32) || ys.number_of_elements() != 1) return;
        std::string yz = q.inputs.size() > 2 ? q.inputs[2] : "";
        Buffer<> yz_value;
        if (yz.empty()) {
            if (q.attributes.count("output_dtype")) return;
            yz_value = scalar_constant(UInt(8), 0);
        } else {
            yz_value = e_.constant(yz);
            if (!is_dense(yz_value) || !is_byte(yz_value.type()) ||
                yz_value.number_of_elements() != 1) {
                return;
            }
        }
        std::string v = q.inputs[0];
        if (!read_only_by(v, qi)) return;
        Activation act;
        if (activation(v, &act)) {
            const Node &a = e_.node(static_cast<size_t>(act.node));
            v = a.inputs[0];
            if (!read_only_by(v, static_cast<size_t>(act.node))) return;
        }
        const int p = e_.producer(v);
        if (p < 0) return;
        Group group{qi, q.inputs[1], ys, yz, yz_value, act, static_cast<size_t>(p)};
        const Node &op = e_.node(static_cast<size_t>(p));
        if (is_op(op, "Conv")) {
            fuse_conv(group);
        } else if (is_op(op, "MatMul")) {
            fuse_matmul(group, "", -1);
        } else if (is_op(op, "Add") && op.inputs.size() == 2) {
            // A Linear layer: MatMul plus a constant bias.
            for (size_t k = 0; k < 2; k++) {
                const int m = e_.producer(op.inputs[k]);
                if (m >= 0 && is_op(e_.node(static_cast<size_t>(m)), "MatMul") &&
                    read_only_by(op.inputs[k], static_cast<size_t>(p))) {
                    group.op = static_cast<size_t>(m);
                    fuse_matmul(group, op.inputs[1 - k], p);
                    break;
                }
            }
        }
    }

    /// A QuantizeLinear and what it quantizes.
    struct Group {
        size_t quantize;
        std::string y_scale;
        Buffer<> y_scale_value;
        std::string y_zero_point;  ///< empty: uint8 0, added when the group is fused
        Buffer<> y_zero_point_value;
        Activation act;
        size_t op;
    };

    /// The quantization's zero point (added when the QuantizeLinear has none: uint8 0).
    std::string y_zero_point(Group &g) {
        if (g.y_zero_point.empty()) {
            g.y_zero_point =
                e_.add_initializer(e_.node(g.quantize).name + "_zero_point", g.y_zero_point_value);
        }
        return g.y_zero_point;
    }

    /// The zero point's name (adding a zero of `type` with `count` elements when it is absent).
    std::string zero_point_of(const Dequantized &d, Type type) {
        if (!d.zero_point.empty()) return d.zero_point;
        std::vector<int> sizes;
        if (d.scale_value.dimensions() == 1) sizes.push_back(d.scale_value.extent(0));
        return e_.add_initializer(d.q + "_zero_point", Buffer<>(type, sizes));
    }

    /// The integer result `result` of the group: renamed into the quantization's output, after
    /// the activation's bounds (quantized) where there is one; removes the group's nodes.
    void finish(const Group &g, Node integer_op, const std::string &result_name) {
        const Node q = e_.node(g.quantize);
        const Type t = g.y_zero_point_value.type();
        const float scale = static_cast<float>(element(g.y_scale_value, 0));
        const double zp = element(g.y_zero_point_value, 0);
        std::vector<std::pair<const char *, double>> bounds;
        if (g.act.node >= 0) {
            const double lo = quantize(g.act.lo, scale, zp, t);
            const double hi = quantize(g.act.hi, scale, zp, t);
            if (lo > (t.is_int() ? -128 : 0)) bounds.emplace_back("Max", lo);
            if (hi < (t.is_int() ? 127 : 255)) bounds.emplace_back("Min", hi);
        }
        std::string value = bounds.empty() ? q.outputs[0] : e_.fresh_name(result_name);
        integer_op.outputs.back() = value;
        e_.add_node(std::move(integer_op));
        for (size_t k = 0; k < bounds.size(); k++) {
            Node clamp;
            clamp.name =
                q.name + (std::string(bounds[k].first) == "Max" ? "_lower_bound" : "_upper_bound");
            clamp.op_type = bounds[k].first;
            const std::string bound =
                e_.add_initializer(clamp.name, scalar_constant(t, bounds[k].second));
            clamp.inputs = {value, bound};
            value = k + 1 == bounds.size() ? q.outputs[0] : e_.fresh_name(result_name);
            clamp.outputs = {value};
            e_.add_node(std::move(clamp));
        }
        e_.remove(g.quantize);
        if (g.act.node >= 0) e_.remove(static_cast<size_t>(g.act.node));
    }

    /// The float values of a bias: a float32 constant, or a DequantizeLinear of a constant.
    bool bias_values(const std::string &name, int64_t channels, std::vector<double> *out) {
        Buffer<> f = e_.constant(name);
        if (is_dense(f) && f.type() == Float(32) && f.number_of_elements() == channels) {
            for (int64_t c = 0; c < channels; c++)
                out->push_back(element(f, c));
            return true;
        }
        Dequantized d;
        if (!dequantized(name, &d, true)) return false;
        Buffer<> bq = e_.constant(d.q);
        if (!is_dense(bq) || bq.number_of_elements() != channels ||
            !(bq.type() == Int(32) || is_byte(bq.type())) ||
            (d.count() != 1 && d.count() != channels)) {
            return false;
        }
        for (int64_t c = 0; c < channels; c++) {
            const int64_t k = d.count() == 1 ? 0 : c;
            const double z = d.zero_point_value.defined() ? element(d.zero_point_value, k) : 0;
            out->push_back(element(d.scale_value, k) * (element(bq, c) - z));
        }
        dequantizations_.insert(d.node);
        return true;
    }

    /// The int32 bias b / (x_scale * w_scale) as a new initializer.
    std::string integer_bias(const std::string &base, const std::vector<double> &b, float x_scale,
                             const Buffer<> &w_scale) {
        std::vector<float> scales;
        for (int64_t c = 0; c < w_scale.number_of_elements(); c++)
            scales.push_back(static_cast<float>(element(w_scale, c)));
        return e_.add_initializer(base, int32_bias(b, x_scale, scales));
    }

    void fuse_conv(Group &g) {
        const Node conv = e_.node(g.op);
        if (conv.inputs.size() < 2) return;
        Dequantized x, w;
        if (!dequantized(conv.inputs[0], &x) || !dequantized(conv.inputs[1], &w)) return;
        if (x.count() != 1 || x.zero_point.empty()) return;
        Buffer<> wq = e_.constant(w.q);
        if (!wq.defined() || !is_byte(wq.type()) || wq.dimensions() < 3) return;
        const int64_t channels = wq.extent(wq.dimensions() - 1);
        const int64_t axis = w.axis < 0 ? w.axis + wq.dimensions() : w.axis;
        if (w.count() != 1 && !(axis == 0 && w.count() == channels)) return;
        if (x.zero_point_value.type().bits() != 8) return;
        std::vector<double> bias;
        const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
        if (has_bias && !bias_values(conv.inputs[2], channels, &bias)) return;

        Node qconv;
        qconv.name = conv.name;
        qconv.op_type = "QLinearConv";
        qconv.attributes = conv.attributes;
        qconv.inputs = {x.q,       x.scale,        x.zero_point,
                        w.q,       w.scale,        zero_point_of(w, wq.type()),
                        g.y_scale, y_zero_point(g)};
        if (has_bias) {
            qconv.inputs.push_back(integer_bias(conv.name + "_integer_bias", bias,
                                                static_cast<float>(element(x.scale_value, 0)),
                                                w.scale_value));
        }
        qconv.outputs = {""};
        finish(g, std::move(qconv), conv.name + "_quantized");
        e_.remove(g.op);
        dequantizations_.insert(x.node);
        dequantizations_.insert(w.node);
        counts_.convs++;
    }

    /// A MatMul of dequantized operands; `bias` a constant added to it by node `add` (or none).
    void fuse_matmul(Group &g, const std::string &bias_name, int add) {
        const Node mm = e_.node(g.op);
        if (mm.inputs.size() != 2) return;
        Dequantized a, b;
        if (!dequantized(mm.inputs[0], &a) || !dequantized(mm.inputs[1], &b)) return;
        if (a.count() != 1 || a.zero_point.empty()) return;
        Buffer<> bq = e_.constant(b.q);
        int64_t columns = -1;
        if (bq.defined()) {
            if (!is_byte(bq.type()) || bq.dimensions() != 2) return;
            columns = bq.extent(0);
            const int64_t axis = b.axis < 0 ? b.axis + 2 : b.axis;
            if (b.count() != 1 && !(axis == 1 && b.count() == columns)) return;
        } else if (b.count() != 1 || b.zero_point.empty()) {
            return;  // B's type is not known
        }
        std::vector<double> bias;
        if (!bias_name.empty()) {
            if (columns < 0 || !bias_values(bias_name, columns, &bias)) return;
            Buffer<> bias_buffer = e_.constant(bias_name);
            if (bias_buffer.defined() && bias_buffer.dimensions() > 1 &&
                bias_buffer.number_of_elements() != bias_buffer.extent(0)) {
                return;  // not along the rows
            }
        }
        const std::string bz = zero_point_of(b, bq.defined() ? bq.type() : UInt(8));
        if (bias_name.empty()) {
            Node qmm;
            qmm.name = mm.name;
            qmm.op_type = "QLinearMatMul";
            qmm.inputs = {a.q, a.scale, a.zero_point, b.q, b.scale, bz, g.y_scale, y_zero_point(g)};
            qmm.outputs = {""};
            finish(g, std::move(qmm), mm.name + "_quantized");
            counts_.matmuls++;
        } else {
            const float as = static_cast<float>(element(a.scale_value, 0));
            // int32 sums, the bias, then the float rescaling QuantizeLinear rounds.
            Node sums;
            sums.name = mm.name;
            sums.op_type = "MatMulInteger";
            sums.inputs = {a.q, b.q, a.zero_point, bz};
            sums.outputs = {e_.fresh_name(mm.name + "_sums")};
            Node plus;
            plus.name = mm.name + "_bias";
            plus.op_type = "Add";
            plus.inputs = {sums.outputs[0],
                           integer_bias(mm.name + "_integer_bias", bias, as, b.scale_value)};
            plus.outputs = {e_.fresh_name(mm.name + "_biased")};
            Node to_float;
            to_float.name = mm.name + "_to_float";
            to_float.op_type = "Cast";
            to_float.attributes["to"].kind = Attribute::Kind::Int;
            to_float.attributes["to"].i = 1;  // float
            to_float.inputs = plus.outputs;
            to_float.outputs = {e_.fresh_name(mm.name + "_float_sums")};
            Buffer<> factor(Float(32), {static_cast<int>(columns)});
            for (int64_t c = 0; c < columns; c++) {
                static_cast<float *>(factor.data())[c] =
                    as * static_cast<float>(element(b.scale_value, b.count() == 1 ? 0 : c));
            }
            Node scale;
            scale.name = mm.name + "_scale";
            scale.op_type = "Mul";
            scale.inputs = {to_float.outputs[0], e_.add_initializer(mm.name + "_scales", factor)};
            scale.outputs = {e_.fresh_name(mm.name + "_real")};
            Node requantize;
            requantize.name = mm.name + "_requantize";
            requantize.op_type = "QuantizeLinear";
            requantize.inputs = {scale.outputs[0], g.y_scale, y_zero_point(g)};
            requantize.outputs = {""};
            e_.add_node(std::move(sums));
            e_.add_node(std::move(plus));
            e_.add_node(std::move(to_float));
            e_.add_node(std::move(scale));
            finish(g, std::move(requantize), mm.name + "_quantized");
            e_.remove(static_cast<size_t>(add));
            counts_.linears++;
        }
        e_.remove(g.op);
        dequantizations_.insert(a.node);
        dequantizations_.insert(b.node);
    }

    GraphEdit e_;
    std::set<size_t> dequantizations_;
    QdqCounts counts_;
};

}  // namespace

QdqCounts fuse_quantized_groups(Graph &g) {
    return Fuser(g).run();
}

}  // namespace dsl::nn::graph
