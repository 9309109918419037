// Target strings: parsing, the canonical form, error messages, feature queries and vector widths.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using Feature = Target::Feature;
using test::message_of;

TEST(Target, ParsesArchBitsOs) {
    Target x86("x86-64-linux");
    EXPECT_EQ(x86.arch, Target::Arch::X86);
    EXPECT_EQ(x86.bits, 64);
    EXPECT_EQ(x86.os, Target::OS::Linux);
    EXPECT_FALSE(x86.is_host());
    EXPECT_TRUE(x86.features().empty());
    EXPECT_EQ(x86, Target());

    Target arm = Target::from_string("arm-64-linux");
    EXPECT_EQ(arm.arch, Target::Arch::ARM);
    EXPECT_TRUE(arm.has_feature(Feature::NEON)) << "NEON is part of every arm-64 target";
    EXPECT_FALSE(arm.has_feature(Feature::AVX2));
}

TEST(Target, FeaturesBringTheOnesTheyBuildOn) {
    Target avx2("x86-64-linux-avx2");
    EXPECT_TRUE(avx2.has_feature(Feature::AVX2));
    EXPECT_TRUE(avx2.has_feature(Feature::AVX));
    EXPECT_TRUE(avx2.has_feature(Feature::SSE41));
    EXPECT_FALSE(avx2.has_feature(Feature::FMA));
    EXPECT_FALSE(avx2.has_feature(Feature::AVX512));

    Target avx512("x86-64-linux-avx512");
    for (Feature f : {Feature::SSE41, Feature::AVX, Feature::AVX2, Feature::FMA, Feature::F16C,
                      Feature::AVX512})
        EXPECT_TRUE(avx512.has_feature(f)) << Target::feature_name(f);
    EXPECT_FALSE(avx512.has_feature(Feature::AVX512_VNNI));
    EXPECT_TRUE(Target("x86-64-linux-avx512_vnni").has_feature(Feature::AVX512));

    Target sse41("x86-64-linux-sse41");
    EXPECT_TRUE(sse41.has_feature(Feature::SSE41));
    EXPECT_FALSE(sse41.has_feature(Feature::AVX));
}

TEST(Target, CanonicalStringsRoundTrip) {
    const char *canonical[] = {
        "x86-64-linux",        "x86-64-linux-sse41",       "x86-64-linux-avx",
        "x86-64-linux-avx2",   "x86-64-linux-avx2-fma",    "x86-64-linux-avx2-fma-f16c",
        "x86-64-linux-avx512", "x86-64-linux-avx512_vnni", "arm-64-linux"};
    for (const char *s : canonical) {
        Target t(s);
        EXPECT_EQ(t.to_string(), s);
        EXPECT_EQ(Target(t.to_string()), t) << s;
    }
    // Implied, repeated and out-of-order features are written once, in canonical order.
    EXPECT_EQ(Target("x86-64-linux-fma-avx2-sse41-avx").to_string(), "x86-64-linux-avx2-fma");
    EXPECT_EQ(Target("x86-64-linux-avx2-avx2").to_string(), "x86-64-linux-avx2");
    EXPECT_EQ(Target("x86-64-linux-f16c-avx512").to_string(), "x86-64-linux-avx512");
    EXPECT_EQ(Target("arm-64-linux-neon").to_string(), "arm-64-linux");
    EXPECT_EQ(Target("x86-64-linux-avx2-fma"), Target("x86-64-linux-fma-avx2"));
    EXPECT_NE(Target("x86-64-linux-avx2"), Target("x86-64-linux-avx2-fma"));
}

