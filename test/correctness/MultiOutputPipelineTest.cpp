// Pipeline: several outputs in one compiled function, through the JIT and ahead of time.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "common/ErrorCheck.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"
#include "lang/Realize.h"

namespace dsl {
namespace {

TEST(MultiOutputPipeline, TwoOutputsShareAProducerComputedOnce) {
    Var x("x"), y("y");
    Func smoothed("smoothed"), dx("dx"), dy("dy");
    smoothed(x, y) = x * x + 3 * y;
    dx(x, y) = smoothed(x + 1, y) - smoothed(x, y);
    dy(x, y) = smoothed(x, y + 1) - smoothed(x, y);
    smoothed.compute_root();
    dx.vectorize(x, 4);
    Pipeline p({dx, dy});
    std::string nest = p.loop_nest();
    // One production of the shared producer, two outputs.
    size_t first = nest.find("produce smoothed");
    ASSERT_NE(first, std::string::npos) << nest;
    EXPECT_EQ(nest.find("produce smoothed", first + 1), std::string::npos) << nest;
    Realization r = p.realize({10, 6});
    ASSERT_EQ(r.size(), 2u);
    Buffer<int> a(r[0]), b(r[1]);
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 10; i++) {
            ASSERT_EQ(a(i, j), 2 * i + 1);
            ASSERT_EQ(b(i, j), 3);
        }
    }
}

TEST(MultiOutputPipeline, AnOutputReadByAnotherAndTuples) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = Tuple(x * 2, cast<float>(x) + 0.5f);
    g(x) = f(x)[0] + cast<int>(f(x)[1]) + f(x + 1)[0];
    Pipeline p({f, g});
    Buffer<int> f0(8), g0(6);
    Buffer<float> f1(8);
    p.realize({f0, f1, g0});
    for (int i = 0; i < 6; i++)
        EXPECT_EQ(g0(i), 2 * i + i + 2 * (i + 1));
    EXPECT_EQ(f0(7), 14);
    EXPECT_EQ(f1(7), 7.5f);
    // g reads f one past its own region: an f buffer as wide as g's is too small.
    Buffer<int> small0(6), g1(6);
    Buffer<float> small1(6);
    std::string message = test::message_of<RuntimeError>([&] { p.realize({small0, small1, g1}); });
    EXPECT_CONTAINS(message, "writes output \"f.0\" at [0, 6]");
}

TEST(MultiOutputPipeline, RecompilesWhenAnyOutputChanges) {
    Var x("x");
    Func a("a"), b("b");
    a(x) = x + 1;
    b(x) = x * 3;
    Pipeline p({a, b});
    p.compile_jit();
    uint64_t compiled = lang::jit_counters().compilations;
    Realization r = p.realize({4});
    EXPECT_EQ(lang::jit_counters().compilations, compiled);  // compile_jit prepared it
    EXPECT_EQ(Buffer<int>(r[1])(3), 9);
    b.vectorize(x, 4);
    r = p.realize({4});
    EXPECT_GT(lang::jit_counters().compilations, compiled);
    EXPECT_EQ(Buffer<int>(r[1])(3), 9);
}

TEST(MultiOutputPipeline, ErrorsNameTheOutputs) {
    Var x("x"), y("y");
    Func a("a"), b("b"), undefined("undefined");
    a(x) = x;
    b(x, y) = x + y;
    std::string message = test::message_of([&] { Pipeline({a, a}); });
    EXPECT_CONTAINS(message, "\"a\" is listed twice");
    message = test::message_of([&] { Pipeline({a, b}).realize({4}); });
    EXPECT_CONTAINS(message, "Func \"b\" has 2 dimensions");
    message = test::message_of([&] { Pipeline({a, undefined}).realize({4}); });
    EXPECT_CONTAINS(message, "\"undefined\" has no definition");
    Buffer<int> one(4);
    message = test::message_of([&] { Pipeline({a, b}).realize(Realization({one})); });
    EXPECT_CONTAINS(message, "The pipeline of \"a, b\" computes 2 values per point");
}

TEST(MultiOutputPipeline, StaticLibraryWithTwoOutputs) {
    Var x("x");
    ImageParam in(Int(32), 1, "in");
    Func twice("twice"), plus("plus");
    twice(x) = in(x)*2;
    plus(x) = twice(x) + 1;
    test::TempDirectory dir;
    Pipeline({twice, plus}).compile_to_static_library(dir.path() + "/two", {in}, "two");
    std::ifstream header(dir.path() + "/two.h");
    std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
    EXPECT_CONTAINS(text, "int two(dsl_buffer_t *in, dsl_buffer_t *twice, dsl_buffer_t *plus)");
}

TEST(MultiOutputPipeline, OutputListedFirstMayReadTheSecond) {
    // Outputs are computed in realization order, not in the order they are listed.
    Func g("plain_g"), h("plain_h");
    Var x("x");
    g(x) = x * 3;
    h(x) = g(x) + g(x + 1);
    Buffer<int> hb(10), gb(11);
    Pipeline({h, g}).realize({hb, gb});
    for (int i = 0; i < 10; i++)
        ASSERT_EQ(hb(i), 6 * i + 3) << i;
}

}  // namespace
}  // namespace dsl
