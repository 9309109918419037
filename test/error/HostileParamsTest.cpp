// Scalar inputs outside their declared range, ranges that make no sense, and hostile target
// strings and generator parameters: each a clear error naming the Param (or the word at fault)
// and saying what to do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "common/ErrorCheck.h"
#include "dsl/Generator.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

/// Realizes x + p over 4 points (p cast to int64) and returns the RuntimeError's message, or
/// "" when it runs.
template <typename T>
std::string run_with(Param<T> &p) {
    Func f("uses_" + p.name());
    Var x("x");
    f(x) = cast<int64_t>(x) + cast<int64_t>(p);
    try {
        f.realize({4});
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "";
}

TEST(HostileParams, IntegersOutOfRangeAreReportedExactly) {
    Param<uint8_t> level("level", 10, 5, 100);
    level.set(200);
    EXPECT_CONTAINS(run_with(level),
                    "Param \"level\" is 200, above its maximum 100. Set it "
                    "within its range.");
    level.set(4);
    EXPECT_CONTAINS(run_with(level), "Param \"level\" is 4, below its minimum 5");
    level.set(5);  // bounds are inclusive
    EXPECT_EQ(run_with(level), "");
    level.set(100);
    EXPECT_EQ(run_with(level), "");

    Param<int8_t> shift("shift", 0, -50, 50);
    shift.set(-100);
    EXPECT_CONTAINS(run_with(shift), "Param \"shift\" is -100, below its minimum -50");

    Param<int32_t> count("count", 5, 1, 1000000);
    count.set(2000000);  // not "2e+06"
    EXPECT_CONTAINS(run_with(count), "Param \"count\" is 2000000, above its maximum 1000000");

    // 64-bit values a double would round to the bound itself.
    const int64_t big = int64_t(1) << 62;
    Param<int64_t> wide("wide", 0, -big, big);
    wide.set(big + 1);
    EXPECT_CONTAINS(run_with(wide),
                    "Param \"wide\" is 4611686018427387905, above its maximum 4611686018427387904");
    wide.set(std::numeric_limits<int64_t>::min());
    EXPECT_CONTAINS(run_with(wide),
                    "is -9223372036854775808, below its minimum "
                    "-4611686018427387904");
    Param<uint64_t> huge("huge", 0, 0, (uint64_t(1) << 63) + 5);
    huge.set(std::numeric_limits<uint64_t>::max());
    EXPECT_CONTAINS(run_with(huge),
                    "Param \"huge\" is 18446744073709551615, above its maximum "
                    "9223372036854775813");
}

TEST(HostileParams, FloatsOutOfRangeAndNaN) {
    Param<double> scale("scale", 1.0, 0.0, 1e6);
    scale.set(1e300);
    EXPECT_CONTAINS(run_with(scale), "Param \"scale\" is 1e+300, above its maximum 1e+06");
    scale.set(-std::numeric_limits<double>::infinity());
    EXPECT_CONTAINS(run_with(scale), "Param \"scale\" is -inf, below its minimum 0");
    Param<float> gain("gain", 1.0f, 0.5f, 2.0f);
    gain.set(std::nanf(""));
    EXPECT_CONTAINS(run_with(gain), "Param \"gain\" is NaN, which is outside any range");
    gain.set(2.0f);
    EXPECT_EQ(run_with(gain), "");
}

TEST(HostileParams, RangesThatMakeNoSense) {
    std::string msg = message_of([] { Param<int> p("backwards", 5, 10, 1); });
    EXPECT_CONTAINS(msg, "Param \"backwards\": the minimum 10 is above the maximum 1");
    msg = message_of([] { Param<int> p("outside", 50, 0, 10); });
    EXPECT_CONTAINS(msg, "Param \"outside\": the default value 50 lies outside its range [0, 10]");
    msg = message_of([] { Param<float> p("nan_range", 0.0f, std::nanf(""), 1.0f); });
    EXPECT_CONTAINS(msg, "Param \"nan_range\": the minimum");
}

TEST(HostileParams, SetRangeTakesEffectAtTheNextRun) {
    Param<int> radius("radius", 3);
    Func f("blur_radius");
    Var x("x");
    f(x) = x * radius;
    EXPECT_NO_THROW(f.realize({4}));
    radius.set_range(0, 2);  // the compiled pipeline checked no range: it is compiled again
    std::string msg = message_of<RuntimeError>([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "Param \"radius\" is 3, above its maximum 2");
    radius.set_range(0, 8);
    EXPECT_NO_THROW(f.realize({4}));
    msg = message_of([&] { radius.set_range(8, 0); });
    EXPECT_CONTAINS(msg, "Param \"radius\": the minimum 8 is above the maximum 0");
}

TEST(HostileParams, TargetStrings) {
    struct Case {
        std::string target, expected;
    };
    std::vector<Case> cases = {
        {"x86-64-linux-", "unknown feature \"\""},
        {"x86--linux", "unknown bit width \"\""},
        {"host--avx2", "unknown feature \"\""},
        {"HOST", "unknown architecture \"HOST\""},
        {" host", "unknown architecture \" host\""},
        {"x86-064-linux", "unknown bit width \"064\""},
        {"-", "unknown architecture \"\""},
        {"x86-64-linux\n", "unknown operating system"},
        {std::string(5000, 'a'), "unknown architecture"},
    };
    for (const Case &c : cases) {
        std::string msg = message_of([&] { Target t(c.target); });
        EXPECT_CONTAINS(msg, c.expected);
        EXPECT_CONTAINS(msg, "Target strings are arch-bits-os[-features] or host[-features]");
    }
    // A feature given twice, or one another implies, is harmless.
    EXPECT_EQ(Target("x86-64-linux-avx2-avx2").to_string(), "x86-64-linux-avx2");
    EXPECT_EQ(Target("x86-64-linux-sse41-avx512").to_string(), "x86-64-linux-avx512");
}

// A Param large enough that the region a consumer reads no longer fits in 32 bits: the wrapped
// bounds sized storage that the consumer then read far outside (a crash). It is now an error
// naming the Func, and the same pipeline runs with a small value.
TEST(HostileParams, RegionsThatOverflow32Bits) {
    Var x("x");
    Param<int> n("n");
    Func f("ovf_f"), g("ovf_g");
    f(x) = x;
    g(x) = f(x * n);
    f.compute_root();
    n.set(1 << 29);
    std::string msg = message_of<RuntimeError>([&] { g.realize({16}); });
    EXPECT_CONTAINS(msg, "the region of \"ovf_f\" overflows 32-bit arithmetic");
    EXPECT_CONTAINS(msg, "needs the value 8053063680");
    EXPECT_CONTAINS(msg, "set_range");
    n.set(3);
    Buffer<int> out = g.realize({16});
    for (int i = 0; i < 16; i++)
        EXPECT_EQ(out(i), 3 * i);

    // Through an addition.
    Param<int> offset("offset");
    Func p("ovf_p"), q("ovf_q");
    p(x) = x / 2;
    q(x) = p(x + offset) + p(x);
    p.compute_root();
    offset.set(INT32_MAX - 4);
    msg = message_of<RuntimeError>([&] { q.realize({16}); });
    EXPECT_CONTAINS(msg, "the region of \"ovf_p\" overflows 32-bit arithmetic");
}

// DSL_JIT_OPT_LEVEL chooses LLVM's optimisation level for the JIT; a value that is not a level
// is an error naming the variable, and every level gives the same result.
TEST(HostileParams, JitOptimisationLevelFromTheEnvironment) {
    Var x("x");
    Func f("opt_level_f");
    f(x) = x * 3 + 1;
    for (const char *bad : {"4", "-1", "fast", "03"}) {
        setenv("DSL_JIT_OPT_LEVEL", bad, 1);
        std::string msg = message_of([&] { f.realize({4}); });
        EXPECT_CONTAINS(msg, std::string("DSL_JIT_OPT_LEVEL is \"") + bad + "\"");
        EXPECT_CONTAINS(msg, "set it to 0, 1, 2 or 3");
    }
    for (const char *level : {"0", "1", "2", "3"}) {
        setenv("DSL_JIT_OPT_LEVEL", level, 1);
        Buffer<int> out = f.realize({8});
        for (int i = 0; i < 8; i++)
            EXPECT_EQ(out(i), i * 3 + 1) << "at O" << level;
    }
    unsetenv("DSL_JIT_OPT_LEVEL");
}

class HostileParamsGenerator : public Generator<HostileParamsGenerator> {
  public:
    GeneratorParam<int> radius{"radius", 2, 1, 8};
    GeneratorParam<float> scale{"scale", 1.0f};
    GeneratorParam<bool> flag{"flag", false};
    GeneratorParam<Type> type{"type", UInt(8)};
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<uint8_t>> output{"output", 2};
    void generate() {
        Var x, y;
        output(x, y) = input(x, y);
    }
};

TEST(HostileParams, GeneratorParamValues) {
    struct Case {
        std::string param, value, expected;
    };
    std::vector<Case> cases = {
        {"radius", "", "cannot use \"\"; write an integer of type int32"},
        {"radius", "1e3", "cannot use \"1e3\"; write an integer"},
        {"radius", "0x3", "cannot use \"0x3\""},
        {"radius", "99999999999999999999", "write an integer of type int32"},
        {"radius", "9", "give a value in [1, 8]"},
        {"scale", "nan", "write a finite number"},
        {"scale", "1e999", "write a finite number"},
        {"scale", "1.5x", "write a finite number"},
        {"flag", "yes", "write true or false"},
        {"type", "int7", "use one of bool, int8"},
        {"type", "float16x4", "use one of bool, int8"},
        {"target", "mips-64-linux", "not for mips; valid architectures: x86, arm"},
        {"", "3", "there is no GeneratorParam \"\""},
    };
    for (const Case &c : cases) {
        HostileParamsGenerator g;
        g.set_generator_name("hostile");
        std::string msg = message_of([&] { g.set_param(c.param, c.value); });
        EXPECT_CONTAINS(msg, "Generator \"hostile\"");
        EXPECT_CONTAINS(msg, c.expected);
    }
}

}  // namespace
}  // namespace dsl
