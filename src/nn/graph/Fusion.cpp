// The fusion decision: elementwise consumers absorb their producer (graph/Fusion.h).
#include "nn/graph/Fusion.h"

#include <functional>
#include <map>
#include <vector>

namespace dsl::nn::graph {

bool is_elementwise(const std::string &op) {
    static const std::set<std::string> ops = {"Abs",
                                              "Neg",
                                              "Sign",
                                              "Reciprocal",
                                              "Floor",
                                              "Ceil",
                                              "Round",
                                              "Sqrt",
                                              "Exp",
                                              "Log",
                                              "Sin",
                                              "Cos",
                                              "Tan",
                                              "Asin",
                                              "Acos",
                                              "Atan",
                                              "Sinh",
                                              "Cosh",
                                              "Tanh",
                                              "Asinh",
                                              "Acosh",
                                              "Atanh",
                                              "Erf",
                                              "Relu",
                                              "Sigmoid",
                                              "Softplus",
                                              "Softsign",
                                              "HardSwish",
                                              "HardSigmoid",
                                              "LeakyRelu",
                                              "Elu",
                                              "Selu",
                                              "Celu",
                                              "ThresholdedRelu",
                                              "Shrink",
                                              "Gelu",
                                              "Clip",
                                              "Add",
                                              "Sub",
                                              "Mul",
                                              "Div",
                                              "Pow",
                                              "PRelu",
                                              "Max",
                                              "Min",
                                              "Sum",
                                              "Mean",
                                              "Where",
                                              "Cast",
                                              "Identity",
                                              "Not",
                                              "And",
                                              "Or",
                                              "Xor",
                                              "Equal",
                                              "Less",
                                              "LessOrEqual",
                                              "Greater",
                                              "GreaterOrEqual",
                                              "IsNaN",
                                              "IsInf",
                                              "Mod",
                                              "BitShift",
                                              "BitwiseAnd",
                                              "BitwiseOr",
                                              "BitwiseXor",
                                              "BitwiseNot",
                                              "QuantizeLinear",
                                              "DequantizeLinear"};
    return ops.count(op) != 0;
}

std::set<std::string> values_to_fuse(const Graph &g) {
    std::map<std::string, int> uses;
    std::map<std::string, std::vector<const Node *>> consumers;
    for (const Node &n : g.nodes) {
        for (const std::string &in : n.inputs) {
            if (in.empty()) continue;
            uses[in]++;
            auto &c = consumers[in];
            if (c.empty() || c.back() != &n) c.push_back(&n);
        }
    }
    std::set<std::string> outputs;
    for (const ValueInfo &v : g.outputs)
        outputs.insert(v.name);
    // The values that may be fused: a node's only output, not a graph output, read only by
    // elementwise nodes of the default domain, each in one input slot (a consumer that reads
    // it twice, x * x, is left alone).
    auto candidate = [&](const Node &n) -> const std::string * {
        if (n.op_type == "Constant" || !n.domain.empty()) return nullptr;
        int named = 0;
        for (const std::string &o : n.outputs)
            named += !o.empty();
        if (named != 1 || n.outputs.empty() || n.outputs[0].empty()) return nullptr;
        const std::string &v = n.outputs[0];
        auto c = consumers.find(v);
        if (outputs.count(v) || c == consumers.end()) return nullptr;
        for (const Node *consumer : c->second) {
            if (!consumer->domain.empty() || !is_elementwise(consumer->op_type)) return nullptr;
        }
        // One slot per consumer: as many uses as consumers.
        if (uses[v] != static_cast<int>(c->second.size())) return nullptr;
        return &v;
    };
    std::set<std::string> fused;
    for (const Node &n : g.nodes) {
        const std::string *v = candidate(n);
        if (v && uses[*v] == 1) fused.insert(*v);
    }
    // The kernel a node's output ends in: follow fused values to the consumer that is not.
    std::map<const Node *, const Node *> roots;
    std::function<const Node *(const Node *)> root = [&](const Node *n) {
        auto known = roots.find(n);
        if (known != roots.end()) return known->second;
        const Node *r = n;
        if (n->outputs.size() == 1 && fused.count(n->outputs[0]))
            r = root(consumers.at(n->outputs[0]).front());
        roots[n] = r;
        return r;
    };
    // A value read by several elementwise nodes that all end in one kernel (the two branches
    // of x * relu6(x + 3) / 6 over a convolution's result) is computed inside that kernel too,
    // where its consumers read it at the same points (the compiler checks that, as for one).
    for (const Node &n : g.nodes) {
        const std::string *v = candidate(n);
        if (!v || uses[*v] < 2) continue;
        const std::vector<const Node *> &c = consumers.at(*v);
        bool one_kernel = true;
        for (const Node *consumer : c)
            one_kernel &= root(consumer) == root(c.front());
        if (one_kernel) fused.insert(*v);
    }
    return fused;
}

}  // namespace dsl::nn::graph
