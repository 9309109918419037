// ONNX's RNN, GRU and LSTM: their attributes mapped onto dsl/nn/Recurrent.h.
#include "dsl/nn/Recurrent.h"
#include "nn/graph/OpBuilder.h"
#include "nn/ops/RecurrentStates.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

bool takes_alpha(const std::string &n) {
    for (const char *a :
         {"Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu"})
        if (n == a) return true;
    return false;
}

bool takes_beta(const std::string &n) {
    return n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid";
}

/// The node's activations with their alphas and betas, which the activations that take them
/// consume in order (as ONNX Runtime reads them).
std::vector<RecurrentActivation> activations(BuildContext &ctx) {
    std::vector<RecurrentActivation> acts;
    auto it = ctx.node().attributes.find("activations");
    if (it == ctx.node().attributes.end()) return acts;
    std::vector<double> alphas, betas;
    if (ctx.has_attr("activation_alpha")) alphas = ctx.attr_floats("activation_alpha");
    if (ctx.has_attr("activation_beta")) betas = ctx.attr_floats("activation_beta");
    size_t next_alpha = 0, next_beta = 0;
    for (const std::string &name : it->second.strings) {
        RecurrentActivation a;
        a.name = name;
        if (takes_alpha(name) && next_alpha < alphas.size())
            a.alpha = static_cast<float>(alphas[next_alpha++]);
        if (takes_beta(name) && next_beta < betas.size())
            a.beta = static_cast<float>(betas[next_beta++]);
        acts.push_back(a);
    }
    return acts;
}

Outputs build(BuildContext &ctx, RecurrentCell cell) {
    RecurrentOptions o;
    o.cell = cell;
    const std::string direction = ctx.attr_string("direction", "forward");
    if (direction == "forward") {
        o.direction = RecurrentDirection::Forward;
    } else if (direction == "reverse") {
        o.direction = RecurrentDirection::Reverse;
    } else if (direction == "bidirectional") {
        o.direction = RecurrentDirection::Bidirectional;
    } else {
        ctx.fail("direction \"" + direction + "\" is not forward, reverse or bidirectional.");
    }
    o.activations = activations(ctx);
    o.clip = ctx.has_attr("clip") ? static_cast<float>(ctx.attr_float("clip", 0)) : 0.0f;
    o.linear_before_reset = ctx.attr_int("linear_before_reset", 0) != 0;
    o.input_forget = ctx.attr_int("input_forget", 0) != 0;
    o.batch_major = ctx.attr_int("layout", 0) != 0;
    auto optional = [&](int i) { return ctx.has_input(i) ? ctx.input(i) : Tensor(); };
    const bool lstm = cell == RecurrentCell::LSTM;
    Tensor r = ctx.input(2);
    if (ctx.has_attr("hidden_size")) {
        int64_t h = 0;
        const int64_t given = ctx.attr_int("hidden_size", 0);
        if (is_const(r.dim(2), &h) && h != given) {
            ctx.fail("hidden_size is " + std::to_string(given) + " but R's last axis has " +
                     std::to_string(h) + " elements.");
        }
    }
    // With more than one output used, the states are computed once, by a kernel of their own,
    // and each output reads them; else the output computes the recurrence itself.
    const bool several = ctx.outputs_used() > 1;
    RecurrentResult res = recurrent_sharing_states(
        o, ctx.input(0), ctx.input(1), r, optional(3), optional(4), optional(5),
        lstm ? optional(6) : Tensor(), lstm ? optional(7) : Tensor(),
        [&](const Tensor &states) { return several ? ctx.shared(states, "states") : states; });
    Outputs out{res.y, res.y_h, res.y_c};
    out.resize(std::min(out.size(), ctx.node().outputs.size()));
    return out;
}

}  // namespace

void add_recurrent_builders(std::map<std::string, Builder> &t) {
    t["RNN"] = [](BuildContext &ctx) { return build(ctx, RecurrentCell::RNN); };
    t["GRU"] = [](BuildContext &ctx) { return build(ctx, RecurrentCell::GRU); };
    t["LSTM"] = [](BuildContext &ctx) { return build(ctx, RecurrentCell::LSTM); };
}

}  // namespace dsl::nn::graph
