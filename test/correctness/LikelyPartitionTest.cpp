// Loop partitioning at conditions marked likely (src/lowering/PartitionLoops.cpp, `likely()`):
// a loop whose body tests a likely condition on its variable is split into its edges and a
// steady state without the test, also when the test is in loops inside it (a tile's pixels, a
// kernel's taps), where it must hold for each of their iterations. Results must not change
// however the steady state falls; each case is compared with the reference evaluator.
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::count_of;
using test::matches_reference;
using test::random_buffer;

Var x("x"), y("y"), c("c");

// A 3x3 stencil over constant_exterior, in tiles whose pixels are unrolled: the loops over
// rows and over tiles are partitioned (the test is two loops down, in the tile), for outputs
// inside, around and far outside the input, smaller than a tile and than the border.
TEST(LikelyPartition, ConstantExteriorTilesEverySizeAndOffset) {
    ImageParam in(Float(32), 2, "lp_in");
    in.set(random_buffer(Float(32), {29, 13}, 3));
    Func zero = BoundaryConditions::constant_exterior(in, 0.5f);
    Func f("lp_tiles");
    RDom r(-1, 3, -1, 3, "r");
    f(x, y) = 0.0f;
    f(x, y) += zero(x + r.x, y + r.y) * cast<float>(r.x + 2 * r.y + 5);
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    f.tile(x, y, xo, yo, xi, yi, 4, 2, TailStrategy::GuardWithIf).unroll(xi);
    f.update()
        .split(x, xo, xi, 4, TailStrategy::GuardWithIf)
        .reorder(xi, r.x, r.y, xo, y)
        .unroll(xi);
    for (int width : {1, 3, 8, 29, 40}) {
        for (int min : {-30, -2, 0, 5, 27}) {
            Buffer<> out(Float(32), {width, 7});
            out.translate(0, min).translate(1, min / 3);
            f.realize(out);
            EXPECT_TRUE(matches_reference(f, out)) << "width " << width << " at " << min;
        }
    }
    std::string stmt = f.lowered_stmt();
    EXPECT_GE(count_of(stmt, "lp_tiles.s1.xo.steady_first = "), 1) << stmt;
    EXPECT_GE(count_of(stmt, "lp_tiles.s1.y.steady_first = "), 1) << stmt;
}

// The steady state has no test left: a stencil whose steady state is the whole loop computes
// the same as one without a boundary condition, and its tests are gone from the loop nest's
// innermost copy.
TEST(LikelyPartition, TheSteadyStateHasNoTest) {
    ImageParam in(Int(32), 1, "lp_plain_in");
    in.set(random_buffer(Int(32), {64}, 4));
    Func f("lp_plain");
    Expr inside = x - 1 >= in.min(0) && x + 1 < in.min(0) + in.extent(0);
    f(x) = select(likely(inside), in(clamp(x - 1, 0, 63)) + in(clamp(x + 1, 0, 63)), -1);
    Var xo("xo"), xi("xi");
    f.split(x, xo, xi, 8).vectorize(xi);
    for (int width : {8, 16, 64}) {
        Buffer<> out = f.realize({width});
        EXPECT_TRUE(matches_reference(f, out)) << "width " << width;
    }
    std::string stmt = f.lowered_stmt();
    EXPECT_GE(count_of(stmt, "lp_plain.s0.xo.steady_first = "), 1) << stmt;
    // The steady state (of the first version of the loop nest) has neither the select nor the
    // clamps.
    size_t steady = stmt.find("for (lp_plain.s0.xo, lp_plain.s0.xo.steady_first");
    ASSERT_NE(steady, std::string::npos) << stmt;
    size_t end = stmt.find("for (lp_plain.s0.xo, lp_plain.s0.xo.steady_end", steady);
    ASSERT_NE(end, std::string::npos) << stmt;
    std::string body = stmt.substr(steady, end - steady);
    EXPECT_EQ(count_of(body, "select("), 0) << body;
    EXPECT_EQ(count_of(body, "likely("), 0) << body;
    EXPECT_EQ(count_of(body, "max("), 0) << body;
}

