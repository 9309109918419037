// Stage::atomic(): updates whose loops over RVars run as vectors although their iterations
// update the same points; the lanes' terms are folded in registers (a VectorReduce) before
// they reach the running value. Also vectorized loops nested in vectorized loops, which such
// schedules make (an RVar of 4 inside 16 output columns: an int8 dot product), and the x86
// dot-product instructions they become. Every result equals a plain C++ loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

bool host_has(Target::Feature f) {
    return get_host_target().has_feature(f);
}

// Halide's vector_reductions: an RVar's loop fused with a split of the pure Var and vectorized,
// so that each vector folds into three places, pairs of lanes into each. Computed right (the
// loop stays scalar: lanes at a repeated place lost their terms before).
TEST(Atomic, LanesFoldingIntoSeveralPlaces) {
    Buffer<uint8_t> in = random_buffer(UInt(8), {256}, 317);
    Var x("x"), xo("xo"), xi("xi");
    RVar rx("rx");
    RDom r(0, 2, "r");
    Func f("atomic_grouped_lanes");
    f(x) = cast<uint8_t>(1);
    f(x) += in(x * 2 + r);
    f.update().split(x, xo, xi, 3).fuse(r, xi, rx).atomic().vectorize(rx);
    // Warned of by name, also when the code comes from the disk cache.
    testing::internal::CaptureStderr();
    Buffer<uint8_t> out = f.realize({96});
    const std::string warning = testing::internal::GetCapturedStderr();
    EXPECT_NE(warning.find("Func \"atomic_grouped_lanes\" update 0"), std::string::npos) << warning;
    EXPECT_NE(warning.find("the vectorized loop \"rx\""), std::string::npos) << warning;
    EXPECT_NE(warning.find("stays a serial loop"), std::string::npos) << warning;
    for (int i = 0; i < 96; i++)
        ASSERT_EQ(out(i), static_cast<uint8_t>(1 + in(2 * i) + in(2 * i + 1))) << "at " << i;
}

TEST(Atomic, SumOfOneRVarAsVectorsWithATail) {
    const int n = 45;  // 5 vectors of 8 and a tail of 5
    Buffer<int32_t> in = random_buffer(Int(32), {n}, 301);
    RDom r(0, n, "r");
    Func total("atomic_total");
    total() = 7;
    total() += in(r);
    total.update().atomic().vectorize(r, 8);
    Buffer<int32_t> out = total.realize();
    int32_t expected = 7;
    for (int i = 0; i < n; i++)
        expected += in(i);
    EXPECT_EQ(out(), expected);
    std::string stmt = total.lowered_stmt();
    EXPECT_NE(stmt.find("vector_reduce"), std::string::npos) << stmt;
}

TEST(Atomic, MinMaxAndSubtractionOverAVectorizedRVar) {
    const int n = 37, w = 6;
    Buffer<int16_t> in = random_buffer(Int(16), {n, w}, 302);
    Var x("x");
    RDom r(0, n, "r");
    Func lo("atomic_lo"), hi("atomic_hi"), down("atomic_down");
    lo(x) = int16_t(100);
    lo(x) = min(lo(x), in(r, x));
    hi(x) = int16_t(-100);
    hi(x) = max(hi(x), in(r, x));
    down(x) = 1000;
    down(x) -= cast<int32_t>(in(r, x));
    for (Func *f : {&lo, &hi, &down})
        f->update().atomic().vectorize(r, 16);
    Buffer<int16_t> a = lo.realize({w}), b = hi.realize({w});
    Buffer<int32_t> c = down.realize({w});
    for (int j = 0; j < w; j++) {
        int16_t mn = 100, mx = -100;
        int32_t d = 1000;
        for (int i = 0; i < n; i++) {
            mn = std::min<int16_t>(mn, in(i, j));
            mx = std::max<int16_t>(mx, in(i, j));
            d -= in(i, j);
        }
        EXPECT_EQ(a(j), mn) << j;
        EXPECT_EQ(b(j), mx) << j;
        EXPECT_EQ(c(j), d) << j;
    }
}

