// Equalises the histogram of an image file (colour images are turned into grey first) and
// writes the result.
//   histogram_equalize_run <input image> <output.png> [--benchmark [runs]]
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "app_util.h"
#include "dsl/ImageIO.h"
#include "histogram_equalize.h"
#include "histogram_equalize_aot.h"
#include "histogram_equalize_aot_naive.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, "Histogram equalisation of a grey image.", options)) return 1;
    return run_main("histogram_equalize_run", [&] {
        Buffer<uint8_t> in = to_grey_u8(load_image(options.input), options.input);
        const int w = in.dim(0).extent(), h = in.dim(1).extent();
        if (static_cast<int64_t>(w) * h > INT32_MAX / 255) {
            throw std::runtime_error("\"" + options.input + "\" has " + std::to_string(w) + "x" +
                                     std::to_string(h) +
                                     " pixels; the int32 table takes at most 8421504.");
        }

        ImageParam input(UInt(8), 2, "input");
        input.set(in);
        HistogramEqualizePipeline scheduled = make_histogram_equalize(input);
        schedule_histogram_equalize(scheduled, Target::host());
        Buffer<uint8_t> out(w, h);
        scheduled.output.realize(out);
        save_image(out, options.output);
        std::printf("histogram_equalize_run: wrote %s (%dx%d)\n", options.output.c_str(), w, h);

        if (!options.benchmark) return 0;
        return run_benchmark(
            "histogram_equalize", w, h, options.runs,
            [&] { return histogram_equalize_aot_naive(in.raw_buffer(), out.raw_buffer()); },
            [&] { return histogram_equalize_aot(in.raw_buffer(), out.raw_buffer()); },
            [&] { scheduled.output.realize(out); });
    });
}
