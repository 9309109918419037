// Parts of Halide's front-end API that Halide programs use, each checked for what it does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

TEST(HalideApi, BufferShapes) {
    Buffer<int> named(6, 4, "named");
    EXPECT_EQ(named.name(), "named");
    EXPECT_EQ(named.width(), 6);
    Buffer<uint8_t> five(2, 3, 1, 2, 2);
    EXPECT_EQ(five.dimensions(), 5);
    EXPECT_EQ(five.number_of_elements(), 24);
    Buffer<float> scalar = Buffer<float>::make_scalar();
    EXPECT_EQ(scalar.dimensions(), 0);
    scalar() = 2.5f;
    EXPECT_EQ(scalar(), 2.5f);
    std::vector<short> memory(12);
    Buffer<short> wrapped(memory.data(), 4, 3);
    wrapped(3, 2) = 7;
    EXPECT_EQ(memory[11], 7);
}

TEST(HalideApi, BufferCoordinates) {
    Buffer<int> b(5, 3);
    b.fill([](int x, int y) { return x + 10 * y; });
    b.set_min(100, 200);
    EXPECT_EQ(b.min(0), 100);
    EXPECT_EQ(b.extent(0), 5);
    EXPECT_EQ(b.max(1), 202);
    EXPECT_EQ(b.stride(1), 5);
    EXPECT_EQ(b.left(), 100);
    EXPECT_EQ(b.right(), 104);
    EXPECT_EQ(b.top(), 200);
    EXPECT_EQ(b.bottom(), 202);
    EXPECT_EQ(b(102, 201), 12);  // the values stay where they were in memory
    b.translate({-100, -200});
    EXPECT_EQ(b(2, 1), 12);
    b.for_each_value([](int &v) { v *= 2; });
    EXPECT_EQ(b(4, 2), 48);
}

TEST(HalideApi, EvaluateAndLambda) {
    Var x("x"), y("y");
    EXPECT_EQ(evaluate<int>(Expr(6) * 7), 42);
    EXPECT_FLOAT_EQ(evaluate<float>(sqrt(Expr(16.0f))), 4.0f);
    std::string message = test::message_of([&] { evaluate<float>(Expr(3)); });
    EXPECT_CONTAINS(message, "has type int32");
    Func sum = lambda(x, y, x + 10 * y);
    Buffer<int> out = sum.realize({3, 2});
    EXPECT_EQ(out(2, 1), 12);
}

TEST(HalideApi, ZeroDimensionalRealizeAndTuples) {
    Func constant("api_constant");
    constant() = Tuple(Expr(3));
    Buffer<int> one = constant.realize();
    EXPECT_EQ(one(), 3);

    Var x("x");
    Func pair("api_pair");
    pair(x) = Tuple(x, x * 2);
    Func copy("api_copy");
    copy(x) = Tuple(pair(x));  // every value of the call
    Buffer<int> a(4), b(4);
    copy.realize({a, b});
    EXPECT_EQ(a(3), 3);
    EXPECT_EQ(b(3), 6);
}

TEST(HalideApi, TileKeepingTheOuterNames) {
    Var x("x"), y("y"), z("z"), xi("xi"), yi("yi"), zi("zi");
    Func f("api_tile6"), g("api_tile_n");
    f(x, y) = x * 100 + y;
    f.tile(x, y, xi, yi, 4, 2);
    EXPECT_EQ(Stage(f.contents(), 0).loops(), "xi, yi, x, y");
    Buffer<int> out = f.realize({10, 5});
    EXPECT_EQ(out(9, 4), 904);

    g(x, y, z) = x + y * 10 + z * 100;
    g.tile({x, y, z}, {xi, yi, zi}, {2, 2, 2});
    EXPECT_EQ(Stage(g.contents(), 0).loops(), "xi, yi, zi, x, y, z");
    Buffer<int> cube = g.realize({3, 3, 3});
    EXPECT_EQ(cube(2, 1, 2), 212);
    std::string message = test::message_of([&] { g.tile({x, y}, {xi}, {2, 2}); });
    EXPECT_CONTAINS(message, "give one of each per loop");
}

TEST(HalideApi, TargetsFromTheEnvironment) {
    EXPECT_EQ(get_host_target(), Target::host());
    EXPECT_FALSE(Target::host().has_gpu_feature());
    Target t("x86-64-linux");
    t.set_feature(Target::Feature::AVX2);
    EXPECT_TRUE(t.has_feature(Target::Feature::AVX));
    t.set_feature(Target::Feature::AVX2, false);
    EXPECT_FALSE(t.has_feature(Target::Feature::AVX2));

    ::setenv("DSL_JIT_TARGET", "x86-64-linux-sse41", 1);
    EXPECT_EQ(get_jit_target_from_environment(), Target("x86-64-linux-sse41"));
    ::unsetenv("DSL_JIT_TARGET");
    ::setenv("HL_JIT_TARGET", "x86-64-linux-avx", 1);
    EXPECT_EQ(get_jit_target_from_environment(), Target("x86-64-linux-avx"));
    ::unsetenv("HL_JIT_TARGET");
    EXPECT_EQ(get_jit_target_from_environment(), Target::host());
}

// `a op= b` keeps a's type, as in Halide.
TEST(HalideApi, CompoundAssignmentKeepsTheType) {
    Expr a = Expr(3);
    a += Expr(1.75f);
    EXPECT_EQ(a.type(), Int(32));
    EXPECT_EQ(evaluate<int>(a), 4);  // 4.75 converted to int
    Expr b = cast<uint8_t>(Expr(250));
    b *= Expr(2);
    EXPECT_EQ(b.type(), UInt(8));
    EXPECT_EQ(evaluate<uint8_t>(b), 244);  // 500 wraps in uint8
}

// A loop whose extent is not a constant is refused by unroll(), or, with
// DSL_PERMIT_FAILED_UNROLL=1 (Halide's HL_PERMIT_FAILED_UNROLL too), run serially with a warning.
TEST(HalideApi, PermitFailedUnroll) {
    Var x("x");
    Func f("api_failed_unroll");
    f(x) = x * 2;
    f.unroll(x);
    std::string message = test::message_of([&] { f.realize({5}); });
    EXPECT_CONTAINS(message, "DSL_PERMIT_FAILED_UNROLL");
    ::setenv("HL_PERMIT_FAILED_UNROLL", "1", 1);
    Func g("api_permitted_unroll");
    g(x) = x * 2;
    g.unroll(x);
    Buffer<int> out = g.realize({5});
    ::unsetenv("HL_PERMIT_FAILED_UNROLL");
    EXPECT_EQ(out(4), 8);
}

TEST(HalideApi, TypeExtremesAndFuncValues) {
    EXPECT_EQ(evaluate<int8_t>(Int(8).min()), -128);
    EXPECT_EQ(evaluate<uint16_t>(UInt(16).max()), 65535);
    EXPECT_EQ(evaluate<uint32_t>(UInt(32).max()), 4294967295u);
    EXPECT_EQ(evaluate<int>(Int(32).max()), 2147483647);
    EXPECT_EQ(evaluate<float>(Float(32).max()), std::numeric_limits<float>::infinity());
    EXPECT_EQ(evaluate<bool>(Bool().min()), false);
    EXPECT_EQ(Int(16, 8).max().type(), Int(16, 8));

    Var x("x");
    Func f("api_values"), g("api_pair_values");
    f(x) = cast<uint8_t>(x + 1);
    g(x) = Tuple(x, cast<float>(x));
    EXPECT_EQ(f.output_type(), UInt(8));
    EXPECT_EQ(g.output_types(), (std::vector<Type>{Int(32), Float(32)}));
    EXPECT_EQ(f.value().type(), UInt(8));
    EXPECT_EQ(g.values().size(), 2u);
    std::string message = test::message_of([&] { g.value(); });
    EXPECT_CONTAINS(message, "use values()");
}

