#pragma once
// Unsharp mask of a planar RGB float image (values in [0, 1]): a 5-tap Gaussian blur in x then
// in y (weights 1 4 6 4 1 / 16), sharpened = in + amount * (in - blurred), written as uint8
// (sharpened * 255 + 0.5, clamped to [0, 255] and truncated). The edges are repeated.

#include "dsl/dsl.h"

namespace dsl_apps {

struct UnsharpPipeline {
    dsl::Var x{"x"}, y{"y"}, c{"c"};
    dsl::Func blur_x{"blur_x"};
    dsl::Func blur_y{"blur_y"};
    dsl::Func sharpened{"sharpened"};
    dsl::Func output{"unsharp"};  // uint8
};

/// The algorithm over `input` (float, x, y, c) with the strength `amount`.
UnsharpPipeline make_unsharp(const dsl::ImageParam &input, const dsl::Expr &amount);

/// The hand-written CPU schedule for `target`.
void schedule_unsharp(UnsharpPipeline &p, const dsl::Target &target);

/// The GPU schedule (any target with a GPU API): blocks of 32 x 8 pixels of one channel, the
/// block's 32 x 12 values of blur_x computed by its threads into shared memory; the vertical
/// blur and the sharpening inlined into the output.
void schedule_unsharp_gpu(UnsharpPipeline &p);

/// The plain C++ version, with the same float operations in the same order.
dsl::Buffer<uint8_t> unsharp_reference(const dsl::Buffer<float> &input, float amount);

}  // namespace dsl_apps
