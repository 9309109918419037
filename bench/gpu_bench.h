// What the GPU benchmarks (gpu.cpp, gpu_apps.cpp) share.

#pragma once

#include <benchmark/benchmark.h>

#include <vector>

#include "dsl/dsl.h"

namespace dsl_bench {

/// The target the GPU benchmarks run on: DSL_BENCH_GPU_TARGET, default host-cuda (host-opencl
/// runs them on PoCL).
dsl::Target gpu_bench_target();

/// Copies `inputs` and `out` to that target's device and runs `output` into `out` once (which
/// compiles it), then copies `out` back for the caller to check; false, with the benchmark
/// skipped and why, where that fails (no device, say).
bool first_run_on_device(benchmark::State &state, dsl::Func output, dsl::Buffer<> out,
                         const std::vector<dsl::Buffer<>> &inputs);

/// Times `output.realize(out)` with the buffers left on the device, each run up to the device's
/// synchronisation; labels the benchmark with the target (and the CUDA device) and returns the
/// wall-clock seconds per run.
double time_on_device(benchmark::State &state, dsl::Func output, dsl::Buffer<> out);

}  // namespace dsl_bench