TEST(Atomic, FloatSumsWithinRounding) {
    const int n = 100, w = 20;
    Buffer<float> in = random_buffer(Float(32), {n, w}, 303);
    Var x("x");
    RDom r(0, n, "r");
    Func f("atomic_float_sum");
    f(x) = 0.0f;
    f(x) += in(r, x) * in(r, x);
    f.update().atomic().vectorize(r, 8).vectorize(x, 4);
    Buffer<float> out = f.realize({w});
    EXPECT_TRUE(matches_reference(f, out, 1e-5));
}

// The RVar's lanes inside the pure Var's: each output lane folds its own four terms.
TEST(Atomic, RVarLanesInsideVectorizedColumns) {
    const int k = 12, w = 40;  // 40 columns: 2 vectors of 16 and a tail of 8
    Buffer<int32_t> a = random_buffer(Int(32), {k, w}, 304);
    Var x("x");
    RDom r(0, k, "r");
    Func f("atomic_inner_rvar");
    f(x) = x;
    f(x) += a(r, x) * (r + 1);
    f.update().atomic().split(r, r, Var("ri"), 4).reorder(Var("ri"), x, r);
    f.update().vectorize(Var("ri")).vectorize(x, 16);
    Buffer<int32_t> out = f.realize({w});
    for (int j = 0; j < w; j++) {
        int32_t e = j;
        for (int i = 0; i < k; i++)
            e += a(i, j) * (i + 1);
        EXPECT_EQ(out(j), e) << j;
    }
    EXPECT_TRUE(matches_reference(f, out));
}

// A vectorized RVar loop outside a vectorized pure loop with a partial tile, under a where()
// on the RVar: the inner vector's mask names the RVar's loop, whose lanes then decide which
// terms count and which places are stored (fuzz case 40122 left that name unbound).
TEST(Atomic, InnerVectorMaskNamingTheRVarLoop) {
    Var x("x"), y("y");
    Buffer<uint16_t> in = random_buffer(UInt(16), {64, 40}, 313);
    Func f("atomic_masked_min");
    f(x, y) = cast<uint16_t>(x * 100);
    RDom r(-2, 2, -1, 3, "r");
    r.where(r.x <= x % 3 - 1);
    f(x, y) = min(f(x, y), in(x + r.x + 4, y + r.y + 4));
    f.update(0).reorder({y, x, r.x, r.y});
    f.update(0).vectorize(x, 16, TailStrategy::PartialTile);
    f.update(0).atomic().vectorize(r.x, 4);
    Buffer<uint16_t> out = f.realize({40, 18});
    EXPECT_TRUE(matches_reference(f, out));
}

// The RVar's lanes outside the pure Var's: lanes k * 8 + i belong to column i.
TEST(Atomic, VectorizedRVarOutsideVectorizedColumns) {
    const int k = 4, w = 24;
    Buffer<int32_t> a = random_buffer(Int(32), {w, k}, 305);
    Var x("x");
    RDom r(0, k, "r");
    Func f("atomic_outer_rvar");
    f(x) = 3;
    f(x) += a(x, r);
    f.update().atomic().reorder(x, r).vectorize(x, 8).vectorize(r);
    Buffer<int32_t> out = f.realize({w});
    for (int j = 0; j < w; j++) {
        int32_t e = 3;
        for (int i = 0; i < k; i++)
            e += a(j, i);
        EXPECT_EQ(out(j), e) << j;
    }
}

TEST(Atomic, NestedVectorizedPureLoops) {
    const int w = 19, h = 10;  // tails in both
    Buffer<uint8_t> in = random_buffer(UInt(8), {w + 1, h}, 306);
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func f("nested_vectors");
    f(x, y) = cast<uint16_t>(in(x, y)) * 3 + in(x + 1, y) + cast<uint16_t>(y);
    f.tile(x, y, xi, yi, 8, 4).vectorize(xi).vectorize(yi);
    Buffer<uint16_t> out = f.realize({w, h});
    for (int j = 0; j < h; j++) {
        for (int i = 0; i < w; i++)
            EXPECT_EQ(out(i, j), in(i, j) * 3 + in(i + 1, j) + j) << i << ", " << j;
    }
    EXPECT_EQ(f.lowered_stmt().find("for (yi"), std::string::npos) << f.lowered_stmt();
}

