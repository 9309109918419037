// Loops shrunk to the iterations that change something (lowering/TrimNoOps.cpp): an update
// written as a select over a larger domain runs only where the select can pick the new value,
// with the same results as every iteration run.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace {

using namespace dsl;

int loads_traced = 0;

int32_t count_loads(JITUserContext *, const dsl_trace_event_t *e) {
    if (e->event == dsl_trace_load) loads_traced++;
    return 0;
}

/// The points of [0, 20)^2 strictly inside the circle of radius 10.
int points_in_circle() {
    int n = 0;
    for (int y = 0; y < 20; y++) {
        for (int x = 0; x < 20; x++)
            n += x * x + y * y < 100;
    }
    return n;
}

// Halide's iterate_over_circle: f += select(x inside the circle's row, in(x, y), 0) loads in
// only at the points of the circle.
TEST(TrimNoOps, AnUpdateOverACircleLoadsOnlyInsideIt) {
    Func f("f"), in("in");
    Var x("x"), y("y");
    in(x, y) = x + y;
    in.compute_root().trace_loads();
    f(x, y) = 0;
    Expr t = cast<int>(ceil(sqrt(max(0, 10 * 10 - y * y))));
    f(x, y) += select(x > -t && x < t, in(x, y), 0);
    f.jit_handlers().custom_trace = count_loads;
    loads_traced = 0;
    Buffer<int> out = f.realize({20, 20});
    EXPECT_EQ(loads_traced, points_in_circle());
    for (int j = 0; j < 20; j++) {
        for (int i = 0; i < 20; i++) {
            const int r = static_cast<int>(std::ceil(std::sqrt(std::max(0, 100 - j * j))));
            ASSERT_EQ(out(i, j), (i > -r && i < r) ? i + j : 0) << i << ", " << j;
        }
    }
    f.jit_handlers().custom_trace = nullptr;
}

// select(c, v, f) keeps f where c fails: any type, and the range from both comparisons (here
// over an RDom, whose order matters: a running sum from the fifth point to the twelfth).
TEST(TrimNoOps, ASelectOfTheStoredValueKeepsTheResults) {
    Func f("f"), g("g");
    Var x("x");
    RDom r(1, 30, "r");
    f(x) = cast<float>(x);
    f(r) = select(r >= 5 && r <= 12, f(r - 1) + 0.5f * f(r), f(r));
    g(x) = f(x) * 2.0f;
    f.compute_root();
    Buffer<float> out = g.realize({32});
    std::vector<float> expect(32);
    for (int i = 0; i < 32; i++)
        expect[i] = static_cast<float>(i);
    for (int i = 1; i <= 30; i++) {
        if (i >= 5 && i <= 12) expect[i] = expect[i - 1] + 0.5f * expect[i];
    }
    for (int i = 0; i < 32; i++)
        ASSERT_EQ(out(i), expect[i] * 2.0f) << i;
}

// Conditions the pass leaves alone, and ranges that exclude every iteration: values as a
// plain loop computes them.
TEST(TrimNoOps, OtherConditionsAndEmptyRanges) {
    Buffer<int> table(16);
    for (int i = 0; i < 16; i++)
        table(i) = (i * 7) % 5;
    Param<int> lo("lo"), hi("hi");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x * y;
    // A condition read from memory (not trimmed), one on y alone (invariant: the whole row or
    // nothing), and a range given by Params that may be empty.
    f(x, y) += select(Func(table)(x) > 2, 100, 0);
    f(x, y) = select(y > 1 && x >= lo && x < hi, f(x, y) - 1, f(x, y));
    // A float accumulation is not a no-op where it adds 0 (-0.0 + 0.0 is +0.0): kept whole.
    Func h("h");
    h(x) = -0.0f;
    h(x) += select(x > 3, 1.0f, 0.0f);
    for (auto [l, u] :
         {std::pair{2, 9}, std::pair{9, 2}, std::pair{-100, 100},
          std::pair{std::numeric_limits<int>::max(), std::numeric_limits<int>::min()}}) {
        lo.set(l);
        hi.set(u);
        Buffer<int> out = f.realize({16, 4});
        for (int j = 0; j < 4; j++) {
            for (int i = 0; i < 16; i++) {
                int v = i * j + (table(i) > 2 ? 100 : 0);
                if (j > 1 && i >= l && i < u) v -= 1;
                ASSERT_EQ(out(i, j), v) << i << ", " << j << " with [" << l << ", " << u << ")";
            }
        }
    }
    Buffer<float> z = h.realize({6});
    for (int i = 0; i < 6; i++) {
        EXPECT_EQ(z(i), i > 3 ? 1.0f : 0.0f);
        EXPECT_FALSE(std::signbit(z(i))) << i;
    }
}

std::atomic<int> band_loads{0};

int32_t count_band_loads(JITUserContext *, const dsl_trace_event_t *e) {
    if (e->event == dsl_trace_load) band_loads++;
    return 0;
}

// A parallel loop is trimmed too: the update reads its input only inside the band of each
// row; the results match the reference evaluator.
TEST(TrimNoOps, ParallelRowsMatchTheReference) {
    Func f("f"), in("in");
    Var x("x"), y("y");
    in(x, y) = x * y;
    in.compute_root().trace_loads();
    f(x, y) = x - y;
    f(x, y) += select(x >= y && x < 2 * y + 3, in(x, y), 0);
    f.update().parallel(y);
    f.jit_handlers().custom_trace = count_band_loads;
    band_loads = 0;
    Buffer<int> out = f.realize({40, 17});
    int band = 0;
    for (int j = 0; j < 17; j++) {
        for (int i = 0; i < 40; i++)
            band += i >= j && i < 2 * j + 3;
    }
    EXPECT_EQ(band_loads.load(), band);
    f.jit_handlers().custom_trace = nullptr;
    EXPECT_TRUE(dsl::test::matches_reference(f, out, 0));
}

}  // namespace