TEST(Target, HostIsThisMachine) {
    Target host = Target::host();
    EXPECT_TRUE(host.is_host());
    EXPECT_EQ(host.to_string(), "host");
    EXPECT_EQ(Target("host"), host);
#if defined(__x86_64__)
    EXPECT_EQ(host.arch, Target::Arch::X86);
    EXPECT_TRUE(host.has_feature(Feature::SSE41) || !__builtin_cpu_supports("sse4.1"));
    EXPECT_EQ(host.has_feature(Feature::AVX2), bool(__builtin_cpu_supports("avx2")));
    EXPECT_EQ(host.has_feature(Feature::AVX512),
              __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                  __builtin_cpu_supports("avx512cd"));
#endif
}

TEST(Target, HostWithFeatures) {
    Target host = Target::host();
    if (host.arch != Target::Arch::X86) GTEST_SKIP() << "x86 features on an x86 host";
    // A feature the host has changes nothing; one it lacks is added and shown.
    EXPECT_EQ(Target("host-sse41"), host.with_feature(Feature::SSE41));
    for (Feature f : {Feature::AVX2, Feature::AVX512, Feature::AVX512_VNNI}) {
        Target t = Target("host-" + Target::feature_name(f));
        EXPECT_TRUE(t.is_host());
        EXPECT_TRUE(t.has_feature(f));
        EXPECT_EQ(Target(t.to_string()), t);
        if (host.has_feature(f))
            EXPECT_EQ(t.to_string(), "host");
        else
            EXPECT_EQ(t.to_string(), "host-" + Target::feature_name(f));
    }
    // Removing a feature the host has leaves the plain target with the rest.
    Target no_sse41 = host.without_feature(Feature::SSE41);
    EXPECT_FALSE(no_sse41.is_host());
    EXPECT_FALSE(no_sse41.has_feature(Feature::AVX));
    EXPECT_EQ(Target(no_sse41.to_string()), no_sse41);
}

TEST(Target, WithAndWithoutFeature) {
    Target t = Target("x86-64-linux").with_feature(Feature::AVX2);
    EXPECT_EQ(t, Target("x86-64-linux-avx2"));
    EXPECT_EQ(t.with_feature(Feature::FMA).to_string(), "x86-64-linux-avx2-fma");
    // Removing a feature removes the ones built on it.
    Target avx512("x86-64-linux-avx512_vnni");
    EXPECT_EQ(avx512.without_feature(Feature::AVX512_VNNI).to_string(), "x86-64-linux-avx512");
    EXPECT_EQ(avx512.without_feature(Feature::AVX2).to_string(), "x86-64-linux-fma-f16c");
    EXPECT_EQ(avx512.without_feature(Feature::SSE41).to_string(), "x86-64-linux");
    EXPECT_EQ(t.without_feature(Feature::AVX512), t) << "removing an absent feature is a no-op";

    std::string msg = message_of([] { Target("arm-64-linux").with_feature(Feature::AVX2); });
    EXPECT_CONTAINS(msg, "\"avx2\" is for x86 targets");
    EXPECT_CONTAINS(msg, "valid features for arm targets: neon");
    msg = message_of([] { Target("x86-64-linux").with_feature(Feature::NEON); });
    EXPECT_CONTAINS(msg,
                    "valid features for x86 targets: sse41, avx, avx2, fma, f16c, avx512, "
                    "avx512_vnni");
    msg = message_of([] { Target("arm-64-linux").without_feature(Feature::NEON); });
    EXPECT_CONTAINS(msg, "\"neon\" is part of every arm-64 target");
}

