// Lesson 1: a Func, a Var, and realize().
//
// A Func is a function over integer coordinates. You define it once, for every point, with
// Vars standing for the coordinates; realize() computes it over a region with machine code
// generated on the spot (JIT).
//
// Run it: build/tutorials/lesson_01_basics

#include <cstdio>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    Var x("x"), y("y");

    // gradient(x, y) = x + y, for every x and y.
    Func gradient("gradient");
    gradient(x, y) = x + y;

    // Compute it over 0 <= x < 8, 0 <= y < 4. The result is a Buffer<int32_t>.
    Buffer<int32_t> out = gradient.realize({8, 4});

    for (int j = 0; j < out.height(); j++) {
        for (int i = 0; i < out.width(); i++) {
            std::printf("%3d", out(i, j));
            if (out(i, j) != i + j) {
                std::printf("\nwrong value at (%d, %d)\n", i, j);
                return 1;
            }
        }
        std::printf("\n");
    }

    // Types follow the expression: this Func holds floats.
    Func wave("wave");
    wave(x) = sin(cast<float>(x) * 0.5f);
    Buffer<float> w = wave.realize({5});
    std::printf("wave(4) = %f\n", w(4));
    std::printf("lesson 1 passed\n");
    return 0;
}