// A clamp whose moving side is marked likely partitions the loop around the loops that use it,
// like a condition; reversed coordinates (a negative coefficient) and strides.
TEST(LikelyPartition, LikelyClampsAndReversedCoordinates) {
    Buffer<> in = random_buffer(Int(16), {19, 3}, 5);
    Func f("lp_clamps");
    RDom r(0, 3, "r");
    f(x, y) = cast<int16_t>(0);
    f(x, y) += in(clamp(likely(10 - x + r), 0, 18), y) + in(clamp(likely(2 * x + r - 4), 0, 18), y);
    f.update().reorder(r, x, y).unroll(r);
    for (int width : {1, 6, 25}) {
        for (int min : {-9, 0, 3}) {
            Buffer<> out(Int(16), {width, 3});
            out.translate(0, min);
            f.realize(out);
            EXPECT_TRUE(matches_reference(f, out)) << "width " << width << " at " << min;
        }
    }
    EXPECT_GE(count_of(f.lowered_stmt(), "lp_clamps.s1.x.steady_first = "), 1);
}

// Conditions the partitioner cannot solve (not linear, reading memory the loop writes, using a
// loop inside whose bounds move with the loop) leave the loop whole or partitioned on the rest;
// the results stay right.
TEST(LikelyPartition, ConditionsItCannotSolve) {
    Buffer<> in = random_buffer(Int(32), {40}, 6);
    Func square("lp_square");
    square(x) = select(likely(x * x < 300), in(x), 7);
    Buffer<> a = square.realize({40});
    EXPECT_TRUE(matches_reference(square, a));
    EXPECT_EQ(count_of(square.lowered_stmt(), "steady_first"), 0);

    // A triangular loop inside: the taps' range grows with x, so only the condition's other
    // conjunct (on x alone) is solved.
    Func tri("lp_triangle");
    RDom r(0, 40, "r");
    r.where(r.x <= x);
    tri(x) = 0;
    tri(x) += select(likely(x - r.x >= 0 && x < 30), in(clamp(x - r.x, 0, 39)), 1);
    Buffer<> b = tri.realize({40});
    EXPECT_TRUE(matches_reference(tri, b));
    std::string stmt = tri.lowered_stmt();
    EXPECT_GE(count_of(stmt, "lp_triangle.s1.x.steady_first = "), 1) << stmt;
    EXPECT_GE(count_of(stmt, "likely("), 1) << stmt;

    // An update reading the values it stores: the condition's bound is not fixed over the loop.
    Func scan("lp_scan");
    RDom s(1, 39, "s");
    scan(x) = in(x) % 50;
    scan(s) = select(likely(s.x < scan(s.x - 1) + 60), scan(s.x - 1) + 1, scan(s));
    Buffer<> d = scan.realize({40});
    EXPECT_TRUE(matches_reference(scan, d));
}

// Bounds at the ends of int32: the limits of the steady state are computed in 64 bits, so a
// condition near INT32_MIN or INT32_MAX cannot wrap into a range where it fails.
TEST(LikelyPartition, BoundsAtTheEndsOfInt32) {
    Param<int> lo("lp_lo"), hi("lp_hi");
    Func f("lp_ends"), strict("lp_strict");
    RDom r(0, 4, "r");
    f(x) = 0;
    f(x) += select(likely(x - r >= lo && x + r <= hi), 1, 10);
    f.update().reorder(r, x).unroll(r);
    // Strict comparisons: one less on each side.
    strict(x) = 0;
    strict(x) += select(likely(x - r > lo && x + r < hi), 1, 10);
    strict.update().reorder(r, x).unroll(r);
    for (auto [l, h] : {std::pair<int, int>{INT_MIN, INT_MAX},
                        {INT_MAX - 3, INT_MAX},
                        {INT_MIN, INT_MIN + 1},
                        {3, 20},
                        {30, 2}}) {
        lo.set(l);
        hi.set(h);
        for (Func *g : {&f, &strict}) {
            Buffer<> out = g->realize({37});
            EXPECT_TRUE(matches_reference(*g, out)) << g->name() << " [" << l << ", " << h << "]";
        }
    }
}

