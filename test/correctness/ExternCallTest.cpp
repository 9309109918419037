// Calls of the program's own C and C++ functions from expressions (DSL_EXTERN, dsl/Extern.h).

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace {

std::atomic<int> calls_made{0};

}  // namespace

// A function with a side effect: it counts its calls.
extern "C" int extern_test_count_call(int x, int y) {
    calls_made++;
    return x * 10 + y;
}
DSL_EXTERN(int, extern_test_count_call, int, int);

// A pure C++ function (C++ linkage, not exported): found through its registration.
static float extern_test_gain(float v, uint8_t channel) {
    return v * (1.0f + 0.25f * channel);
}
DSL_PURE_EXTERN(float, extern_test_gain, float, uint8_t);

// Halide's spelling.
extern "C" double extern_test_hypot3(double a, double b, double c) {
    return std::sqrt(a * a + b * b + c * c);
}
HalidePureExtern_3(double, extern_test_hypot3, double, double, double);

// A function that says it is pure but counts its calls, per counter (Halide's test of hoisting
// does the same).
std::atomic<int> pure_calls[2];
extern "C" int extern_test_pure_count(int counter, int x) {
    pure_calls[counter]++;
    return x;
}
DSL_PURE_EXTERN(int, extern_test_pure_count, int, int);

// A function of a pointer, for a handle Param (Param<const char *>).
extern "C" int extern_test_length(const char *text, int plus) {
    return static_cast<int>(std::strlen(text)) + plus;
}
DSL_PURE_EXTERN(int, extern_test_length, const char *, int);

// Two functions of one signature for Pipeline::set_jit_externs to choose between.
extern "C" int extern_test_plus_one(int x, int y) {
    return x + y + 1;
}
extern "C" int extern_test_times_two(int x, int y) {
    return (x + y) * 2;
}

namespace dsl {
namespace {

using test::matches_reference;

TEST(ExternCall, ImpureFunctionIsCalledOncePerPointComputed) {
    Func f("counted");
    Var x("x"), y("y");
    f(x, y) = extern_test_count_call(x, y) + 1;
    calls_made = 0;
    Buffer<int> out = f.realize({7, 5});
    EXPECT_EQ(calls_made.load(), 35);
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 7; i++)
            ASSERT_EQ(out(i, j), i * 10 + j + 1) << i << ", " << j;
    }
    EXPECT_TRUE(matches_reference(f, out));
}

// Called with C++ numbers only, the name is the C function (as with Halide's HalideExtern_N):
// it runs at once. One Expr among the arguments makes it a call in the pipeline.
TEST(ExternCall, NumbersAloneCallTheFunctionItself) {
    calls_made = 0;
    int direct = extern_test_count_call(3, 4);
    EXPECT_EQ(direct, 34);
    EXPECT_EQ(calls_made.load(), 1);
    Expr call = extern_test_count_call(Expr(3), 4);
    EXPECT_EQ(calls_made.load(), 1);
    EXPECT_EQ(evaluate<int>(call), 34);
    EXPECT_EQ(calls_made.load(), 2);
}

TEST(ExternCall, VectorizedLoopCallsOncePerLane) {
    Func f("counted_vectors");
    Var x("x"), y("y");
    f(x, y) = extern_test_count_call(x * 2, y);
    f.vectorize(x, 8);
    calls_made = 0;
    Buffer<int> out = f.realize({20, 3});  // 20 is not a multiple of 8: a tail
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 20; i++)
            ASSERT_EQ(out(i, j), i * 20 + j) << i << ", " << j;
    }
    // Each point once, plus the lanes of the tail's last vector that are not stored (a
    // vectorized loop calls the function for every lane it computes).
    EXPECT_GE(calls_made.load(), 60);
    EXPECT_LE(calls_made.load(), 3 * 24);
}

