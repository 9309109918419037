#pragma once
// What matmul.cpp (ours, and the FMA peak) and matmul_openblas.cpp (the peer) share.
#include <benchmark/benchmark.h>

#include <chrono>

namespace dsl_bench {

/// The single-thread FMA peak of this machine, measured once per run on first use (0 without
/// FMA), so that every benchmark's percentage has it whatever ran before.
double fma_peak_gflops();

/// The sizes (M, K, N) and thread counts of both sides: 512, 1024, 2048 square and the skinny
/// 2048 x 64 x 2048, on 1 and 2 threads.
void matmul_sizes(benchmark::internal::Benchmark *b);

/// Times the benchmark's loop around `multiply` and reports GFLOP/s (2 M N K per call) and the
/// percentage of the FMA peak for `threads` threads.
template <typename F>
void time_matmul(benchmark::State &state, double flops, int threads, F &&multiply) {
    auto start = std::chrono::steady_clock::now();
    for (auto _ : state)
        multiply();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double gflops = flops * double(state.iterations()) / seconds * 1e-9;
    state.counters["GFLOP/s"] = gflops;
    if (fma_peak_gflops() > 0)
        state.counters["%peak"] = 100.0 * gflops / (fma_peak_gflops() * threads);
}

}  // namespace dsl_bench
