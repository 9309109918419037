// Vectorized schedules produce real SIMD instructions at the width the target allows.
#include <gtest/gtest.h>

#include <cmath>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::assembly_of;

/// f(x) = a(x) + b(x) on floats, vectorized by 16.
Func float_add_by_16(const std::string &name) {
    Buffer<float> a(64), b(64);
    Var x("x");
    Func f(name);
    f(x) = a(x) + b(x);
    f.vectorize(x, 16);
    return f;
}

TEST(Assembly, FloatAddVectorizedBy16UsesZmmWithAvx512) {
    std::string s = assembly_of(float_add_by_16("vadd16_avx512"), Target("x86-64-linux-avx512"));
    EXPECT_NE(s.find("vaddps"), std::string::npos);
    EXPECT_NE(s.find("%zmm"), std::string::npos) << "no 512-bit registers";
}

// Reading every other element (a downsampling) is two dense loads of 16 floats covering the 31
// elements the 16 lanes span (the second ending at the span's end, so nothing past it is read)
// and a two-source shuffle, not a gather, where the input is dense. (The tail and the version
// for inputs of other strides still gather.)
TEST(Assembly, StrideTwoLoadsAreDenseLoadsAndShuffles) {
    Buffer<float> a(64);
    Var x("x");
    Func f("stride_two_load");
    f(x) = a(2 * x) + a(2 * x + 1);
    f.vectorize(x, 16);
    std::string ir = test::llvm_ir_of(f, Target("x86-64-linux-avx512"));
    EXPECT_EQ(ir.find("load <31 x float>"), std::string::npos) << "a load of the span's length";
    EXPECT_NE(ir.find("load <16 x float>"), std::string::npos) << "no dense load";
    EXPECT_NE(ir.find("shufflevector <16 x float>"), std::string::npos) << "no shuffle";
}

TEST(Assembly, FloatAddVectorizedBy16UsesYmmWithAvx2) {
    std::string s = assembly_of(float_add_by_16("vadd16_avx2"), Target("x86-64-linux-avx2"));
    EXPECT_NE(s.find("vaddps"), std::string::npos);
    EXPECT_NE(s.find("%ymm"), std::string::npos) << "no 256-bit registers";
    EXPECT_EQ(s.find("%zmm"), std::string::npos) << "AVX-512 code for an AVX2 target";
}

TEST(Assembly, FloatAddVectorizedBy16UsesXmmWithSse41) {
    std::string s = assembly_of(float_add_by_16("vadd16_sse41"), Target("x86-64-linux-sse41"));
    EXPECT_NE(s.find("addps"), std::string::npos);
    EXPECT_NE(s.find("%xmm"), std::string::npos);
    EXPECT_EQ(s.find("%ymm"), std::string::npos) << "AVX code for an SSE4.1 target";
    EXPECT_EQ(s.find("%zmm"), std::string::npos) << "AVX-512 code for an SSE4.1 target";
    EXPECT_EQ(s.find("vaddps"), std::string::npos) << "VEX encoding for an SSE4.1 target";
}

TEST(Assembly, FloatAddVectorizedBy16ForArmUsesNeon) {
    std::string s = assembly_of(float_add_by_16("vadd16_arm"), Target("arm-64-linux"));
    EXPECT_NE(s.find("fadd\tv"), std::string::npos) << "no NEON float add";
    EXPECT_NE(s.find(".4s"), std::string::npos) << "no 4 x f32 NEON vectors";
    EXPECT_EQ(s.find("%xmm"), std::string::npos) << "x86 code for an arm target";
}

TEST(Assembly, Avx2AndSseWidths) {
    Buffer<float> a(64), b(64);
    Var x("x");
    Func f("vadd8");
    f(x) = a(x) * b(x);
    f.vectorize(x, 8);
    std::string avx2 = assembly_of(f, Target("x86-64-linux-avx2-fma"));
    EXPECT_NE(avx2.find("vmulps"), std::string::npos);
    EXPECT_NE(avx2.find("%ymm"), std::string::npos);
    EXPECT_EQ(avx2.find("%zmm"), std::string::npos);
    Func g("vadd4");
    g(x) = a(x) * b(x);
    g.vectorize(x, 4);
    std::string sse = assembly_of(g, Target("x86-64-linux"));
    EXPECT_NE(sse.find("mulps"), std::string::npos);
    EXPECT_EQ(sse.find("%ymm"), std::string::npos);
}

