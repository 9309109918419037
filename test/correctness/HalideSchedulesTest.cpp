// Schedules as Halide programs write them, which dsl refused or mishandled: each test compiles
// the schedule, runs it, and compares with a plain C++ loop.
#include <gtest/gtest.h>

#include <string>
#include <utility>

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

// Halide's apps/blur schedule: blur_x computed per vector of blur_y and stored per strip of
// rows (a sliding window down the strip). In the main part of blur_y's vector loop a vector of
// blur_y needs exactly a vector of blur_x: blur_x's own loop over x and its tail are gone
// there (only the last, partial vector keeps them). Widths and heights that are not multiples
// of the vector and the strip, and an image narrower than a vector, give the same values.
TEST(HalideSchedules, ProducerPerVectorOfItsConsumer) {
    for (auto [width, height] : {std::pair{64, 64}, std::pair{70, 37}, std::pair{10, 5}}) {
        Buffer<int> in = ramp_input(width + 2, height + 2);
        Var x("x"), y("y"), yi("yi");
        Func blur_x("hs_vec_x"), blur_y("hs_vec_y");
        blur_x(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
        blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
        blur_y.split(y, y, yi, 32).parallel(y).vectorize(x, 16);
        blur_x.store_at(blur_y, y).compute_at(blur_y, x).vectorize(x, 16);
        Buffer<int> out = blur_y.realize({width, height});
        auto bx = [&](int u, int v) { return (in(u, v) + in(u + 1, v) + in(u + 2, v)) / 3; };
        for (int v = 0; v < height; v++) {
            for (int u = 0; u < width; u++) {
                ASSERT_EQ(out(u, v), (bx(u, v) + bx(u, v + 1) + bx(u, v + 2)) / 3)
                    << width << "x" << height << " at " << u << ", " << v;
            }
        }
        // The main part of blur_y's loop over vectors runs up to its tail's copy.
        std::string stmt = blur_y.lowered_stmt();
        size_t main = stmt.find("for (hs_vec_y.s0.x, 0,");
        size_t tail = stmt.find("for (hs_vec_y.s0.x", main + 1);
        ASSERT_NE(tail, std::string::npos) << stmt;
        EXPECT_EQ(stmt.substr(main, tail - main).find("for (hs_vec_x.s0.x"), std::string::npos)
            << stmt;
    }
}

}  // namespace
}  // namespace dsl
