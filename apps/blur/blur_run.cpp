// Blurs an image file with the 3x3 box blur and writes the result.
//   blur_run <input image> <output.png> [--benchmark [runs]]
// A 16-bit grey PNG is blurred as it is and written as 16 bits. An 8-bit image (grey, or colour
// turned into grey) is widened to uint16 as v * 64, so that the uint16 sums of three cannot wrap,
// and the result is written as 8 bits (v / 64).
#include <cstdio>

#include "app_util.h"
#include "blur.h"
#include "blur_aot.h"
#include "blur_aot_naive.h"
#include "dsl/ImageIO.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, "3x3 box blur (uint16) of an image.", options)) return 1;
    return run_main("blur_run", [&] {
        Buffer<> file = load_image(options.input);
        const bool wide = file.type() == UInt(16) && file.dimensions() == 2;
        Buffer<uint16_t> in;
        if (wide) {
            in = Buffer<uint16_t>(file);
        } else {
            Buffer<uint8_t> grey = to_grey_u8(file, options.input);
            in = Buffer<uint16_t>(grey.dim(0).extent(), grey.dim(1).extent());
            in.for_each_element([&](int x, int y) { in(x, y) = grey(x, y) * 64; });
        }
        const int w = in.dim(0).extent(), h = in.dim(1).extent();

        ImageParam input(UInt(16), 2, "input");
        input.set(in);
        BlurPipeline scheduled = make_blur(input);
        schedule_blur(scheduled, Target::host());
        Buffer<uint16_t> out(w, h);
        scheduled.blur_y.realize(out);

        if (wide) {
            save_image(out, options.output);
        } else {
            Buffer<uint8_t> out8(w, h);
            out8.for_each_element([&](int x, int y) { out8(x, y) = out(x, y) / 64; });
            save_image(out8, options.output);
        }
        std::printf("blur_run: wrote %s (%dx%d)\n", options.output.c_str(), w, h);

        if (!options.benchmark) return 0;
        return run_benchmark(
            "blur", w, h, options.runs,
            [&] { return blur_aot_naive(in.raw_buffer(), out.raw_buffer()); },
            [&] { return blur_aot(in.raw_buffer(), out.raw_buffer()); },
            [&] { scheduled.blur_y.realize(out); });
    });
}
