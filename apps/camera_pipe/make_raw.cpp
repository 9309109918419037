// Makes raw sensor data for camera_pipe_run from an 8-bit colour image:
//   camera_pipe_make_raw <input image> <output.png | output.pgm>
// The output is a 16-bit grey image of the GRBG mosaic (mosaic(): each pixel keeps the colour of
// its place in the pattern, squared back to linear light and mapped to [64, 1023]), with the
// width and height rounded down to even numbers.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "app_util.h"
#include "camera_pipe.h"
#include "dsl/ImageIO.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <input colour image> <output.png | output.pgm>\n",
                     argc > 0 ? argv[0] : "camera_pipe_make_raw");
        return 1;
    }
    return dsl_apps::run_main("camera_pipe_make_raw", [&] {
        const std::string input = argv[1], output = argv[2];
        dsl::Buffer<> image = dsl::load_image(input);
        if (image.type() != dsl::UInt(8) || image.dimensions() != 3 || image.dim(2).extent() < 3) {
            throw std::runtime_error("\"" + input + "\" is not an 8-bit colour image.");
        }
        dsl::Buffer<uint16_t> raw = dsl_apps::mosaic(dsl::Buffer<uint8_t>(image));
        if (raw.dim(0).extent() < 2 || raw.dim(1).extent() < 2) {
            throw std::runtime_error("\"" + input + "\" is smaller than one 2x2 Bayer quad.");
        }
        dsl::save_image(raw, output);
        std::printf("camera_pipe_make_raw: wrote %s (%dx%d, 16-bit GRBG)\n", output.c_str(),
                    raw.dim(0).extent(), raw.dim(1).extent());
        return 0;
    });
}