TEST(HalideApi, BitCountsAgainstPlainLoops) {
    Var x("x");
    Func f("f");
    Expr v = cast<uint32_t>(x) * 2654435761u;  // spreads the bits
    Expr s8 = cast<int8_t>(x);
    f(x) = Tuple(popcount(v), count_leading_zeros(v), count_trailing_zeros(v), popcount(s8),
                 count_leading_zeros(s8));
    f.vectorize(x, 8);
    Realization r = f.realize({300});
    Buffer<uint32_t> pop(r[0]), clz(r[1]), ctz(r[2]);
    Buffer<int8_t> pop8(r[3]), clz8(r[4]);
    for (int i = 0; i < 300; i++) {
        uint32_t u = static_cast<uint32_t>(i) * 2654435761u;
        uint32_t p = 0, l = 0, t = 0;
        for (int b = 0; b < 32; b++)
            p += (u >> b) & 1;
        while (l < 32 && !((u >> (31 - l)) & 1))
            l++;
        while (t < 32 && !((u >> t) & 1))
            t++;
        ASSERT_EQ(pop(i), p) << i;
        ASSERT_EQ(clz(i), l) << i;
        ASSERT_EQ(ctz(i), t) << i;
        uint8_t b8 = static_cast<uint8_t>(i);
        int p8 = 0, l8 = 0;
        for (int b = 0; b < 8; b++)
            p8 += (b8 >> b) & 1;
        while (l8 < 8 && !((b8 >> (7 - l8)) & 1))
            l8++;
        ASSERT_EQ(pop8(i), p8) << i;
        ASSERT_EQ(clz8(i), l8) << i;
    }
    // Folded at compile time the same way.
    EXPECT_EQ(evaluate<int>(popcount(Expr(0x70f))), 7);
    EXPECT_EQ(evaluate<int>(count_leading_zeros(Expr(0))), 32);
}

TEST(HalideApi, FastTrigonometryIsCloseToTheLibrary) {
    Var x("x");
    Func f("f");
    Expr t = (cast<float>(x) - 5000.0f) * 0.0137f;
    f(x) = Tuple(fast_sin(t), fast_cos(t));
    f.vectorize(x, 8);
    Realization r = f.realize({10000});
    Buffer<float> s(r[0]), c(r[1]);
    double worst = 0;
    for (int i = 0; i < 10000; i++) {
        float v = (static_cast<float>(i) - 5000.0f) * 0.0137f;
        worst = std::max(worst, std::fabs(double(s(i)) - std::sin(double(v))));
        worst = std::max(worst, std::fabs(double(c(i)) - std::cos(double(v))));
    }
    EXPECT_LT(worst, 1e-6);
}

TEST(HalideApi, DivisionRoundingTowardZeroHypotAndManyArgumentMax) {
    Var x("x");
    Func f("f");
    Expr a = x - 10, b = select(x % 3 == 0, -3, 4);
    f(x) = Tuple(div_round_to_zero(a, b), cast<int>(hypot(cast<float>(x), 0.0f)),
                 max(a, b, 2, x / 2), min(a, b, -5));
    Realization r = f.realize({21});
    Buffer<int> q(r[0]), h(r[1]), m(r[2]), n(r[3]);
    for (int i = 0; i < 21; i++) {
        int ai = i - 10, bi = i % 3 == 0 ? -3 : 4;
        EXPECT_EQ(q(i), ai / bi) << i;  // C++ rounds toward zero
        EXPECT_EQ(h(i), i);
        EXPECT_EQ(m(i), std::max({ai, bi, 2, i / 2}));
        EXPECT_EQ(n(i), std::min({ai, bi, -5}));
    }
    EXPECT_FLOAT_EQ(evaluate<float>(div_round_to_zero(Expr(-7.0f), Expr(2.0f))), -3.0f);
}

TEST(HalideApi, TupleSelectAndEvaluateMayGpu) {
    Var x("x");
    Func f("f");
    Tuple t = tuple_select(x % 2 == 0, Tuple(x, x * 2.0f), Tuple(-x, x * 3.0f));
    Tuple u = tuple_select(Tuple(x > 1, x > 2), Tuple(Expr(1), Expr(2)), Tuple(Expr(3), Expr(4)));
    f(x) = Tuple(t[0], t[1], u[0], u[1]);
    Realization r = f.realize({4});
    Buffer<int> a(r[0]), c(r[2]), d(r[3]);
    Buffer<float> b(r[1]);
    EXPECT_EQ(a(2), 2);
    EXPECT_EQ(a(3), -3);
    EXPECT_EQ(b(3), 9.0f);
    EXPECT_EQ(c(2), 1);
    EXPECT_EQ(d(2), 4);
    EXPECT_EQ(evaluate_may_gpu<int>(Expr(20) + 1), 21);
    std::string message = test::message_of([&] { tuple_select(x > 0, Tuple(x), Tuple(x, x)); });
    EXPECT_CONTAINS(message, "same size");
}

// Chains: the first condition that holds picks its Tuple (per element with Tuple conditions).
TEST(HalideApi, MultiwayTupleSelect) {
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = tuple_select(x + y < 30, Tuple(x, y), x + y < 100, Tuple(x - 1, y - 2),
                           Tuple(x - 100, y - 200));
    g(x, y) = tuple_select(Tuple(x < 30, y < 30), Tuple(x, y), Tuple(x < 100, y < 100),
                           Tuple(x - 1, y - 2), Tuple(x - 100, y - 200));
    Realization rf = f.realize({120, 90}), rg = g.realize({120, 90});
    Buffer<int> fa(rf[0]), fb(rf[1]), ga(rg[0]), gb(rg[1]);
    for (int j = 0; j < 90; j++) {
        for (int i = 0; i < 120; i++) {
            ASSERT_EQ(fa(i, j), i + j < 30 ? i : i + j < 100 ? i - 1 : i - 100);
            ASSERT_EQ(fb(i, j), i + j < 30 ? j : i + j < 100 ? j - 2 : j - 200);
            ASSERT_EQ(ga(i, j), i < 30 ? i : i < 100 ? i - 1 : i - 100);
            ASSERT_EQ(gb(i, j), j < 30 ? j : j < 100 ? j - 2 : j - 200);
        }
    }
}