// fp_contract is a feature of the code, on either architecture: it keeps a host target a host
// target, and realize() never asks the CPU for it.
TEST(Target, FpContractIsAFeatureOfTheCode) {
    Target x86("x86-64-linux-avx2-fp_contract");
    EXPECT_TRUE(x86.has_feature(Feature::FP_CONTRACT));
    EXPECT_TRUE(x86.has_feature(Feature::AVX2));
    EXPECT_EQ(Target(x86.to_string()), x86);
    EXPECT_EQ(x86.to_string(), "x86-64-linux-avx2-fp_contract");
    Target arm("arm-64-linux-fp_contract");
    EXPECT_TRUE(arm.has_feature(Feature::FP_CONTRACT));
    EXPECT_EQ(Target(arm.to_string()), arm);
    Target host("host-fp_contract");
    EXPECT_TRUE(host.is_host());
    EXPECT_EQ(host.to_string(), "host-fp_contract");
    EXPECT_FALSE(Target::host().has_feature(Feature::FP_CONTRACT)) << "off unless asked for";
    EXPECT_EQ(host.without_feature(Feature::FP_CONTRACT), Target::host());
    EXPECT_FALSE(Target::is_cpu_feature(Feature::FP_CONTRACT));
    EXPECT_TRUE(Target::is_cpu_feature(Feature::AVX2));
}

TEST(Target, NaturalVectorSize) {
    EXPECT_EQ(Target("x86-64-linux").natural_vector_size(Float(32)), 4);
    EXPECT_EQ(Target("x86-64-linux-sse41").natural_vector_size(UInt(8)), 16);
    EXPECT_EQ(Target("x86-64-linux-avx").natural_vector_size(Float(32)), 8);
    EXPECT_EQ(Target("x86-64-linux-avx2").natural_vector_size(Int(16)), 16);
    EXPECT_EQ(Target("x86-64-linux-avx512").natural_vector_size(Float(32)), 16);
    EXPECT_EQ(Target("x86-64-linux-avx512").natural_vector_size(Float(64)), 8);
    EXPECT_EQ(Target("x86-64-linux-avx512").natural_vector_size<uint8_t>(), 64);
    EXPECT_EQ(Target("arm-64-linux").natural_vector_size(Float(32)), 4);
    EXPECT_EQ(Target("arm-64-linux").natural_vector_size<int16_t>(), 8);
}

TEST(Target, ErrorsNameTheWordAndListTheValidOnes) {
    std::string msg = message_of([] { Target("sparc-64-linux"); });
    EXPECT_CONTAINS(msg, "unknown architecture \"sparc\"");
    EXPECT_CONTAINS(msg, "valid architectures: x86, arm");
    EXPECT_CONTAINS(msg, "\"host\"");
    // An architecture Halide knows: said so, with the valid ones.
    msg = message_of([] { Target("mips-64-linux"); });
    EXPECT_CONTAINS(msg, "not for mips");
    EXPECT_CONTAINS(msg, "valid architectures: x86, arm");

    msg = message_of([] { Target("x86-32-linux"); });
    EXPECT_CONTAINS(msg, "32-bit targets are not supported");
    EXPECT_CONTAINS(msg, "valid bit widths: 64");
    msg = message_of([] { Target("x86-16-linux"); });
    EXPECT_CONTAINS(msg, "unknown bit width \"16\"");
    EXPECT_CONTAINS(msg, "valid bit widths: 64");
    msg = message_of([] { Target("x86"); });
    EXPECT_CONTAINS(msg, "bit width is missing");
    EXPECT_CONTAINS(msg, "valid: 64");

    msg = message_of([] { Target("x86-64-bsd"); });
    EXPECT_CONTAINS(msg, "unknown operating system \"bsd\"");
    EXPECT_CONTAINS(msg, "valid operating systems: linux");
    msg = message_of([] { Target("x86-64-windows"); });
    EXPECT_CONTAINS(msg, "not for windows");
    EXPECT_CONTAINS(msg, "valid operating systems: linux");
    msg = message_of([] { Target("arm-64"); });
    EXPECT_CONTAINS(msg, "operating system is missing");
    EXPECT_CONTAINS(msg, "valid operating systems: linux");

    msg = message_of([] { Target("x86-64-linux-avx3"); });
    EXPECT_CONTAINS(msg, "unknown feature \"avx3\"");
    EXPECT_CONTAINS(msg,
                    "valid features for x86 targets: sse41, avx, avx2, fma, f16c, avx512, "
                    "avx512_vnni");
    msg = message_of([] { Target("arm-64-linux-sve2x"); });
    EXPECT_CONTAINS(msg, "unknown feature \"sve2x\"");
    EXPECT_CONTAINS(msg, "valid features for arm targets: neon");
    msg = message_of([] { Target("arm-64-linux-avx2"); });
    EXPECT_CONTAINS(msg, "\"avx2\" is for x86 targets");
    EXPECT_CONTAINS(msg, "valid features for arm targets: neon");
    msg = message_of([] { Target("host-avx9"); });
    EXPECT_CONTAINS(msg, "unknown feature \"avx9\"");
    EXPECT_CONTAINS(msg, "valid features for");

    // The empty string is the host (Halide's rule).
    EXPECT_EQ(Target(""), Target::host());
    msg = message_of([] { Target("-avx2"); });
    EXPECT_CONTAINS(msg, "arch-bits-os[-features]");
    // Every parse error shows the expected form.
    for (const char *bad : {"mips-64-linux", "x86-16-linux", "x86-64-bsd", "x86-64-linux-x"})
        EXPECT_CONTAINS(message_of([&] { Target t(bad); }), "host[-features]");
}