// Stage::prefetch becomes the target's prefetch instruction (x86 prefetcht0, Arm prfm).
TEST(Assembly, PrefetchInstructions) {
    ImageParam in(Float(32), 2, "asm_pf_in");
    Var x("x"), y("y");
    Func f("asm_pf");
    f(x, y) = in(y, x) * 2.0f;
    f.prefetch(in, y, y, 1);
    EXPECT_NE(assembly_of(f, Target("x86-64-linux-avx2")).find("prefetcht0"), std::string::npos);
    EXPECT_NE(assembly_of(f, Target("arm-64-linux")).find("prfm"), std::string::npos);
}

TEST(Assembly, HostTargetUsesTheWidestRegisters) {
    Target host = Target::host();
    if (!host.has_feature(Target::Feature::AVX512)) GTEST_SKIP() << "host without AVX-512";
    std::string s = assembly_of(float_add_by_16("vadd16_host"), host);
    EXPECT_NE(s.find("%zmm"), std::string::npos) << "no 512-bit registers";
}

TEST(Assembly, RealizeRunsPlainTargetsTheHostCanExecute) {
    Target host = Target::host();
    Target plain = Target(host.arch == Target::Arch::X86 ? "x86-64-linux" : "arm-64-linux");
    if (host.has_feature(Target::Feature::AVX2)) plain = plain.with_feature(Target::Feature::AVX2);
    Buffer<float> a(64), b(64);
    for (int i = 0; i < 64; i++) {
        a(i) = i * 0.5f;
        b(i) = 100.0f - i;
    }
    Var x("x");
    Func f("vadd_plain");
    f(x) = a(x) + b(x);
    f.vectorize(x, 16);
    Buffer<float> out = f.realize({64}, plain);
    for (int i = 0; i < 64; i++)
        ASSERT_EQ(out(i), a(i) + b(i)) << "at " << i;
}

TEST(Assembly, RealizeRefusesAnotherArchitecture) {
    Target other(Target::host().arch == Target::Arch::X86 ? "arm-64-linux" : "x86-64-linux");
    Func f = float_add_by_16("vadd16_cross");
    std::string msg = test::message_of([&] { f.realize({64}, other); });
    EXPECT_CONTAINS(msg, "\"" + other.to_string() + "\"");
    EXPECT_CONTAINS(msg, "compile_to_");
    EXPECT_CONTAINS(msg, "ahead-of-time");
    // Ahead-of-time compilation for it works.
    EXPECT_FALSE(assembly_of(f, other).empty());
}

TEST(Assembly, RealizeRefusesFeaturesTheHostLacks) {
    Target host = Target::host();
    if (host.arch != Target::Arch::X86) GTEST_SKIP() << "x86 features";
    Target::Feature lacking = Target::Feature::AVX512_VNNI;
    bool found = false;
    for (Target::Feature f :
         {Target::Feature::SSE41, Target::Feature::AVX, Target::Feature::AVX2, Target::Feature::FMA,
          Target::Feature::F16C, Target::Feature::AVX512, Target::Feature::AVX512_VNNI}) {
        if (!host.has_feature(f) && !found) {
            lacking = f;
            found = true;
        }
    }
    if (!found) GTEST_SKIP() << "this host has every x86 feature a Target names";
    Target t = host.with_feature(lacking);
    Func f = float_add_by_16("vadd16_lacking");
    std::string msg = test::message_of([&] { f.realize({64}, t); });
    EXPECT_CONTAINS(msg, Target::feature_name(lacking));
    EXPECT_CONTAINS(msg, "lacks");
    EXPECT_CONTAINS(msg, "compile_to_");
    EXPECT_FALSE(assembly_of(f, t).empty());
}