/// C(x, y) = sum over k of i32(A(k, y)) * i32(B(k % 4, x, k / 4)): u8 activations, i8 weights
/// packed four k at a time per column, the dot product's layout.
Func int8_dot(const std::string &name, const Buffer<uint8_t> &a, const Buffer<int8_t> &b,
              int columns) {
    int k = a.dim(0).extent();
    Var x("x"), y("y"), t("t"), xo("xo");
    RDom r(0, 4, 0, k / 4, "r");
    Func c(name);
    c(x, y) = 0;
    c(x, y) += cast<int32_t>(a(r.y * 4 + r.x, y)) * cast<int32_t>(b(r.x, x, r.y));
    c.bound(x, 0, columns);
    c.update().atomic().split(x, xo, x, 16).reorder(r.x, x, r.y, xo, y).vectorize(r.x).vectorize(x);
    return c;
}

void check_int8_dot(Func c, const Buffer<uint8_t> &a, const Buffer<int8_t> &b, int columns) {
    int k = a.dim(0).extent(), rows = a.dim(1).extent();
    Buffer<int32_t> out = c.realize({columns, rows});
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < columns; x++) {
            int32_t e = 0;
            for (int i = 0; i < k; i++)
                e += int32_t(a(i, y)) * int32_t(b(i % 4, x, i / 4));
            ASSERT_EQ(out(x, y), e) << x << ", " << y;
        }
    }
}

TEST(Atomic, Int8DotProductMatchesALoop) {
    const int k = 64, rows = 5, columns = 32;
    Buffer<uint8_t> a(k, rows);
    Buffer<int8_t> b(4, columns, k / 4);
    // The extremes too: 255 * -128 four times per lane must not saturate.
    a.for_each_element([&](int i, int j) {
        a(i, j) = uint8_t((i * 37 + j * 11) % 7 == 0 ? 255 : (i * 13 + j * 5) % 256);
    });
    b.for_each_element([&](int t, int x, int i) {
        b(t, x, i) =
            int8_t((t + x * 3 + i * 7) % 5 == 0 ? -128 : (t * 31 + x * 17 + i) % 256 - 128);
    });
    check_int8_dot(int8_dot("int8_dot_host", a, b, columns), a, b, columns);
}

TEST(Atomic, Int8DotProductIsVpdpbusdWithVnni) {
    Buffer<uint8_t> a(64, 4);
    Buffer<int8_t> b(4, 32, 16);
    std::string s = test::assembly_of(int8_dot("int8_dot_vnni", a, b, 32),
                                      Target("x86-64-linux-avx512-avx512_vnni"));
    EXPECT_NE(s.find("vpdpbusd"), std::string::npos) << "no vpdpbusd";
    EXPECT_NE(s.find("%zmm"), std::string::npos);
    // Without VNNI, pairs of 16-bit products are summed by vpmaddwd.
    std::string p =
        test::assembly_of(int8_dot("int8_dot_avx512", a, b, 32), Target("x86-64-linux-avx512"));
    EXPECT_EQ(p.find("vpdpbusd"), std::string::npos);
    EXPECT_NE(p.find("vpmaddwd"), std::string::npos) << "no vpmaddwd";
}