TEST(Target, GPUFeatures) {
    Target cuda("x86-64-linux-cuda_capability_86");
    EXPECT_TRUE(cuda.has_feature(Target::Feature::CUDA));  // implied
    EXPECT_TRUE(cuda.has_gpu_feature());
    EXPECT_EQ(cuda.cuda_capability(), 86);
    EXPECT_EQ(cuda.to_string(), "x86-64-linux-cuda_capability_86");
    EXPECT_EQ(Target(cuda.to_string()), cuda);
    EXPECT_EQ(Target("x86-64-linux-cuda").cuda_capability(), 75);
    EXPECT_EQ(Target("x86-64-linux-cuda_capability_61-cuda_capability_90").cuda_capability(), 90);
    EXPECT_EQ(Target("x86-64-linux-opencl").cuda_capability(), 0);
    EXPECT_FALSE(Target("x86-64-linux-avx2").has_gpu_feature());
    EXPECT_EQ(Target::cuda_capability_of(Target::Feature::CUDACapability70), 70);
    EXPECT_EQ(Target::cuda_capability_of(Target::Feature::AVX2), 0);
    for (Target::Feature f :
         {Target::Feature::OpenCL, Target::Feature::CUDA, Target::Feature::CUDACapability80})
        EXPECT_FALSE(Target::is_cpu_feature(f)) << Target::feature_name(f);
    // Halide's spelling of the features.
    EXPECT_TRUE(cuda.has_feature(Target::CUDA));
    EXPECT_TRUE(Target("host").with_feature(Target::OpenCL).has_gpu_feature());
    EXPECT_EQ(Target::cuda_capability_of(Target::CUDACapability80), 80);
    EXPECT_EQ(Target("host-strict_float").has_feature(Target::StrictFloat), true);
    EXPECT_FALSE(Target::is_cpu_feature(Target::StrictFloat));
    // GPU APIs go with either architecture.
    EXPECT_TRUE(Target("arm-64-linux-neon-cuda_capability_80").has_gpu_feature());
}

