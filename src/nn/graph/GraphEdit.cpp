// Editing a graph in place (graph/GraphEdit.h).
#include "nn/graph/GraphEdit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>

namespace dsl::nn::graph {

GraphEdit::GraphEdit(Graph &g) : g_(g) {
    for (const ValueInfo &v : g.outputs) {
        outputs_.insert(v.name);
        taken_.insert(v.name);
    }
    for (const ValueInfo &v : g.inputs)
        taken_.insert(v.name);
    for (const auto &kv : g.initializers)
        taken_.insert(kv.first);
    for (const Node &n : g.nodes) {
        taken_.insert(n.inputs.begin(), n.inputs.end());
        taken_.insert(n.outputs.begin(), n.outputs.end());
    }
}

Buffer<> GraphEdit::constant(const std::string &name) const {
    if (name.empty()) return Buffer<>();
    auto it = g_.initializers.find(name);
    if (it != g_.initializers.end()) return it->second;
    for (const Node &n : g_.nodes) {
        if (n.op_type != "Constant" || n.outputs.empty() || n.outputs[0] != name) continue;
        auto value = n.attributes.find("value");
        if (value != n.attributes.end() && value->second.kind == Attribute::Kind::Tensor)
            return value->second.t;
    }
    return Buffer<>();
}

std::vector<size_t> GraphEdit::readers(const std::string &value) const {
    std::vector<size_t> r;
    for (size_t i = 0; i < g_.nodes.size(); i++) {
        if (removed(i)) continue;
        for (const std::string &in : g_.nodes[i].inputs) {
            if (in == value) {
                r.push_back(i);
                break;
            }
        }
    }
    return r;
}

int GraphEdit::producer(const std::string &value) const {
    for (size_t i = 0; i < g_.nodes.size(); i++) {
        if (removed(i)) continue;
        for (const std::string &o : g_.nodes[i].outputs) {
            if (o == value) return static_cast<int>(i);
        }
    }
    return -1;
}

std::string GraphEdit::fresh_name(const std::string &base) {
    std::string name = base;
    for (int k = 2; taken_.count(name); k++)
        name = base + "_" + std::to_string(k);
    taken_.insert(name);
    return name;
}

std::string GraphEdit::add_initializer(const std::string &base, const Buffer<> &b) {
    std::string name = fresh_name(base);
    g_.initializers[name] = b;
    return name;
}

size_t GraphEdit::add_node(Node n) {
    taken_.insert(n.outputs.begin(), n.outputs.end());
    g_.nodes.push_back(std::move(n));
    return g_.nodes.size() - 1;
}

void GraphEdit::commit() {
    std::vector<Node> kept;
    for (size_t i = 0; i < g_.nodes.size(); i++) {
        if (!removed(i)) kept.push_back(std::move(g_.nodes[i]));
    }
    g_.nodes = std::move(kept);
    removed_.clear();
}

void GraphEdit::remove_unused_constants() {
    std::set<std::string> read(outputs_);
    for (size_t i = 0; i < g_.nodes.size(); i++) {
        if (!removed(i)) read.insert(g_.nodes[i].inputs.begin(), g_.nodes[i].inputs.end());
    }
    for (size_t i = 0; i < g_.nodes.size(); i++) {
        const Node &n = g_.nodes[i];
        if (n.op_type == "Constant" && n.domain.empty() && n.outputs.size() == 1 &&
            !read.count(n.outputs[0])) {
            remove(i);
        }
    }
    commit();
    for (auto it = g_.initializers.begin(); it != g_.initializers.end();) {
        it = read.count(it->first) ? std::next(it) : g_.initializers.erase(it);
    }
}

int64_t GraphEdit::int_attr(const Node &n, const std::string &name, int64_t default_value) {
    auto it = n.attributes.find(name);
    return it == n.attributes.end() ? default_value : it->second.i;
}

double GraphEdit::float_attr(const Node &n, const std::string &name, double default_value) {
    auto it = n.attributes.find(name);
    return it == n.attributes.end() ? default_value : it->second.f;
}

std::vector<size_t> topological_order(const Graph &g, std::string *problem) {
    problem->clear();
    std::map<std::string, size_t> producer;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        for (const std::string &o : g.nodes[i].outputs) {
            if (o.empty()) continue;
            if (producer.count(o) || g.initializers.count(o)) {
                *problem = g.nodes[i].describe() + ": value \"" + o +
                           "\" is produced twice (ONNX graphs assign each value once).";
                return {};
            }
            producer[o] = i;
        }
    }
    // Each node waits for the producers of its inputs; a node is ready when none is left.
    std::vector<int> waiting(g.nodes.size(), 0);
    std::vector<std::vector<size_t>> readers(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); i++) {
        std::set<size_t> from;
        for (const std::string &in : g.nodes[i].inputs) {
            if (in.empty() || g.initializers.count(in)) continue;
            auto p = producer.find(in);
            if (p != producer.end()) {
                from.insert(p->second);
                continue;
            }
            bool is_input = false;
            for (const ValueInfo &v : g.inputs)
                is_input = is_input || v.name == in;
            if (!is_input) {
                *problem = g.nodes[i].describe() + ": input \"" + in +
                           "\" is not a graph input, an initializer, or any node's output.";
                return {};
            }
        }
        waiting[i] = static_cast<int>(from.size());
        for (size_t p : from)
            readers[p].push_back(i);
    }
    // The first ready node in file order each time: a file already in order keeps its order.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        if (waiting[i] == 0) ready.push(i);
    }
    std::vector<size_t> order;
    while (!ready.empty()) {
        const size_t n = ready.top();
        ready.pop();
        order.push_back(n);
        for (size_t r : readers[n]) {
            if (--waiting[r] == 0) ready.push(r);
        }
    }
    if (order.size() < g.nodes.size()) {
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (waiting[i] > 0) {
                *problem =
                    g.nodes[i].describe() + " is part of a cycle: it depends on its own output.";
                break;
            }
        }
    }
    return order;
}

