// rfactor: an associative reduction split into partial results (a new Func whose loops over
// the kept RVars may run in parallel or as vectors) and their fold gives the same values as a
// plain C++ loop over the same points.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

using test::random_buffer;

TEST(RFactor, SumOverA2DDomainWithParallelVectorizedPartials) {
    const int width = 37, height = 23;  // 37 is not a multiple of the vector width 8
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 101);
    Func total("total");
    RDom r(0, width, 0, height, "r");
    total() = 0;
    total() += in(r.x, r.y);

    RVar rxo("rxo"), rxi("rxi");
    Var u("u"), v("v");
    total.update().split(r.x, rxo, rxi, 8);
    Func partial = total.update().rfactor({{rxi, u}, {r.y, v}});
    EXPECT_EQ(partial.name(), "total_intm");
    EXPECT_EQ(partial.dimensions(), 2);
    partial.compute_root().vectorize(u, 8).parallel(v);
    partial.update().vectorize(u).parallel(v);
    EXPECT_EQ(partial.update().loops(), "rxo, u, v");

    int64_t expected = 0;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++)
            expected += in(x, y);
    }
    for (int threads : {1, 3}) {
        dsl_set_num_threads(threads);
        Buffer<int32_t> out = total.realize(std::vector<int>{});
        EXPECT_EQ(out(), expected) << threads << " threads";
    }
    dsl_set_num_threads(0);
    std::string nest = total.loop_nest();
    EXPECT_NE(nest.find("produce total_intm"), std::string::npos) << nest;
    EXPECT_NE(nest.find("parallel for total_intm.s1.v"), std::string::npos) << nest;
    EXPECT_NE(nest.find("vectorized for total_intm.s1.u:"), std::string::npos) << nest;
}

TEST(RFactor, SumOverASplit1DDomainKeepingTheInnerRVar) {
    const int n = 1003;  // not a multiple of 16
    Buffer<int32_t> in = random_buffer(Int(32), {n}, 102);
    Func total("total_1d");
    RDom r(0, n, "r");
    total() = 5;
    total() += in(r);

    RVar rxo("rxo"), rxi("rxi");
    Var u("u");
    total.update().split(r, rxo, rxi, 16);
    Func partial = total.update().rfactor(rxi, u);
    partial.update().vectorize(u);  // u runs over [0, 16): a constant extent

    int64_t expected = 5;
    for (int i = 0; i < n; i++)
        expected += in(i);
    Buffer<int32_t> out = total.realize(std::vector<int>{});
    EXPECT_EQ(out(), expected);
    EXPECT_NE(total.lowered_stmt().find("ramp("), std::string::npos);
}

TEST(RFactor, DomainSizeKnownOnlyWhenThePipelineRuns) {
    Buffer<float> in = random_buffer(Float(32), {100}, 108);
    Param<int> count("count", 10);
    Func total("param_total");
    RDom r(0, count, "r");
    total() = 0.0f;
    total() += in(r);
    RVar ro("ro"), ri("ri");
    Var u("u");
    total.update().split(r, ro, ri, 8);
    total.update().rfactor(ri, u).update().vectorize(u);
    for (int n : {1, 8, 37, 100}) {
        count.set(n);
        float expected = 0.0f;
        for (int i = 0; i < n; i++)
            expected += in(i);
        Buffer<float> out = total.realize(std::vector<int>{});
        EXPECT_NEAR(out(), expected, 1e-4f * (1 + std::abs(expected))) << n << " points";
    }
}

TEST(RFactor, ColumnSumsKeepAPureVarAndSplitTheRVar) {
    const int width = 13, height = 29;
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 103);
    Func sums("column_sums_rf");
    Var x("x"), u("u");
    RDom r(0, height, "r");
    sums(x) = 0;
    sums(x) += in(x, r);

    RVar ro("ro"), ri("ri");
    sums.update().split(r, ro, ri, 4);  // 29 = 7 * 4 + 1: a tail
    Func partial = sums.update().rfactor(ro, u);
    partial.compute_root();
    partial.update().parallel(u).vectorize(x, 8);

    Buffer<int32_t> out = sums.realize({width});
    EXPECT_TRUE(test::matches_reference(sums, out));  // the rewritten definitions, too
    for (int i = 0; i < width; i++) {
        int expected = 0;
        for (int y = 0; y < height; y++)
            expected += in(i, y);
        EXPECT_EQ(out(i), expected) << "column " << i;
    }
}

