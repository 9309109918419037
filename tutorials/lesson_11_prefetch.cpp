// Lesson 11: asking for data before it is needed.
//
// A loop that reads memory in an order the CPU cannot guess waits for every cache miss. A
// transpose is the classic case: in tiles of 16 x 8 outputs, each row of a tile gathers one
// element from each of 16 input rows, 16 cache lines far apart. The hardware prefetchers follow
// streams, not this.
//
// `prefetch(f, at, from, offset)` tells lowering to fetch, at the top of each iteration of loop
// `at`, what that iteration will read of `f` (a Func or an input) when loop `from` is `offset`
// iterations further on. Here: at each tile, the next tile's input lines. The prefetch is a
// hint: it changes no value, and costs a few instructions per cache line. Its region is clamped
// to the data (PrefetchBoundStrategy::Clamp) or, by default, skipped when it reaches past it
// (GuardWithIf). print_loop_nest() shows where it goes.
//
// On the machine these lessons were written on, this transpose of 4096 x 4096 floats ran 1.7x
// faster with the prefetch (42 -> 24 ms). A square tile, 16 x 16 with rows of 16 lanes, does
// better still without one: its 16 gathers read exactly 16 rows of 16 input elements, and
// lowering loads those densely and transposes them in registers (9-10 ms; the prefetch then
// costs more than it saves, 11.3 ms; bench/README.md, "transpose against Halide 14"). This
// lesson uses a small image and checks the values; time it at your own size.
//
// Run it: build/tutorials/lesson_11_prefetch

#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    const int size = 100;  // not a multiple of the tile: the last tiles are partial
    Buffer<float> input(size, size);
    for (int y = 0; y < size; y++) {
        for (int x = 0; x < size; x++)
            input(x, y) = static_cast<float>(x * 1000 + y);
    }
    ImageParam in(Float(32), 2, "in");
    in.set(input);

    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func transposed("transposed");
    transposed(x, y) = in(y, x);
    transposed.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi);
    // At each tile (loop xo), fetch what the next tile along the row (xo + 1) will read.
    transposed.prefetch(in, xo, xo, 1);

    std::string nest = transposed.loop_nest();
    std::printf("%s", nest.c_str());
    // produce transposed:
    //   for transposed.s0.yo:
    //     for transposed.s0.xo:
    //       prefetch in for xo + 1 (GuardWithIf)
    //       for transposed.s0.yi:
    //         vectorized for transposed.s0.xi:
    //   ...

    Buffer<float> out = transposed.realize({size, size});
    for (int y2 = 0; y2 < size; y2++) {
        for (int x2 = 0; x2 < size; x2++) {
            if (out(x2, y2) != input(y2, x2)) {
                std::printf("transposed(%d, %d) = %g, expected %g\n", x2, y2, out(x2, y2),
                            input(y2, x2));
                return 1;
            }
        }
    }
    if (nest.find("prefetch in for xo + 1") == std::string::npos) return 1;
    std::printf("lesson 11 passed\n");
    return 0;
}
