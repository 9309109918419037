#pragma once
// Harris corner response of a planar RGB float image (values in [0, 1]): grey (BT.601 weights),
// Sobel gradients Ix and Iy (divided by 12), the 3x3 box sums Sxx, Syy, Sxy of Ix*Ix, Iy*Iy,
// Ix*Iy, and the response det - k * trace^2 with k = 0.04. The edges of the input are repeated.

#include "dsl/dsl.h"

namespace dsl_apps {

struct HarrisPipeline {
    dsl::Var x{"x"}, y{"y"};
    dsl::Func gray{"gray"};
    dsl::Func ix{"Ix"}, iy{"Iy"};
    dsl::Func ixx{"Ixx"}, iyy{"Iyy"}, ixy{"Ixy"};
    dsl::Func sxx{"Sxx"}, syy{"Syy"}, sxy{"Sxy"};
    dsl::Func output{"harris"};  // float
};

/// The algorithm over `input` (float, x, y, c with 3 channels).
HarrisPipeline make_harris(const dsl::ImageParam &input);

/// The hand-written CPU schedule for `target`.
void schedule_harris(HarrisPipeline &p, const dsl::Target &target);

/// The plain C++ version, with the same float operations in the same order.
dsl::Buffer<float> harris_reference(const dsl::Buffer<float> &input);

}  // namespace dsl_apps