TEST(RFactor, ArgmaxKeepsTheFirstOfEqualValues) {
    const int width = 19, height = 11;
    // Small values: many ties, so the order in which partial results are folded matters.
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 104);
    Func best("argmax_rf");
    RDom r(0, width, 0, height, "r");
    // The shape the library's argmax() gives: (index x, index y, value), replaced when better.
    best() = Tuple{0, 0, type_min(Int(32))};
    Expr value = in(r.x, r.y);
    Expr better = value > best()[2];
    best() = Tuple{select(better, r.x, best()[0]), select(better, r.y, best()[1]),
                   select(better, value, best()[2])};

    Var v("v");
    Func partial = best.update().rfactor(r.y, v);
    partial.compute_root().update().parallel(v);

    int best_x = 0, best_y = 0, best_value = INT_MIN;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            if (in(x, y) > best_value) best_x = x, best_y = y, best_value = in(x, y);
        }
    }
    dsl_set_num_threads(3);
    Realization out = best.realize(std::vector<int>{});
    dsl_set_num_threads(0);
    EXPECT_EQ(Buffer<int32_t>(out[0])(), best_x);
    EXPECT_EQ(Buffer<int32_t>(out[1])(), best_y);
    EXPECT_EQ(Buffer<int32_t>(out[2])(), best_value);
}

TEST(RFactor, MinimumAndMaximumWithTheRunningValueOnEitherSide) {
    const int width = 21, height = 14;
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 105);
    RDom r(0, width, 0, height, "r");
    Func lo("minimum_rf"), hi("maximum_rf");
    lo() = type_max(Int(32));
    lo() = min(lo(), in(r.x, r.y));
    hi() = type_min(Int(32));
    hi() = max(in(r.x, r.y) * 3, hi());
    Var u("u"), v("v");
    lo.update().rfactor(r.y, v).update().parallel(v);
    Func hi_partial = hi.update().rfactor(r.x, u);
    hi_partial.update().vectorize(u, 8);

    int expected_lo = INT_MAX, expected_hi = INT_MIN;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            expected_lo = std::min(expected_lo, in(x, y));
            expected_hi = std::max(expected_hi, in(x, y) * 3);
        }
    }
    EXPECT_EQ(Buffer<int32_t>(lo.realize(std::vector<int>{}))(), expected_lo);
    EXPECT_EQ(Buffer<int32_t>(hi.realize(std::vector<int>{}))(), expected_hi);
}

TEST(RFactor, ProductDifferenceAndBitwiseUpdates) {
    const int n = 45;
    Buffer<int32_t> in = random_buffer(Int(32), {n}, 106);
    RDom r(0, n, "r");
    Var u("u");
    RVar ro("ro"), ri("ri");
    Func product("product_rf"), difference("difference_rf"), bits_and("and_rf"), bits_or("or_rf"),
        bits_xor("xor_rf");
    product() = cast<uint32_t>(1);
    product() *= cast<uint32_t>(in(r) % 3 + 2);  // unsigned: wraps like the C++ loop below
    difference() = 1000;
    difference() -= in(r);
    bits_and() = -1;
    bits_and() = bits_and() & (in(r) + 64);
    bits_or() = 0;
    bits_or() = (in(r)*17) | bits_or();
    bits_xor() = 0;
    bits_xor() = bits_xor() ^ (in(r)*1001);
    for (Func *f : {&product, &difference, &bits_and, &bits_or, &bits_xor}) {
        f->update().split(r, ro, ri, 8);
        f->update().rfactor(ri, u).update().vectorize(u);
    }

    uint32_t expected_product = 1;
    int32_t expected_difference = 1000, expected_and = -1, expected_or = 0, expected_xor = 0;
    for (int i = 0; i < n; i++) {
        expected_product *= static_cast<uint32_t>(((in(i) % 3) + 3) % 3 + 2);
        expected_difference -= in(i);
        expected_and &= in(i) + 64;
        expected_or |= in(i)*17;
        expected_xor ^= in(i)*1001;
    }
    EXPECT_EQ(Buffer<uint32_t>(product.realize(std::vector<int>{}))(), expected_product);
    EXPECT_EQ(Buffer<int32_t>(difference.realize(std::vector<int>{}))(), expected_difference);
    EXPECT_EQ(Buffer<int32_t>(bits_and.realize(std::vector<int>{}))(), expected_and);
    EXPECT_EQ(Buffer<int32_t>(bits_or.realize(std::vector<int>{}))(), expected_or);
    EXPECT_EQ(Buffer<int32_t>(bits_xor.realize(std::vector<int>{}))(), expected_xor);
}