TEST(HalideApi, InlineReductionsOverAnExplicitRDomNest) {
    // f(x, y) = product over r3 of (sum over r1 of (r1 + r3) + sum over r2 of (2 r2 + r3)):
    // the inner sums take r3, an RVar of the outer reduction, as an argument.
    Var x("x"), y("y");
    RDom r1(0, 4, "r1"), r2(0, 3, "r2"), r3(0, 3, "r3");
    Func f("f");
    f(x, y) = product(r3, sum(r1, r1 + r3) + sum(r2, r2 * 2 + r3)) + x * 0 + y * 0;
    Buffer<int> out = f.realize({2, 2});
    long long expected = 1;
    for (int k = 0; k < 3; k++) {
        int s1 = 0, s2 = 0;
        for (int i = 0; i < 4; i++)
            s1 += i + k;
        for (int j = 0; j < 3; j++)
            s2 += 2 * j + k;
        expected *= s1 + s2;
    }
    EXPECT_EQ(out(1, 1), expected);
    // A reduction that does not use its RDom still iterates over it.
    Func g("g");
    g(x) = sum(r1, x) + maximum(r2, r2 * x) + minimum(r2, x - r2);
    Buffer<int> gb = g.realize({3});
    EXPECT_EQ(gb(2), 4 * 2 + 2 * 2 + (2 - 2));
    Func h("h");
    Tuple best = argmax(r1, -(r1 - 2) * (r1 - 2) + x);
    h(x) = best[0] * 100 + best[1];
    Buffer<int> hb = h.realize({2});
    EXPECT_EQ(hb(1), 200 + 1);
}

TEST(HalideApi, OutputBufferShape) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    OutputBuffer out = f.output_buffer();
    auto text = [](const Expr &e) {
        std::ostringstream s;
        s << e;
        return s.str();
    };
    EXPECT_EQ(text(out.width()), text(out.extent(0)));
    EXPECT_EQ(text(out.height()), text(out.extent(1)));
}

TEST(HalideApi, TupleElementUpdatesAndUndef) {
    Var x("x");
    RDom r(0, 5);
    // A running argmax: the value and where, updated together; then one element alone.
    Buffer<int> data(5);
    for (int i = 0; i < 5; i++)
        data(i) = (i * 3) % 5;  // 0 3 1 4 2
    Func best("best");
    best(x) = Tuple(-1, 0.0f);
    Expr better = data(r) > best(x)[0];
    best(x) = tuple_select(better, Tuple(data(r), cast<float>(r)), Tuple(best(x)[0], best(x)[1]));
    best(x)[1] += 0.5f;            // element 1 alone; element 0 is not stored
    best(x) += Tuple(100, 10.0f);  // both, element by element
    best(x) = Tuple(best(x)[0] * 2, undef<float>());
    Stage last = (best(x)[1] = best(x)[1] * 2.0f);
    EXPECT_EQ(last.loops(), "x");
    Realization out = best.realize({2});
    EXPECT_EQ(Buffer<int>(out[0])(1), (4 + 100) * 2);
    EXPECT_EQ(Buffer<float>(out[1])(1), (3.0f + 0.5f + 10.0f) * 2.0f);

    // undef() in a pure definition: that element is left for the updates to write.
    Func g("undef_pure");
    g(x) = Tuple(undef<int>(), 1.0f);
    g(x)[0] = x * 3;
    Realization gr = g.realize({4});
    EXPECT_EQ(Buffer<int>(gr[0])(3), 9);
    EXPECT_EQ(Buffer<float>(gr[1])(3), 1.0f);
    // A Func defined by its updates alone, in place over a buffer's values.
    Buffer<float> values(6);
    for (int i = 0; i < 6; i++)
        values(i) = float(i);
    Func in_place("in_place");
    in_place(x) = undef<float>();
    in_place(x) = values(x) * 2.0f;
    RDom rr(1, 5);
    in_place(rr) = in_place(rr) + in_place(rr - 1);  // a running sum
    Buffer<float> sums = in_place.realize({6});
    EXPECT_EQ(sums(5), 2.0f * (0 + 1 + 2 + 3 + 4 + 5));
    std::string message = test::message_of([&] {
        Func h("h");
        h(x) = 0;
        h(x) = undef<int>() + 1;
    });
    EXPECT_CONTAINS(message, "uses undef() inside the value");
}

TEST(HalideApi, UndefBranchOfASelectIsAConditionalStore) {
    Var x("x");
    // A pure definition, vectorized, over a buffer's values: the odd points keep theirs.
    Buffer<float> data(19);
    for (int i = 0; i < 19; i++)
        data(i) = 100.0f + float(i);
    Func evens("evens");
    evens(x) = select(x % 2 == 0, 1.0f, undef<float>());
    evens.vectorize(x, 4);
    evens.realize(data);
    for (int i = 0; i < 19; i++)
        EXPECT_EQ(data(i), i % 2 == 0 ? 1.0f : 100.0f + float(i)) << "at " << i;

    // An update whose condition reads a Func: stream compaction of the multiples of 3.
    Func keep("keep"), sum("running"), found("found");
    keep(x) = select(x % 3 == 0, 1, 0);
    RDom r(0, 40);
    sum(x) = 0;
    RDom r1(1, 39);
    sum(r1) = sum(r1 - 1) + keep(r1 - 1);  // the slot of each kept point
    sum.compute_root();
    keep.compute_root();
    found(x) = -1;
    found(clamp(sum(r), 0, 19)) = select(keep(r) == 1, r, undef<int>());
    Buffer<int> slots = found.realize({20});
    for (int i = 0; i < 20; i++)
        EXPECT_EQ(slots(i), i < 14 ? 3 * i : -1) << "at " << i;
    EXPECT_TRUE(test::matches_reference(found, slots));

    // Nested selects, a Tuple whose elements share the condition, and the reference evaluator.
    Func nested("nested");
    nested(x) = Tuple(x, 0.5f);
    nested(x) = Tuple(select(x < 10, select(x % 4 == 1, undef<int>(), x * 10), x - 1),
                      select(x < 10, select(x % 4 == 1, undef<float>(), 2.0f), 3.0f));
    Realization tuple = nested.realize({16});
    for (int i = 0; i < 16; i++) {
        bool skipped = i < 10 && i % 4 == 1;
        EXPECT_EQ(Buffer<int>(tuple[0])(i), skipped ? i : (i < 10 ? i * 10 : i - 1)) << i;
        EXPECT_EQ(Buffer<float>(tuple[1])(i), skipped ? 0.5f : (i < 10 ? 2.0f : 3.0f)) << i;
    }
    EXPECT_TRUE(test::matches_reference(nested, tuple));

    // Such a Func has no value to inline: computed at root unless scheduled, refused inline.
    Func partial("partial"), reader("reader");
    partial(x) = select(x > 3, x, undef<int>());
    reader(x) = partial(x + 4);
    Buffer<int> read = reader.realize({5});
    EXPECT_EQ(read(2), 6);
    std::string message = test::message_of([&] {
        partial.compute_inline();
        reader.realize({5});
    });
    EXPECT_CONTAINS(message, "Func \"partial\" leaves points undef<T>() in its pure definition");
    message = test::message_of([&] {
        Func t("t");
        t(x) = Tuple(0, 0);
        t(x) = Tuple(select(x > 1, x, undef<int>()), select(x > 2, x, undef<int>()));
    });
    EXPECT_CONTAINS(message,
                    "Func \"t\": the update leaves Tuple elements undef() under "
                    "different conditions");
}

