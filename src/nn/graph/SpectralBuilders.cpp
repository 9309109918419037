// ONNX's DFT, STFT and MelWeightMatrix mapped onto dsl/nn/Spectral.h.
#include "dsl/nn/Spectral.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

/// Input i, a scalar that sizes the result (a constant, or read when the model runs).
Expr scalar_value(BuildContext &ctx, int i, const char *what) {
    std::vector<Expr> v = ctx.values(i);
    if (v.size() != 1) ctx.fail(std::string(what) + " must be a single value.");
    return v[0];
}

}  // namespace

void add_spectral_builders(std::map<std::string, Builder> &t) {
    t["DFT"] = [](BuildContext &ctx) {
        int64_t axis = ctx.attr_int("axis", 1);
        if (ctx.opset() >= 20 && ctx.has_input(2)) {
            std::vector<int64_t> a = ctx.constant_values(2, "axis");
            if (a.size() != 1) ctx.fail("axis must be a single value.");
            axis = a[0];
        }
        Expr length = ctx.has_input(1) ? scalar_value(ctx, 1, "dft_length") : Expr();
        return Outputs{nn::dft(ctx.input(0), static_cast<int>(axis),
                               ctx.attr_int("inverse", 0) != 0, ctx.attr_int("onesided", 0) != 0,
                               length)};
    };
    t["STFT"] = [](BuildContext &ctx) {
        Tensor window = ctx.has_input(2) ? ctx.input(2) : Tensor();
        Expr frame_length = ctx.has_input(3) ? scalar_value(ctx, 3, "frame_length") : Expr();
        return Outputs{nn::stft(ctx.input(0), scalar_value(ctx, 1, "frame_step"), window,
                                frame_length, ctx.attr_int("onesided", 1) != 0)};
    };
    t["MelWeightMatrix"] = [](BuildContext &ctx) {
        return Outputs{nn::mel_weight_matrix(
            scalar_value(ctx, 0, "num_mel_bins"), scalar_value(ctx, 1, "dft_length"),
            scalar_value(ctx, 2, "sample_rate"), scalar_value(ctx, 3, "lower_edge_hertz"),
            scalar_value(ctx, 4, "upper_edge_hertz"), ctx.attr_type("output_datatype", Float(32)))};
    };
}

}  // namespace dsl::nn::graph
