// Mistakes in ahead-of-time compilation: every one a CompileError that says what to change.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

std::string temp_prefix(const char *name) {
    return ::testing::TempDir() + "/" + name;
}

TEST(AotErrors, ArgumentsMustCoverTheInputs) {
    ImageParam input(UInt(8), 2, "input");
    Param<float> gain("gain");
    Func f("aot_err_f");
    Var x("x"), y("y");
    f(x, y) = cast<float>(input(x, y)) * gain;
    std::string prefix = temp_prefix("aot_err_f");
    EXPECT_CONTAINS(message_of([&] { f.compile_to_static_library(prefix, {input}, "f"); }),
                    "compile_to_static_library of Func \"aot_err_f\": the pipeline reads the "
                    "Param \"gain\", which is not in the argument list; add it.");
    EXPECT_CONTAINS(message_of([&] { f.compile_to_object(prefix + ".o", {gain}, "f"); }),
                    "reads the ImageParam \"input\", which is not in the argument list");
    EXPECT_CONTAINS(message_of([&] {
                        f.compile_to_header(prefix + ".h", {input, gain, input});
                    }),
                    "the argument \"input\" is listed twice");
    EXPECT_CONTAINS(message_of([&] {
                        f.compile_to_static_library(prefix, {input, gain}, "my-pipeline");
                    }),
                    "\"my-pipeline\" is not a C identifier");
    // The right list works, in any order, and an argument the pipeline does not read is kept.
    Param<int> unused("unused");
    EXPECT_NO_THROW(f.compile_to_static_library(prefix, {gain, unused, input}, "aot_err_ok"));
    std::FILE *h = std::fopen((prefix + ".h").c_str(), "r");
    ASSERT_NE(h, nullptr);
    char text[4096] = {0};
    size_t n = std::fread(text, 1, sizeof(text) - 1, h);
    std::fclose(h);
    EXPECT_GT(n, 0u);
    EXPECT_CONTAINS(std::string(text),
                    "int aot_err_ok(float gain, int32_t unused, dsl_buffer_t *input, "
                    "dsl_buffer_t *aot_err_f);");
}

TEST(AotErrors, BuffersReadDirectlyAndForeignTargets) {
    Buffer<uint8_t> table(16);
    Func f("aot_err_table");
    Var x("x");
    f(x) = table(x % 16) * 2;
    std::string prefix = temp_prefix("aot_err_table");
    EXPECT_CONTAINS(message_of([&] { f.compile_to_static_library(prefix, {}); }),
                    "the pipeline reads the Buffer \"" + table.name() +
                        "\" directly, which a compiled library cannot carry. Read it through an "
                        "ImageParam");
    Func g("aot_err_arm");
    g(x) = x * 3;
    EXPECT_CONTAINS(
        message_of([&] { g.compile_to_static_library(prefix, {}, "g", Target("arm-64-linux")); }),
        "this compiler carries its runtime for");
    EXPECT_NO_THROW(g.compile_to_object(prefix + "_arm.o", {}, "g", Target("arm-64-linux")));
}

}  // namespace
}  // namespace dsl
