// Lesson 8: parallel and vectorized reductions.
//
// A reduction runs its update once per point of its RDom, in order. Its loops over pure Vars
// can run in parallel like any other loop, but its loops over RVars often cannot: when every
// iteration adds into the same point, running them at the same time would lose additions.
// This lesson shows how dsl tells the two apart, and how `rfactor` turns a reduction into one
// whose loops can run in parallel and as vectors.
//
// Run it: build/tutorials/lesson_08_parallel_reductions

#include <cstdio>
#include <vector>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    const int width = 300, height = 200;
    Buffer<int> image(width, height);
    image.for_each_element([&](int x, int y) { image(x, y) = (x * 7 + y * 13) % 101 - 50; });

    // The reduction: the sum of every pixel. Its update runs over r.x (innermost) and r.y, and
    // every iteration reads and writes the same single point total().
    RDom r(0, width, 0, height, "r");
    Func total("total");
    total() = 0;
    total() += image(r.x, r.y);

    // Step 1: asking for a parallel loop over r.y. The directive itself is accepted (a later
    // allow_race_conditions() could still change its meaning), but compiling the pipeline
    // checks it: all rows would add into total() at once, a race. The error says which loop,
    // why, and how to fix it.
    total.update().parallel(r.y);
    try {
        total.realize(std::vector<int>{});
        std::printf("expected the parallel reduction loop to be refused\n");
        return 1;
    } catch (const CompileError &e) {
        std::printf("refused, as it should be:\n%s\n\n", e.what());
    }
    total.update().serial(r.y);  // undo it

    // Step 2: rfactor. Keeping r.y as a new pure Var v splits the reduction in two:
    //   total_intm(v) = 0;                                  one partial sum per row
    //   total_intm(v) = total_intm(v) + image(r.x, v);      over r.x only
    //   total() = total() + total_intm(r.y);                the partial sums, added up
    // The partial sums are a Func like any other: its loop over v is a pure Var loop, so each
    // row's sum can be computed on its own thread. rfactor works for associative updates
    // (+, *, min, max, bitwise operators, argmin / argmax) and refuses the others.
    //
    // To vectorize as well, split r.x first and keep its inner part too: then each partial
    // sum has 8 lanes, one per column modulo 8, and a row's 8 lanes are added at once.
    RVar rxo("rxo"), rxi("rxi");
    Var u("u"), v("v");
    total.update().split(r.x, rxo, rxi, 8);
    Func partial = total.update().rfactor({{rxi, u}, {r.y, v}});

    // The intermediate is computed at root by default; schedule both of its stages: the
    // initialisation and the update run over u as vectors and over v in parallel.
    partial.compute_root().vectorize(u).parallel(v);
    partial.update().vectorize(u).parallel(v);

    std::printf("The loop nest after rfactor:\n");
    total.print_loop_nest();

    // Step 3: run it and check against a plain C++ loop.
    Buffer<int> result = total.realize(std::vector<int>{});
    long long expected = 0;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++)
            expected += image(x, y);
    }
    std::printf("\nsum = %d, expected %lld\n", result(), expected);
    if (result() != expected) return 1;

    // A loop over an RVar may run in parallel as it is when each iteration has its own point:
    // here r.x picks the point written, and the update reads only that point.
    Func scaled("scaled");
    Var x("x");
    RDom k(0, width, "k");
    scaled(x) = x;
    scaled(k) = scaled(k) * 2 + image(k, 0);
    scaled.update().parallel(k, 64);  // accepted: no two iterations touch the same point
    Buffer<int> doubled = scaled.realize({width});
    for (int i = 0; i < width; i++) {
        if (doubled(i) != i * 2 + image(i, 0)) return 1;
    }
    std::printf("a race-free parallel RVar loop matches too\nlesson 8 passed\n");
    return 0;
}
