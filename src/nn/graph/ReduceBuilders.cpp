// ONNX's reductions (axes as an attribute, or an input from opset 13/18), ArgMax/ArgMin, the
// softmax family (opset 13's single axis, and the older 2-D coercion), MatMul and Gemm.
#include "dsl/nn/Elementwise.h"
#include "dsl/nn/Linear.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Quantize.h"
#include "dsl/nn/Reduce.h"
#include "ir/IROperator.h"
#include "nn/graph/OpBuilder.h"
#include "nn/graph/Placement.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

Builder reduction(Reduction kind) {
    return [kind](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        std::vector<int> axes;
        bool given = false;
        // ReduceSum takes its axes as an input from opset 13, the others from opset 18.
        if (ctx.has_input(1)) {
            for (int64_t v : ctx.constant_values(1, "axes"))
                axes.push_back(static_cast<int>(v));
            given = true;
        } else if (ctx.has_attr("axes")) {
            for (int64_t a : ctx.attr_ints("axes"))
                axes.push_back(static_cast<int>(a));
            given = true;
        }
        bool keepdims = ctx.attr_int("keepdims", 1) != 0;
        if ((!given || axes.empty()) && ctx.attr_int("noop_with_empty_axes", 0) != 0) {
            return Outputs{nn::map(
                x, [](const Expr &e) { return e; }, "reduce_noop")};
        }
        return Outputs{nn::reduce(x, kind, axes, keepdims)};
    };
}

Builder arg_reduction(bool is_max) {
    return [is_max](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        int axis = static_cast<int>(ctx.attr_int("axis", 0));
        bool keepdims = ctx.attr_int("keepdims", 1) != 0;
        bool last = ctx.attr_int("select_last_index", 0) != 0;
        return Outputs{is_max ? nn::argmax(x, axis, keepdims, last)
                              : nn::argmin(x, axis, keepdims, last)};
    };
}

/// Softmax, LogSoftmax and Hardmax: over one axis from opset 13; before, over all the axes
/// from `axis` on (the input coerced to 2-D), with default axis 1.
Builder softmax_like(Tensor (*f)(const Tensor &, int)) {
    return [f](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        if (ctx.opset() >= 13) {
            return Outputs{f(x, static_cast<int>(ctx.attr_int("axis", -1)))};
        }
        int axis = static_cast<int>(ctx.attr_int("axis", 1));
        // Over the last axis alone the two are one: no reshapes, whose index arithmetic in
        // symbolic sizes (divisions per element) cost PP-OCRv4's recogniser 0.35 ms a softmax.
        if (x.rank() > 0 && normalize_axis(axis, x.rank(), ctx.node().op_type) == x.rank() - 1)
            return Outputs{f(x, axis)};
        Tensor flat = nn::flatten(x, axis);
        return Outputs{nn::reshape(f(flat, 1), x.shape())};
    };
}

/// int32 (a - a_zero_point)(b - b_zero_point), A's zero point per row, B's per column: on the
/// dot-product instructions where B is a matrix and A has rows, else by matmul.
Tensor integer_product(const Tensor &a, const Tensor &b, const Tensor &az, const Tensor &bz) {
    if (a.rank() >= 2 && b.rank() == 2 && (!az.defined() || az.rank() <= 1) &&
        (!bz.defined() || bz.rank() <= 1)) {
        return nn::integer_matmul(a, b, az, bz);
    }
    return nn::matmul(nn::subtract_zero_point(a, az, a.rank() >= 2 ? -2 : -1),
                      nn::subtract_zero_point(b, bz, -1));
}

}  // namespace

void add_reduce_builders(std::map<std::string, Builder> &t) {
    t["ReduceSum"] = reduction(Reduction::Sum);
    t["ReduceMean"] = reduction(Reduction::Mean);
    t["ReduceMax"] = reduction(Reduction::Max);
    t["ReduceMin"] = reduction(Reduction::Min);
    t["ReduceProd"] = reduction(Reduction::Prod);
    t["ReduceL1"] = reduction(Reduction::L1);
    t["ReduceL2"] = reduction(Reduction::L2);
    t["ReduceSumSquare"] = reduction(Reduction::SumSquare);
    t["ReduceLogSum"] = reduction(Reduction::LogSum);
    t["ReduceLogSumExp"] = reduction(Reduction::LogSumExp);
    t["ArgMax"] = arg_reduction(true);
    t["ArgMin"] = arg_reduction(false);
    t["Softmax"] = softmax_like(nn::softmax);
    t["LogSoftmax"] = softmax_like(nn::log_softmax);
    t["Hardmax"] = softmax_like(nn::hardmax);
    t["TopK"] = [](BuildContext &ctx) {
        std::vector<Expr> k = ctx.opset() < 10
                                  ? std::vector<Expr>{make_const(Int(64), ctx.attr_int("k", 1))}
                                  : ctx.values(1);
        if (k.size() != 1) ctx.fail("K must hold one value.");
        TopK r = nn::top_k(ctx.input(0), k[0], static_cast<int>(ctx.attr_int("axis", -1)),
                           ctx.attr_int("largest", 1) != 0);
        return Outputs{r.values, r.indices};
    };
    t["MatMul"] = [](BuildContext &ctx) { return Outputs{nn::matmul(ctx.input(0), ctx.input(1))}; };
    t["Det"] = [](BuildContext &ctx) { return Outputs{nn::det(ctx.input(0))}; };
    t["QLinearMatMul"] = [](BuildContext &ctx) {
        // Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
        Tensor a = ctx.input(0), b = ctx.input(3);
        const QLinearPlan plan = plan_qlinear(ctx, false);
        if (plan.kind == QLinearPlan::Kind::NPU) return Outputs{npu_qlinear_matmul(ctx, plan)};
        Tensor acc = integer_product(a, b, ctx.input(2), ctx.input(5));
        if (plan.kind == QLinearPlan::Kind::FixedPoint) {
            return Outputs{nn::requantize_fixed_point(acc, plan.requantization.multiplier,
                                                      plan.requantization.shift, -1, ctx.input(7))};
        }
        return Outputs{
            nn::requantize_linear(acc, ctx.input(1), ctx.input(4), -1, ctx.input(6), ctx.input(7))};
    };
    t["MatMulInteger"] = [](BuildContext &ctx) {
        // int32 (a - a_zero_point) (b - b_zero_point): A's zero point per row, B's per column.
        Tensor a = ctx.input(0), b = ctx.input(1);
        Tensor az = ctx.has_input(2) ? ctx.input(2) : Tensor();
        Tensor bz = ctx.has_input(3) ? ctx.input(3) : Tensor();
        return Outputs{integer_product(a, b, az, bz)};
    };
    t["Gemm"] = [](BuildContext &ctx) {
        Tensor c = ctx.has_input(2) ? ctx.input(2) : Tensor();
        return Outputs{nn::gemm(ctx.input(0), ctx.input(1), c,
                                static_cast<float>(ctx.attr_float("alpha", 1.0)),
                                static_cast<float>(ctx.attr_float("beta", 1.0)),
                                ctx.attr_int("transA", 0) != 0, ctx.attr_int("transB", 0) != 0)};
    };
}

}  // namespace dsl::nn::graph
