// Smooths an image file with the bilateral grid (edges kept) and writes the result. Colour
// images are turned into grey first; the grey values are divided by 255.
//   bilateral_grid_run <input image> <output.png> [--benchmark [runs]]
#include <algorithm>
#include <cstdio>

#include "app_util.h"
#include "bilateral_grid.h"
#include "bilateral_grid_aot.h"
#include "bilateral_grid_aot_naive.h"
#include "dsl/ImageIO.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, "Bilateral grid (edge-preserving blur) of a grey image.",
                       options)) {
        return 1;
    }
    return run_main("bilateral_grid_run", [&] {
        Buffer<uint8_t> grey = to_grey_u8(load_image(options.input), options.input);
        const int w = grey.dim(0).extent(), h = grey.dim(1).extent();
        Buffer<float> in(w, h);
        in.for_each_element([&](int x, int y) { in(x, y) = grey(x, y) / 255.0f; });

        ImageParam input(Float(32), 2, "input");
        input.set(in);
        BilateralGridPipeline scheduled = make_bilateral_grid(input);
        schedule_bilateral_grid(scheduled, Target::host());
        Buffer<float> out(w, h);
        scheduled.output.realize(out);

        Buffer<uint8_t> out8(w, h);
        out8.for_each_element([&](int x, int y) {
            out8(x, y) = static_cast<uint8_t>(std::clamp(out(x, y) * 255.0f + 0.5f, 0.0f, 255.0f));
        });
        save_image(out8, options.output);
        std::printf("bilateral_grid_run: wrote %s (%dx%d)\n", options.output.c_str(), w, h);

        if (!options.benchmark) return 0;
        return run_benchmark(
            "bilateral_grid", w, h, options.runs,
            [&] { return bilateral_grid_aot_naive(in.raw_buffer(), out.raw_buffer()); },
            [&] { return bilateral_grid_aot(in.raw_buffer(), out.raw_buffer()); },
            [&] { scheduled.output.realize(out); });
    });
}