TEST(Target, HalideFieldsAndNames) {
    // Halide's public fields and unscoped enumerators.
    Target t("x86-64-linux-avx2");
    EXPECT_EQ(t.arch, Target::X86);
    EXPECT_EQ(t.bits, 64);
    EXPECT_EQ(t.os, Target::Linux);
    EXPECT_TRUE(t.supported());
    EXPECT_EQ(Target(Target::Linux, Target::X86, 64, {Target::AVX2}), t);
    EXPECT_EQ(Target(Target::Linux, Target::ARM, 64).to_string(), "arm-64-linux");
    EXPECT_TRUE(t.features_all_of({Target::AVX, Target::SSE41}));
    EXPECT_FALSE(t.features_all_of({Target::AVX, Target::FMA}));
    EXPECT_TRUE(t.features_any_of({Target::FMA, Target::AVX}));
    t.set_features({Target::FMA, Target::F16C});
    EXPECT_EQ(t.to_string(), "x86-64-linux-avx2-fma-f16c");

    // Fields set to something dsl does not generate code for: printable, refused when compiling.
    Target windows = Target("x86-64-linux");
    windows.os = Target::Windows;
    EXPECT_FALSE(windows.supported());
    EXPECT_EQ(windows.to_string(), "x86-64-windows");
    Var x("x");
    Func f("f");
    f(x) = x;
    std::string msg = message_of([&] { f.compile_to_assembly("/dev/null", windows); });
    EXPECT_CONTAINS(msg, "x86-64-windows");
    EXPECT_CONTAINS(msg, "Linux only");
    msg = message_of([] { Target("x86-64-osx"); });
    EXPECT_CONTAINS(msg, "Linux only, not for osx");
    msg = message_of([] { Target("wasm-32-wasmrt"); });
    EXPECT_CONTAINS(msg, "x86 and arm (64-bit) only, not for wasm");
}

TEST(Target, HalideFeaturesDslLacksAreNamedButNeverPresent) {
    Target host = Target::host();
    for (Target::Feature f :
         {Target::HVX, Target::HVX_v65, Target::Metal, Target::OpenGLCompute, Target::D3D12Compute,
          Target::WasmSimd128, Target::Debug, Target::LargeBuffers, Target::NoAsserts,
          Target::CheckUnsafePromises}) {
        EXPECT_FALSE(Target::is_supported_feature(f)) << Target::feature_name(f);
        EXPECT_FALSE(host.has_feature(f)) << Target::feature_name(f);
        std::string msg = message_of([&] { host.with_feature(f); });
        EXPECT_CONTAINS(msg, "\"" + Target::feature_name(f) + "\" is not supported");
        // Removing a feature the target lacks changes nothing.
        EXPECT_EQ(host.without_feature(f), host);
    }
    EXPECT_EQ(Target::feature_name(Target::HVX), "hvx");
    std::string msg = message_of([] { Target("host-hvx"); });
    EXPECT_CONTAINS(msg, "no Hexagon (HVX) back end");
    msg = message_of([] { Target("x86-64-linux-metal"); });
    EXPECT_CONTAINS(msg, "GPU APIs are OpenCL (opencl) and CUDA");
    EXPECT_TRUE(Target::validate_target_string("x86-64-linux-avx2-fma"));
    EXPECT_FALSE(Target::validate_target_string("x86-64-linux-hvx"));
    EXPECT_FALSE(Target::validate_target_string("x86-64-windows"));
}

TEST(Target, DeviceAPIs) {
    Target cpu("x86-64-linux");
    EXPECT_TRUE(cpu.supports_device_api(DeviceAPI::Host));
    EXPECT_FALSE(cpu.supports_device_api(DeviceAPI::Default_GPU));
    EXPECT_EQ(cpu.get_required_device_api(), DeviceAPI::None);
    EXPECT_TRUE(host_supports_target_device(cpu));
    Target gpu("x86-64-linux-opencl");
    EXPECT_TRUE(gpu.supports_device_api(DeviceAPI::OpenCL));
    EXPECT_TRUE(gpu.supports_device_api(DeviceAPI::Default_GPU));
    EXPECT_FALSE(gpu.supports_device_api(DeviceAPI::CUDA));
    EXPECT_EQ(gpu.get_required_device_api(), DeviceAPI::OpenCL);
    EXPECT_TRUE(Target("x86-64-linux-npu").supports_device_api(DeviceAPI::NPU));
    EXPECT_TRUE(cpu.supports_type(Float(16)));
    EXPECT_EQ(cpu.maximum_buffer_size(), 2147483647);
}

}  // namespace
}  // namespace dsl
