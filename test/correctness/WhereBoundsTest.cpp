// RDom where() conditions that bound a loop (src/lowering/ScheduleFunctions.cpp with
// LinearBounds): each part of the condition goes just inside the innermost loop it depends on,
// and a part that bounds that loop's variable linearly starts or ends the loop instead of being
// tested in it. Results are compared with the reference evaluator, for bounds that empty the
// loop, cover it, cut it at either end, and lie at the ends of int32.
#include <gtest/gtest.h>

#include <climits>
#include <regex>
#include <string>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

Var x("x"), y("y");

/// Whether some `if` of the lowered statement tests the variable `name`.
bool some_if_tests(const std::string &stmt, const std::string &name) {
    std::regex test("if \\([^\\n]*" + std::regex_replace(name, std::regex("\\."), "\\.") +
                    "[^\\n]*\\{");
    return std::regex_search(stmt, test);
}

// (Also the plain case of a two-dimensional reduction with where().)
TEST(WhereBounds, TriangularDomainRunsOnlyTheTriangle) {
    Buffer<> in = random_buffer(Int(32), {10, 10}, 3);
    Func f("wb_triangle");
    RDom r(0, 10, 0, 10, "r");
    r.where(r.x <= r.y);
    f(x) = x;
    f(x) += Func(in)(r.x, r.y) * (x + 1);
    Buffer<int> out = f.realize({3});
    EXPECT_TRUE(matches_reference(f, out));
    std::string stmt = f.lowered_stmt();
    // r.x's loop ends at r.y: no test of r.x is left in it.
    EXPECT_FALSE(some_if_tests(stmt, "wb_triangle.s1.r.x")) << stmt;
    EXPECT_NE(stmt.find("for (wb_triangle.s1.r.x, 0, (wb_triangle.s1.r.y + 1))"), std::string::npos)
        << stmt;
}

TEST(WhereBounds, LowerAndUpperBoundsFromParamsWithCoefficients) {
    Buffer<> in = random_buffer(Int(32), {40}, 4);
    Param<int> lo("wb_lo"), hi("wb_hi");
    Func f("wb_coeff");
    RDom r(-5, 30, "r");
    // 2r + 1 > lo (a lower bound rounded up), 10 - 3r >= hi (an upper bound rounded down).
    r.where(2 * r.x + 1 > lo && 10 - 3 * r.x >= hi);
    f(x) = 0;
    f(x) += Func(in)(r.x + 5) * (x + r.x);
    for (int l : {-100, -20, -9, -8, 0, 3, 4, 50}) {
        for (int h : {-200, -50, -49, -1, 0, 10, 25, 26}) {
            lo.set(l);
            hi.set(h);
            Buffer<int> out = f.realize({4});
            EXPECT_TRUE(matches_reference(f, out)) << "lo " << l << ", hi " << h;
        }
    }
    std::string stmt = f.lowered_stmt();
    EXPECT_FALSE(some_if_tests(stmt, "wb_coeff.s1.r.x")) << stmt;
}

TEST(WhereBounds, BoundsAtTheEndsOfInt32DoNotWrap) {
    Buffer<> in = random_buffer(Int(32), {8}, 5);
    Param<int> p("wb_edge");
    Func below("wb_below"), above("wb_above");
    RDom r(0, 8, "r"), s(0, 8, "s");
    r.where(r.x <= p);  // everything for INT_MAX, nothing for INT_MIN
    s.where(s.x >= p);  // everything for INT_MIN, nothing for INT_MAX
    below(x) = 1;
    below(x) += Func(in)(r.x);
    above(x) = 1;
    above(x) += Func(in)(s.x);
    for (int v : {INT_MIN, INT_MIN + 1, -1, 0, 3, 7, 8, INT_MAX - 1, INT_MAX}) {
        p.set(v);
        Buffer<int> b = below.realize({2}), a = above.realize({2});
        EXPECT_TRUE(matches_reference(below, b)) << v;
        EXPECT_TRUE(matches_reference(above, a)) << v;
    }
}

TEST(WhereBounds, ConditionOnAPureVarAndAnRVarInParallelAndVectorized) {
    Buffer<> in = random_buffer(Float(32), {16, 24}, 6);
    Func f("wb_band");
    RDom r(0, 16, "r");
    // A band: rows y sum the columns within 3 of y. The vector loop over x is not under the
    // bounds, which depend on y and r only.
    r.where(r.x >= y - 3 && r.x <= y + 3);
    f(x, y) = 0.0f;
    f(x, y) += Func(in)(r.x, y) * cast<float>(x + 1);
    f.update().vectorize(x, 8).parallel(y);
    Buffer<float> out = f.realize({16, 24});
    EXPECT_TRUE(matches_reference(f, out, 1e-6));
    std::string stmt = f.lowered_stmt();
    EXPECT_FALSE(some_if_tests(stmt, "wb_band.s1.r.x")) << stmt;
    EXPECT_NE(stmt.find("ramp("), std::string::npos) << "the update was not vectorized";
}

