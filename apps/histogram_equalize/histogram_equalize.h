#pragma once
// Histogram equalisation of a grey uint8 image: the histogram of its values (a scatter
// reduction), its cumulative sum (a scan), and the look-up table lut(v) = cdf(v) * 255 / N (N
// pixels, integer division) applied to every pixel. Images of up to 2^31 / 255 (8.4 million)
// pixels: the products are int32.

#include "dsl/dsl.h"

namespace dsl_apps {

struct HistogramEqualizePipeline {
    dsl::Var x{"x"}, y{"y"}, i{"i"};
    dsl::RDom r;  // every pixel of the input
    dsl::Func hist{"hist"};
    dsl::Func cdf{"cdf"};
    dsl::Func lut{"lut"};
    dsl::Func output{"equalized"};
};

/// The algorithm over `input` (uint8, 2 dimensions).
HistogramEqualizePipeline make_histogram_equalize(const dsl::ImageParam &input);

/// The hand-written CPU schedule for `target`.
void schedule_histogram_equalize(HistogramEqualizePipeline &p, const dsl::Target &target);

/// The plain C++ version.
dsl::Buffer<uint8_t> histogram_equalize_reference(const dsl::Buffer<uint8_t> &input);

}  // namespace dsl_apps
