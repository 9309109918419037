// ONNX's QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear.
#include "dsl/nn/Quantize.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

void add_quantize_builders(std::map<std::string, Builder> &t) {
    t["QuantizeLinear"] = [](BuildContext &ctx) {
        Tensor zp = ctx.has_input(2) ? ctx.input(2) : Tensor();
        return std::vector<Tensor>{nn::quantize_linear(ctx.input(0), ctx.input(1), zp,
                                                       static_cast<int>(ctx.attr_int("axis", 1)))};
    };
    t["DequantizeLinear"] = [](BuildContext &ctx) {
        Tensor zp = ctx.has_input(2) ? ctx.input(2) : Tensor();
        return std::vector<Tensor>{nn::dequantize_linear(
            ctx.input(0), ctx.input(1), zp, static_cast<int>(ctx.attr_int("axis", 1)))};
    };
    t["DynamicQuantizeLinear"] = [](BuildContext &ctx) {
        DynamicQuantization q = nn::dynamic_quantize_linear(ctx.input(0));
        return std::vector<Tensor>{q.y, q.scale, q.zero_point};
    };
}

}  // namespace dsl::nn::graph
