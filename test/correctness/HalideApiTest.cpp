// Parts of Halide's front-end API that Halide programs use, each checked for what it does.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "common/ErrorCheck.h"
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

}  // namespace
}  // namespace dsl