TEST(HalideApi, AlignStoragePadsTheRows) {
    Var x("x"), y("y");
    Func f("aligned"), g("aligned_reader");
    f(x, y) = x * 100 + y;
    g(x, y) = f(x, y) + f(x + 2, y);
    f.compute_root().align_storage(x, 16);
    Buffer<int> out = g.realize({21, 5});
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 21; i++)
            ASSERT_EQ(out(i, j), (i * 100 + j) + ((i + 2) * 100 + j)) << i << ", " << j;
    }
    // The rows of f hold 23 points, padded to 32: the allocation says so.
    EXPECT_NE(g.lowered_stmt().find("allocate aligned[int32 * (((aligned.x.extent_realized + 15) "
                                    "/ 16) * 16)"),
              std::string::npos)
        << g.lowered_stmt();
    EXPECT_TRUE(test::matches_reference(g, out));
    std::string message = test::message_of([&] { f.align_storage(Var("z"), 4); });
    EXPECT_CONTAINS(message, "Func \"aligned\", align_storage: \"z\" is not one of its pure Vars");
}

TEST(HalideApi, RVarsWithoutNamesNameLoops) {
    Var x("x");
    RDom r(0, 32, 0, 3);
    Func f("rvar_loops");
    f(x) = 0;
    f(x) += r.x * (r.y + 1) + x;
    RVar ro, ri;
    EXPECT_NE(ro.name(), ri.name());
    f.update().split(r.x, ro, ri, 8).reorder(ri, r.y, ro);
    Buffer<int> out = f.realize({2});
    EXPECT_EQ(out(1), (31 * 32 / 2) * 6 + 96);
    EXPECT_NE(f.update().loops().find(ro.name()), std::string::npos);
    // A variable the domain lacks is still undefined, and says so.
    std::string message = test::message_of([&] { Expr e = r.z + 1; });
    EXPECT_CONTAINS(message, "use of an undefined RVar");
}

TEST(HalideApi, ParamsReadOnlyByTheSchedule) {
    // A Param that only a split factor or a bound reads is still an argument of the pipeline
    // (it was left unbound: "codegen: the symbol p is not bound").
    Var x("x"), xo("xo"), xi("xi");
    Param<int> factor("factor"), extent("extent");
    Func f("param_f"), g("param_g");
    f(x) = x * 2;
    g(x) = f(x) + 1;
    g.split(x, xo, xi, factor);
    f.compute_at(g, xo).bound_extent(x, 8).vectorize(x);
    factor.set(5);
    Buffer<int> out = g.realize({20});
    for (int i = 0; i < 20; i++)
        EXPECT_EQ(out(i), 2 * i + 1);
    Func h("param_h");
    h(x) = x;
    h.bound(x, 0, extent);
    extent.set(6);
    EXPECT_EQ(Buffer<int>(h.realize({6}))(5), 5);
    extent.set(4);
    EXPECT_THROW(h.realize({6}), RuntimeError);
}

TEST(HalideApi, ImplicitVariables) {
    Var x("x"), y("y");
    Func g("g");
    g(x, y) = x + 10 * y;
    Func f("f");
    f(_) = g(_) * 2;  // over g's two dimensions
    EXPECT_EQ(f.dimensions(), 2);
    Buffer<int> r = f.realize({3, 2});
    EXPECT_EQ(r(2, 1), 24);
    Func h("h");
    h(x, _) = g(_, x);  // h(x, _0) = g(_0, x)
    Buffer<int> t = h.realize({2, 3});
    EXPECT_EQ(t(1, 2), 2 + 10 * 1);
    Buffer<int> b(4, 3);
    b.fill([](int i, int j) { return i * j; });
    Func k("k");
    k(_) = b(_) + _0 * 0 + 1;
    Buffer<int> kb = k.realize({4, 3});
    EXPECT_EQ(kb(3, 2), 7);
    ImageParam in(Int(32), 2, "in");
    in.set(b);
    Func m("m");
    m(_) = in(_)-1;
    EXPECT_EQ(Buffer<int>(m.realize({4, 3}))(2, 2), 3);
    std::string message = test::message_of([&] { Expr e = g(x, y, Var("z"), _); });
    EXPECT_CONTAINS(message, "has 2 dimensions but is called with 3 arguments besides _");
}

TEST(HalideApi, InferInputBounds) {
    Var x("x"), y("y");
    ImageParam in(Int(32), 2, "in");
    Func blur("blur");
    blur(x, y) = in(x - 1, y) + in(x + 2, y + 1);
    Buffer<int> out(10, 8);
    out.set_min(5, -3);
    blur.infer_input_bounds(out);
    Buffer<int> got = in.get();
    ASSERT_TRUE(got.defined());
    EXPECT_EQ(got.min(0), 4);
    EXPECT_EQ(got.extent(0), 13);
    EXPECT_EQ(got.min(1), -3);
    EXPECT_EQ(got.extent(1), 9);
    got.fill(1);
    blur.realize(out);
    EXPECT_EQ(out(5, -3), 2);
    // A buffer already set is kept; reset() lets the next query allocate again.
    blur.infer_input_bounds({3, 3});
    EXPECT_TRUE(in.get().raw_buffer() == got.raw_buffer());
    in.reset();
    blur.infer_input_bounds({3, 3});
    EXPECT_EQ(in.get().extent(0), 6);
    EXPECT_EQ(in.get().min(0), -1);
    // Through the value range of abs: an int8 coordinate's abs reaches 128.
    ImageParam table(Int(32), 1, "table");
    Func f("f");
    f(x) = table(abs(cast<int8_t>(x)));
    Buffer<int> big(1000);
    big.set_min(-500);
    f.infer_input_bounds(big);
    EXPECT_EQ(table.get().min(0), 0);
    EXPECT_EQ(table.get().extent(0), 129);
}

// Constraints that read regions other answers move are asked until the regions stop changing
// (Halide's multipass_constraints, without its vectorized update, whose RoundUp tail dsl
// does not use): the output's extent grows by one while it is under 22, and the input's
// first dimension is set from its second and from the output's extent.
TEST(HalideApi, InferInputBoundsUntilTheConstraintsHold) {
    ImageParam in(Float(32), 2, "mp_in");
    Func out("mp_out");
    Var x("x"), y("y");
    out(x, y) = in(x + 1, y + 1) + in(x - 1, y - 1);
    out(x, y) += 3.0f;
    OutputImageParam o = out.output_buffer();
    in.dim(0).set_bounds(in.dim(1).min() - 5, in.dim(1).extent() + o.dim(0).extent());
    o.dim(0).set_bounds(0,
                        select(o.dim(0).extent() < 22, o.dim(0).extent() + 1, o.dim(0).extent()));
    Buffer<float> query(nullptr, 7, 8);
    query.set_min(2, 2);
    out.infer_input_bounds(query);
    EXPECT_EQ(query.min(0), 0);
    EXPECT_EQ(query.extent(0), 22);
    EXPECT_EQ(query.min(1), 2);
    EXPECT_EQ(query.extent(1), 8);
    const Buffer<float> got = in.get();
    EXPECT_EQ(got.min(1), 1);
    EXPECT_EQ(got.extent(1), 10);
    EXPECT_EQ(got.min(0), -4);
    EXPECT_EQ(got.extent(0), 32);

    // An output without updates reports the region its constraints give it too.
    ImageParam in2(Float(32), 1, "mp_in2");
    Func pure("mp_pure");
    pure(x) = in2(x);
    OutputImageParam po = pure.output_buffer();
    po.dim(0).set_bounds(
        0, select(po.dim(0).extent() < 10, po.dim(0).extent() + 1, po.dim(0).extent()));
    Buffer<float> q2(nullptr, 4);
    q2.set_min(3);
    pure.infer_input_bounds(q2);
    EXPECT_EQ(q2.min(0), 0);
    EXPECT_EQ(q2.extent(0), 10);
    EXPECT_EQ(in2.get().extent(0), 10);

    // A constraint that never settles is an error after 16 queries.
    ImageParam in3(Float(32), 1, "mp_in3");
    Func grow("mp_grow");
    grow(x) = in3(x);
    grow.output_buffer().dim(0).set_bounds(0, grow.output_buffer().dim(0).extent() + 1);
    Buffer<float> q3(nullptr, 4);
    EXPECT_CONTAINS(test::message_of([&] { grow.infer_input_bounds(q3); }),
                    "the regions still change after 16 queries");
}