TEST(Atomic, Int8DotProductOnEveryX86Level) {
    const int k = 32, rows = 3, columns = 48;
    Buffer<uint8_t> a = random_buffer(UInt(8), {k, rows}, 307);
    Buffer<int8_t> b = random_buffer(Int(8), {4, columns, k / 4}, 308);
    for (const char *t : {"x86-64-linux-sse41", "x86-64-linux-avx2", "x86-64-linux-avx512",
                          "x86-64-linux-avx512-avx512_vnni"}) {
        Target target(t);
        if (!host_has(Target::Feature::AVX512_VNNI) &&
            target.has_feature(Target::Feature::AVX512_VNNI))
            continue;
        if (!host_has(Target::Feature::AVX512) && target.has_feature(Target::Feature::AVX512))
            continue;
        Func c = int8_dot(std::string("int8_dot_") + (t + 13), a, b, columns);
        c.compile_jit(target);
        SCOPED_TRACE(t);
        check_int8_dot(c, a, b, columns);
    }
}

TEST(AtomicErrors, NamesTheFuncAndTheFix) {
    Var x("x");
    RDom r(0, 10, "r");
    Func f("not_associative");
    f(x) = 1;
    f(x) = f(x) * 2 + r;
    std::string m = test::message_of([&] { f.update().atomic(); });
    EXPECT_CONTAINS(m, "not_associative");
    EXPECT_CONTAINS(m, "atomic(true)");
    // A pure definition writes each point once: atomic() applies to updates only.
    Func g("pure_only");
    g(x) = x;
    Param<int> p("p");
    std::string pure = test::message_of([&] { g.specialize(p > 0).atomic(); });
    EXPECT_CONTAINS(pure, "pure_only");
    EXPECT_CONTAINS(pure, "applies to an update");
}

// Threads updating the same points: a histogram (one atomicrmw add per pixel), a float sum
// (atomicrmw fadd), a product and a float maximum (compare-and-swap loops).
TEST(AtomicParallel, HistogramSumProductAndMaximumOnThreads) {
    const int n = 20000;
    Buffer<int32_t> in = random_buffer(Int(32), {n}, 310);
    Buffer<float> v = random_buffer(Float(32), {n}, 311);
    Var x("x");
    RDom r(0, n, "r");
    Func hist("atomic_hist"), total("atomic_float_total"), prod("atomic_prod"), top("atomic_top");
    hist(x) = 0;
    hist(clamp(in(r), 0, 31)) += 1;
    total() = 0.0f;
    total() += v(r);
    prod(x) = 1;
    RDom s(0, 60, "s");
    prod(s % 4) *= select(in(s) % 2 == 0, 2, -1);
    top(x) = -1000.0f;
    top(clamp(in(r), 0, 7)) = max(top(clamp(in(r), 0, 7)), v(r));
    Var ro("ro"), so("so");
    hist.update().atomic().parallel(r, 64);
    total.update().atomic().parallel(r, 64);
    prod.update().atomic().parallel(s, 4);
    top.update().atomic().parallel(r, 64);
    std::vector<int32_t> h(32, 0), p(4, 1);
    std::vector<float> t(8, -1000.0f);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        h[std::clamp(in(i), 0, 31)]++;
        sum += v(i);
        t[std::clamp(in(i), 0, 7)] = std::max(t[std::clamp(in(i), 0, 7)], v(i));
    }
    for (int i = 0; i < 60; i++)
        p[i % 4] *= in(i) % 2 == 0 ? 2 : -1;
    for (int threads : {1, 4}) {
        dsl_set_num_threads(threads);
        Buffer<int32_t> hb = hist.realize({32}), pb = prod.realize({4});
        Buffer<float> sb = total.realize(), tb = top.realize({8});
        for (int i = 0; i < 32; i++)
            EXPECT_EQ(hb(i), h[i]) << i << ", " << threads << " threads";
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(pb(i), p[i]) << i;
        for (int i = 0; i < 8; i++)
            EXPECT_EQ(tb(i), t[i]) << i;
        EXPECT_NEAR(sb(), sum, 1e-3 * n);
    }
    dsl_set_num_threads(0);
    EXPECT_NE(hist.lowered_stmt().find("atomic atomic_hist"), std::string::npos);
    std::string ir = test::llvm_ir_of(hist, get_host_target());
    EXPECT_NE(ir.find("atomicrmw add"), std::string::npos);
    ir = test::llvm_ir_of(prod, get_host_target());
    EXPECT_NE(ir.find("cmpxchg"), std::string::npos);
}