TEST(WhereBounds, ConditionOnAVectorLaneStaysAMask) {
    Buffer<> in = random_buffer(Int(32), {32}, 7);
    Func f("wb_lane");
    RDom r(0, 32, "r");
    r.where(r.x < x);  // the loop over r would depend on the lane of x
    f(x) = 0;
    f(x) += Func(in)(r.x);
    f.update().vectorize(x, 8);
    Buffer<int> out = f.realize({32});
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_NE(f.lowered_stmt().find("ramp("), std::string::npos);
}

TEST(WhereBounds, ProducerComputedInsideTheBoundedLoopKeepsItsWindow) {
    // g slides along r.y inside f's update; a bound on r.y that skipped iterations would leave
    // holes in its window, so the condition stays at the store and the loop runs whole.
    Buffer<> in = random_buffer(Int(32), {12, 12}, 8);
    Func g("wb_rows"), f("wb_slide");
    g(x, y) = Func(in)(x, y) * 2 + 1;
    RDom r(0, 10, 0, 10, "r");
    r.where(r.y >= 4);
    f(x) = 0;
    f(x) += g(r.x, r.y) + g(r.x, r.y + 2);
    g.store_root().compute_at(f, r.y);
    Buffer<int> out = f.realize({2});
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(WhereBounds, ConditionReadingTheFuncStaysAtTheStore) {
    Func f("wb_self");
    RDom r(0, 10, "r");
    f(x) = x;
    r.where(f(r.x) > 3 && r.x >= 2);
    f(r.x) = f(r.x) * 10 + f(max(r.x - 1, 0));
    Buffer<int> out = f.realize({10});
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(WhereBounds, FalseEverywhereRunsNothing) {
    Func f("wb_never");
    Param<int> p("wb_never_p");
    RDom r(0, 10, 0, 5, "r");
    r.where(r.y > p && r.x < r.y - 20);
    f(x) = 7;
    f(x) += r.x + r.y;
    for (int v : {-5, 0, 4}) {
        p.set(v);
        Buffer<int> out = f.realize({3});
        EXPECT_TRUE(matches_reference(f, out)) << v;
        EXPECT_EQ(out(0), 7);
    }
}

// A producer is computed over what the conditions allow of each RVar, taken over the others'
// ranges (Halide's reduction_non_rectangular): with r in [0, 99]^2, 2 * r.x + 30 < r.y and
// r.y >= 100 - r.x keep r.x in [1, 34] and r.y in [66, 99], 34 * 34 points of g rather than
// 100 * 100. Vectorized, where the conditions become masks, the whole domain is kept. An input
// read by a condition is read wherever its loop runs: its region is not narrowed.
TEST(WhereBounds, ProducersAreComputedOverWhatTheConditionsAllow) {
    for (bool vectorized : {false, true}) {
        Func g("wb_g"), f("wb_f");
        g(x, y) = x + y;
        f(x, y) = x + y;
        RDom r(0, 100, 0, 100, "r");
        r.where(2 * r.x + 30 < r.y);
        r.where(r.y >= 100 - r.x);
        f(r.x, r.y) += 2 * g(r.x, r.y);
        g.compute_root();
        if (vectorized) f.update().vectorize(r.x, 8);
        Buffer<int> out = f.realize({120, 110});
        EXPECT_TRUE(matches_reference(f, out));
        // g's loops (min, extent) in the lowered statement.
        std::string stmt = f.lowered_stmt();
        if (vectorized) {
            EXPECT_NE(stmt.find("for (wb_g.s0.x, 0, 100)"), std::string::npos) << stmt;
        } else {
            EXPECT_NE(stmt.find("for (wb_g.s0.x, 1, 34)"), std::string::npos) << stmt;
            EXPECT_NE(stmt.find("for (wb_g.s0.y, 66, 34)"), std::string::npos) << stmt;
        }
    }

    ImageParam mask(Int(32), 1, "wb_mask");
    Func h("wb_h");
    RDom s(0, 100, 0, 100, "s");
    s.where(2 * s.x + 30 < s.y && mask(s.x) > 0);
    h(x) = 0;
    h(s.x) += s.y;
    h.infer_input_bounds({100});
    EXPECT_EQ(mask.get().dim(0).min(), 0);
    EXPECT_EQ(mask.get().dim(0).extent(), 100);
}

}  // namespace
}  // namespace dsl
