// Loops over RVars that run in parallel or as vectors when no two iterations touch the same
// point: the results equal a plain C++ loop (and the reference evaluator).
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

TEST(ParallelRVar, EachIterationUpdatesItsOwnPoint) {
    const int n = 100;
    Buffer<int32_t> in = random_buffer(Int(32), {n}, 201);
    Var x("x");
    RDom r(0, n, "r");
    Func f("own_point_parallel");
    f(x) = x;
    f(r) = f(r) * 2 + in(r);
    f.update().parallel(r);
    for (int threads : {1, 4}) {
        dsl_set_num_threads(threads);
        Buffer<int32_t> out = f.realize({n});
        for (int i = 0; i < n; i++)
            EXPECT_EQ(out(i), i * 2 + in(i)) << i << ", " << threads << " threads";
    }
    dsl_set_num_threads(0);
}

TEST(ParallelRVar, VectorizedWithATail) {
    const int n = 48;
    Buffer<int32_t> in = random_buffer(Int(32), {n}, 202);
    Var x("x");
    RDom r(3, 45, "r");  // 45 = 5 * 8 + 5 points, from 3
    Func f("own_point_vectorized");
    f(x) = x * 10;
    f(r) = f(r) * 2 + in(r);
    f.update().vectorize(r, 8);
    Buffer<int32_t> out = f.realize({n});
    for (int i = 0; i < n; i++)
        EXPECT_EQ(out(i), i < 3 ? i * 10 : i * 20 + in(i)) << i;
    EXPECT_NE(f.lowered_stmt().find("ramp("), std::string::npos);
}

TEST(ParallelRVar, TwoDimensionalUpdateParallelRowsVectorizedColumns) {
    const int width = 28, height = 10;  // 26 updated columns: a tail of 2
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 203);
    Var x("x"), y("y");
    RDom r(1, width - 2, 0, height, "r");
    Func f("own_point_2d");
    f(x, y) = x + y;
    f(r.x, r.y) = f(r.x, r.y) * 3 + in(r.x - 1, r.y) - in(r.x + 1, r.y);
    f.update().parallel(r.y).vectorize(r.x, 4);
    Buffer<int32_t> out = f.realize({width, height});
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            int expected = i + j;
            if (i >= 1 && i < width - 1) expected = expected * 3 + in(i - 1, j) - in(i + 1, j);
            EXPECT_EQ(out(i, j), expected) << i << ", " << j;
        }
    }
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(ParallelRVar, ScaledCoordinateAndSplitLoops) {
    const int n = 30;
    Var x("x");
    RDom r(0, n, "r");
    Func f("scaled_coordinate");
    f(x) = 0;
    Expr k = r;
    f(2 * k + 1) = f(2 * k + 1) + k * k;  // odd points only: distinct for distinct r
    RVar ro("ro"), ri("ri");
    f.update().split(r, ro, ri, 7).parallel(ro).vectorize(ri);
    Buffer<int32_t> out = f.realize({2 * n + 1});
    for (int i = 0; i <= 2 * n; i++)
        EXPECT_EQ(out(i), i % 2 ? (i / 2) * (i / 2) : 0) << i;
}

TEST(ParallelRVar, OuterRVarWritesWhileInnerRVarReduces) {
    // Row sums: each iteration of r.y owns the point f(r.y); r.x reduces inside it.
    const int width = 33, height = 12;
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 204);
    Var y("y");
    RDom r(0, width, 0, height, "r");
    Func f("row_sums_rvar");
    f(y) = 0;
    f(r.y) = f(r.y) + in(r.x, r.y);
    f.update().parallel(r.y);
    dsl_set_num_threads(3);
    Buffer<int32_t> out = f.realize({height});
    dsl_set_num_threads(0);
    for (int j = 0; j < height; j++) {
        int expected = 0;
        for (int i = 0; i < width; i++)
            expected += in(i, j);
        EXPECT_EQ(out(j), expected) << j;
    }
}

// Reads of points no iteration writes (apart in range, or of other remainders, or in another
// row) do not race: these updates run in parallel and vectorized, as they do serially.
TEST(ParallelRVar, ReadsOfPointsNeverWritten) {
    Var x("x"), y("y");
    RDom r(0, 12, 0, 10, "pr_r"), r2(0, 12, "pr_r2");
    Func f[2] = {Func("pr_disjoint_par"), Func("pr_disjoint_ser")};
    for (Func &g : f) {
        g(x, y) = x + y;
        g(r.x, r.y) += g(r.x + 20, r.y);
        g(2 * r2 + 1, 0) += g(2 * r2, 0);
        g(r2, 0) += g(r2 - 1, 1);
    }
    f[0].update(0).parallel(r.y).vectorize(r.x, 4);
    f[0].update(1).vectorize(r2, 4);
    f[0].update(2).parallel(r2);
    // The last update reads x = -1: the outputs start there.
    Buffer<int> par(41, 12), ser(41, 12);
    par.set_min({-1, 0});
    ser.set_min({-1, 0});
    f[0].realize(par);
    f[1].realize(ser);
    for (int j = 0; j < 12; j++) {
        for (int i = -1; i < 40; i++)
            ASSERT_EQ(par(i, j), ser(i, j)) << i << "," << j;
    }
    EXPECT_EQ(ser(0, 1), 1 + 21);  // its own 0 + 1, plus the unchanged (20, 1)
    // A read that overlaps the writes is still refused.
    Func g("pr_overlap");
    g(x) = x;
    g(r2) += g(r2 + 5);
    g.update().parallel(r2);
    std::string message = test::message_of([&] { g.realize({20}); });
    EXPECT_CONTAINS(message, "pr_overlap");
}

}  // namespace
}  // namespace dsl
