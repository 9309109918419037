// ONNX's Conv, ConvTranspose and pooling operators: their window attributes (kernel_shape,
// strides, dilations, pads, auto_pad) mapped onto dsl/nn/Conv.h.
#include "dsl/nn/Conv.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Quantize.h"
#include "ir/IROperator.h"
#include "nn/graph/OpBuilder.h"
#include "nn/graph/Placement.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

std::vector<int> ints(const std::vector<int64_t> &v) {
    return std::vector<int>(v.begin(), v.end());
}

AutoPad auto_pad(BuildContext &ctx) {
    std::string a = ctx.attr_string("auto_pad", "NOTSET");
    if (a == "NOTSET" || a.empty()) return AutoPad::NotSet;
    if (a == "SAME_UPPER") return AutoPad::SameUpper;
    if (a == "SAME_LOWER") return AutoPad::SameLower;
    if (a == "VALID") return AutoPad::Valid;
    ctx.fail("auto_pad \"" + a + "\" is not NOTSET, SAME_UPPER, SAME_LOWER or VALID.");
}

/// The window of a node on input `x`: kernel from `kernel_shape` (or `kernel`, when given),
/// strides, dilations, pads.
Window window_of(BuildContext &ctx, const Tensor &x, const std::vector<int> &kernel) {
    Window w;
    const size_t k = static_cast<size_t>(std::max(x.rank() - 2, 0));
    w.kernel = kernel.empty() ? ints(ctx.attr_ints("kernel_shape")) : kernel;
    if (w.kernel.size() != k) {
        ctx.fail("kernel_shape has " + std::to_string(w.kernel.size()) +
                 " extents but the input has " + std::to_string(k) + " spatial axes.");
    }
    w.strides = ints(ctx.attr_ints("strides"));
    w.dilations = ints(ctx.attr_ints("dilations"));
    std::vector<int64_t> pads = ctx.attr_ints("pads");
    if (!pads.empty()) {
        if (pads.size() != 2 * k) ctx.fail("pads must have two values per spatial axis.");
        for (size_t i = 0; i < k; i++) {
            w.pads_begin.push_back(static_cast<int>(pads[i]));
            w.pads_end.push_back(static_cast<int>(pads[k + i]));
        }
    }
    std::vector<Expr> in;
    for (size_t i = 0; i < k; i++)
        in.push_back(x.dim(static_cast<int>(2 + i)));
    resolve_pads(w, in, auto_pad(ctx));
    return w;
}

std::vector<int> kernel_of(BuildContext &ctx, const Tensor &weights) {
    if (ctx.has_attr("kernel_shape")) return ints(ctx.attr_ints("kernel_shape"));
    std::vector<int> k;
    for (int i = 2; i < weights.rank(); i++) {
        int64_t v = 0;
        if (!is_const(weights.dim(i), &v)) {
            ctx.fail(
                "the kernel's extents must be known when compiling (give kernel_shape, or "
                "weights of a fixed shape).");
        }
        k.push_back(static_cast<int>(v));
    }
    return k;
}

Builder pooling(PoolKind kind) {
    return [kind](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        Window w = window_of(ctx, x, {});
        bool ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
        Outputs out{nn::pool(x, kind, w, ceil_mode, ctx.attr_int("count_include_pad", 0) != 0,
                             static_cast<int>(ctx.attr_int("p", 2)))};
        if (kind == PoolKind::Max && ctx.node().outputs.size() > 1 &&
            !ctx.node().outputs[1].empty()) {
            out.push_back(
                nn::max_pool_indices(x, w, ceil_mode, ctx.attr_int("storage_order", 0) != 0));
        }
        return out;
    };
}

}  // namespace