// atomic(true) skips the associativity test: f = 2 f + 1 applied once per iteration gives the
// same result in any order, though it is not a fold; each application is a compare-and-swap.
TEST(AtomicParallel, OverriddenAssociativityTestRunsAsCompareAndSwap) {
    Var x("x");
    RDom r(0, 20, "r");
    Func f("atomic_override");
    f(x) = x;
    f(r % 2) = f(r % 2) * 2 + 1;
    f.update().atomic(true).parallel(r);
    dsl_set_num_threads(4);
    Buffer<int32_t> out = f.realize({3});
    dsl_set_num_threads(0);
    EXPECT_EQ(out(0), (1 << 10) - 1);
    EXPECT_EQ(out(1), (2 << 10) - 1);
    EXPECT_EQ(out(2), 2);
}

// A value that does not read the Func is a plain store, atomic by itself: accepted without
// atomic(true). Here every iteration that reaches a point stores the same value.
TEST(AtomicParallel, PlainStoresOfAValueThatDoesNotReadTheFunc) {
    Var x("x"), b("b");
    RDom r(0, 100, "r");
    Func squares("atomic_squares"), seen("atomic_seen");
    squares(x) = x * x;
    squares.compute_root();
    seen(b, x) = 0;
    seen(squares(r) % 10, x) = squares(x);
    seen.update().atomic().parallel(r).parallel(x);
    dsl_set_num_threads(4);
    Buffer<int32_t> out = seen.realize({10, 8});
    dsl_set_num_threads(0);
    auto check = [](const Buffer<int32_t> &result) {
        for (int j = 0; j < 8; j++) {
            for (int i = 0; i < 10; i++) {
                bool square_digit = i == 0 || i == 1 || i == 4 || i == 5 || i == 6 || i == 9;
                EXPECT_EQ(result(i, j), square_digit ? j * j : 0) << i << ", " << j;
            }
        }
    };
    check(out);
    // Lanes of a vectorized loop over r that scatter to the same bin, as in Halide's
    // parallel_scatter: accepted for a plain store.
    Func seen2("atomic_seen_lanes");
    RVar ro("ro"), ri("ri");
    seen2(b, x) = 0;
    seen2(squares(r) % 10, x) = squares(x);
    seen2.update().split(r, ro, ri, 8).reorder(ro, x, ri).atomic().parallel(ri).vectorize(ro);
    check(seen2.realize({10, 8}));
}

// A vectorized histogram's lanes may scatter to the same bin in one vector: refused as without
// atomic() (its loop may run on threads instead).
TEST(AtomicErrors, AVectorizedScatterIsRefused) {
    Buffer<int32_t> in = random_buffer(Int(32), {64}, 312);
    Var x("x");
    RDom r(0, 64, "r");
    Func h("atomic_vector_histogram");
    h(x) = 0;
    h(clamp(in(r), 0, 7)) += 1;
    h.update().atomic().vectorize(r, 8);
    std::string m = test::message_of([&] { h.realize({8}); });
    EXPECT_CONTAINS(m, "atomic_vector_histogram");
    EXPECT_CONTAINS(m, "may write the same point");
}

TEST(AtomicErrors, ParallelTupleUpdatesAreRefused) {
    Buffer<int32_t> in = random_buffer(Int(32), {30}, 309);
    RDom r(0, 30, "r");
    Func h("atomic_tuple_total");
    h() = Tuple(0, 0);
    h() = Tuple(h()[0] + in(r), h()[1] + 1);
    h.update().atomic().parallel(r);
    std::string m = test::message_of([&] { h.realize(); });
    EXPECT_CONTAINS(m, "atomic_tuple_total");
    EXPECT_CONTAINS(m, "Tuple");
}

}  // namespace
}  // namespace dsl