TEST(ExternCall, PureFunctionOfMixedTypesMatchesReference) {
    Buffer<float> in = test::random_buffer(Float(32), {37, 3}, 7);
    Func f("gained");
    Var x("x"), c("c");
    f(x, c) = extern_test_gain(in(x, c), cast<uint8_t>(c)) +
              cast<float>(extern_test_hypot3(cast<double>(x), 1.0, cast<double>(c)));
    f.vectorize(x, 8).parallel(c);
    Buffer<float> out = f.realize({37, 3});
    for (int ch = 0; ch < 3; ch++) {
        for (int i = 0; i < 37; i++) {
            float want = in(i, ch) * (1.0f + 0.25f * ch) +
                         static_cast<float>(std::sqrt(double(i) * i + 1.0 + double(ch) * ch));
            ASSERT_EQ(out(i, ch), want) << i << ", " << ch;
        }
    }
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(ExternCall, PureCallsMayBeHoistedImpureOnesNot) {
    Func f("hoisted");
    Var x("x"), y("y");
    f(x, y) = extern_test_hypot3(cast<double>(y), 0.0, 0.0) + cast<double>(x);
    std::string ir = test::llvm_ir_of(f, get_host_target());
    EXPECT_NE(ir.find("memory(none)"), std::string::npos) << ir;
    Func g("not_hoisted");
    g(x, y) = extern_test_count_call(0, y) + x;
    calls_made = 0;
    g.realize({4, 3});
    EXPECT_EQ(calls_made.load(), 12);
}

// A parallel loop's body is a function of its own, which LLVM cannot hoist out of: lowering
// computes a pure call of values from outside the loop once, before it.
TEST(ExternCall, PureCallsOfLoopInvariantsRunOnceBeforeAParallelLoop) {
    Var x("x"), y("y");
    Param<int> p("pure_count_p");
    p.set(5);
    for (bool vectorized : {false, true}) {
        Func f(vectorized ? "invariant_vectors" : "invariant_rows");
        f(x, y) = extern_test_pure_count(0, p + 2) * 2 + extern_test_pure_count(1, y) + x +
                  extern_test_count_call(Expr(0), Expr(0));
        f.parallel(y);
        if (vectorized) f.vectorize(x, 8);
        pure_calls[0] = pure_calls[1] = 0;
        calls_made = 0;
        Buffer<int> out = f.realize({16, 6});
        for (int j = 0; j < 6; j++) {
            for (int i = 0; i < 16; i++)
                ASSERT_EQ(out(i, j), 14 + j + i) << i << ", " << j;
        }
        EXPECT_EQ(pure_calls[0].load(), 1) << f.name();
        // A call of the row's y stays in the row's task (LLVM may or may not hoist it out of x).
        EXPECT_GE(pure_calls[1].load(), 6) << f.name();
        EXPECT_LE(pure_calls[1].load(), 16 * 6) << f.name();
        // An impure call stays inside: at every point (a vectorized loop calls it once per
        // vector, its arguments being the same in every lane).
        EXPECT_EQ(calls_made.load(), vectorized ? 2 * 6 : 16 * 6) << f.name();
    }
}

TEST(ExternCall, PipelinesBindTheNameToTheirOwnFunctions) {
    Var x("x"), y("y");
    Func f("bound_one"), g("bound_two"), h("unbound");
    f(x, y) = extern_test_count_call(x, y);
    g(x, y) = extern_test_count_call(x, y);
    h(x, y) = extern_test_count_call(x, y);
    Pipeline pf(f), pg(g);
    pf.set_jit_externs({{"extern_test_count_call", JITExtern{extern_test_plus_one}}});
    pg.set_jit_externs({{"extern_test_count_call", JITExtern{extern_test_times_two}}});
    EXPECT_EQ(pf.get_jit_externs().size(), 1u);
    Buffer<int> a = pf.realize({3, 2})[0];
    Buffer<int> b = pg.realize({3, 2})[0];
    Buffer<int> c = h.realize({3, 2});
    EXPECT_EQ(a(2, 1), 4);
    EXPECT_EQ(b(2, 1), 6);
    EXPECT_EQ(c(2, 1), 21);  // the DSL_EXTERN function
    // Rebinding replaces the function the next realize() links.
    pf.set_jit_externs({{"extern_test_count_call", JITExtern{extern_test_times_two}}});
    Buffer<int> d = pf.realize({3, 2})[0];
    EXPECT_EQ(d(2, 1), 6);
}

TEST(ExternCall, ArgumentOfTheWrongTypeIsAnErrorThatNamesTheFunction) {
    Var x("x");
    std::string message = test::message_of([&] { extern_test_gain(cast<float>(x), x); });
    EXPECT_NE(message.find("extern_test_gain"), std::string::npos) << message;
    EXPECT_NE(message.find("argument 2"), std::string::npos) << message;
    EXPECT_NE(message.find("uint8"), std::string::npos) << message;
    // A C++ number takes the parameter's type.
    Func f("literal");
    f(x) = extern_test_gain(2.0f, 4);
    Buffer<float> out = f.realize({2});
    EXPECT_EQ(out(1), 4.0f);
}

// A handle Param carries a pointer to an extern function; changing it needs no compile.
TEST(ExternCall, HandleParamsPassPointers) {
    Param<const char *> message("ec_message");
    Var x("x");
    Func f("ec_length");
    f(x) = extern_test_length(message, x);
    message.set("Hello, world!");
    EXPECT_EQ(std::string(message.get()), "Hello, world!");
    EXPECT_EQ(message.type(), Handle());
    Buffer<int> out = f.realize({3});
    EXPECT_EQ(out(2), 15);
    message.set("abc");
    out = f.realize({3});
    EXPECT_EQ(out(0), 3);
    EXPECT_EQ(evaluate<int>(extern_test_length(message, 1)), 4);
    // A runtime-typed view of it.
    Param<> any = message;
    EXPECT_EQ(any.type(), Handle());
    Param<const char *> back = any;
    EXPECT_EQ(back.get(), message.get());
}

}  // namespace
}  // namespace dsl
