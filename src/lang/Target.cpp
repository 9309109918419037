#include "dsl/Target.h"

#include <algorithm>
#include <cstdlib>

#include "codegen/TargetMapping.h"
#include "ir/Error.h"

namespace dsl {

namespace {

using Feature = Target::Feature;

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
                                    Feature::NPU};

constexpr uint32_t bit(Feature f) {
    return uint32_t(1) << static_cast<int>(f);
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
    return {};
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

std::string arch_name(Target::Arch arch) {
    return arch == Target::Arch::X86 ? "x86" : "arm";
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
        default:
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
    user_assert(!target.empty()) << "Target string is empty." << format_hint;
    std::vector<std::string> words = split(target, '-');
    size_t next = 0;
    if (words[0] == "host") {
        *this = host();
        next = 1;
    } else {
        if (words[0] == "x86") {
            arch_ = Arch::X86;
        } else if (words[0] == "arm") {
            arch_ = Arch::ARM;
        } else {
            user_error << quoted << "unknown architecture \"" << words[0]
                       << "\"; valid architectures: x86, arm (or \"host\" for this machine)."
                       << format_hint;
        }
        user_assert(words.size() > 1) << quoted << "the bit width is missing after \"" << words[0]
                                      << "\"; valid: 64." << format_hint;
        user_assert(words[1] != "32") << quoted << "32-bit targets are not supported; use \""
                                      << words[0] << "-64-...\" (valid bit widths: 64).";
        user_assert(words[1] == "64") << quoted << "unknown bit width \"" << words[1]
                                      << "\"; valid bit widths: 64." << format_hint;
        bits_ = 64;
        user_assert(words.size() > 2)
            << quoted << "the operating system is missing after \"" << words[0] << "-" << words[1]
            << "\"; valid operating systems: linux." << format_hint;
        user_assert(words[2] == "linux") << quoted << "unknown operating system \"" << words[2]
                                         << "\"; valid operating systems: linux." << format_hint;
        os_ = OS::Linux;
        host_ = false;
        features_ = baseline(arch_);
        next = 3;
    }
    for (size_t i = next; i < words.size(); i++) {
        const std::string &word = words[i];
        auto known = std::find_if(std::begin(all_features), std::end(all_features),
                                  [&](Feature f) { return feature_name(f) == word; });
        user_assert(known != std::end(all_features))
            << quoted << "unknown feature \"" << word << "\"; valid features for "
            << arch_name(arch_) << " targets: " << valid_features(arch_) << "." << format_hint;
        *this = with_feature(*known);
    }
}

Target Target::host() {
    static const Target host_target = [] {
        Target t;
        t.arch_ = host_arch();
        t.bits_ = 64;
        t.os_ = OS::Linux;
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
        s = arch_name(arch_) + "-" + std::to_string(bits_) + "-linux";
        shown &= ~baseline(arch_);
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
    user_assert(feature_of(f, arch_))
        << "Target \"" << to_string() << "\": feature \"" << feature_name(f) << "\" is for "
        << arch_name(arch_ == Arch::X86 ? Arch::ARM : Arch::X86) << " targets; valid features for "
        << arch_name(arch_) << " targets: " << valid_features(arch_) << ".";
    Target t = *this;
    t.features_ |= closure(f);
    return t;
}

Target Target::without_feature(Feature f) const {
    if (!has_feature(f)) return *this;
    user_assert(!(baseline(arch_) & bit(f)))
        << "Target \"" << to_string() << "\": feature \"" << feature_name(f)
        << "\" is part of every " << arch_name(arch_) << "-" << bits_
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
