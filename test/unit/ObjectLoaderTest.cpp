// The JIT's own object loader (src/jit/ObjectLoader.cpp): it loads what code generation emits
// and calls into the runtime and libm through it, and it refuses, with a reason and without
// crashing, anything else: bytes that are not an ELF object, another machine's object, a
// truncated one, one whose section table lies outside it, and an undefined symbol this process
// does not have. (Every JIT test loads its pipelines through it; `correctness.orc_linker` runs
// a share of them through ORC's JITLink instead.)
#include <gtest/gtest.h>

#include <elf.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "codegen/CodeGenLLVM.h"
#include "dsl/dsl.h"
#include "jit/ObjectLoader.h"
#include "lowering/Lower.h"

namespace dsl {
namespace {

using jit::LoadedObject;

/// The object of a pipeline that calls the runtime (a heap allocation and a parallel loop) and
/// libm (expf), compiled for this machine.
std::string pipeline_object() {
    Func g("ol_g"), f("ol_f");
    Var x("x"), y("y");
    g(x, y) = exp(cast<float>(x + y) / 100.0f);
    f(x, y) = g(x, y) + g(x + 1, y);
    g.compute_root();
    f.parallel(y);
    auto lowered = lowering::lower({lang::Function(f.contents())}, "ol_pipeline");
    codegen::CpuTarget target = codegen::CpuTarget::host();
    return codegen::compile_to_object_bytes(lowered.module, target, "host");
}

TEST(ObjectLoader, LoadsCodeThatCallsTheRuntimeAndLibm) {
    if (Target::host().arch != Target::Arch::X86) GTEST_SKIP() << "x86-64 objects";
    const std::string object = pipeline_object();
    std::string problem;
    auto loaded = LoadedObject::load(object.data(), object.size(), &problem);
    ASSERT_TRUE(loaded) << problem;
    EXPECT_NE(loaded->symbol("ol_pipeline"), nullptr);
    EXPECT_NE(loaded->symbol("ol_pipeline_argv"), nullptr);
    EXPECT_EQ(loaded->symbol("no_such_function"), nullptr);

    // Run it: f(x, y) over 40 x 12, through the argv entry point.
    Buffer<float> out(40, 12);
    void *args[] = {out.raw_buffer()};
    auto argv = reinterpret_cast<int (*)(void **)>(loaded->symbol("ol_pipeline_argv"));
    ASSERT_EQ(argv(args), 0);
    for (int y = 0; y < 12; y++) {
        for (int x = 0; x < 40; x++) {
            float expected = std::exp(static_cast<float>(x + y) / 100.0f) +
                             std::exp(static_cast<float>(x + 1 + y) / 100.0f);
            EXPECT_NEAR(out(x, y), expected, 1e-5f * expected) << x << ", " << y;
        }
    }
}

// DSL_PERF_MAP=1: the loaded functions are listed for perf, with their addresses.
TEST(ObjectLoader, WritesAPerfMapWhenAsked) {
    if (Target::host().arch != Target::Arch::X86) GTEST_SKIP() << "x86-64 objects";
    const std::string object = pipeline_object();
    const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::remove(path.c_str());
    setenv("DSL_PERF_MAP", "1", 1);
    std::string problem;
    auto loaded = LoadedObject::load(object.data(), object.size(), &problem);
    unsetenv("DSL_PERF_MAP");
    ASSERT_TRUE(loaded) << problem;
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::remove(path.c_str());
    std::ostringstream expected;
    expected << std::hex << reinterpret_cast<uintptr_t>(loaded->symbol("ol_pipeline_argv"));
    EXPECT_NE(ss.str().find(expected.str() + " "), std::string::npos) << ss.str();
    EXPECT_NE(ss.str().find(" ol_pipeline_argv\n"), std::string::npos) << ss.str();
    EXPECT_NE(ss.str().find(".task"), std::string::npos) << "no parallel loop's task:\n"
                                                         << ss.str();
}

TEST(ObjectLoader, RefusesWhatItCannotLoad) {
    if (Target::host().arch != Target::Arch::X86) GTEST_SKIP() << "x86-64 objects";
    const std::string object = pipeline_object();
    auto refused = [](const std::string &bytes) {
        std::string problem;
        auto loaded = LoadedObject::load(bytes.data(), bytes.size(), &problem);
        EXPECT_FALSE(problem.empty());
        return !loaded && !problem.empty();
    };
    EXPECT_TRUE(refused(""));
    EXPECT_TRUE(refused("not an object file at all, but long enough for a header........."));
    EXPECT_TRUE(refused(object.substr(0, 40)));
    EXPECT_TRUE(refused(object.substr(0, object.size() / 2)));

    std::string other_machine = object;
    const uint16_t aarch64 = EM_AARCH64;
    std::memcpy(&other_machine[offsetof(Elf64_Ehdr, e_machine)], &aarch64, 2);
    EXPECT_TRUE(refused(other_machine));

    std::string sections_outside = object;
    const uint64_t far = object.size() + 4096;
    std::memcpy(&sections_outside[offsetof(Elf64_Ehdr, e_shoff)], &far, 8);
    EXPECT_TRUE(refused(sections_outside));

    // A runtime function renamed in the string table: a symbol this process lacks.
    std::string unknown_symbol = object;
    const size_t at = unknown_symbol.find("dsl_runtime_malloc");
    ASSERT_NE(at, std::string::npos);
    unknown_symbol[at + 4] = 'X';
    std::string problem;
    EXPECT_FALSE(LoadedObject::load(unknown_symbol.data(), unknown_symbol.size(), &problem));
    EXPECT_NE(problem.find("dsl_Xuntime_malloc"), std::string::npos) << problem;
}

}  // namespace
}  // namespace dsl