// Vectorized: the condition tests each lane of a vector of pixels (a ramp); the steady state
// is where every lane of every tap is inside.
TEST(LikelyPartition, VectorLanes) {
    ImageParam in(UInt(8), 3, "lp_rgb");
    in.set(random_buffer(UInt(8), {3, 50, 6}, 7));
    Func ext = BoundaryConditions::constant_exterior(in, 9);
    Func f("lp_lanes");
    f(c, x, y) = cast<uint16_t>(ext(c, x - 2, y)) + ext(c, x + 3, y - 1) + ext(c, x, y + 1);
    f.reorder(x, c, y).vectorize(x, 16);
    for (int width : {5, 16, 50, 70}) {
        Buffer<> out(UInt(16), {3, width, 6});
        out.translate(1, -4);
        f.realize(out);
        EXPECT_TRUE(matches_reference(f, out)) << "width " << width;
    }
    EXPECT_GE(count_of(f.lowered_stmt(), "lp_lanes.s0.y.steady_first = "), 1);
}

// A parallel loop over rows is partitioned too, into one parallel loop whose tasks pick the
// steady body or the edge body (three parallel loops would fork and join three times): rows of a
// stencil in parallel over a boundary condition, the most common schedule there is. Results at
// every size and thread count; the steady body has no test left.
TEST(LikelyPartition, ParallelRowsTakeTheSteadyBodyInsideOneParallelLoop) {
    ImageParam in(Float(32), 2, "lp_par_in");
    in.set(random_buffer(Float(32), {37, 23}, 8));
    Func zero = BoundaryConditions::constant_exterior(in, 0.25f);
    Func f("lp_par");
    f(x, y) = zero(x - 1, y - 1) + 2.0f * zero(x, y) - zero(x + 1, y + 2);
    f.parallel(y).vectorize(x, 8);
    for (int threads : {1, 3}) {
        dsl_set_num_threads(threads);
        for (int height : {1, 2, 5, 23, 30}) {
            Buffer<> out(Float(32), {37, height});
            out.translate(1, -3);
            f.realize(out);
            EXPECT_TRUE(matches_reference(f, out)) << "height " << height << ", " << threads;
        }
    }
    dsl_set_num_threads(0);
    std::string stmt = f.lowered_stmt();
    EXPECT_GE(count_of(stmt, "lp_par.s0.y.steady_first = "), 1) << stmt;
    // One parallel loop per version of the loop nest (dense rows or not), each testing its row.
    const std::string test = "if (((lp_par.s0.y.steady_first <= lp_par.s0.y) && ";
    EXPECT_GE(count_of(stmt, "parallel for (lp_par.s0.y,"), 1) << stmt;
    EXPECT_EQ(count_of(stmt, "parallel for (lp_par.s0.y,"), count_of(stmt, test)) << stmt;
    // The steady branch (from the test on y to its else) tests fewer likely conditions than
    // the edges' branch (from the else to the next version of the loop nest).
    size_t steady = stmt.find(test);
    ASSERT_NE(steady, std::string::npos) << stmt;
    size_t edges = stmt.find("else {", steady);
    ASSERT_NE(edges, std::string::npos) << stmt;
    size_t end = stmt.find("parallel for", edges);
    const std::string steady_body = stmt.substr(steady, edges - steady);
    const std::string edge_body = stmt.substr(edges, end == std::string::npos ? end : end - edges);
    EXPECT_LT(count_of(steady_body, "likely("), count_of(edge_body, "likely(")) << stmt;
}

}  // namespace
}  // namespace dsl