TEST(RFactor, HistogramOverRowsKeepsTheRowRVar) {
    // The bins depend on r.x only, so the rows (r.y) can become a pure Var of the partial
    // histograms, one per row, computed in parallel.
    const int width = 40, height = 9, bins = 8;
    Buffer<int32_t> in = random_buffer(Int(32), {width}, 107);
    Func hist("row_histogram");
    Var x("x"), v("v");
    RDom r(0, width, 0, height, "r");
    hist(x) = 0;
    hist(clamp(in(r.x), 0, bins - 1)) += r.y + 1;
    Func partial = hist.update().rfactor(r.y, v);
    partial.compute_root().update().parallel(v);

    Buffer<int32_t> out = hist.realize({bins});
    std::vector<int> expected(bins, 0);
    for (int y = 0; y < height; y++) {
        for (int x0 = 0; x0 < width; x0++)
            expected[std::clamp(in(x0), 0, bins - 1)] += y + 1;
    }
    for (int b = 0; b < bins; b++)
        EXPECT_EQ(out(b), expected[b]) << "bin " << b;
}

TEST(RFactor, HistogramOfAnImageKeepsARVarItsBinsDependOn) {
    // The bin of each pixel is read from the pixel, so it depends on both RVars; keeping the
    // rows (or strips of rows) makes a histogram per row, whose bin is computed from that row's
    // own Var: partial(in(r.x, v), v) += 1. Each is computed in parallel, then they are summed.
    const int width = 37, height = 50, bins = 16;
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 109);
    std::vector<int> expected(bins, 0);
    for (int y = 0; y < height; y++) {
        for (int x0 = 0; x0 < width; x0++)
            expected[std::clamp(in(x0, y) + 8, 0, bins - 1)] += 1;
    }
    for (bool strips : {false, true}) {
        Func hist(strips ? "strip_histogram" : "image_histogram");
        Var x("x"), v("v");
        RDom r(0, width, 0, height, "r");
        hist(x) = 0;
        hist(clamp(in(r.x, r.y) + 8, 0, bins - 1)) += 1;
        Func partial;
        if (strips) {
            RVar ryo("ryo"), ryi("ryi");
            hist.update().split(r.y, ryo, ryi, 8);  // 50 rows: the last strip is partial
            partial = hist.update().rfactor(ryo, v);
        } else {
            partial = hist.update().rfactor(r.y, v);
        }
        partial.compute_root().update().parallel(v);
        Buffer<int32_t> out = hist.realize({bins});
        for (int b = 0; b < bins; b++)
            EXPECT_EQ(out(b), expected[b]) << hist.name() << ", bin " << b;
        EXPECT_TRUE(test::matches_reference(hist, out)) << hist.name();
    }
}

TEST(RFactor, KeepingNoRVarMovesTheReductionIntoAFuncOfItsOwn) {
    // Halide's way to fuse two reductions of one Func: each update's whole reduction moves into
    // a Func of its own (rfactor({})), and those two loops are fused with compute_with.
    Func f0("nk_f0"), f1("nk_f1"), cost("nk_cost");
    Var x("x");
    f0(x) = x;
    f1(x) = x * 3;
    RDom r(0, 100, "r");
    cost() = 0;
    cost() += f0(r.x);
    cost() += f1(r.x);
    f0.compute_root();
    f1.compute_root();
    Func t0 = cost.update(0).rfactor({});
    Func t1 = cost.update(1).rfactor({});
    EXPECT_EQ(t0.dimensions(), 0);
    EXPECT_EQ(t0.name(), "nk_cost_intm");
    EXPECT_EQ(t1.name(), "nk_cost_intm1");
    t0.compute_root();
    t1.compute_root();
    t0.update().compute_with(t1.update(), r.x);
    Buffer<int32_t> out = cost.realize(std::vector<int>{});
    EXPECT_EQ(out(), 4950 + 3 * 4950);
    EXPECT_TRUE(test::matches_reference(cost, out));
    const std::string nest = cost.loop_nest();
    EXPECT_NE(nest.find("produce nk_cost_intm"), std::string::npos) << nest;
    // One loop over r.x updates both.
    EXPECT_NE(nest.find("for nk_cost_intm1.s1.r.x"), std::string::npos) << nest;
    EXPECT_EQ(nest.find("for nk_cost_intm.s1.r.x"), std::string::npos) << nest;

    // A histogram: every bin of the new Func, then each added to the original's.
    const int width = 19, height = 7, bins = 8;
    Buffer<int32_t> in = random_buffer(Int(32), {width, height}, 113);
    Func hist("nk_histogram");
    RDom p(0, width, 0, height, "p");
    hist(x) = 100;
    hist(clamp(in(p.x, p.y) + 4, 0, bins - 1)) += 1;
    Func partial = hist.update().rfactor({});
    EXPECT_EQ(partial.dimensions(), 1);
    partial.compute_root();
    Buffer<int32_t> h = hist.realize({bins});
    std::vector<int> expected(bins, 100);
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++)
            expected[std::clamp(in(i, j) + 4, 0, bins - 1)] += 1;
    }
    for (int b = 0; b < bins; b++)
        EXPECT_EQ(h(b), expected[b]) << "bin " << b;
}

}  // namespace
}  // namespace dsl
