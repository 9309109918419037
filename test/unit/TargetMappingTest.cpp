// How Targets become LLVM triples, CPU names and feature strings.
#include <gtest/gtest.h>

#include "codegen/TargetMapping.h"

namespace dsl {
namespace {

using codegen::cpu_target_for;
using codegen::CpuTarget;

bool has_llvm_feature(const CpuTarget &t, const std::string &feature) {
    return ("," + t.features + ",").find("," + feature + ",") != std::string::npos;
}

TEST(TargetMapping, X86Baseline) {
    CpuTarget t = cpu_target_for(Target("x86-64-linux"));
    EXPECT_EQ(t.triple, "x86_64-unknown-linux-gnu");
    EXPECT_EQ(t.cpu, "x86-64");
    EXPECT_EQ(t.features, "");
}

TEST(TargetMapping, X86FeaturesAndTheirImplications) {
    CpuTarget avx2 = cpu_target_for(Target("x86-64-linux-avx2"));
    EXPECT_EQ(avx2.cpu, "x86-64");
    for (const char *f : {"+sse4.1", "+sse4.2", "+avx", "+avx2"})
        EXPECT_TRUE(has_llvm_feature(avx2, f)) << f << " in " << avx2.features;
    EXPECT_FALSE(has_llvm_feature(avx2, "+fma"));
    EXPECT_TRUE(has_llvm_feature(cpu_target_for(Target("x86-64-linux-avx2-fma")), "+fma"));

    CpuTarget avx512 = cpu_target_for(Target("x86-64-linux-avx512"));
    for (const char *f :
         {"+avx512f", "+avx512bw", "+avx512dq", "+avx512vl", "+avx512cd", "+fma", "+f16c", "+avx2"})
        EXPECT_TRUE(has_llvm_feature(avx512, f)) << f << " in " << avx512.features;
    EXPECT_FALSE(has_llvm_feature(avx512, "+avx512vnni"));
    EXPECT_TRUE(
        has_llvm_feature(cpu_target_for(Target("x86-64-linux-avx512_vnni")), "+avx512vnni"));
}

TEST(TargetMapping, Arm) {
    CpuTarget t = cpu_target_for(Target("arm-64-linux"));
    EXPECT_EQ(t.triple, "aarch64-unknown-linux-gnu");
    EXPECT_EQ(t.cpu, "generic");
    EXPECT_EQ(t.features, "+neon");
}

TEST(TargetMapping, HostUsesTheHostCpuPlusAddedFeatures) {
    CpuTarget host = CpuTarget::host();
    CpuTarget t = cpu_target_for(Target::host());
    EXPECT_EQ(t.triple, host.triple);
    EXPECT_EQ(t.cpu, host.cpu);
    EXPECT_EQ(t.features.compare(0, host.features.size(), host.features), 0);
    if (Target::host().arch != Target::Arch::X86) GTEST_SKIP() << "x86 features";
    CpuTarget vnni = cpu_target_for(Target("host-avx512_vnni"));
    EXPECT_EQ(vnni.cpu, host.cpu);
    // The added features come last, so they win over the host's "-avx512vnni".
    EXPECT_EQ(vnni.features.rfind("+avx512vnni"), vnni.features.size() - 11);
}

TEST(TargetMapping, StrictFloatTurnsFpContractOff) {
    EXPECT_TRUE(cpu_target_for(Target("x86-64-linux-fma-fp_contract")).fp_contract);
    EXPECT_FALSE(cpu_target_for(Target("x86-64-linux-fma-fp_contract-strict_float")).fp_contract);
}

}  // namespace
}  // namespace dsl
