#pragma once
/// What the GPU tests share: the OpenCL target, and a skip when this machine has no OpenCL
/// device (the tests run for real on Debian's PoCL, which scripts/setup.sh installs).

#include <gtest/gtest.h>

#include <string>

#include "dsl/dsl.h"

namespace dsl::test {

inline Target opencl_target() {
    return Target("host-opencl");
}

/// An empty string when kernels run here, else why not (no driver, no platform, no device).
inline std::string opencl_unavailable() {
    static const std::string why = [] {
        Var x("x");
        Func probe("gpu_probe");
        probe(x) = x;
        Var bx("bx"), tx("tx");
        probe.gpu_tile(x, bx, tx, 4);
        try {
            probe.realize({4}, opencl_target());
        } catch (const RuntimeError &e) {
            return std::string(e.what());
        }
        return std::string();
    }();
    return why;
}

}  // namespace dsl::test

/// Skips the test where no OpenCL device can run kernels.
#define DSL_REQUIRE_OPENCL()                                                \
    do {                                                                    \
        std::string why = ::dsl::test::opencl_unavailable();                \
        if (!why.empty()) GTEST_SKIP() << "no OpenCL device here: " << why; \
    } while (0)
