// Resizing as one 1-D interpolation pass per axis, coordinates computed in float64.
#include "dsl/nn/Resize.h"

#include <cmath>
#include <optional>

#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Simplify.h"

namespace dsl::nn {

namespace {

Expr f64(const Expr &e) {
    return e.type() == Float(64) ? e : cast(Float(64), e);
}

/// The input coordinate of output point `x` along an axis of `in` points resized by `scale`.
/// The transformations that use the output's length use in * scale, not its rounded extent
/// (as ONNX's reference does when scales are given; with sizes, the two are equal).
Expr source_coordinate(const Expr &x, const Expr &in, const Expr &scale, const ResizeOptions &o,
                       const Expr &roi_start, const Expr &roi_end) {
    Expr xf = f64(x), inf = f64(in), outf = inf * scale;
    Expr out = outf;
    Expr half = make_const(Float(64), 0.5), one = make_const(Float(64), 1.0);
    switch (o.transform) {
        case CoordinateTransform::HalfPixel:
            return (xf + half) / scale - half;
        case CoordinateTransform::PytorchHalfPixel:
            return select(out > 1, (xf + half) / scale - half, make_const(Float(64), 0.0));
        case CoordinateTransform::AlignCorners:
            return select(out == 1, make_const(Float(64), 0.0),
                          xf * (inf - one) / max(outf - one, one));
        case CoordinateTransform::Asymmetric:
            return xf / scale;
        case CoordinateTransform::TfHalfPixelForNN:
            return (xf + half) / scale;
        case CoordinateTransform::TfCropAndResize:
            return select(out > 1,
                          roi_start * (inf - one) +
                              xf * (roi_end - roi_start) * (inf - one) / max(outf - one, one),
                          half * (roi_start + roi_end) * (inf - one));
    }
    return Expr();
}

/// Nearest's source index along an axis scaled by an integer factor `k`, computed exactly in
/// integers, or nothing where the transform does not allow it. The transforms that allow it place
/// output point x at (2x + a) / 2k of the input (a = 0 asymmetric, 1 - k half-pixel, 1 TF's
/// half-pixel); each rounding is then floor((2x + b) / 2k) for an integer b, which equals
/// (x + floor(b / 2)) div k (where b is odd, 2x + b is odd and no multiple of 2k lies between it
/// and 2x + b - 1). The float64 path gives the same index: it is exact wherever the coordinate
/// is a multiple of 1/2, and elsewhere at least 1/2k from one. An affine index lets the vector
/// loads stay dense (lowering/DividedRampLoads.h) instead of gathering through float math.
/// `*offset` is floor(b / 2), the x + offset of the quotient.
std::optional<int64_t> nearest_integer_offset(int64_t k, const ResizeOptions &o) {
    int64_t a = 0;
    switch (o.transform) {
        case CoordinateTransform::Asymmetric:
            a = 0;
            break;
        case CoordinateTransform::HalfPixel:
        case CoordinateTransform::PytorchHalfPixel:
            // Pytorch's differs only where the output has one point, which an integer scale
            // gives only for one input point and k = 1, where both place x = 0 at 0.
            a = 1 - k;
            break;
        case CoordinateTransform::TfHalfPixelForNN:
            a = 1;
            break;
        default:
            return std::nullopt;
    }
    int64_t b = a;
    switch (o.rounding) {
        case NearestRounding::Floor:
            b = a;
            break;
        case NearestRounding::Ceil:
            b = a + 2 * k - 1;
            break;
        case NearestRounding::RoundPreferFloor:
            b = a + k - 1;
            break;
        case NearestRounding::RoundPreferCeil:
            b = a + k;
            break;
    }
    return b >= 0 ? b / 2 : -((1 - b) / 2);
}

/// The cubic convolution weight of a tap at distance `d` (in [0, 2]) from the coordinate.
Expr cubic_weight(const Expr &d, double a) {
    Expr A = make_const(Float(64), a);
    auto c = [](double v) { return make_const(Float(64), v); };
    Expr near = ((A + c(2)) * d - (A + c(3))) * d * d + c(1);
    Expr far = ((A * d - c(5) * A) * d + c(8) * A) * d - c(4) * A;
    return select(d <= c(1), near, far);
}

Tensor resize_axis(const Tensor &x, int axis, const Expr &out_size, const Expr &scale,
                   const ResizeOptions &o, const Expr &roi_start, const Expr &roi_end) {
    Shape s = x.shape();
    const size_t a = static_cast<size_t>(axis);
    s[a] = cast(Int(32), out_size);
    const Type t = x.type();
    // Nearest by an integer factor: the index in integers (nearest_integer_offset).
    std::optional<int64_t> factor, offset;
    const Expr known_scale = ir::simplify(scale);
    if (const auto *f = known_scale.as<ir::FloatImm>(); f && o.mode == ResizeMode::Nearest &&
                                                        f->value >= 1 && f->value <= 1024 &&
                                                        f->value == std::floor(f->value)) {
        factor = static_cast<int64_t>(f->value);
        offset = nearest_integer_offset(*factor, o);
    }
    // Where the output has exactly in * k points and the offset is 0, every index is in range
    // and needs no clamp (which would make the vector loads gathers).
    const Expr in_extent = x.dim(axis);
    bool in_range = false;
    if (offset && *offset == 0) {
        // The builders size a scaled axis as floor(in * scale).
        const Expr scaled =
            ir::simplify(cast(Int(32), cast(Int(64), floor(f64(in_extent) * scale))));
        int64_t out = 0, in = 0;
        in_range = ir::equal(ir::simplify(s[a]), scaled) ||
                   (is_const(s[a], &out) && is_const(in_extent, &in) && out == in * *factor);
        if (in_range) s[a] = ir::simplify(in_extent * static_cast<int>(*factor));
    }
    return compute(unique_name("resize"), s, [&](const Index &i) -> Expr {
        Expr in = in_extent;
        if (offset) {
            Expr q = (i[a] + static_cast<int>(*offset)) / static_cast<int>(*factor);
            Index j = i;
            j[a] = in_range ? q : clamp(q, 0, in - 1);
            return x(j);
        }
        Expr coord = source_coordinate(i[a], in, scale, o, roi_start, roi_end);
        auto at = [&](const Expr &p) {
            Index j = i;
            j[a] = clamp(p, 0, in - 1);
            return f64(x(j));
        };
        Expr v;
        switch (o.mode) {
            case ResizeMode::Nearest: {
                Expr r;
                switch (o.rounding) {
                    case NearestRounding::RoundPreferFloor:
                        r = ceil(coord - make_const(Float(64), 0.5));
                        break;
                    case NearestRounding::RoundPreferCeil:
                        r = floor(coord + make_const(Float(64), 0.5));
                        break;
                    case NearestRounding::Floor:
                        r = floor(coord);
                        break;
                    case NearestRounding::Ceil:
                        r = ceil(coord);
                        break;
                }
                Expr idx = cast(Int(32), clamp(r, make_const(Float(64), -1.0), f64(in)));
                v = at(idx);
                break;
            }
            case ResizeMode::Linear: {
                Expr fl = floor(coord);
                Expr w = coord - fl;
                Expr i0 = cast(Int(32), clamp(fl, make_const(Float(64), -1.0), f64(in)));
                v = at(i0) * (make_const(Float(64), 1.0) - w) + at(i0 + 1) * w;
                break;
            }
            case ResizeMode::Cubic: {
                Expr fl = floor(coord);
                Expr frac = coord - fl;
                Expr i0 = cast(Int(32), clamp(fl, make_const(Float(64), -2.0), f64(in) + 1));
                Expr total = make_const(Float(64), 0.0), weights = make_const(Float(64), 0.0);
                for (int k = -1; k <= 2; k++) {
                    Expr d = dsl::abs(frac - make_const(Float(64), k));
                    Expr w = cubic_weight(d, o.cubic_a);
                    if (o.exclude_outside) {
                        Expr p = i0 + k;
                        w = select(p >= 0 && p < in, w, make_const(Float(64), 0.0));
                    }
                    total = total + w * at(i0 + k);
                    weights = weights + w;
                }
                v = o.exclude_outside ? total / weights : total;
                break;
            }
        }
        if (o.transform == CoordinateTransform::TfCropAndResize) {
            Expr outside = coord < make_const(Float(64), 0.0) || coord > f64(in) - 1;
            v = select(outside, make_const(Float(64), o.extrapolation_value), v);
        }
        if (t.is_float()) return cast(t, v);
        // Integers: round the interpolated value.
        return cast(t, clamp(dsl::round(v), f64(t.min()), f64(t.max())));
    });
}

/// `v` mirrored into [lo, hi] (as many times as needed).
Expr reflect(const Expr &v, const Expr &lo, const Expr &hi) {
    Expr span = hi - lo;
    Expr zero = make_const(Float(64), 0.0);
    Expr d = dsl::abs(v - lo);
    Expr flips = floor(d / span);
    Expr extra = d - flips * span;
    // An even number of flips lands at lo + extra, an odd one at hi - extra.
    Expr even =
        flips - make_const(Float(64), 2.0) * floor(flips / make_const(Float(64), 2.0)) == zero;
    return select(span <= zero, lo, select(even, lo + extra, hi - extra));
}

}  // namespace

Tensor grid_sample(const Tensor &x, const Tensor &grid, ResizeMode mode, GridPadding padding,
                   bool align_corners) {
    user_assert(x.rank() == 4 && grid.rank() == 4)
        << "grid_sample of \"" << x.func().name() << "\" needs an (N, C, H, W) input and an (N, "
        << "H_out, W_out, 2) grid.";
    Shape s{x.dim(0), x.dim(1), grid.dim(1), grid.dim(2)};
    const Type t = x.type();
    return compute(unique_name("grid_sample"), s, [&](const Index &o) {
        auto c = [](double v) { return make_const(Float(64), v); };
        Expr H = cast(Float(64), x.dim(2)), W = cast(Float(64), x.dim(3));
        auto denormalize = [&](const Expr &g, const Expr &n) {
            return align_corners ? (g + c(1)) / c(2) * (n - c(1)) : ((g + c(1)) * n - c(1)) / c(2);
        };
        Expr gx = denormalize(cast(Float(64), grid({o[0], o[2], o[3], Expr(0)})), W);
        Expr gy = denormalize(cast(Float(64), grid({o[0], o[2], o[3], Expr(1)})), H);
        // The coordinate itself, for border and reflection padding.
        auto bound = [&](const Expr &v, const Expr &n) {
            if (padding == GridPadding::Border) return clamp(v, c(0), n - c(1));
            if (padding == GridPadding::Reflection) {
                Expr lo = align_corners ? c(0) : c(-0.5),
                     hi = align_corners ? n - c(1) : n - c(0.5);
                return clamp(reflect(v, lo, hi), c(0), n - c(1));
            }
            return v;
        };
        if (mode == ResizeMode::Nearest || mode == ResizeMode::Linear) {
            gx = bound(gx, W);
            gy = bound(gy, H);
        }
        // A tap: zero outside under zeros padding; clamped or mirrored indices otherwise.
        auto tap = [&](const Expr &iy, const Expr &ix) {
            Expr inside = iy >= 0 && iy < x.dim(2) && ix >= 0 && ix < x.dim(3);
            Expr yy = iy, xx = ix;
            if (padding == GridPadding::Reflection && mode == ResizeMode::Cubic) {
                Expr lo = align_corners ? c(0) : c(-0.5);
                yy = cast(Int(32),
                          reflect(cast(Float(64), iy), lo, align_corners ? H - c(1) : H - c(0.5)));
                xx = cast(Int(32),
                          reflect(cast(Float(64), ix), lo, align_corners ? W - c(1) : W - c(0.5)));
            }
            Expr v = cast(Float(64),
                          x({o[0], o[1], clamp(yy, 0, x.dim(2) - 1), clamp(xx, 0, x.dim(3) - 1)}));
            return padding == GridPadding::Zeros ? select(inside, v, c(0)) : v;
        };
        Expr v;
        if (mode == ResizeMode::Nearest) {
            v = tap(cast(Int(32), dsl::round(gy)), cast(Int(32), dsl::round(gx)));
        } else if (mode == ResizeMode::Linear) {
            Expr x0 = floor(gx), y0 = floor(gy);
            Expr wx = gx - x0, wy = gy - y0;
            Expr ix = cast(Int(32), x0), iy = cast(Int(32), y0);
            v = (tap(iy, ix) * (c(1) - wx) + tap(iy, ix + 1) * wx) * (c(1) - wy) +
                (tap(iy + 1, ix) * (c(1) - wx) + tap(iy + 1, ix + 1) * wx) * wy;
        } else {
            Expr x0 = floor(gx), y0 = floor(gy);
            Expr tx = gx - x0, ty = gy - y0;
            Expr ix = cast(Int(32), x0), iy = cast(Int(32), y0);
            v = c(0);
            for (int j = -1; j <= 2; j++) {
                Expr row = c(0);
                for (int i = -1; i <= 2; i++)
                    row = row + cubic_weight(dsl::abs(tx - c(i)), -0.75) * tap(iy + j, ix + i);
                v = v + cubic_weight(dsl::abs(ty - c(j)), -0.75) * row;
            }
        }
        return cast(t, v);
    });
}

Tensor resize(const Tensor &x, const std::vector<Expr> &sizes, const std::vector<Expr> &scales,
              const ResizeOptions &options, const std::vector<Expr> &roi) {
    const int r = x.rank();
    user_assert(static_cast<int>(sizes.size()) == r && static_cast<int>(scales.size()) == r)
        << "resize of \"" << x.func().name() << "\" (rank " << r
        << ") needs one size and one scale per axis.";
    user_assert(roi.empty() || static_cast<int>(roi.size()) == 2 * r)
        << "resize of \"" << x.func().name() << "\": the region of interest needs a start and an "
        << "end per axis.";
    Tensor y = x;
    for (int a = 0; a < r; a++) {
        const size_t i = static_cast<size_t>(a);
        Expr size = sizes[i], scale = f64(scales[i]);
        int64_t sz = 0;
        std::optional<double> sc;
        if (const auto *f = scale.as<ir::FloatImm>()) sc = f->value;
        int64_t in = 0;
        // A scale of 1 maps x to x, except TF's transforms (x + 0.5 for half-pixel-for-NN).
        bool unchanged = is_const(size, &sz) && is_const(x.dim(a), &in) && sz == in && sc &&
                         *sc == 1.0 && options.transform != CoordinateTransform::TfCropAndResize &&
                         options.transform != CoordinateTransform::TfHalfPixelForNN;
        if (unchanged) continue;
        Expr start = roi.empty() ? make_const(Float(64), 0.0) : f64(roi[i]);
        Expr end = roi.empty() ? make_const(Float(64), 1.0) : f64(roi[i + static_cast<size_t>(r)]);
        y = resize_axis(y, a, size, scale, options, start, end);
    }
    return y;
}

}  // namespace dsl::nn
