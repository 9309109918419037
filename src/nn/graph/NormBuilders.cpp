// ONNX's normalizations and losses mapped onto dsl/nn/Norm.h.
#include "dsl/nn/Norm.h"
#include "ir/IROperator.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

LossReduction loss_reduction(BuildContext &ctx) {
    std::string r = ctx.attr_string("reduction", "mean");
    if (r == "none") return LossReduction::None;
    if (r == "sum") return LossReduction::Sum;
    if (r == "mean") return LossReduction::Mean;
    ctx.fail("reduction \"" + r + "\" is not none, sum or mean.");
}

}  // namespace

void add_norm_builders(std::map<std::string, Builder> &t) {
    t["BatchNormalization"] = [](BuildContext &ctx) {
        if (ctx.attr_int("training_mode", 0) != 0 ||
            (ctx.opset() < 14 && ctx.node().outputs.size() > 1)) {
            ctx.fail(
                "training mode (updating the running statistics) is not supported; dsl "
                "runs inference.");
        }
        return Outputs{nn::batch_norm(ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3),
                                      ctx.input(4),
                                      static_cast<float>(ctx.attr_float("epsilon", 1e-5)))};
    };
    t["InstanceNormalization"] = [](BuildContext &ctx) {
        return Outputs{nn::instance_norm(ctx.input(0), ctx.input(1), ctx.input(2),
                                         static_cast<float>(ctx.attr_float("epsilon", 1e-5)))};
    };
    t["LayerNormalization"] = [](BuildContext &ctx) {
        Tensor b = ctx.has_input(2) ? ctx.input(2) : Tensor();
        LayerNorm r = nn::layer_norm(ctx.input(0), ctx.input(1), b,
                                     static_cast<int>(ctx.attr_int("axis", -1)),
                                     static_cast<float>(ctx.attr_float("epsilon", 1e-5)));
        return Outputs{r.y, r.mean, r.inv_std_dev};
    };
    t["LRN"] = [](BuildContext &ctx) {
        return Outputs{nn::lrn(ctx.input(0), static_cast<int>(ctx.attr_int("size", 1)),
                               static_cast<float>(ctx.attr_float("alpha", 1e-4)),
                               static_cast<float>(ctx.attr_float("beta", 0.75)),
                               static_cast<float>(ctx.attr_float("bias", 1.0)))};
    };
    t["MeanVarianceNormalization"] = [](BuildContext &ctx) {
        std::vector<int64_t> axes = ctx.attr_ints("axes", {0, 2, 3});
        return Outputs{nn::mean_variance_normalization(ctx.input(0),
                                                       std::vector<int>(axes.begin(), axes.end()))};
    };
    t["NegativeLogLikelihoodLoss"] = [](BuildContext &ctx) {
        Tensor w = ctx.has_input(2) ? ctx.input(2) : Tensor();
        return Outputs{nn::nll_loss(ctx.input(0), ctx.input(1), w, loss_reduction(ctx),
                                    ctx.has_attr("ignore_index"), ctx.attr_int("ignore_index", 0))};
    };
    t["SoftmaxCrossEntropyLoss"] = [](BuildContext &ctx) {
        Tensor w = ctx.has_input(2) ? ctx.input(2) : Tensor();
        CrossEntropy r = nn::softmax_cross_entropy(
            ctx.input(0), ctx.input(1), w, loss_reduction(ctx), ctx.has_attr("ignore_index"),
            ctx.attr_int("ignore_index", 0));
        return Outputs{r.loss, r.log_prob};
    };
}

}  // namespace dsl::nn::graph