TEST(HalideApi, RDomExtentReadFromABuffer) {
    Buffer<int> count(1);
    count(0) = 4;
    Var x("x");
    RDom r(0, count(0));
    Func f("f");
    f(x) = 0;
    f(x) += r + x;
    Buffer<int> out = f.realize({3});
    EXPECT_EQ(out(2), 0 + 1 + 2 + 3 + 4 * 2);

    // As a coordinate written (Halide's obscure_image_references): the check that the update
    // writes inside the output reads the Buffer too, at a Param's index.
    Buffer<uint8_t> counts(10);
    counts.fill(0);
    counts(3) = 10;
    Param<int> j("rdom_count_index");
    j.set(3);
    Func g("rdom_written");
    g(x) = x + 20;
    RDom w(0, cast<int>(clamp(counts(j), 0, 99)), "w");
    g(w) = 37;
    Buffer<int> written = g.realize({30});
    for (int i = 0; i < 30; i++)
        EXPECT_EQ(written(i), i < 10 ? 37 : i + 20) << i;
    // realize() over fewer points than the update writes computes into a larger buffer and
    // returns the points asked for (Halide's realize); a buffer the caller gives that is too
    // small is the runtime error it should be.
    Buffer<int> first = g.realize({5});
    EXPECT_EQ(first.dim(0).extent(), 5);
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(first(i), 37) << i;
    Buffer<int> five(5);
    EXPECT_CONTAINS(test::message_of<RuntimeError>([&] { g.realize(five); }), "rdom_written");
}

