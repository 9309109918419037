// ONNX's Resize (opsets 10, 11, 13) and Upsample (opsets 7, 9) mapped onto dsl/nn/Resize.h.
#include "dsl/nn/Resize.h"
#include "ir/IROperator.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

ResizeMode mode_of(BuildContext &ctx) {
    std::string m = ctx.attr_string("mode", "nearest");
    if (m == "nearest") return ResizeMode::Nearest;
    if (m == "linear" || m == "bilinear") return ResizeMode::Linear;
    if (m == "cubic") return ResizeMode::Cubic;
    ctx.fail("mode \"" + m + "\" is not nearest, linear or cubic.");
}

/// The output extents and scales from either sizes or scales (float64 expressions).
void sizes_and_scales(BuildContext &ctx, const Tensor &x, const std::vector<Expr> &given_sizes,
                      const std::vector<Expr> &given_scales, std::vector<Expr> *sizes,
                      std::vector<Expr> *scales) {
    const size_t r = static_cast<size_t>(x.rank());
    if (!given_sizes.empty()) {
        if (given_sizes.size() != r) ctx.fail("sizes must have one value per axis.");
        for (size_t i = 0; i < r; i++) {
            sizes->push_back(given_sizes[i]);
            scales->push_back(cast(Float(64), given_sizes[i]) /
                              cast(Float(64), x.dim(static_cast<int>(i))));
        }
        return;
    }
    if (given_scales.size() != r) ctx.fail("scales must have one value per axis.");
    for (size_t i = 0; i < r; i++) {
        Expr scale = cast(Float(64), given_scales[i]);
        scales->push_back(scale);
        sizes->push_back(cast(Int(64), floor(cast(Float(64), x.dim(static_cast<int>(i))) * scale)));
    }
}

}  // namespace

void add_resize_builders(std::map<std::string, Builder> &t) {
    t["Resize"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        ResizeOptions o;
        o.mode = mode_of(ctx);
        std::vector<Expr> given_sizes, given_scales, roi;
        if (ctx.opset() < 11) {
            // Opset 10: X, scales; asymmetric coordinates, nearest rounds down.
            o.transform = CoordinateTransform::Asymmetric;
            o.rounding = NearestRounding::Floor;
            given_scales = ctx.values(1);
        } else {
            std::string ct = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
            if (ct == "half_pixel")
                o.transform = CoordinateTransform::HalfPixel;
            else if (ct == "pytorch_half_pixel")
                o.transform = CoordinateTransform::PytorchHalfPixel;
            else if (ct == "align_corners")
                o.transform = CoordinateTransform::AlignCorners;
            else if (ct == "asymmetric")
                o.transform = CoordinateTransform::Asymmetric;
            else if (ct == "tf_half_pixel_for_nn")
                o.transform = CoordinateTransform::TfHalfPixelForNN;
            else if (ct == "tf_crop_and_resize")
                o.transform = CoordinateTransform::TfCropAndResize;
            else
                ctx.fail("coordinate_transformation_mode \"" + ct + "\" is not supported.");
            std::string nm = ctx.attr_string("nearest_mode", "round_prefer_floor");
            if (nm == "round_prefer_floor")
                o.rounding = NearestRounding::RoundPreferFloor;
            else if (nm == "round_prefer_ceil")
                o.rounding = NearestRounding::RoundPreferCeil;
            else if (nm == "floor")
                o.rounding = NearestRounding::Floor;
            else if (nm == "ceil")
                o.rounding = NearestRounding::Ceil;
            else
                ctx.fail("nearest_mode \"" + nm + "\" is not supported.");
            o.cubic_a = static_cast<float>(ctx.attr_float("cubic_coeff_a", -0.75));
            o.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
            o.extrapolation_value = static_cast<float>(ctx.attr_float("extrapolation_value", 0.0));
            if (ctx.has_input(3)) given_sizes = ctx.values(3);
            if (given_sizes.empty() && ctx.has_input(2)) given_scales = ctx.values(2);
            if (o.transform == CoordinateTransform::TfCropAndResize) {
                if (!ctx.has_input(1)) ctx.fail("tf_crop_and_resize needs the roi input.");
                roi = ctx.values(1);
            }
        }
        std::vector<Expr> sizes, scales;
        sizes_and_scales(ctx, x, given_sizes, given_scales, &sizes, &scales);
        return Outputs{nn::resize(x, sizes, scales, o, roi)};
    };
    t["GridSample"] = [](BuildContext &ctx) {
        std::string m = ctx.attr_string("mode", "bilinear");
        ResizeMode mode = m == "nearest"   ? ResizeMode::Nearest
                          : m == "bicubic" ? ResizeMode::Cubic
                                           : ResizeMode::Linear;
        if (m != "nearest" && m != "bicubic" && m != "bilinear")
            ctx.fail("mode \"" + m + "\" is not bilinear, nearest or bicubic.");
        std::string p = ctx.attr_string("padding_mode", "zeros");
        GridPadding padding = p == "border"       ? GridPadding::Border
                              : p == "reflection" ? GridPadding::Reflection
                                                  : GridPadding::Zeros;
        if (p != "zeros" && p != "border" && p != "reflection")
            ctx.fail("padding_mode \"" + p + "\" is not zeros, border or reflection.");
        return Outputs{nn::grid_sample(ctx.input(0), ctx.input(1), mode, padding,
                                       ctx.attr_int("align_corners", 0) != 0)};
    };
    t["Upsample"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        ResizeOptions o;
        o.mode = mode_of(ctx);
        o.transform = CoordinateTransform::Asymmetric;
        o.rounding = NearestRounding::Floor;
        std::vector<Expr> given_scales;
        if (ctx.opset() < 9) {
            for (double s : ctx.attr_floats("scales"))
                given_scales.push_back(make_const(Float(64), s));
        } else {
            given_scales = ctx.values(1);
        }
        std::vector<Expr> sizes, scales;
        sizes_and_scales(ctx, x, {}, given_scales, &sizes, &scales);
        return Outputs{nn::resize(x, sizes, scales, o)};
    };
}

}  // namespace dsl::nn::graph
