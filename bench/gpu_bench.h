// What the GPU benchmarks (gpu.cpp, gpu_apps.cpp) share.

#pragma once

#include "dsl/dsl.h"

namespace dsl_bench {

/// The target the GPU benchmarks run on: DSL_BENCH_GPU_TARGET, default host-cuda (host-opencl
/// runs them on PoCL).
dsl::Target gpu_bench_target();

}  // namespace dsl_bench