TEST(HalideApi, LoweredStatementAsHtml) {
    Var x("x"), y("y");
    Func f("html_f"), g("html_g");
    f(x, y) = x + y;
    g(x, y) = f(x, y) < 3;
    f.compute_at(g, y);
    test::TempDirectory dir;
    const std::string path = dir.path() + "/g.html";
    g.compile_to_lowered_stmt(path, {}, HTML);
    std::ifstream in(path);
    std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_CONTAINS(page, "<!DOCTYPE html>");
    EXPECT_CONTAINS(page, "<span class=\"k\">produce</span> html_f");
    EXPECT_CONTAINS(page, "&lt;");  // the comparison, escaped
    size_t opened = 0, closed = 0;
    for (size_t p = page.find("<details"); p != std::string::npos; p = page.find("<details", p + 1))
        opened++;
    for (size_t p = page.find("</details>"); p != std::string::npos;
         p = page.find("</details>", p + 1))
        closed++;
    EXPECT_GT(opened, 3u);
    EXPECT_EQ(opened, closed);
    // Text is the statement itself.
    g.compile_to_lowered_stmt(dir.path() + "/g.txt", {}, Text);
    std::ifstream text_in(dir.path() + "/g.txt");
    std::string text((std::istreambuf_iterator<char>(text_in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, g.lowered_stmt());
}

TEST(HalideApi, MuxPicksByIndexAndClampsIt) {
    Var x("x"), c("c");
    Func f("mux_f"), rgb("mux_rgb"), g("mux_g");
    f(x, c) = mux(c - 1, {x, 456, 789});
    Buffer<int> out = f.realize({10, 5});
    for (int i = 0; i < 10; i++) {
        // c - 1 runs from -1 (the first value) to 3 (past the end: the last value).
        const int expected[5] = {i, i, 456, 789, 789};
        for (int k = 0; k < 5; k++)
            EXPECT_EQ(out(i, k), expected[k]) << i << ", " << k;
    }
    rgb(x) = Tuple(x * 2, x * 3, x * 4);
    g(x, c) = mux(c, rgb(x));
    Buffer<int> picked = g.realize({6, 3});
    EXPECT_EQ(picked(5, 0), 10);
    EXPECT_EQ(picked(5, 1), 15);
    EXPECT_EQ(picked(5, 2), 20);
    // Constants take the first value's type; other types are refused.
    Expr u8 = mux(c, {cast<uint8_t>(x), 7});
    EXPECT_EQ(u8.type(), UInt(8));
    EXPECT_THROW(mux(c, {cast<uint8_t>(x), x}), CompileError);
}

TEST(HalideApi, UnsafePromiseClampedBoundsTheRegionRead) {
    // A uint16 holding 10-bit values indexes a table: the promise bounds the table's region.
    ImageParam data(UInt(16), 1, "promise_data"), lut(Float(32), 1, "promise_lut");
    Var x("x");
    Func f("promise_f");
    f(x) = lut(unsafe_promise_clamped(data(x), 0, 1023));
    f.infer_input_bounds({10});
    EXPECT_EQ(lut.get().min(0), 0);
    EXPECT_EQ(lut.get().extent(0), 1024);
    // One side only: the other comes from the type.
    ImageParam small(UInt(8), 1, "promise_small"), table(Float(32), 1, "promise_table");
    Func g("promise_g");
    g(x) = table(unsafe_promise_clamped(small(x), Expr(), 99));
    g.infer_input_bounds({10});
    EXPECT_EQ(table.get().min(0), 0);
    EXPECT_EQ(table.get().extent(0), 100);
    // The values are read as they are.
    Buffer<uint16_t> d(100);
    Buffer<float> t(1024);
    for (int i = 0; i < 100; i++)
        d(i) = static_cast<uint16_t>(i * 10);
    for (int i = 0; i < 1024; i++)
        t(i) = static_cast<float>(i) * 0.5f;
    data.set(d);
    lut.set(t);
    Buffer<float> out = f.realize({100});
    for (int i = 0; i < 100; i++)
        EXPECT_EQ(out(i), static_cast<float>(i * 10) * 0.5f) << i;
}

TEST(HalideApi, TwoRealizationsOfOneFuncAreDistinctInputs) {
    // Halide's random test reads two results of one Func in one pipeline: realize() numbers its
    // buffers' names, so they are two inputs rather than two inputs of one name.
    Param<int> offset("realized_offset");
    Var x("x");
    Func f("realized_twice"), diff("realized_diff");
    f(x) = x * 3 + offset;
    offset.set(1);
    Buffer<int> first = f.realize({8});
    offset.set(5);
    Buffer<int> second = f.realize({8});
    EXPECT_NE(first.name(), second.name());
    diff(x) = second(x) - first(x);
    Buffer<int> out = diff.realize({8});
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(out(i), 4) << i;
}

// Halide's value-only Param constructors; a name given as a string literal stays a name, also
// for Param<bool>.
TEST(HalideApi, ParamFromAValue) {
    Param<int> three(3);
    Param<float> ranged(2, 1, 10);
    Param<bool> flag("hs_flag");
    EXPECT_EQ(flag.name(), "hs_flag");
    flag.set(true);
    Var x("x");
    Func f("hs_param_value");
    f(x) = select(flag, three * x, 0) + cast<int>(ranged);
    Buffer<int> out = f.realize({4});
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(out(i), 3 * i + 2);
    ranged.set(11.0f);  // outside [1, 10]: the run refuses it
    EXPECT_THROW(f.realize({4}), RuntimeError);
}

// size_in_bytes spans the memory from the first to the last element; all_equal compares every
// element; for_each_element and fill take one int per dimension, up to 16.
TEST(HalideApi, BufferBytesEqualityAndManyDimensions) {
    Buffer<uint16_t> dense(5, 3);
    EXPECT_EQ(dense.size_in_bytes(), 5u * 3u * 2u);
    Buffer<uint16_t> column = dense.cropped(0, 1, 2);
    EXPECT_EQ(column.size_in_bytes(), (5u * 2u + 2u) * 2u);  // rows of 5, two columns of each
    dense.fill(7);
    EXPECT_TRUE(dense.all_equal(7));
    dense(4, 2) = 8;
    EXPECT_FALSE(dense.all_equal(7));
    EXPECT_EQ(Buffer<int>(0, 4).size_in_bytes(), 0u);

    Buffer<int> six(2, 2, 2, 2, 2, 2);
    six.fill([](int a, int b, int c, int d, int e, int f) {
        return a + 2 * b + 4 * c + 8 * d + 16 * e + 32 * f;
    });
    int sum = 0, count = 0;
    six.for_each_element([&](int a, int b, int c, int d, int e, int f) {
        EXPECT_EQ(six(a, b, c, d, e, f), a + 2 * b + 4 * c + 8 * d + 16 * e + 32 * f);
        sum += six(a, b, c, d, e, f);
        count++;
    });
    EXPECT_EQ(count, 64);
    EXPECT_EQ(sum, 63 * 64 / 2);
}

// compile_to_file writes an object and its header; compile_to_assembly and compile_to_llvm_ir
// with arguments write the AOT function of that name.
TEST(HalideApi, CompileToFileAndAssemblyOfAnAotFunction) {
    test::TempDirectory dir;
    ImageParam input(Float(32), 1, "hs_aot_in");
    Param<float> gain("hs_aot_gain");
    Var x("x");
    Func f("hs_aot_f");
    f(x) = input(x) * gain;
    f.vectorize(x, 8);
    f.compile_to_file(dir.path() + "/scaled", {input, gain}, "scaled");
    std::ifstream header(dir.path() + "/scaled.h");
    std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
    EXPECT_CONTAINS(text, "int scaled(");
    std::ifstream object(dir.path() + "/scaled.o", std::ios::binary);
    char magic[4] = {};
    object.read(magic, 4);
    EXPECT_EQ(std::string(magic + 1, 3), "ELF");

    f.compile_to_assembly(dir.path() + "/scaled.s", {input, gain}, "scaled_asm");
    std::ifstream assembly(dir.path() + "/scaled.s");
    std::string asm_text((std::istreambuf_iterator<char>(assembly)),
                         std::istreambuf_iterator<char>());
    EXPECT_CONTAINS(asm_text, "scaled_asm:");
    f.compile_to_llvm_ir(dir.path() + "/scaled.ll", {input, gain}, Target::host());
    std::ifstream ir(dir.path() + "/scaled.ll");
    std::string ir_text((std::istreambuf_iterator<char>(ir)), std::istreambuf_iterator<char>());
    EXPECT_CONTAINS(ir_text, "@hs_aot_f(");
    // An argument missing from the list is refused, naming it.
    std::string message = test::message_of<CompileError>(
        [&] { f.compile_to_assembly(dir.path() + "/bad.s", {input}, "bad"); });
    EXPECT_CONTAINS(message, "hs_aot_gain");
}

// Braced arguments of realize() as Halide programs write them: `{}` (a 0-dimensional Func) and
// `{w}` are sizes, `{buffer}` is a Realization of one buffer; none is ambiguous with a target.
TEST(HalideApi, RealizeWithBracedArgumentsAndATarget) {
    const Target t = Target::host();
    Func s("hs_braced_scalar");
    s() = 1.5f;
    EXPECT_EQ(((Buffer<float>)s.realize({}, t))(), 1.5f);
    Buffer<int> into = Buffer<int>::make_scalar();
    Func g("hs_braced_into");
    g() = 7;
    g.realize({into}, t);
    EXPECT_EQ(into(), 7);
    Var x("x");
    Func f("hs_braced_sizes");
    f(x) = x * 2;
    Buffer<int> a = f.realize({5}, t), b = f.realize({5});
    EXPECT_EQ(a(4), 8);
    EXPECT_EQ(b(3), 6);
}

TEST(HalideApi, MakeInterleavedBuffers) {
    // Channels innermost: the strides, a pipeline writing into a cropped interleaved output as
    // Halide's interleave_rgb test does (the fourth channel untouched), and one reading an
    // interleaved input; wrapped memory and the untyped form.
    Buffer<uint8_t> b = Buffer<uint8_t>::make_interleaved(5, 4, 3);
    EXPECT_EQ(b.stride(0), 3);
    EXPECT_EQ(b.stride(1), 15);
    EXPECT_EQ(b.stride(2), 1);
    EXPECT_EQ(b.width(), 5);
    EXPECT_EQ(b.height(), 4);
    EXPECT_EQ(b.channels(), 3);

    Var x("x"), y("y"), c("c");
    Func f("interleaved");
    f(x, y, c) = cast<uint8_t>(x * 3 + y * 5 + c);
    f.reorder(c, x, y).bound(c, 0, 3).vectorize(x, 16, TailStrategy::GuardWithIf).unroll(c);
    f.output_buffer().dim(0).set_stride(4).dim(2).set_stride(1).set_extent(3);
    Buffer<uint8_t> out = Buffer<uint8_t>::make_interleaved(37, 6, 4);
    out.fill(7);
    Buffer<uint8_t> cropped = out;
    cropped.crop(2, 0, 3);
    f.realize(cropped);
    int wrong = 0;
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 37; i++) {
            for (int k = 0; k < 4; k++)
                wrong += out(i, j, k) != (k < 3 ? uint8_t(i * 3 + j * 5 + k) : 7);
        }
    }
    EXPECT_EQ(wrong, 0);

    ImageParam in(UInt(16), 3, "in");
    in.dim(0).set_stride(3);
    in.dim(2).set_min(0).set_extent(3).set_stride(1);
    Func planar("planar");
    planar(x, y, c) = in(x, y, c) + cast<uint16_t>(1);
    planar.reorder(c, x, y).bound(c, 0, 3).unroll(c);
    std::vector<uint16_t> memory(7 * 5 * 3);
    for (size_t i = 0; i < memory.size(); i++)
        memory[i] = static_cast<uint16_t>(i);
    Buffer<uint16_t> wrapped = Buffer<uint16_t>::make_interleaved(memory.data(), 7, 5, 3);
    EXPECT_EQ(wrapped(2, 1, 1), memory[(1 * 7 + 2) * 3 + 1]);
    in.set(wrapped);
    Buffer<uint16_t> p = planar.realize({7, 5, 3});
    wrong = 0;
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 7; i++) {
            for (int k = 0; k < 3; k++)
                wrong += p(i, j, k) != memory[static_cast<size_t>((j * 7 + i) * 3 + k)] + 1;
        }
    }
    EXPECT_EQ(wrong, 0);

    Buffer<> untyped = Buffer<>::make_interleaved(Float(32), 4, 2, 2);
    EXPECT_EQ(untyped.type(), Float(32));
    EXPECT_EQ(untyped.stride(0), 2);
    EXPECT_EQ(untyped.stride(2), 1);
}

