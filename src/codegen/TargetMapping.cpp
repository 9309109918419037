#include "codegen/TargetMapping.h"

#include <set>
#include <sstream>

#include "ir/Error.h"

namespace dsl::codegen {

namespace {

using Feature = Target::Feature;

/// LLVM's names for the features a `Target::Feature` stands for.
std::vector<std::string> llvm_names(Feature f) {
    // fp_contract and the GPU APIs are not CPU features: see CpuTarget::fp_contract, gpu_api.
    if (!Target::is_cpu_feature(f)) return {};
    switch (f) {
        case Feature::SSE41:
            return {"sse4.1"};
        case Feature::AVX:
            return {"sse4.2", "avx"};
        case Feature::AVX2:
            return {"avx2"};
        case Feature::FMA:
            return {"fma"};
        case Feature::F16C:
            return {"f16c"};
        case Feature::AVX512:
            return {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"};
        case Feature::AVX512_VNNI:
            return {"avx512vnni"};
        case Feature::NEON:
            return {"neon"};
        default:
            return {};
    }
    return {};
}

constexpr Feature all_features[] = {Feature::SSE41,       Feature::AVX,  Feature::AVX2,
                                    Feature::FMA,         Feature::F16C, Feature::AVX512,
                                    Feature::AVX512_VNNI, Feature::NEON};

bool is_arm_feature(Feature f) {
    return f == Feature::NEON;
}

void append(std::string &features, const std::string &feature) {
    if (!features.empty()) features += ",";
    features += feature;
}

}  // namespace

CpuTarget cpu_target_for(const Target &target) {
    user_assert(target.supported())
        << "Target \"" << target.to_string()
        << "\": dsl generates code for x86 and arm, 64 bits, on Linux only; set the target's arch, "
           "bits and os to one of those (e.g. Target(\"x86-64-linux\") or Target::host()).";
    std::string added;
    for (Feature f : target.features())
        for (const std::string &name : llvm_names(f))
            append(added, "+" + name);
    CpuTarget cpu;
    if (target.is_host()) {
        cpu = CpuTarget::host();
        // Later entries win: the added features override the host's "-feature" entries.
        if (!added.empty()) append(cpu.features, added);
    } else {
        switch (target.arch) {
            case Target::Arch::X86:
                cpu.triple = "x86_64-unknown-linux-gnu";
                cpu.cpu = "x86-64";
                break;
            default:
                cpu.triple = "aarch64-unknown-linux-gnu";
                cpu.cpu = "generic";
                break;
        }
        cpu.features = added;
    }
    // strict_float: every float operation rounded as written, fp_contract or not.
    cpu.fp_contract =
        target.has_feature(Feature::FP_CONTRACT) && !target.has_feature(Feature::StrictFloat);
    cpu.opencl = target.has_feature(Feature::OpenCL);
    cpu.cuda_capability = target.cuda_capability();
    cpu.npu = target.has_feature(Feature::NPU);
    cpu.gpu_api = cpu.opencl                ? ir::DeviceAPI::OpenCL
                  : cpu.cuda_capability > 0 ? ir::DeviceAPI::CUDA
                                            : ir::DeviceAPI::None;
    return cpu;
}

std::vector<Target::Feature> host_cpu_features() {
    std::set<std::string> enabled;
    std::stringstream list(CpuTarget::host().features);
    std::string entry;
    while (std::getline(list, entry, ','))
        if (entry.size() > 1 && entry[0] == '+') enabled.insert(entry.substr(1));
#if defined(__aarch64__)
    const bool arm_host = true;
#else
    const bool arm_host = false;
#endif
    std::vector<Feature> result;
    for (Feature f : all_features) {
        if (!Target::is_cpu_feature(f) || is_arm_feature(f) != arm_host) continue;
        bool all = true;
        for (const std::string &name : llvm_names(f))
            all = all && enabled.count(name);
        if (all) result.push_back(f);
    }
    return result;
}

}  // namespace dsl::codegen
