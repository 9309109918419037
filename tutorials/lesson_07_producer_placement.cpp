// Lesson 7: where a producer is computed and where it is stored.
//
// A two-stage blur again: blur_x feeds blur_y. The algorithm is fixed; the schedule decides
// when each value of blur_x is computed and how long it is kept. Each choice trades redundant
// work, memory and locality differently:
//
//   inline          blur_x is recomputed inside every use: 3x the work, no storage.
//   compute_root    all of blur_x first, then all of blur_y: no redundant work, but a full
//                   image of storage that has left the cache by the time blur_y reads it.
//   compute_at      the rows of blur_x one row (or tile) of blur_y needs, just before it:
//                   hot in cache, but neighbouring rows recompute the rows they share.
//   store_at +      storage outside the loop, computation inside it: each iteration
//   compute_at      computes only the row earlier iterations have not (a sliding window),
//                   and the storage keeps only the rows still needed (folded into a circular
//                   buffer of 4 rows).
//
// Run it: build/tutorials/lesson_07_producer_placement

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

const int kWidth = 1536, kHeight = 1024;

/// Checks `out` against a plain C++ blur of `input`.
bool matches(const Buffer<uint16_t> &input, const Buffer<uint16_t> &out) {
    auto at = [&](int i, int j) {
        return static_cast<int>(input(std::clamp(i, 0, kWidth - 1), std::clamp(j, 0, kHeight - 1)));
    };
    auto bx = [&](int i, int j) {
        return static_cast<uint16_t>((at(i - 1, j) + at(i, j) + at(i + 1, j)) / 3);
    };
    for (int j = 0; j < kHeight; j++) {
        for (int i = 0; i < kWidth; i++) {
            uint16_t expected = static_cast<uint16_t>((bx(i, j - 1) + bx(i, j) + bx(i, j + 1)) / 3);
            if (out(i, j) != expected) {
                std::printf("mismatch at (%d, %d): %d vs %d\n", i, j, out(i, j), expected);
                return false;
            }
        }
    }
    return true;
}

/// Builds the blur, lets `schedule` place blur_x, prints the loop nest, runs it and checks it.
template <typename Schedule>
bool run(const std::string &title, const Buffer<uint16_t> &input, Schedule schedule) {
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    schedule(blur_x, blur_y, x, y);

    std::printf("\n=== %s ===\n", title.c_str());
    blur_y.print_loop_nest();
    Buffer<uint16_t> out(kWidth, kHeight);
    blur_y.realize(out);  // the first call compiles
    auto start = std::chrono::steady_clock::now();
    blur_y.realize(out);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("%.2f ms for %dx%d (one run; for honest timings see bench/)\n", ms, kWidth,
                kHeight);
    return matches(input, out);
}

}  // namespace

int main() {
    Buffer<uint16_t> input(kWidth, kHeight);
    input.for_each_element(
        [&](int x, int y) { input(x, y) = static_cast<uint16_t>((x * 31 + y * 17) % 1024); });
    bool ok = true;

    // 1. Inline (the default for a Func without updates that is not an output): blur_x's
    //    expression is pasted into blur_y. There is no "produce blur_x" in the loop nest.
    ok &= run("inline", input, [](Func &, Func &, Var, Var) {});

    // 2. Root: blur_x is a whole image computed before blur_y starts.
    ok &= run("compute_root", input, [](Func &blur_x, Func &, Var, Var) { blur_x.compute_root(); });

    // 3. compute_at(blur_y, y): inside blur_y's loop over rows, three rows of blur_x are
    //    computed (rows y - 1, y, y + 1), then used for one output row. Each row of blur_x is
    //    computed three times in all, but always right before it is read.
    ok &= run("compute_at(blur_y, y)", input,
              [](Func &blur_x, Func &blur_y, Var, Var y) { blur_x.compute_at(blur_y, y); });

    // 4. store_root + compute_at(blur_y, y): the storage lives outside the row loop, so rows
    //    computed for output row y are still there for row y + 1. The loop nest shows
    //    "sliding window over blur_y.s0.y": after the first row only one new row of blur_x is
    //    computed per output row. And since rows before y - 1 are never read again, the
    //    storage is "folded: y mod 4": four rows, reused in turn.
    ok &= run(
        "store_root + compute_at(blur_y, y)", input,
        [](Func &blur_x, Func &blur_y, Var, Var y) { blur_x.store_root().compute_at(blur_y, y); });

    // 5. The same inside strips of 64 rows, so that strips can run on different threads: the
    //    storage is per strip (store_at the strip loop), the window slides within a strip.
    //    Storing outside a parallel loop and computing inside it would make threads share the
    //    storage; that is refused with an error that says so.
    ok &= run("strips in parallel, sliding within each", input,
              [](Func &blur_x, Func &blur_y, Var x, Var y) {
                  Var yo("yo"), yi("yi");
                  blur_y.split(y, yo, yi, 64).parallel(yo).vectorize(x, 16);
                  blur_x.store_at(blur_y, yo).compute_at(blur_y, yi).vectorize(x, 16);
              });

    // 6. An illegal placement: storage must be at or outside the loop where the Func is
    //    computed. The error lists the legal places.
    try {
        run("illegal", input, [](Func &blur_x, Func &blur_y, Var x, Var y) {
            blur_x.compute_at(blur_y, y).store_at(blur_y, x);
        });
        std::printf("expected an error\n");
        ok = false;
    } catch (const CompileError &e) {
        std::printf("%s\n", e.what());
    }

    if (!ok) return 1;
    std::printf("\nlesson 7 passed\n");
    return 0;
}
