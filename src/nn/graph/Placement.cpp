// Placement of QLinearConv and QLinearMatMul on the NPU, and their fixed-point rescaling.
#include "nn/graph/Placement.h"

#include <cmath>

#include "dsl/Math.h"
#include "dsl/nn/Elementwise.h"
#include "dsl/nn/Quantize.h"
#include "ir/IROperator.h"
#include "nn/graph/GraphEdit.h"
#include "nn/ops/Quantized.h"

namespace dsl::nn::graph {

namespace {

/// A zero point that is one 8-bit constant, as the NPU's int8 values see it (a uint8 one less
/// 128); false otherwise.
bool int8_zero_point(const Buffer<> &b, int32_t *value) {
    if (!is_dense(b) || b.number_of_elements() != 1 || !is_byte(b.type())) return false;
    *value = b.type().is_int() ? *static_cast<const int8_t *>(b.data())
                               : *static_cast<const uint8_t *>(b.data()) - 128;
    return true;
}

/// Why the node cannot run on the NPU, or "" when it can. `out` receives the rescaling's
/// multipliers and shifts where the scales are constants (both devices need them).
std::string check(BuildContext &ctx, bool conv, QLinearPlan *out) {
    const Buffer<> xs = ctx.constant(1), ws = ctx.constant(4), ys = ctx.constant(6);
    const float *x_scale = dense_floats(xs, 1), *y_scale = dense_floats(ys, 1);
    int64_t channels = ws.defined() ? ws.number_of_elements() : 0;
    const float *w_scales = dense_floats(ws, channels);
    if (!x_scale || !y_scale || !w_scales || channels < 1) {
        return "its scales are not float32 constants (one for x and y, one or one per output "
               "channel for the weights)";
    }
    Buffer<int32_t> multiplier(static_cast<int>(channels), "multiplier"),
        shift(static_cast<int>(channels), "shift");
    for (int c = 0; c < channels; c++) {
        const double real =
            static_cast<double>(*x_scale) * static_cast<double>(w_scales[c]) / *y_scale;
        if (!std::isfinite(real) || real < 0)
            return "its scales give a negative or infinite factor";
        int32_t m = 0, s = 0;
        quantize_multiplier(real, &m, &s);
        multiplier(c) = m;
        shift(c) = s;
    }
    out->requantization.multiplier = Tensor(Buffer<>(multiplier), "qlinear_multiplier");
    out->requantization.shift = Tensor(Buffer<>(shift), "qlinear_shift");
    out->kind = QLinearPlan::Kind::FixedPoint;

    if (!int8_zero_point(ctx.constant(2), &out->requantization.input_zero_point) ||
        !int8_zero_point(ctx.constant(7), &out->requantization.output_zero_point)) {
        return "the zero points of x and y are not single 8-bit constants";
    }
    const Buffer<> w = ctx.constant(3);
    if (!w.defined() || w.type() != Int(8)) return "its weights are not an int8 constant";
    if (ctx.has_input(5)) {
        const Buffer<> wz = ctx.constant(5);
        if (!wz.defined() || !zero_constant(Tensor(wz)))
            return "its weights are not symmetric (their zero point is not a constant 0)";
    }
    if (conv) {
        if (w.dimensions() != 4) return "it is not a 2-D convolution";
        const int groups = static_cast<int>(ctx.attr_int("group", 1));
        // Extents innermost first: (KW, KH, C / groups, M).
        if (groups != 1 && !(w.extent(2) == 1 && w.extent(3) == groups)) {
            return "it is a grouped convolution (groups " + std::to_string(groups) +
                   "); the NPU takes groups 1 or depthwise ones";
        }
    } else {
        if (w.dimensions() != 2) return "its B is not a matrix";
        if (ctx.graph_shape(0).size() != 2) return "its A is not a matrix";
    }
    return "";
}

/// `t` as int8: uint8 less 128 (its zero point likewise), int8 as it is.
Tensor to_int8(const Tensor &t) {
    if (t.type() == Int(8)) return t;
    return nn::map(
        t, [](const Expr &v) { return dsl::cast<int8_t>(dsl::cast<int32_t>(v) - 128); }, "to_int8");
}

/// The requantization of `plan` to `type`: for uint8, its zero point and its range back in
/// uint8 (the plan's are int8's, 128 less); the NPU's STORE writes either type.
Requantization requantization_to(const QLinearPlan &plan, Type type) {
    Requantization q = plan.requantization;
    if (type == UInt(8)) {
        q.type = UInt(8);
        q.output_zero_point += 128;
        q.min += 128;
        q.max += 128;
    }
    return q;
}

}  // namespace

QLinearPlan plan_qlinear(BuildContext &ctx, bool conv) {
    QLinearPlan plan;
    const bool npu = ctx.target().has_feature(Target::Feature::NPU);
    if (!ctx.fixed_point_requantization() && !npu) return plan;
    std::string why = check(ctx, conv, &plan);
    if (why.empty() && npu) {
        plan.kind = QLinearPlan::Kind::NPU;
    } else if (plan.kind == QLinearPlan::Kind::Float) {
        // Scales computed by the model: only the float rescaling takes them.
        why += "; it rescales with ONNX's float factor";
    }
    if (npu) ctx.place(plan.kind == QLinearPlan::Kind::NPU, why);
    return plan;
}

Tensor npu_qlinear_conv(BuildContext &ctx, const QLinearPlan &plan, const Window &window,
                        int groups) {
    const Tensor x = ctx.input(0);
    const Type out = ctx.constant(7).type();
    Tensor b = ctx.has_input(8) ? ctx.input(8) : Tensor();
    return nn::quantized_conv(to_int8(x), ctx.input(3), b, window, requantization_to(plan, out),
                              groups);
}

Tensor npu_qlinear_matmul(BuildContext &ctx, const QLinearPlan &plan) {
    const Type out = ctx.constant(7).type();
    // quantized_matmul's a is (M, K) with dimension 0 the rows; a tensor's shape lists the
    // outermost first, as ONNX's, so (M, K) is as it is.
    return nn::quantized_matmul(to_int8(ctx.input(0)), ctx.input(3), Tensor(),
                                requantization_to(plan, out));
}

}  // namespace dsl::nn::graph
