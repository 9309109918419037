// Lesson 4: pipelines of several stages, and boundary conditions.
//
// A 3x3 box blur written as two separable passes. Stencils read outside the input at its
// edges, so the input is wrapped in a boundary condition that says what lies beyond it.
//
// Run it: build/tutorials/lesson_04_multi_stage

#include <algorithm>
#include <cstdio>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    const int width = 64, height = 48;
    Buffer<uint16_t> input(width, height);
    input.for_each_element(
        [&](int x, int y) { input(x, y) = static_cast<uint16_t>((x * 31 + y * 17) % 1024); });

    Var x("x"), y("y");
    // Reading beyond the edge repeats the edge pixel.
    Func clamped = BoundaryConditions::repeat_edge(input);

    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;

    // Compute blur_x once for the whole image instead of three times per output pixel.
    blur_x.compute_root();
    Buffer<uint16_t> out = blur_y.realize({width, height});

    // The same computation in plain C++.
    auto at = [&](int i, int j) {
        return static_cast<int>(input(std::clamp(i, 0, width - 1), std::clamp(j, 0, height - 1)));
    };
    auto bx = [&](int i, int j) {
        return static_cast<uint16_t>((at(i - 1, j) + at(i, j) + at(i + 1, j)) / 3);
    };
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            uint16_t expected = static_cast<uint16_t>((bx(i, j - 1) + bx(i, j) + bx(i, j + 1)) / 3);
            if (out(i, j) != expected) {
                std::printf("mismatch at (%d, %d): %d vs %d\n", i, j, out(i, j), expected);
                return 1;
            }
        }
    }
    std::printf("blurred %dx%d image matches the C++ loop\n", width, height);
    std::printf("lesson 4 passed\n");
    return 0;
}