void add_conv_builders(std::map<std::string, Builder> &t) {
    t["Conv"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0), w = ctx.input(1);
        Tensor b = ctx.has_input(2) ? ctx.input(2) : Tensor();
        Window win = window_of(ctx, x, kernel_of(ctx, w));
        return Outputs{nn::conv(x, w, b, win, static_cast<int>(ctx.attr_int("group", 1)))};
    };
    t["ConvInteger"] = [](BuildContext &ctx) {
        // int32 sum of (x - x_zero_point) (w - w_zero_point); the padding reads x's zero point
        // (a zero once shifted). w's zero point is one, or one per output channel.
        Tensor x = ctx.input(0), w = ctx.input(1);
        Tensor xz = ctx.has_input(2) ? ctx.input(2) : Tensor();
        Tensor wz = ctx.has_input(3) ? ctx.input(3) : Tensor();
        Window win = window_of(ctx, x, kernel_of(ctx, w));
        const int groups = static_cast<int>(ctx.attr_int("group", 1));
        return Outputs{nn::integer_conv_sums(x, w, xz, wz, Tensor(), win, groups)};
    };
    t["QLinearConv"] = [](BuildContext &ctx) {
        // Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
        // and an int32 bias; w's scale and zero point one or one per output channel.
        Tensor x = ctx.input(0), w = ctx.input(3);
        Tensor b = ctx.has_input(8) ? ctx.input(8) : Tensor();
        Window win = window_of(ctx, x, kernel_of(ctx, w));
        const int groups = static_cast<int>(ctx.attr_int("group", 1));
        const QLinearPlan plan = plan_qlinear(ctx, true);
        if (plan.kind == QLinearPlan::Kind::NPU)
            return Outputs{npu_qlinear_conv(ctx, plan, win, groups)};
        Tensor acc = nn::integer_conv_sums(x, w, ctx.input(2), ctx.input(5), b, win, groups);
        if (plan.kind == QLinearPlan::Kind::FixedPoint) {
            return Outputs{nn::requantize_fixed_point(acc, plan.requantization.multiplier,
                                                      plan.requantization.shift, 1, ctx.input(7))};
        }
        return Outputs{
            nn::requantize_linear(acc, ctx.input(1), ctx.input(4), 1, ctx.input(6), ctx.input(7))};
    };
    t["ConvTranspose"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0), w = ctx.input(1);
        Tensor b = ctx.has_input(2) ? ctx.input(2) : Tensor();
        const int groups = static_cast<int>(ctx.attr_int("group", 1));
        Window win;
        const size_t k = static_cast<size_t>(x.rank() - 2);
        win.kernel = kernel_of(ctx, w);
        win.strides = ints(ctx.attr_ints("strides"));
        win.dilations = ints(ctx.attr_ints("dilations"));
        if (win.strides.empty()) win.strides.assign(k, 1);
        if (win.dilations.empty()) win.dilations.assign(k, 1);
        std::vector<int> output_padding = ints(ctx.attr_ints("output_padding"));
        std::vector<int64_t> output_shape = ctx.attr_ints("output_shape");
        std::vector<int64_t> pads = ctx.attr_ints("pads");
        AutoPad mode = auto_pad(ctx);
        if (!output_shape.empty() || mode == AutoPad::SameUpper || mode == AutoPad::SameLower) {
            // The pads that give the requested extents (ONNX's rule: the odd point at the
            // start unless SAME_UPPER).
            if (!output_shape.empty() && output_shape.size() != k) {
                // output_shape may list N and C too.
                if (output_shape.size() == k + 2) {
                    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
                } else {
                    ctx.fail("output_shape must have one extent per spatial axis.");
                }
            }
            for (size_t i = 0; i < k; i++) {
                Expr in = x.dim(static_cast<int>(2 + i));
                int extra = i < output_padding.size() ? output_padding[i] : 0;
                Expr target = output_shape.empty() ? in * win.strides[i]
                                                   : Expr(static_cast<int>(output_shape[i]));
                Expr total = win.strides[i] * (in - 1) + extra +
                             (win.kernel[i] - 1) * win.dilations[i] + 1 - target;
                Expr small = total / 2, large = total - total / 2;
                win.pads_begin.push_back(mode == AutoPad::SameUpper ? small : large);
                win.pads_end.push_back(mode == AutoPad::SameUpper ? large : small);
            }
        } else if (!pads.empty()) {
            if (pads.size() != 2 * k) ctx.fail("pads must have two values per spatial axis.");
            for (size_t i = 0; i < k; i++) {
                win.pads_begin.push_back(static_cast<int>(pads[i]));
                win.pads_end.push_back(static_cast<int>(pads[k + i]));
            }
        }
        return Outputs{nn::conv_transpose(x, w, b, win, groups, output_padding)};
    };
    t["MaxUnpool"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0), indices = ctx.input(1);
        // The unpooled input's shape: (in - 1) * stride + kernel - pads, per spatial axis. The
        // indices count positions in it; an output_shape may add points (left zero).
        Window w = window_of(ctx, x, {});
        Shape unpooled = {x.dim(0), x.dim(1)};
        for (size_t i = 0; i < w.kernel.size(); i++) {
            Expr pb = w.pads_begin.empty() ? Expr(0) : w.pads_begin[i];
            Expr pe = w.pads_end.empty() ? Expr(0) : w.pads_end[i];
            unpooled.push_back((x.dim(static_cast<int>(2 + i)) - 1) * w.strides[i] + w.kernel[i] -
                               pb - pe);
        }
        Shape shape = unpooled;
        if (ctx.has_input(2)) {
            shape.clear();
            for (const Expr &e : ctx.values(2))
                shape.push_back(e);
        }
        return Outputs{nn::max_unpool(x, indices, shape, unpooled)};
    };
    t["MaxPool"] = pooling(PoolKind::Max);
    t["AveragePool"] = pooling(PoolKind::Average);
    t["LpPool"] = pooling(PoolKind::Lp);
    t["GlobalMaxPool"] = [](BuildContext &ctx) {
        return Outputs{nn::global_pool(ctx.input(0), PoolKind::Max)};
    };
    t["GlobalAveragePool"] = [](BuildContext &ctx) {
        return Outputs{nn::global_pool(ctx.input(0), PoolKind::Average)};
    };
    t["GlobalLpPool"] = [](BuildContext &ctx) {
        return Outputs{
            nn::global_pool(ctx.input(0), PoolKind::Lp, static_cast<int>(ctx.attr_int("p", 2)))};
    };
}

}  // namespace dsl::nn::graph
