#pragma once
/// What the GPU tests share: the OpenCL target, and a skip when this machine cannot run a GPU
/// API's kernels (OpenCL tests run for real on Debian's PoCL, which scripts/setup.sh installs;
/// CUDA tests need an NVIDIA GPU and its driver).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "codegen/CodeGenPTX.h"
#include "dsl/dsl.h"

namespace dsl::test {

inline Target opencl_target() {
    return Target("host-opencl");
}

/// Whether the CUDA driver the runtime loads is the tests' stand-in (gpu/fake_cuda), which
/// launches nothing.
inline bool stand_in_cuda_driver() {
    const char *library = std::getenv("DSL_LIBCUDA");
    return library && std::string(library).find("fake_cuda") != std::string::npos;
}

/// An empty string when kernels of `target`'s GPU API run here, else why not (no driver, no
/// platform, no device). Found once per target by running a small pipeline.
inline std::string gpu_unavailable(const Target &target) {
    // The stand-in CUDA driver is always there; what it refuses is a failure, not a skip.
    if (target.has_feature(Target::Feature::CUDA) && stand_in_cuda_driver()) return "";
    static std::mutex lock;
    static std::map<std::string, std::string> known;
    std::lock_guard<std::mutex> guard(lock);
    auto it = known.find(target.to_string());
    if (it != known.end()) return it->second;
    std::string why;
    Var x("x");
    Func probe("gpu_probe");
    probe(x) = x;
    Var bx("bx"), tx("tx");
    probe.gpu_tile(x, bx, tx, 4);
    try {
        probe.realize({4}, target);
    } catch (const RuntimeError &e) {
        why = e.what();
    }
    known[target.to_string()] = why;
    return why;
}

/// Whether the CUDA toolkit's libdevice (exp, log, sin, ... of CUDA kernels) is installed.
inline bool libdevice_installed() {
    std::string toolkit = codegen::cuda_toolkit_path();
    return !toolkit.empty() && std::filesystem::exists(toolkit + "/nvvm/libdevice/libdevice.10.bc");
}

}  // namespace dsl::test

/// Skips the test where no device of `target`'s GPU API can run kernels.
#define DSL_REQUIRE_GPU(target)                                                                    \
    do {                                                                                           \
        std::string why = ::dsl::test::gpu_unavailable(target);                                    \
        if (!why.empty()) GTEST_SKIP() << "no device for " << (target).to_string() << ": " << why; \
    } while (0)
