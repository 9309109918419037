// The Harris corner response of an image file, written as a viewable grey PNG: the positive
// responses (corners) scaled by the largest, through a fourth root so that weaker corners show,
// and negative ones (edges) black.
//   harris_run <input image> <output.png> [--benchmark [runs]]
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app_util.h"
#include "dsl/ImageIO.h"
#include "harris.h"
#include "harris_aot.h"
#include "harris_aot_naive.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, "Harris corner response of a colour image.", options)) {
        return 1;
    }
    return run_main("harris_run", [&] {
        Buffer<float> in = to_rgb_float(load_image(options.input), options.input);
        const int w = in.dim(0).extent(), h = in.dim(1).extent();

        ImageParam input(Float(32), 3, "input");
        input.set(in);
        HarrisPipeline scheduled = make_harris(input);
        schedule_harris(scheduled, Target::host());
        Buffer<float> out(w, h);
        scheduled.output.realize(out);

        float largest = 0.0f;
        out.for_each_element([&](int x, int y) { largest = std::max(largest, out(x, y)); });
        Buffer<uint8_t> view(w, h);
        view.for_each_element([&](int x, int y) {
            float v = largest > 0.0f ? std::max(out(x, y), 0.0f) / largest : 0.0f;
            view(x, y) = static_cast<uint8_t>(std::lround(255.0f * std::sqrt(std::sqrt(v))));
        });
        save_image(view, options.output);
        std::printf("harris_run: wrote %s (%dx%d, largest response %g)\n", options.output.c_str(),
                    w, h, largest);

        if (!options.benchmark) return 0;
        return run_benchmark(
            "harris", w, h, options.runs,
            [&] { return harris_aot_naive(in.raw_buffer(), out.raw_buffer()); },
            [&] { return harris_aot(in.raw_buffer(), out.raw_buffer()); },
            [&] { scheduled.output.realize(out); });
    });
}