Buffer<> scalar_constant(Type t, double v) {
    Buffer<> b(t, std::vector<int>{});
    void *p = b.data();
    if (t == Float(32)) {
        *static_cast<float *>(p) = static_cast<float>(v);
    } else if (t == Int(32)) {
        *static_cast<int32_t *>(p) = static_cast<int32_t>(v);
    } else if (t == Int(8)) {
        *static_cast<int8_t *>(p) = static_cast<int8_t>(v);
    } else {
        *static_cast<uint8_t *>(p) = static_cast<uint8_t>(v);
    }
    return b;
}

Buffer<> int32_bias(const std::vector<double> &b, float x_scale,
                    const std::vector<float> &w_scales) {
    Buffer<> out(Int(32), {static_cast<int>(b.size())});
    auto *p = static_cast<int32_t *>(out.data());
    for (size_t c = 0; c < b.size(); c++) {
        const float s = x_scale * w_scales[w_scales.size() == 1 ? 0 : c];
        const double v = std::nearbyint(b[c] / static_cast<double>(s));
        p[c] = static_cast<int32_t>(std::min(2147483647.0, std::max(-2147483648.0, v)));
    }
    return out;
}

bool is_dense(const Buffer<> &b) {
    if (!b.defined()) return false;
    int64_t stride = 1;
    for (int d = 0; d < b.dimensions(); d++) {
        if (b.extent(d) != 1 && b.stride(d) != stride) return false;
        stride *= b.extent(d);
    }
    return true;
}

const float *dense_floats(const Buffer<> &b, int64_t elements) {
    if (!is_dense(b) || b.type() != Float(32) || b.number_of_elements() != elements) return nullptr;
    return static_cast<const float *>(b.data());
}

}  // namespace dsl::nn::graph
