// Schedules as Halide programs write them, which dsl refused or mishandled: each test compiles
// the schedule, runs it, and compares with a plain C++ loop.
#include <gtest/gtest.h>

#include <string>

#include "dsl/dsl.h"

namespace dsl {
namespace {

Buffer<int> ramp_input(int width, int height) {
    Buffer<int> in(width, height);
    in.for_each_element([&](int x, int y) { in(x, y) = (x * 7 + y * 13) % 23; });
    return in;
}

// Two unrolls of the same loop by factors make two inner loops; their made-up names must not
// clash ("a second loop named x_unrolled").
TEST(HalideSchedules, UnrollTwiceByFactors) {
    Buffer<int> in = ramp_input(50, 1);
    Var x("x");
    Func f("hs_unroll_twice");
    f(x) = in(x, 0) * 3 + 1;
    f.vectorize(x, 4).unroll(x, 3).unroll(x, 2);
    Buffer<int> out = f.realize({48});
    for (int i = 0; i < 48; i++)
        ASSERT_EQ(out(i), in(i, 0) * 3 + 1) << i;
}

// bound(c, 0, 4) on a producer computed inside a consumer's loop: its loop over c has the
// extent 4, which unroll() needs.
TEST(HalideSchedules, BoundThenUnrollInsideAConsumerLoop) {
    Buffer<int> in = ramp_input(30, 20);
    Var c("c"), x("x"), y("y");
    Func g("hs_bound_g"), f("hs_bound_f");
    g(c, x, y) = in(x, y) * (c + 1);
    f(x, y) = g(0, x, y) + g(1, x, y) + g(2, x, y) + g(3, x, y);
    g.compute_at(f, x).bound(c, 0, 4).unroll(c);
    Buffer<int> out = f.realize({30, 20});
    for (int v = 0; v < 20; v++) {
        for (int u = 0; u < 30; u++)
            ASSERT_EQ(out(u, v), in(u, v) * 10) << u << ", " << v;
    }
}

// A producer computed per tile of its consumer, all of whose loops are unrolled or vectorized
// without a factor: the tile's region has a constant size (the tile's split shifts inwards at
// the edge), so they are accepted, also where the image is not a multiple of the tile.
TEST(HalideSchedules, ProducerUnrolledPerTile) {
    for (int width : {32, 30}) {
        Buffer<int> in = ramp_input(width + 1, 18);
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        Func g("hs_tile_g"), f("hs_tile_f");
        g(x, y) = in(x, y) + in(x + 1, y);
        f(x, y) = g(x, y) * 2 + g(x, y + 1);
        f.tile(x, y, xo, yo, xi, yi, 8, 4).vectorize(xi);
        g.compute_at(f, xo).vectorize(x).unroll(y);
        Buffer<int> out = f.realize({width, 16});
        for (int v = 0; v < 16; v++) {
            for (int u = 0; u < width; u++) {
                int g0 = in(u, v) + in(u + 1, v), g1 = in(u, v + 1) + in(u + 1, v + 1);
                ASSERT_EQ(out(u, v), g0 * 2 + g1) << "width " << width << " at " << u << ", " << v;
            }
        }
        std::string stmt = f.lowered_stmt();
        EXPECT_EQ(stmt.find("for (hs_tile_g.s0.y"), std::string::npos) << stmt;
    }
}

}  // namespace
}  // namespace dsl
