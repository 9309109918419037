// Lesson 2: images in and out.
//
// load_image() reads PNG, JPEG, PPM and PGM files into a Buffer; save_image() writes one.
// Colour images are indexed (x, y, c). Here we brighten an image and save the result.
//
// Run it: build/tutorials/lesson_02_input_image [input.png] [output.png]
// Without arguments it makes a test image first.

#include <algorithm>
#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

int main(int argc, char **argv) {
    std::string input_path = argc > 1 ? argv[1] : "lesson_02_input.png";
    std::string output_path = argc > 2 ? argv[2] : "lesson_02_brighter.png";

    if (argc <= 1) {
        // A small synthetic photo stand-in: smooth colour ramps.
        Buffer<uint8_t> made(96, 64, 3);
        made.for_each_element([&](int x, int y, int c) {
            made(x, y, c) = static_cast<uint8_t>(c == 0 ? x * 2 : c == 1 ? y * 3 : (x + y));
        });
        save_image(made, input_path);
    }

    Buffer<uint8_t> input = load_image(input_path);
    std::printf("loaded %s: %d x %d x %d\n", input_path.c_str(), input.width(), input.height(),
                input.channels());

    Var x("x"), y("y"), c("c");
    Func brighter("brighter");
    // Compute in a wider type so that 1.5 * 255 does not wrap, then clamp back to 8 bits.
    Expr value = cast<float>(input(x, y, c));  // a Buffer used in a definition
    brighter(x, y, c) = cast<uint8_t>(min(value * 1.5f, 255.0f));

    Buffer<uint8_t> output = brighter.realize({input.width(), input.height(), input.channels()});
    save_image(output, output_path);
    std::printf("wrote %s\n", output_path.c_str());

    // Check a few pixels against plain C++.
    for (int i = 0; i < input.width(); i += 7) {
        int expected = std::min(static_cast<int>(input(i, 5, 1) * 1.5f), 255);
        if (output(i, 5, 1) != expected) {
            std::printf("wrong value at x = %d\n", i);
            return 1;
        }
    }

    // A missing file is a RuntimeError with a clear message.
    try {
        load_image("no_such_image.png");
        return 1;
    } catch (const RuntimeError &e) {
        std::printf("as expected: %s\n", e.what());
    }
    std::printf("lesson 2 passed\n");
    return 0;
}