// reinterpret<T>(e) keeps the bits: the float whose bits a uint32 input holds.
TEST(HalideApi, ReinterpretToACppType) {
    Buffer<uint32_t> bits(4);
    const float values[4] = {1.5f, -0.25f, 1e20f, 3.0f};
    for (int i = 0; i < 4; i++)
        std::memcpy(&bits(i), &values[i], 4);
    Var x("x");
    Func f("hs_reinterpret");
    f(x) = reinterpret<float>(bits(x)) * 2.0f;
    Buffer<float> out = f.realize({4});
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(out(i), values[i] * 2.0f) << i;
}

// evaluate() of a Tuple writes each element through its pointer, in one realization; a pointer
// of another type than its element is refused, naming the element.
TEST(HalideApi, EvaluateATuple) {
    Func score("hs_score");
    Var x("x");
    score(x) = (x - 6) * (x - 6) * -1 + 9;
    RDom r(0, 10);
    Func best("hs_best");
    best() = argmax(score(r));
    int where = -1, value = -1;
    evaluate(best(), &where, &value);
    EXPECT_EQ(where, 6);
    EXPECT_EQ(value, 9);
    int first = 0;
    float second = 0;
    evaluate_may_gpu(Tuple(Expr(3) + 4, Expr(0.5f)), &first, &second);
    EXPECT_EQ(first, 7);
    EXPECT_EQ(second, 0.5f);
    std::string message = test::message_of([&] { evaluate(best(), &where, &second); });
    EXPECT_CONTAINS(message, "element 1");
    EXPECT_CONTAINS(message, "float32");
}

// Boundary conditions with bounds given in braces, on a Buffer or an ImageParam: dimensions
// past the bounds given, and {Expr(), Expr()}, are read as they are.
TEST(HalideApi, BoundaryConditionsWithBracedBounds) {
    Buffer<int> in(6, 4);
    in.fill([](int x, int y) { return x + 10 * y; });
    Var x("x"), y("y");
    Func edge("hs_edge"), rows("hs_rows"), cols("hs_cols");
    // Clamp x to [1, 3] only: y is unbounded.
    edge(x, y) = BoundaryConditions::repeat_edge(in, {{1, 3}})(x - 2, y);
    Buffer<int> e = edge.realize({8, 4});
    ImageParam p(Int(32), 2, "hs_bc_input");
    p.set(in);
    rows(x, y) = BoundaryConditions::constant_exterior(p, -1, {{Expr(), Expr()}, {0, 2}})(x, y);
    Buffer<int> r = rows.realize({6, 4});
    cols(x, y) = BoundaryConditions::mirror_interior(in, {{0, 6}, {0, 4}})(x - 1, y);
    Buffer<int> c = cols.realize({8, 4});
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 8; i++) {
            EXPECT_EQ(e(i, j), std::min(std::max(i - 2, 1), 3) + 10 * j) << i << "," << j;
            int m = i - 1 < 0 ? 1 - i : (i - 1 > 5 ? 10 - (i - 1) : i - 1);
            EXPECT_EQ(c(i, j), m + 10 * j) << i << "," << j;
        }
        for (int i = 0; i < 6; i++)
            EXPECT_EQ(r(i, j), j < 2 ? i + 10 * j : -1) << i << "," << j;
    }
    std::string message = test::message_of([&] {
        BoundaryConditions::repeat_edge(in, {{0, 6}, {0, 4}, {0, 1}});
    });
    EXPECT_CONTAINS(message, "3 bounds were given");
    message = test::message_of([&] { BoundaryConditions::repeat_edge(in, {{0, Expr()}}); });
    EXPECT_CONTAINS(message, "dimension 0");
}

// An inline reduction into the user's own Func, which can then be scheduled (here its update
// unrolled); a Func already defined is refused.
TEST(HalideApi, InlineReductionIntoAGivenFunc) {
    Buffer<float> in(12, 12);
    in.fill([](int x, int y) { return float((x * 7 + y * 13) % 11); });
    Var x("x"), y("y");
    RDom kx(-1, 3, "hs_kx"), ky(-1, 3, "hs_ky");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func min_x("hs_min_x"), min_y("hs_min_y"), inner("hs_min_inner");
    min_x(x, y) = minimum(clamped(x + kx, y));
    min_y(x, y) = minimum(min_x(x, y + ky), inner);
    EXPECT_TRUE(inner.defined());
    inner.update().unroll(ky);
    min_y.vectorize(x, 4);
    Buffer<float> out = min_y.realize({12, 12});
    auto at = [&](int i, int j) {
        return in(std::min(std::max(i, 0), 11), std::min(std::max(j, 0), 11));
    };
    for (int j = 0; j < 12; j++) {
        for (int i = 0; i < 12; i++) {
            float m = 1e9f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    m = std::min(m, at(i + dx, j + dy));
            EXPECT_EQ(out(i, j), m) << i << "," << j;
        }
    }
    Func taken("hs_taken");
    taken(x) = x;
    std::string message = test::message_of([&] { sum(clamped(x + kx, y), taken); });
    EXPECT_CONTAINS(message, "hs_taken");
}

// The runtime's element type converts to Type and back (Halide's halide_type_t), as buffers'
// `type` fields and dsl_type_of<T>() give it; ImageParam takes it.
TEST(HalideApi, TypesFromTheRuntimesElementType) {
    EXPECT_EQ(Type(dsl_type_of<uint16_t>()), UInt(16));
    EXPECT_EQ(Type(dsl_type_of<bool>()), Bool());
    EXPECT_EQ(Type(dsl_type_of<double>()), Float(64));
    EXPECT_EQ(Type(dsl_type_of<int8_t>()), Int(8));
    EXPECT_EQ(Type(dsl_type_of<void *>()), Handle());
    dsl_type_t raw = Float(32);
    EXPECT_TRUE(raw == dsl_type_of<float>());
    Buffer<uint8_t> b(3, 2);
    EXPECT_EQ(Type(b.raw_buffer()->type), UInt(8));
    ImageParam p(dsl_type_of<uint8_t>(), 2, "hs_raw_typed");
    EXPECT_EQ(p.type(), UInt(8));
}

// lambda(e) without Vars takes the implicit variables e uses as its arguments.
TEST(HalideApi, LambdaOfImplicitVariables) {
    Var x("x"), y("y");
    Func g("hs_lambda_g");
    g(x, y) = x * 10 + y;
    Buffer<int> out = lambda(g(_) * 2 + lambda(x, y, x - y)(_)).realize({4, 3});
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(out(i, j), (i * 10 + j) * 2 + (i - j)) << i << "," << j;
    }
    Buffer<int> scalar = lambda(Expr(7)).realize();
    EXPECT_EQ(scalar(), 7);
}

