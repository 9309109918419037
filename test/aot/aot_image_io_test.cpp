// A C++ program that runs a generated library on dsl::Buffers and writes the result as a PNG,
// linked with the generated library and dsl::image_io only (not the compiler, not LLVM).
#include <cstdio>

#include "aot_blur.h"
#include "dsl/Buffer.h"
#include "dsl/ImageIO.h"

int main(int argc, char **argv) {
    const char *file = argc > 1 ? argv[1] : "aot_blur.png";
    dsl::Buffer<uint16_t> output(64, 48);
    // Ask the pipeline which region of the input it needs, then allocate exactly that.
    dsl_dimension_t query_dim[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    dsl_buffer_t query = {0, nullptr, nullptr, 0, {dsl_type_uint, 16, 1}, 2, query_dim, nullptr};
    if (aot_blur(&query, output.raw_buffer()) != 0) return 1;
    dsl::Buffer<uint16_t> input(query_dim[0].extent, query_dim[1].extent);
    input.translate(0, query_dim[0].min).translate(1, query_dim[1].min);
    input.for_each_element(
        [&](int x, int y) { input(x, y) = static_cast<uint16_t>((x + 1) * 100 + y + 1); });
    if (aot_blur(input.raw_buffer(), output.raw_buffer()) != 0) return 1;
    dsl::save_image(output, file);
    dsl::Buffer<uint16_t> back = dsl::load_image(file);
    for (int y = 0; y < 48; y++) {
        for (int x = 0; x < 64; x++) {
            // A linear ramp (small enough that the uint16 sums do not wrap) is its own 3x3 box
            // blur.
            int expected = (x + 1) * 100 + y + 1;
            if (back(x, y) != output(x, y) || output(x, y) != expected) {
                std::printf("(%d, %d): %d, saved %d, expected %d\n", x, y, output(x, y), back(x, y),
                            expected);
                return 1;
            }
        }
    }
    std::printf("aot_image_io_test passed (%s)\n", file);
    return 0;
}
