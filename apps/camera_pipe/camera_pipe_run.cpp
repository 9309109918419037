// Develops a raw image into an RGB PNG.
//   camera_pipe_run <input image> <output.png> [--benchmark [runs]]
// The input is either raw GRBG sensor data, a 16-bit grey PNG or PGM (values in [64, 1023], as
// camera_pipe_make_raw writes), or an 8-bit colour image, which is first made into raw data the
// same way (mosaic(): each pixel keeps the colour of its place in the pattern, in linear light);
// the output then shows what the pipeline recovers of it.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "app_util.h"
#include "camera_pipe.h"
#include "camera_pipe_aot.h"
#include "camera_pipe_aot_naive.h"
#include "dsl/ImageIO.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, "Raw Bayer (GRBG) to RGB camera pipeline.", options)) return 1;
    return run_main("camera_pipe_run", [&] {
        Buffer<> file = load_image(options.input);
        Buffer<uint16_t> raw;
        if (file.type() == UInt(16) && file.dimensions() == 2) {
            raw = Buffer<uint16_t>(file);
        } else if (file.type() == UInt(8) && file.dimensions() == 3 && file.dim(2).extent() >= 3) {
            raw = mosaic(Buffer<uint8_t>(file));
        } else {
            throw std::runtime_error("\"" + options.input +
                                     "\" is neither 16-bit grey raw data (PNG or PGM) nor an "
                                     "8-bit colour image.");
        }
        const int w = raw.dim(0).extent(), h = raw.dim(1).extent();
        if (w < 2 || h < 2 || w % 2 != 0 || h % 2 != 0) {
            throw std::runtime_error("the raw image is " + std::to_string(w) + "x" +
                                     std::to_string(h) +
                                     "; a Bayer image has an even width and height.");
        }

        ImageParam input(UInt(16), 2, "input");
        input.set(raw);
        CameraPipePipeline scheduled = make_camera_pipe(input);
        schedule_camera_pipe(scheduled, Target::host());
        Buffer<uint8_t> out(w, h, 3);
        scheduled.output.realize(out);
        save_image(out, options.output);
        std::printf("camera_pipe_run: wrote %s (%dx%d)\n", options.output.c_str(), w, h);

        if (!options.benchmark) return 0;
        return run_benchmark(
            "camera_pipe", w, h, options.runs,
            [&] { return camera_pipe_aot_naive(raw.raw_buffer(), out.raw_buffer()); },
            [&] { return camera_pipe_aot(raw.raw_buffer(), out.raw_buffer()); },
            [&] { scheduled.output.realize(out); });
    });
}
