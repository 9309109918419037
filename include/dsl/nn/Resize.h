#pragma once
/// Resizing (ONNX's Resize and Upsample): nearest, linear and cubic interpolation along any axes,
/// with every coordinate transformation ONNX defines. Interpolation is separable: one pass per
/// resized axis.

#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

enum class ResizeMode { Nearest, Linear, Cubic };
/// How an output coordinate maps to an input coordinate.
enum class CoordinateTransform {
    HalfPixel,         ///< (x + 0.5) / scale - 0.5
    PytorchHalfPixel,  ///< as HalfPixel, but 0 when the output has one point
    AlignCorners,      ///< x * (in - 1) / (out - 1)
    Asymmetric,        ///< x / scale
    TfHalfPixelForNN,  ///< (x + 0.5) / scale
    TfCropAndResize,   ///< within a region of interest; outside it, the extrapolation value
};
/// How Nearest rounds a fractional coordinate.
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

struct ResizeOptions {
    ResizeMode mode = ResizeMode::Nearest;
    CoordinateTransform transform = CoordinateTransform::HalfPixel;
    NearestRounding rounding = NearestRounding::RoundPreferFloor;
    float cubic_a = -0.75f;
    /// Cubic: taps outside the input get no weight (the others are renormalized).
    bool exclude_outside = false;
    float extrapolation_value = 0.0f;
};

/// Resizes axis i of x to `sizes[i]` points with scale `scales[i]` (float64 expressions; the
/// scale is out / in when sizes were given). `roi` (start and end per axis, as fractions of the
/// input) is used by TfCropAndResize only. Axes whose size and scale are the constant 1 and
/// unchanged are not touched.
Tensor resize(const Tensor &x, const std::vector<Expr> &sizes, const std::vector<Expr> &scales,
              const ResizeOptions &options, const std::vector<Expr> &roi = {});

/// ONNX's GridSample: out[n, c, h, w] samples x[n, c] at grid[n, h, w] = (x, y) in [-1, 1]
/// (the corners' centres when `align_corners`, else their outer edges). Taps outside the input
/// read zeros, the nearest edge (border) or the mirrored point (reflection).
enum class GridPadding { Zeros, Border, Reflection };
Tensor grid_sample(const Tensor &x, const Tensor &grid, ResizeMode mode = ResizeMode::Linear,
                   GridPadding padding = GridPadding::Zeros, bool align_corners = false);

}  // namespace dsl::nn
