// Lesson 6: scheduling the loops of one Func.
//
// A Func's definition says what each point's value is; its schedule says in what order the
// points are computed. The loop directives below change the loops and never the values, so
// every schedule here must produce the same image: each one is realized and compared with a
// plain C++ loop.
//
// By default a Func of two dimensions is computed by two loops, the first dimension innermost:
//   for y:
//     for x:
//       gradient(x, y) = ...
// which walks memory in order, because x is the dimension whose elements are adjacent.
//
// Run it: build/tutorials/lesson_06_scheduling_loops

#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

// The same algorithm for every schedule: a fresh Func, so that schedules do not accumulate.
Func make_gradient(const std::string &name, const Var &x, const Var &y) {
    Func gradient(name);
    gradient(x, y) = x + 2 * y;
    return gradient;
}

// Shows the loops, computes a width x height image and compares it with plain C++.
bool run(Func &gradient, int width, int height) {
    gradient.print_loop_nest();
    Buffer<int> out = gradient.realize({width, height});
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            if (out(x, y) != x + 2 * y) {
                std::printf("%s: mismatch at (%d, %d): %d, expected %d\n", gradient.name().c_str(),
                            x, y, out(x, y), x + 2 * y);
                return false;
            }
        }
    }
    std::printf("%s: %dx%d image matches\n\n", gradient.name().c_str(), width, height);
    return true;
}

}  // namespace

int main() {
    Var x("x"), y("y");
    bool ok = true;

    // The default: y outside, x inside.
    {
        Func gradient = make_gradient("default_order", x, y);
        ok &= run(gradient, 8, 4);
    }

    // reorder() lists loops innermost first. reorder(y, x) puts y inside x, so the image is
    // walked column by column:
    //   for x:
    //     for y:
    // Walking across the rows of a large image like this is slower, because consecutive
    // points lie a whole row apart in memory.
    {
        Func gradient = make_gradient("reordered", x, y);
        gradient.reorder(y, x);
        ok &= run(gradient, 8, 4);
    }

    // split() turns one loop into two: an outer loop over blocks and an inner loop of
    // `factor` iterations inside each block. split(x, x_outer, x_inner, 4):
    //   for y:
    //     for x_outer in [0, ceil(width / 4)):
    //       for x_inner in [0, 4):
    //         x = x_outer * 4 + x_inner
    // By itself this changes nothing about the order; it is what vectorize, unroll, tile and
    // parallel build on. Here the width, 10, is not a multiple of 4: with
    // TailStrategy::GuardWithIf (also what the default, Auto, picks) each point tests
    // `if (x <= max)`, and the last block skips the points past x = 9. The loop nest shows
    // that test as "if (...)".
    {
        Func gradient = make_gradient("split", x, y);
        Var x_outer("x_outer"), x_inner("x_inner");
        gradient.split(x, x_outer, x_inner, 4, TailStrategy::GuardWithIf);
        ok &= run(gradient, 10, 4);
    }

    // fuse() is the opposite of split: two loops become one loop over all their points.
    // fuse(x, y, index) (inner loop first):
    //   for index in [0, width * height):
    //     x = index % width; y = index / width
    // One long loop is handy to parallelize or vectorize across rows of a small image.
    {
        Func gradient = make_gradient("fused", x, y);
        Var index("index");
        gradient.fuse(x, y, index);
        ok &= run(gradient, 8, 4);
    }

    // tile() splits x and y and orders the loops so that the image is computed one rectangle
    // at a time. tile(x, y, x_outer, y_outer, x_inner, y_inner, 4, 2):
    //   for y_outer:
    //     for x_outer:
    //       for y_inner in [0, 2):
    //         for x_inner in [0, 4):
    // It is the same as two splits and a reorder(x_inner, y_inner, x_outer, y_outer). Tiles
    // keep the data a later stage needs in the cache (see bench/blur.cpp).
    {
        Func gradient = make_gradient("tiled", x, y);
        Var x_outer("x_outer"), y_outer("y_outer"), x_inner("x_inner"), y_inner("y_inner");
        gradient.tile(x, y, x_outer, y_outer, x_inner, y_inner, 4, 2);
        ok &= run(gradient, 8, 4);
    }

    // vectorize() computes all the iterations of a loop at once with SIMD instructions: the loop
    // variable becomes a vector of lanes. vectorize(x, 4) splits x by 4 and vectorizes the
    // inner loop, which it names x_vectorized:
    //   for y:
    //     for x:                               every block of 4 that lies inside the image
    //       vectorized for x_vectorized:       one instruction computes 4 points
    //     for x:                               the last block, if the width is not a multiple
    //       vectorized for x_vectorized:       of 4 (10 here): a masked vector
    //         if (...):
    // The compiler peels that last block off, so the main loop needs no mask. On a real
    // image, use as many lanes as one register holds, e.g. 8 ints with AVX2, 16 with AVX-512.
    {
        Func gradient = make_gradient("vectorized", x, y);
        gradient.vectorize(x, 4);
        ok &= run(gradient, 10, 4);
    }

    // unroll() replaces a loop by copies of its body, one per iteration, which saves the loop's
    // own work on very short loops. unroll(x, 2) splits x by 2 and unrolls the inner loop,
    // x_unrolled:
    //   for y:
    //     for x:
    //       gradient(2 * x, y) = ...
    //       gradient(2 * x + 1, y) = ...
    // and, as for vectorize, a second copy of the loop with the test for a last, partial
    // block: the width is only known when the pipeline runs.
    {
        Func gradient = make_gradient("unrolled", x, y);
        gradient.unroll(x, 2);
        ok &= run(gradient, 8, 4);
    }

    // parallel() runs the iterations of a loop on the runtime's thread pool, in any order and
    // at the same time (DSL_NUM_THREADS or dsl_set_num_threads choose how many threads):
    //   parallel for y:
    //     for x:
    // Parallelize an outer loop, so that each task has enough work to pay for handing it out.
    {
        Func gradient = make_gradient("parallel_rows", x, y);
        gradient.parallel(y);
        ok &= run(gradient, 8, 4);
    }

    // Together, as a schedule for a large image would look: tiles of 16x8, the tiles of the
    // image fused into one loop and run in parallel, each tile row computed 8 lanes at a time
    // and its two vectors unrolled:
    //   parallel for tile_index:              (x_outer, y_outer) from tile_index
    //     for y_inner in [0, 8):
    //       unrolled for x_inner in [0, 2):
    //         vectorized for x_vector in [0, 8):
    //           if (...):                     the tiles at the right and bottom edges
    // The image, 37x21, is not a multiple of the tile: the tests keep the edge tiles inside it.
    // The printed nest shows the unrolled loop twice, once for each of its two copies.
    {
        Func gradient = make_gradient("combined", x, y);
        Var x_outer("x_outer"), y_outer("y_outer"), x_inner("x_inner"), y_inner("y_inner");
        Var tile_index("tile_index"), x_vector("x_vector");
        gradient.tile(x, y, x_outer, y_outer, x_inner, y_inner, 16, 8)
            .fuse(x_outer, y_outer, tile_index)
            .parallel(tile_index)
            .split(x_inner, x_inner, x_vector, 8)
            .vectorize(x_vector)
            .unroll(x_inner);
        ok &= run(gradient, 37, 21);
    }

    if (!ok) return 1;
    std::printf("lesson 6 passed\n");
    return 0;
}