// lerp of bools gives the nearer of the two values.
TEST(HalideApi, LerpOfBools) {
    Var w("w"), a("a"), b("b");
    Func f("hs_lerp_bool");
    f(a, b, w) = lerp(a == 1, b == 1, cast<uint8_t>(w));
    Buffer<bool> out = f.realize({2, 2, 256});
    for (int k = 0; k < 256; k++) {
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 2; j++) {
                double v = i * (1.0 - k / 255.0) + j * (k / 255.0);
                EXPECT_EQ(out(i, j, k), v >= 0.5) << i << "," << j << "," << k;
            }
        }
    }
}

// bound() holds wherever the Func is computed: computed per tile of a consumer, its loop over
// the bounded dimension has the bound's constant extent, so it unrolls (Halide's
// shadowed_bound case).
TEST(HalideApi, BoundInsideAConsumersLoopKeepsAConstantExtent) {
    Func f("hs_bounded_f"), g("hs_bounded_g");
    Var x("x"), y("y"), c("c"), xi("xi"), yi("yi");
    f(x, y, c) = x + y * 2 + c * 5;
    g(x, y, c) = f(x, y, c) + f(x, y, 3);
    g.compute_root().tile(x, y, xi, yi, 8, 8);
    f.compute_at(g, x).bound(c, 0, 4).unroll(c);
    Buffer<int> out = g.realize({20, 12, 4});
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 12; j++) {
            for (int i = 0; i < 20; i++)
                ASSERT_EQ(out(i, j, k), (i + j * 2 + k * 5) + (i + j * 2 + 15)) << i << j << k;
        }
    }
}

// An int literal in select takes the other value's type (Halide's rule), so a select between
// 0 and a uint8 input is uint8; lerp of 16-bit values rounds as the exact result does.
TEST(HalideApi, SelectLiteralsAndSixteenBitLerp) {
    Buffer<uint8_t> in(8);
    in.fill([](int x) { return x * 30; });
    Var x("x");
    Func f("hs_select_literal");
    f(x) = select(x < 3, 0, in(x));
    EXPECT_EQ(f.output_types()[0], UInt(8));
    Buffer<uint8_t> out = f.realize({8});
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(out(i), i < 3 ? 0 : i * 30);
    Func g("hs_lerp16");
    g() = lerp(cast<uint16_t>(99), cast<uint16_t>(65535), cast<uint16_t>(331));
    Buffer<uint16_t> l = g.realize();
    EXPECT_EQ(l(), 429);  // 99 + (65535 - 99) * 331 / 65535 = 429.497...
    // The same rule in lerp: lerp(0, uint32, w) is uint32 (it was int32).
    Func h("hs_lerp_literal");
    h() = lerp(0, cast<uint32_t>(1023), 0.5f);
    EXPECT_EQ(h.output_types()[0], UInt(32));
    Buffer<uint32_t> m = h.realize();
    EXPECT_EQ(m(), 512u);  // 511.5 rounds up
}

// ImageParam and a Func's output buffer share Halide's OutputImageParam view (bounds, left /
// right / top / bottom, constraints), and the schedule's enums print their names.
Expr area_of(const OutputImageParam &p) {
    return (p.right() - p.left() + 1) * (p.bottom() - p.top() + 1);
}

TEST(HalideApi, OutputImageParamAndEnumNames) {
    ImageParam in(UInt(8), 2, "oip_in");
    Buffer<uint8_t> data(6, 4);
    data.set_min({2, 3});
    data.fill(1);
    in.set(data);
    Func f("oip_f");
    Var x("x"), y("y");
    f(x, y) = in(x + in.left(), y + in.top()) + area_of(in) + in.right() - in.left();
    OutputImageParam out = f.output_buffer();
    out.dim(0).set_min(0);
    Buffer<int> r = f.realize({2, 2});
    EXPECT_EQ(r(0, 0), 1 + 24 + 5);
    // The constraint set through the OutputImageParam holds: an output that starts elsewhere is
    // refused when the pipeline runs.
    Buffer<int> shifted(2, 2);
    shifted.set_min({1, 0});
    EXPECT_THROW(f.realize(shifted), RuntimeError);
    OutputImageParam view = in;
    EXPECT_EQ(view.name(), in.name());
    EXPECT_EQ(view.dimensions(), 2);
    std::ostringstream names;
    names << TailStrategy::ShiftInwards << " " << LoopAlignStrategy::AlignEnd << " "
          << MemoryType::Stack << " " << DeviceAPI::OpenCL << " " << TailStrategy::Predicate;
    EXPECT_EQ(names.str(), "ShiftInwards AlignEnd Stack OpenCL GuardWithIf");
}

TEST(HalideApi, AHandleReinterpretedAsItsBits) {
    // Halide's cast_handle: a pointer Param's bits as a uint64, scalar and vectorized.
    Param<void *> handle("rh_handle");
    int target = 0;
    handle.set(&target);
    Var x("x");
    Func f("rh_bits"), g("rh_bits_vectorized");
    f(x) = reinterpret<uint64_t>(handle);
    g(x) = reinterpret<uint64_t>(handle) + cast<uint64_t>(x);
    g.vectorize(x, 4);
    Buffer<uint64_t> a = f.realize({3}), b = g.realize({6});
    const uint64_t bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&target));
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(a(i), bits) << i;
    for (int i = 0; i < 6; i++)
        EXPECT_EQ(b(i), bits + static_cast<uint64_t>(i)) << i;
}

TEST(HalideApi, APipelineRealizesIntoOneBuffer) {
    // Halide's constraints test: p.realize(buffer) for a pipeline of one output.
    Var x("x"), y("y");
    Func f("pr_f");
    f(x, y) = x * 10 + y;
    Pipeline p(f);
    Buffer<int> out(5, 3);
    out.set_min({2, 1});
    p.realize(out);
    for (int j = 1; j < 4; j++) {
        for (int i = 2; i < 7; i++)
            EXPECT_EQ(out(i, j), i * 10 + j) << i << ", " << j;
    }
}

// Tiles with a tail strategy per loop, an RDom of four ranges, and the sides of an update
// read back (Halide's update_args / update_value).
TEST(HalideApi, TileTailsPerLoopFourRangeRDomAndUpdateSides) {
    Var i("i"), j("j"), io("io"), jo("jo");
    Func f("f");
    f(i, j) = i * j;
    f.tile({i, j}, {io, jo}, {i, j}, {8, 4}, {TailStrategy::RoundUp, TailStrategy::GuardWithIf});
    Buffer<int> out = f.realize({16, 10});
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 16; x++)
            ASSERT_EQ(out(x, y), x * y);

    Func g("g");
    g() = 0;
    RDom r(0, 2, 0, 3, 0, 4, 0, 5);
    g() += r.x + 10 * r.y + 100 * r.z + 1000 * r[3];
    Buffer<int> total = g.realize();
    int want = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 5; d++)
                    want += a + 10 * b + 100 * c + 1000 * d;
    EXPECT_EQ(total(), want);
    EXPECT_EQ(g.update_args(0).size(), 0u);
    EXPECT_TRUE(g.update_value().defined());
    EXPECT_EQ(g.update_values(0).size(), 1u);
    try {
        f.update_value(0);
        ADD_FAILURE() << "f has no update";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("\"f\" has 0 update definitions, so no update 0"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace dsl