// fp_contract lets a * b + c become a fused multiply-add; without it the multiply and the add
// stay apart (each rounded), and the realized values show the difference.
TEST(Assembly, FpContractFusesMultiplyAdd) {
    auto make = [](const std::string &name, Param<float> &a, Param<float> &b, Param<float> &c) {
        Var x("x");
        Func f(name);
        f(x) = a * b + c + cast<float>(x) * 0.0f;
        f.vectorize(x, 8);
        return f;
    };
    Param<float> a("fc_a"), b("fc_b"), c("fc_c");
    Func strict = make("fc_strict", a, b, c), contracted = make("fc_contracted", a, b, c);
    const Target avx2("x86-64-linux-avx2-fma");
    EXPECT_EQ(assembly_of(strict, avx2).find("vfmadd"), std::string::npos)
        << "fused without fp_contract";
    EXPECT_NE(
        assembly_of(contracted, avx2.with_feature(Target::Feature::FP_CONTRACT)).find("vfmadd"),
        std::string::npos)
        << "not fused with fp_contract";
    if (!Target::host().has_feature(Target::Feature::FMA)) GTEST_SKIP() << "the host has no FMA";
    // (1 + 2^-20)^2 = 1 + 2^-19 + 2^-40: rounded to float, the 2^-40 is lost before the add.
    const float one_plus = 1.0f + 1.0f / (1 << 20);
    a.set(one_plus);
    b.set(one_plus);
    c.set(-(1.0f + 1.0f / (1 << 19)));
    Buffer<float> s = strict.realize({8});
    Buffer<float> f =
        contracted.realize({8}, Target::host().with_feature(Target::Feature::FP_CONTRACT));
    EXPECT_EQ(s(3), 0.0f);
    EXPECT_EQ(f(3), std::ldexp(1.0f, -40));
}

// strict_float(e) keeps e's operations apart under fp_contract; Target::StrictFloat turns
// fp_contract off for the whole pipeline.
TEST(Assembly, StrictFloatKeepsOperationsApart) {
    Param<float> a("sf_a"), b("sf_b"), c("sf_c");
    auto make = [&](const std::string &name, bool strict) {
        Var x("x");
        Func f(name);
        Expr e = a * b + c;
        f(x) = (strict ? strict_float(e) : e) + cast<float>(x) * 0.0f;
        f.vectorize(x, 8);
        return f;
    };
    const Target contract =
        Target("x86-64-linux-avx2-fma").with_feature(Target::Feature::FP_CONTRACT);
    Func kept = make("sf_kept", true), fused = make("sf_fused", false);
    EXPECT_EQ(assembly_of(kept, contract).find("vfmadd"), std::string::npos)
        << "fused inside strict_float";
    EXPECT_NE(assembly_of(fused, contract).find("vfmadd"), std::string::npos)
        << "not fused outside strict_float";
    Func whole = make("sf_whole", false);
    EXPECT_EQ(assembly_of(whole, contract.with_feature(Target::StrictFloat)).find("vfmadd"),
              std::string::npos)
        << "fused with Target::StrictFloat";
    if (!Target::host().has_feature(Target::Feature::FMA)) GTEST_SKIP() << "the host has no FMA";
    const float one_plus = 1.0f + 1.0f / (1 << 20);
    a.set(one_plus);
    b.set(one_plus);
    c.set(-(1.0f + 1.0f / (1 << 19)));
    Buffer<float> k = kept.realize({8}, Target::host().with_feature(Target::Feature::FP_CONTRACT));
    EXPECT_EQ(k(3), 0.0f);  // two roundings, as the reference evaluator computes
    EXPECT_TRUE(test::matches_reference(kept, k));
}

TEST(Assembly, LlvmIrHasVectorTypes) {
    Buffer<int16_t> a(64);
    Var x("x");
    Func f("vir");
    f(x) = a(x) + a(x + 1);
    f.vectorize(x, 16);
    EXPECT_NE(test::llvm_ir_of(f, Target::host()).find("<16 x i16>"), std::string::npos);
}

}  // namespace
}  // namespace dsl
