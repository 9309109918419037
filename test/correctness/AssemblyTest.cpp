// Vectorized schedules produce real SIMD instructions at the width the target allows.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

std::string assembly_of(Func f, const Target &t) {
    std::string path = ::testing::TempDir() + "dsl_assembly_" + f.name() + ".s";
    f.compile_to_assembly(path, t);
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Target x86(const std::string &cpu, const std::string &features) {
    Target t = Target::host();
    t.cpu = cpu;
    t.features = features;
    return t;
}

TEST(Assembly, FloatAddVectorizedBy16UsesZmmWithAvx512) {
    Buffer<float> a(64), b(64);
    Var x("x");
    Func f("vadd16");
    f(x) = a(x) + b(x);
    f.vectorize(x, 16);
    std::string s = assembly_of(f, x86("skylake-avx512", "+avx512f,+avx512bw,+avx512vl,+avx512dq"));
    EXPECT_NE(s.find("vaddps\t(%"), std::string::npos);
    EXPECT_NE(s.find("%zmm"), std::string::npos) << "no 512-bit registers";
}

TEST(Assembly, Avx2AndSseWidths) {
    Buffer<float> a(64), b(64);
    Var x("x");
    Func f("vadd8");
    f(x) = a(x) * b(x);
    f.vectorize(x, 8);
    std::string avx2 = assembly_of(f, x86("haswell", "+avx2,+fma"));
    EXPECT_NE(avx2.find("vmulps"), std::string::npos);
    EXPECT_NE(avx2.find("%ymm"), std::string::npos);
    EXPECT_EQ(avx2.find("%zmm"), std::string::npos);
    Func g("vadd4");
    g(x) = a(x) * b(x);
    g.vectorize(x, 4);
    std::string sse = assembly_of(g, x86("x86-64", "+sse2"));
    EXPECT_NE(sse.find("mulps"), std::string::npos);
    EXPECT_EQ(sse.find("%ymm"), std::string::npos);
}

TEST(Assembly, LlvmIrHasVectorTypes) {
    Buffer<int16_t> a(64);
    Var x("x");
    Func f("vir");
    f(x) = a(x) + a(x + 1);
    f.vectorize(x, 16);
    std::string path = ::testing::TempDir() + "dsl_vir.ll";
    f.compile_to_llvm_ir(path);
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_NE(ss.str().find("<16 x i16>"), std::string::npos);
}

}  // namespace
}  // namespace dsl
