#pragma once
// The bilateral grid (Chen, Paris and Durand 2007), as in Halide's apps/bilateral_grid: an
// edge-preserving blur of a grey float image (values in [0, 1]). Each 8x8 block of pixels
// (s_sigma = 8) is splatted into a column of 11 intensity cells (r_sigma = 0.1): the cell
// round(v / r_sigma) gathers the sum of the values and their count. The grid is blurred with
// the 5-tap kernel 1 4 6 4 1 in z, then x, then y, and every pixel reads it back by trilinear
// interpolation at (x / 8, y / 8, v / r_sigma): the interpolated sum over the interpolated count.

#include "dsl/dsl.h"

namespace dsl_apps {

struct BilateralGridPipeline {
    dsl::Var x{"x"}, y{"y"}, z{"z"}, c{"c"};
    dsl::RDom r;  // the pixels of one grid cell
    dsl::Func histogram{"histogram"};
    dsl::Func blur_z{"blur_z"}, blur_x{"blur_x"}, blur_y{"blur_y"};
    dsl::Func interpolated{"interpolated"};
    dsl::Func output{"bilateral_grid"};  // float
};

/// The algorithm over `input` (float, 2 dimensions).
BilateralGridPipeline make_bilateral_grid(const dsl::ImageParam &input);

/// The hand-written CPU schedule for `target`.
void schedule_bilateral_grid(BilateralGridPipeline &p, const dsl::Target &target);

/// The GPU schedule (any target with a GPU API): every stage at root, a thread per grid cell
/// for the splat (atomic, uncontended), per cell column for the blurs, per pixel for the slice.
void schedule_bilateral_grid_gpu(BilateralGridPipeline &p);

/// The plain C++ version, with the same float operations in the same order.
dsl::Buffer<float> bilateral_grid_reference(const dsl::Buffer<float> &input);

}  // namespace dsl_apps
