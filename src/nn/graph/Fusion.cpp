// The fusion decision: elementwise consumers absorb their single producer.
#include "nn/graph/Fusion.h"

#include <map>

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
    std::map<std::string, const Node *> consumer;
    for (const Node &n : g.nodes) {
        for (const std::string &in : n.inputs) {
            if (in.empty()) continue;
            uses[in]++;
            consumer[in] = &n;
        }
    }
    std::set<std::string> outputs;
    for (const ValueInfo &v : g.outputs)
        outputs.insert(v.name);
    std::set<std::string> fused;
    for (const Node &n : g.nodes) {
        if (n.op_type == "Constant" || !n.domain.empty()) continue;
        int named = 0;
        for (const std::string &o : n.outputs)
            named += !o.empty();
        if (named != 1 || n.outputs.empty() || n.outputs[0].empty()) continue;
        const std::string &v = n.outputs[0];
        if (outputs.count(v) || uses[v] != 1) continue;
        const Node *c = consumer[v];
        if (!c->domain.empty() || !is_elementwise(c->op_type)) continue;
        // A consumer that reads the value twice (x * x) counts once per input slot.
        int slots = 0;
        for (const std::string &in : c->inputs)
            slots += in == v;
        if (slots == 1) fused.insert(v);
    }
    return fused;
}

}  // namespace dsl::nn::graph
