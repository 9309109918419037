// Sharpens a colour image file with an unsharp mask and writes the result.
//   unsharp_run <input image> <output.png> [--benchmark [runs]]
// The strength is 1.5 (environment variable UNSHARP_AMOUNT, in [0, 10], to change it).
#include <cstdio>
#include <string>

#include "app_util.h"
#include "dsl/ImageIO.h"
#include "unsharp.h"
#include "unsharp_aot.h"
#include "unsharp_aot_naive.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, "Unsharp mask of a colour image.", options)) return 1;
    return run_main("unsharp_run", [&] {
        const float amount = float_from_env("UNSHARP_AMOUNT", 1.5f, 0.0f, 10.0f);
        Buffer<float> in = to_rgb_float(load_image(options.input), options.input);
        const int w = in.dim(0).extent(), h = in.dim(1).extent();

        ImageParam input(Float(32), 3, "input");
        Param<float> strength("amount", amount);
        input.set(in);
        UnsharpPipeline scheduled = make_unsharp(input, strength);
        schedule_unsharp(scheduled, Target::host());
        Buffer<uint8_t> out(w, h, 3);
        scheduled.output.realize(out);
        save_image(out, options.output);
        std::printf("unsharp_run: wrote %s (%dx%d, amount %g)\n", options.output.c_str(), w, h,
                    amount);

        if (!options.benchmark) return 0;
        return run_benchmark(
            "unsharp", w, h, options.runs,
            [&] { return unsharp_aot_naive(in.raw_buffer(), amount, out.raw_buffer()); },
            [&] { return unsharp_aot(in.raw_buffer(), amount, out.raw_buffer()); },
            [&] { scheduled.output.realize(out); });
    });
}
