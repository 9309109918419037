#include "dsl/Target.h"

#include <algorithm>
#include <cstdlib>
#include <ostream>

#include "codegen/TargetMapping.h"
#include "ir/Error.h"

namespace dsl {

namespace {

using Feature = Target::Feature;

/// Halide's features that dsl does not support, with their names in target strings and why.
struct Unsupported {
    Feature feature;
    const char *name;
    const char *why;
};

constexpr const char *hexagon_why = "dsl has no Hexagon (HVX) back end";
constexpr const char *gpu_why =
    "dsl's GPU APIs are OpenCL (opencl) and CUDA (cuda, cuda_capability_61 and up)";
constexpr const char *isa_why =
    "dsl generates code for x86-64 (sse41 ... avx512_vnni) and arm-64 (neon) only";
constexpr const char *old_cuda_why = "dsl's PTX needs compute capability 6.1 or higher";
constexpr const char *sanitizer_why = "dsl does not instrument generated code for sanitizers";
constexpr const char *aot_why =
    "it changes Halide's runtime or object files, which dsl does not have";

constexpr Unsupported unsupported_features[] = {
    {Feature::JIT, "jit", aot_why},
    {Feature::Debug, "debug", "dsl's runtime has no debug mode"},
    {Feature::NoAsserts, "no_asserts", "dsl always checks its buffers and parameters"},
    {Feature::NoBoundsQuery, "no_bounds_query",
     "dsl's generated functions always answer bounds queries"},
    {Feature::FMA4, "fma4", isa_why},
    {Feature::ARMv7s, "armv7s", isa_why},
    {Feature::NoNEON, "no_neon", isa_why},
    {Feature::VSX, "vsx", isa_why},
    {Feature::POWER_ARCH_2_07, "power_arch_2_07", isa_why},
    {Feature::CUDACapability30, "cuda_capability_30", old_cuda_why},
    {Feature::CUDACapability32, "cuda_capability_32", old_cuda_why},
    {Feature::CUDACapability35, "cuda_capability_35", old_cuda_why},
    {Feature::CUDACapability50, "cuda_capability_50", old_cuda_why},
    {Feature::CLDoubles, "cl_doubles",
     "dsl's OpenCL kernels enable float64 by themselves when they use it"},
    {Feature::CLHalf, "cl_half", gpu_why},
    {Feature::CLAtomics64, "cl_atomics64", gpu_why},
    {Feature::OpenGLCompute, "openglcompute", gpu_why},
    {Feature::EGL, "egl", gpu_why},
    {Feature::UserContext, "user_context", aot_why},
    {Feature::NoRuntime, "no_runtime", aot_why},
    {Feature::Metal, "metal", gpu_why},
    {Feature::CPlusPlusMangling, "c_plus_plus_name_mangling", aot_why},
    {Feature::LargeBuffers, "large_buffers",
     "dsl indexes buffers with int32 arithmetic (at most 2^31 - 1 bytes)"},
    {Feature::HexagonDma, "hexagon_dma", hexagon_why},
    {Feature::HVX_128, "hvx", hexagon_why},
    {Feature::HVX_v62, "hvx_v62", hexagon_why},
    {Feature::HVX_v65, "hvx_v65", hexagon_why},
    {Feature::HVX_v66, "hvx_v66", hexagon_why},
    {Feature::HVX_shared_object, "hvx_shared_object", hexagon_why},
    {Feature::SoftFloatABI, "soft_float_abi", isa_why},
    {Feature::MSAN, "msan", sanitizer_why},
    {Feature::AVX512_KNL, "avx512_knl",
     "use avx512 (F, BW, DQ, VL, CD: Skylake's set) or avx512_vnni"},
    {Feature::AVX512_Skylake, "avx512_skylake",
     "use avx512, which is Skylake's set (F, BW, DQ, VL, CD)"},
    {Feature::AVX512_Cannonlake, "avx512_cannonlake", "use avx512 or avx512_vnni"},
    {Feature::AVX512_SapphireRapids, "avx512_sapphirerapids", "use avx512_vnni"},
    {Feature::D3D12Compute, "d3d12compute", gpu_why},
    {Feature::TSAN, "tsan", sanitizer_why},
    {Feature::ASAN, "asan", sanitizer_why},
    {Feature::CheckUnsafePromises, "check_unsafe_promises",
     "dsl has no unsafe_promise_clamped checks"},
    {Feature::EmbedBitcode, "embed_bitcode", aot_why},
    {Feature::EnableLLVMLoopOpt, "enable_llvm_loop_opt",
     "dsl always runs LLVM's loop optimisations"},
    {Feature::WasmSimd128, "wasm_simd128", isa_why},
    {Feature::WasmSignExt, "wasm_signext", isa_why},
    {Feature::WasmSatFloatToInt, "wasm_sat_float_to_int", isa_why},
    {Feature::WasmThreads, "wasm_threads", isa_why},
    {Feature::WasmBulkMemory, "wasm_bulk_memory", isa_why},
    {Feature::SVE, "sve", isa_why},
    {Feature::SVE2, "sve2", isa_why},
    {Feature::ARMDotProd, "arm_dot_prod", isa_why},
    {Feature::ARMFp16, "arm_fp16", isa_why},
    {Feature::RVV, "rvv", isa_why},
    {Feature::ARMv81a, "armv81a", isa_why},
    {Feature::SanitizerCoverage, "sanitizer_coverage", sanitizer_why},
};

const Unsupported *unsupported(Feature f) {
    for (const Unsupported &u : unsupported_features)
        if (u.feature == f) return &u;
    return nullptr;
}

/// The supported features, in canonical order.
constexpr Feature all_features[] = {Feature::SSE41,
                                    Feature::AVX,
                                    Feature::AVX2,
                                    Feature::FMA,
                                    Feature::F16C,
                                    Feature::AVX512,
                                    Feature::AVX512_VNNI,
                                    Feature::NEON,
                                    Feature::FP_CONTRACT,
                                    Feature::OpenCL,
                                    Feature::CUDA,
                                    Feature::CUDACapability61,
                                    Feature::CUDACapability70,
                                    Feature::CUDACapability75,
                                    Feature::CUDACapability80,
                                    Feature::CUDACapability86,
                                    Feature::CUDACapability89,
                                    Feature::CUDACapability90,
                                    Feature::StrictFloat,
                                    Feature::NPU,
                                    Feature::TraceLoads,
                                    Feature::TraceStores,
                                    Feature::TraceRealizations,
                                    Feature::Profile,
                                    Feature::ProfileByTimer,
                                    Feature::TracePipeline,
                                    Feature::FuzzFloatStores};
static_assert(sizeof(all_features) / sizeof(all_features[0]) == Feature::JIT,
              "the supported features come first, in order");

constexpr uint32_t bit(Feature f) {
    return Target::is_supported_feature(f) ? uint32_t(1) << static_cast<int>(f) : 0;
}

/// The features `f` builds on directly.
std::vector<Feature> direct_implications(Feature f) {
    switch (f) {
        case Feature::AVX:
            return {Feature::SSE41};
        case Feature::AVX2:
        case Feature::FMA:
        case Feature::F16C:
            return {Feature::AVX};
        case Feature::AVX512:
            return {Feature::AVX2, Feature::FMA, Feature::F16C};
        case Feature::AVX512_VNNI:
            return {Feature::AVX512};
        default:
            // Each cuda_capability_NN implies cuda.
            if (Target::cuda_capability_of(f)) return {Feature::CUDA};
            return {};
    }
}

/// `f` and every feature it implies.
uint32_t closure(Feature f) {
    uint32_t mask = bit(f);
    for (Feature g : direct_implications(f))
        mask |= closure(g);
    return mask;
}

/// Whether `f` is a feature of targets of `arch` (`fp_contract` and the GPU APIs are ones of
/// every architecture).
bool feature_of(Feature f, Target::Arch arch) {
    if (!Target::is_cpu_feature(f)) return true;
    return (f == Feature::NEON ? Target::Arch::ARM : Target::Arch::X86) == arch;
}

/// The features every target of the architecture has.
uint32_t baseline(Target::Arch arch) {
    return arch == Target::Arch::ARM ? bit(Feature::NEON) : 0;
}

/// The words for architectures and operating systems in target strings (Halide's); dsl
/// generates code for the first two architectures and the first OS only.
constexpr std::pair<Target::Arch, const char *> arch_names[] = {
    {Target::X86, "x86"},         {Target::ARM, "arm"},         {Target::MIPS, "mips"},
    {Target::Hexagon, "hexagon"}, {Target::POWERPC, "powerpc"}, {Target::WebAssembly, "wasm"},
    {Target::RISCV, "riscv"}};
constexpr std::pair<Target::OS, const char *> os_names[] = {{Target::Linux, "linux"},
                                                            {Target::Windows, "windows"},
                                                            {Target::OSX, "osx"},
                                                            {Target::Android, "android"},
                                                            {Target::IOS, "ios"},
                                                            {Target::QuRT, "qurt"},
                                                            {Target::NoOS, "noos"},
                                                            {Target::Fuchsia, "fuchsia"},
                                                            {Target::WebAssemblyRuntime, "wasmrt"}};

/// The word for `value` in `names`, or `unknown`.
template <typename E, size_t N>
std::string name_in(const std::pair<E, const char *> (&names)[N], E value, const char *unknown) {
    for (const auto &[e, name] : names)
        if (e == value) return name;
    return unknown;
}

/// The value `word` names in `names`, or null.
template <typename E, size_t N>
const E *value_named(const std::pair<E, const char *> (&names)[N], const std::string &word) {
    for (const auto &entry : names)
        if (word == entry.second) return &entry.first;
    return nullptr;
}

std::string arch_name(Target::Arch arch) {
    return name_in(arch_names, arch, "arch_unknown");
}

std::string os_name(Target::OS os) {
    return name_in(os_names, os, "os_unknown");
}

/// "the feature "hvx" is not supported: dsl has no Hexagon (HVX) back end."
std::string not_supported(const Unsupported &u) {
    return std::string("the feature \"") + u.name + "\" is not supported: " + u.why + ".";
}

std::string valid_features(Target::Arch arch) {
    std::string s;
    for (Feature f : all_features) {
        if (!feature_of(f, arch)) continue;
        if (!s.empty()) s += ", ";
        s += Target::feature_name(f);
    }
    return s;
}

Target::Arch host_arch() {
#if defined(__aarch64__)
    return Target::Arch::ARM;
#else
    return Target::Arch::X86;
#endif
}

/// The features this machine has, closed under implication.
uint32_t host_detected() {
    static const uint32_t detected = [] {
        uint32_t mask = baseline(host_arch());
        for (Feature f : codegen::host_cpu_features())
            mask |= closure(f);
        return mask;
    }();
    return detected;
}

std::vector<std::string> split(const std::string &s, char separator) {
    std::vector<std::string> words(1);
    for (char c : s) {
        if (c == separator)
            words.emplace_back();
        else
            words.back() += c;
    }
    return words;
}

constexpr const char *format_hint =
    " Target strings are arch-bits-os[-features] or host[-features], e.g. \"x86-64-linux-avx2\", "
    "\"arm-64-linux\" or \"host\".";

}  // namespace

std::string Target::feature_name(Feature f) {
    switch (f) {
        case Feature::SSE41:
            return "sse41";
        case Feature::AVX:
            return "avx";
        case Feature::AVX2:
            return "avx2";
        case Feature::FMA:
            return "fma";
        case Feature::F16C:
            return "f16c";
        case Feature::AVX512:
            return "avx512";
        case Feature::AVX512_VNNI:
            return "avx512_vnni";
        case Feature::NEON:
            return "neon";
        case Feature::FP_CONTRACT:
            return "fp_contract";
        case Feature::OpenCL:
            return "opencl";
        case Feature::CUDA:
            return "cuda";
        case Feature::StrictFloat:
            return "strict_float";
        case Feature::NPU:
            return "npu";
        case Feature::TraceLoads:
            return "trace_loads";
        case Feature::TraceStores:
            return "trace_stores";
        case Feature::TraceRealizations:
            return "trace_realizations";
        case Feature::Profile:
            return "profile";
        case Feature::ProfileByTimer:
            return "profile_by_timer";
        case Feature::TracePipeline:
            return "trace_pipeline";
        case Feature::FuzzFloatStores:
            return "fuzz_float_stores";
        default:
            if (const Unsupported *u = unsupported(f)) return u->name;
            if (int capability = cuda_capability_of(f))
                return "cuda_capability_" + std::to_string(capability);
            return "unknown";
    }
}

int Target::cuda_capability_of(Feature f) {
    constexpr std::pair<Feature, int> capabilities[] = {
        {Feature::CUDACapability61, 61}, {Feature::CUDACapability70, 70},
        {Feature::CUDACapability75, 75}, {Feature::CUDACapability80, 80},
        {Feature::CUDACapability86, 86}, {Feature::CUDACapability89, 89},
        {Feature::CUDACapability90, 90}};
    for (const auto &[feature, capability] : capabilities)
        if (feature == f) return capability;
    return 0;
}

int Target::cuda_capability() const {
    if (!has_feature(Feature::CUDA)) return 0;
    int best = 0;
    for (Feature f : all_features)
        if (has_feature(f)) best = std::max(best, cuda_capability_of(f));
    return best ? best : 75;
}

Target::Target(const std::string &target) {
    const std::string quoted = "Target \"" + target + "\": ";
    // As in Halide, the empty string is the host.
    if (target.empty()) {
        *this = host();
        return;
    }
    std::vector<std::string> words = split(target, '-');
    size_t next = 0;
    if (words[0] == "host") {
        *this = host();
        next = 1;
    } else {
        const Arch *named_arch = value_named(arch_names, words[0]);
        user_assert(named_arch) << quoted << "unknown architecture \"" << words[0]
                                << "\"; valid architectures: x86, arm (or \"host\" for this "
                                   "machine)."
                                << format_hint;
        user_assert(*named_arch == Arch::X86 || *named_arch == Arch::ARM)
            << quoted << "dsl generates code for x86 and arm (64-bit) only, not for " << words[0]
            << "; valid architectures: x86, arm." << format_hint;
        arch = *named_arch;
        user_assert(words.size() > 1) << quoted << "the bit width is missing after \"" << words[0]
                                      << "\"; valid: 64." << format_hint;
        user_assert(words[1] != "32") << quoted << "32-bit targets are not supported; use \""
                                      << words[0] << "-64-...\" (valid bit widths: 64).";
        user_assert(words[1] == "64") << quoted << "unknown bit width \"" << words[1]
                                      << "\"; valid bit widths: 64." << format_hint;
        bits = 64;
        user_assert(words.size() > 2)
            << quoted << "the operating system is missing after \"" << words[0] << "-" << words[1]
            << "\"; valid operating systems: linux." << format_hint;
        const OS *named_os = value_named(os_names, words[2]);
        user_assert(named_os) << quoted << "unknown operating system \"" << words[2]
                              << "\"; valid operating systems: linux." << format_hint;
        user_assert(*named_os == OS::Linux)
            << quoted << "dsl generates code for Linux only, not for " << words[2]
            << "; valid operating systems: linux." << format_hint;
        os = OS::Linux;
        host_ = false;
        features_ = baseline(arch);
        next = 3;
    }
    for (size_t i = next; i < words.size(); i++) {
        const std::string &word = words[i];
        for (const Unsupported &u : unsupported_features)
            user_assert(word != u.name) << quoted << not_supported(u);
        auto known = std::find_if(std::begin(all_features), std::end(all_features),
                                  [&](Feature f) { return feature_name(f) == word; });
        user_assert(known != std::end(all_features))
            << quoted << "unknown feature \"" << word << "\"; valid features for "
            << arch_name(arch) << " targets: " << valid_features(arch) << "." << format_hint;
        *this = with_feature(*known);
    }
}

Target::Target(OS o, Arch a, int b, const std::vector<Feature> &initial_features) {
    arch = a;
    bits = b;
    os = o;
    features_ = baseline(a);
    for (Feature f : initial_features)
        *this = with_feature(f);
}

Target Target::host() {
    static const Target host_target = [] {
        Target t;
        t.arch = host_arch();
        t.bits = 64;
        t.os = OS::Linux;
        t.host_ = true;
        t.features_ = host_detected();
        return t;
    }();
    return host_target;
}

std::string Target::to_string() const {
    std::string s;
    uint32_t shown = features_;
    if (host_) {
        s = "host";
        shown &= ~host_detected();
    } else {
        s = arch_name(arch) + "-" + std::to_string(bits) + "-" + os_name(os);
        shown &= ~baseline(arch);
    }
    for (Feature f : all_features) {
        if (!(shown & bit(f))) continue;
        // Leave out a feature another shown one implies.
        bool implied = false;
        for (Feature g : all_features)
            implied = implied || (g != f && (shown & bit(g)) && (closure(g) & bit(f)));
        if (!implied) s += "-" + feature_name(f);
    }
    return s;
}

bool Target::has_feature(Feature f) const {
    return features_ & bit(f);
}

std::vector<Target::Feature> Target::features() const {
    std::vector<Feature> result;
    for (Feature f : all_features)
        if (has_feature(f)) result.push_back(f);
    return result;
}

Target Target::with_feature(Feature f) const {
    if (const Unsupported *u = unsupported(f))
        user_error << "Target \"" << to_string() << "\": " << not_supported(*u);
    user_assert(is_supported_feature(f))
        << "Target \"" << to_string() << "\": " << static_cast<int>(f) << " is not a feature.";
    user_assert(feature_of(f, arch))
        << "Target \"" << to_string() << "\": feature \"" << feature_name(f) << "\" is for "
        << arch_name(arch == Arch::X86 ? Arch::ARM : Arch::X86) << " targets; valid features for "
        << arch_name(arch) << " targets: " << valid_features(arch) << ".";
    Target t = *this;
    t.features_ |= closure(f);
    return t;
}

Target Target::without_feature(Feature f) const {
    if (!has_feature(f)) return *this;
    user_assert(!(baseline(arch) & bit(f)))
        << "Target \"" << to_string() << "\": feature \"" << feature_name(f)
        << "\" is part of every " << arch_name(arch) << "-" << bits
        << " target and cannot be removed.";
    Target t = *this;
    for (Feature g : all_features)
        if (closure(g) & bit(f)) t.features_ &= ~bit(g);
    // Without a feature of the code (not of the CPU), a host target still describes this machine.
    t.host_ = t.host_ && !is_cpu_feature(f);
    return t;
}

int Target::natural_vector_size(const Type &t) const {
    int vector_bytes = has_feature(Feature::AVX512) ? 64 : has_feature(Feature::AVX) ? 32 : 16;
    return std::max(1, vector_bytes / t.bytes());
}

bool Target::features_any_of(const std::vector<Feature> &fs) const {
    return std::any_of(fs.begin(), fs.end(), [&](Feature f) { return has_feature(f); });
}

bool Target::features_all_of(const std::vector<Feature> &fs) const {
    return std::all_of(fs.begin(), fs.end(), [&](Feature f) { return has_feature(f); });
}

bool Target::supported() const {
    return (arch == X86 || arch == ARM) && bits == 64 && os == Linux;
}

bool Target::validate_target_string(const std::string &s) {
    try {
        Target t(s);
        return true;
    } catch (const CompileError &) {
        return false;
    }
}

bool Target::supports_type(const Type &t) const {
    return t.is_valid();
}

DeviceAPI Target::get_required_device_api() const {
    if (has_feature(OpenCL)) return DeviceAPI::OpenCL;
    if (has_feature(CUDA)) return DeviceAPI::CUDA;
    return DeviceAPI::None;
}

bool Target::supports_device_api(DeviceAPI api) const {
    switch (api) {
        case DeviceAPI::None:
        case DeviceAPI::Host:
            return true;
        case DeviceAPI::Default_GPU:
            return has_gpu_feature();
        case DeviceAPI::OpenCL:
            return has_feature(OpenCL);
        case DeviceAPI::CUDA:
            return has_feature(CUDA);
        case DeviceAPI::NPU:
            return has_feature(NPU);
    }
    return false;
}

std::ostream &operator<<(std::ostream &out, const Target &t) {
    return out << t.to_string();
}

Target get_host_target() {
    return Target::host();
}

namespace {

Target target_from_environment(const char *ours, const char *halides) {
    for (const char *variable : {ours, halides}) {
        const char *value = std::getenv(variable);
        if (value && *value) return Target(value);
    }
    return Target::host();
}

}  // namespace

Target get_jit_target_from_environment() {
    return target_from_environment("DSL_JIT_TARGET", "HL_JIT_TARGET");
}

Target get_target_from_environment() {
    return target_from_environment("DSL_TARGET", "HL_TARGET");
}

}  // namespace dsl
