#pragma once
// 3x3 box blur of a uint16 image, as in Halide's apps/blur: blur_x averages three neighbours in
// x, blur_y three rows of blur_x, each (a + b + c) / 3 in uint16 arithmetic (sums wrap modulo
// 2^16 before the division). The edges are repeated.

#include "dsl/dsl.h"

namespace dsl_apps {

struct BlurPipeline {
    dsl::Var x{"x"}, y{"y"};
    dsl::Func blur_x{"blur_x"};
    dsl::Func blur_y{"blur_y"};  // the output
};

/// The algorithm: the Funcs over `input` (uint16, 2 dimensions), on the default schedule.
BlurPipeline make_blur(const dsl::ImageParam &input);

/// The hand-written CPU schedule for `target`.
void schedule_blur(BlurPipeline &p, const dsl::Target &target);

/// The GPU schedule (any target with a GPU API): blocks of 32 x 32 output pixels on 32 x 8
/// threads, four rows each; each block's 32 x 34 rows of blur_x computed by its threads into
/// shared memory, eight rows at a time (or, without `blur_x_in_shared_memory`, inlined: each
/// thread reads its inputs, neighbours sharing them through the L1 cache).
void schedule_blur_gpu(BlurPipeline &p, bool blur_x_in_shared_memory = true);

/// The plain C++ version: the same arithmetic, loop by loop.
dsl::Buffer<uint16_t> blur_reference(const dsl::Buffer<uint16_t> &input);

}  // namespace dsl_apps
