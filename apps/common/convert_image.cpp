// Writes an image file in another format, chosen by the output's extension (dsl/ImageIO.h),
// optionally cropped:  convert_image <in> <out> [x y width height]
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "app_util.h"
#include "dsl/ImageIO.h"

int main(int argc, char **argv) {
    if (argc != 3 && argc != 7) {
        std::fprintf(stderr, "usage: %s <input image> <output image> [x y width height]\n",
                     argc > 0 ? argv[0] : "convert_image");
        return 1;
    }
    return dsl_apps::run_main("convert_image", [&] {
        dsl::Buffer<> image = dsl::load_image(argv[1]);
        if (argc == 7) {
            int crop[4];
            for (int i = 0; i < 4; i++) {
                char *end = nullptr;
                long v = std::strtol(argv[3 + i], &end, 10);
                if (*end != '\0' || end == argv[3 + i] || v < 0 || v > 1000000) {
                    throw std::runtime_error(std::string("bad crop value \"") + argv[3 + i] + "\"");
                }
                crop[i] = static_cast<int>(v);
            }
            image = image.cropped(0, crop[0], crop[2]).cropped(1, crop[1], crop[3]);
        }
        dsl::save_image(image, argv[2]);
        return 0;
    });
}
