// ONNX's NonZero, Compress and NonMaxSuppression, and the counts that size them
// (graph/DataDependentShapes.h), mapped onto dsl/nn/Selection.h.
#include "dsl/nn/Detection.h"
#include "dsl/nn/Selection.h"
#include "nn/graph/DataDependentShapes.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

/// The count input `i` that count_selected_elements added to the node.
Expr count_input(BuildContext &ctx, int i) {
    if (!ctx.has_input(i)) {
        ctx.fail(
            "the size of its result depends on its input's values; the compiler counts them in "
            "a node it adds first (graph/DataDependentShapes.h), which this graph lacks.");
    }
    return ctx.values(i).at(0);
}

/// NonMaxSuppression's inputs 2-4 and attribute.
SuppressionParams suppression_params(BuildContext &ctx) {
    SuppressionParams p;
    auto scalar = [&](int i) { return ctx.has_input(i) ? ctx.values(i).at(0) : Expr(); };
    p.max_boxes_per_class = scalar(2);
    p.iou_threshold = scalar(3);
    p.score_threshold = scalar(4);
    p.center_point_box = ctx.attr_int("center_point_box", 0) != 0;
    return p;
}

/// Unique's axis, normalized (unique takes a negative axis as none: the input flattened).
int unique_axis(BuildContext &ctx) {
    if (!ctx.has_attr("axis")) return -1;
    const int rank = ctx.input(0).rank();
    const int axis = static_cast<int>(ctx.attr_int("axis", 0));
    if (axis < -rank || axis >= rank) {
        ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                 std::to_string(rank) + ".");
    }
    return axis < 0 ? axis + rank : axis;
}

}  // namespace

void add_selection_builders(std::map<std::string, Builder> &t) {
    t[kCountNonZero] = [](BuildContext &ctx) {
        if (ctx.inputs() < 2) return Outputs{nn::count_nonzero(ctx.input(0))};
        // Compress's condition, counted over the elements that select something in input 1.
        const bool flatten = !ctx.has_attr("axis");
        const int axis = static_cast<int>(ctx.attr_int("axis", 0));
        Tensor condition = ctx.input(0);
        return Outputs{nn::count_nonzero(
            condition, nn::selection_length(ctx.input(1), condition, axis, flatten))};
    };
    t[kCountNonMaxSuppression] = [](BuildContext &ctx) {
        return Outputs{
            nn::non_max_suppression_count(ctx.input(0), ctx.input(1), suppression_params(ctx))};
    };
    t["NonMaxSuppression"] = [](BuildContext &ctx) {
        return Outputs{nn::non_max_suppression(ctx.input(0), ctx.input(1), suppression_params(ctx),
                                               count_input(ctx, 5))};
    };
    t["RoiAlign"] = [](BuildContext &ctx) {
        RoiAlignParams p;
        const std::string mode = ctx.attr_string("mode", "avg");
        if (mode != "avg" && mode != "max") ctx.fail("mode \"" + mode + "\" is not avg or max.");
        p.max_mode = mode == "max";
        p.output_height = static_cast<int>(ctx.attr_int("output_height", 1));
        p.output_width = static_cast<int>(ctx.attr_int("output_width", 1));
        p.sampling_ratio = static_cast<int>(ctx.attr_int("sampling_ratio", 0));
        p.spatial_scale = static_cast<float>(ctx.attr_float("spatial_scale", 1.0));
        // Opset 10 had no attribute and sampled as output_half_pixel does.
        const std::string transform =
            ctx.attr_string("coordinate_transformation_mode",
                            ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
        if (transform != "half_pixel" && transform != "output_half_pixel") {
            ctx.fail("coordinate_transformation_mode \"" + transform +
                     "\" is not half_pixel or output_half_pixel.");
        }
        p.half_pixel = transform == "half_pixel";
        return Outputs{nn::roi_align(ctx.input(0), ctx.input(1), ctx.input(2), p)};
    };
    t[kCountUnique] = [](BuildContext &ctx) {
        return Outputs{nn::unique_count(ctx.input(0), unique_axis(ctx))};
    };
    t["Unique"] = [](BuildContext &ctx) {
        UniqueResult r = nn::unique(ctx.input(0), unique_axis(ctx), ctx.attr_int("sorted", 1) != 0,
                                    count_input(ctx, 1));
        Outputs out{r.y, r.indices, r.inverse_indices, r.counts};
        out.resize(std::min(out.size(), ctx.node().outputs.size()));
        return out;
    };
    t["NonZero"] = [](BuildContext &ctx) {
        return Outputs{nn::nonzero(ctx.input(0), count_input(ctx, 1))};
    };
    t["Compress"] = [](BuildContext &ctx) {
        const bool flatten = !ctx.has_attr("axis");
        return Outputs{nn::compress(ctx.input(0), ctx.input(1), count_input(ctx, 2),
                                    static_cast<int>(ctx.attr_int("axis", 0)), flatten)};
    };
}

}  // namespace dsl::nn::graph
