// apps/matmul against OpenBLAS's cblas_sgemm, and both against this machine's FMA peak.
//
//   matmul/dsl/M/K/N/threads:T        the app's hand-written schedule through the JIT
//   matmul/dsl_auto/M/K/N/threads:T   the same algorithm auto-scheduled for those sizes
//   matmul/openblas/M/K/N/threads:T   cblas_sgemm (matmul_openblas.cpp), when OpenBLAS loads
//   matmul/fma_peak/threads:1         independent AVX-512 (or AVX2) fused multiply-adds
//
// Each reports GFLOP/s (2 M N K per call) and, for the products, the percentage of the peak that
// fma_peak measured in the same run (single-thread peak times the thread count). Sizes: 512,
// 1024, 2048 square and the skinny 2048 x 64 x 2048 (M x K x N). The product is checked against
// the app's reference on sampled elements before timing.
#include <benchmark/benchmark.h>

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"
#include "matmul.h"
#include "matmul_bench.h"

namespace dsl_bench {

namespace {

// 16 independent chains of fused multiply-adds on 512-bit registers (256-bit without AVX-512),
// so that latency never limits them: the machine's peak, in GFLOP/s on one thread.
__attribute__((target("avx512f,fma"))) double fma_chains_avx512(long iterations) {
    __m512 acc[16];
    for (int i = 0; i < 16; i++)
        acc[i] = _mm512_set1_ps(0.001f * float(i));
    const __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
    auto start = std::chrono::steady_clock::now();
    for (long n = 0; n < iterations; n++) {
        for (int i = 0; i < 16; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    alignas(64) float lanes[16];
    float sink = 0;
    for (int i = 0; i < 16; i++) {
        _mm512_store_ps(lanes, acc[i]);
        sink += lanes[0];
    }
    benchmark::DoNotOptimize(sink);
    return 2.0 * 16 * 16 * double(iterations) / seconds * 1e-9;
}

__attribute__((target("avx2,fma"))) double fma_chains_avx2(long iterations) {
    __m256 acc[16];
    for (int i = 0; i < 16; i++)
        acc[i] = _mm256_set1_ps(0.001f * float(i));
    const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
    auto start = std::chrono::steady_clock::now();
    for (long n = 0; n < iterations; n++) {
        for (int i = 0; i < 16; i++)
            acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    alignas(32) float lanes[8];
    float sink = 0;
    for (int i = 0; i < 16; i++) {
        _mm256_store_ps(lanes, acc[i]);
        sink += lanes[0];
    }
    benchmark::DoNotOptimize(sink);
    return 2.0 * 16 * 8 * double(iterations) / seconds * 1e-9;
}

double measure_peak() {
    const bool avx512 = __builtin_cpu_supports("avx512f");
    if (!avx512 && !__builtin_cpu_supports("fma")) return 0;
    double best = 0;
    for (int run = 0; run < 5; run++) {
        double g = avx512 ? fma_chains_avx512(20000000) : fma_chains_avx2(20000000);
        best = std::max(best, g);
    }
    return best;
}

void BM_fma_peak(benchmark::State &state) {
    for (auto _ : state)
        state.counters["GFLOP/s"] = fma_peak_gflops();
    state.SetLabel(__builtin_cpu_supports("avx512f") ? "AVX-512 FMA, 16 chains"
                                                     : "AVX2 FMA, 16 chains");
}

// The app's hand-written schedule, or the autoscheduler's told the sizes (matmul/dsl_auto).
void run_matmul_dsl(benchmark::State &state, bool autoschedule) {
    const int m = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1)),
              n = static_cast<int>(state.range(2)), threads = static_cast<int>(state.range(3));
    dsl::Buffer<float> a = dsl_apps::matmul_random_matrix(k, m, 1),
                       b = dsl_apps::matmul_random_matrix(n, k, 2), c(n, m);
    dsl::ImageParam pa(dsl::Float(32), 2, "a"), pb(dsl::Float(32), 2, "b");
    pa.set(a);
    pb.set(b);
    dsl_apps::MatmulPipeline p = dsl_apps::make_matmul(pa, pb);
    if (autoschedule) {
        p.output.set_estimate(p.x, 0, n).set_estimate(p.y, 0, m);
        pa.set_estimates({{0, k}, {0, m}});
        pb.set_estimates({{0, n}, {0, k}});
        dsl::Pipeline(p.output).auto_schedule(dsl::Target::host());
    } else {
        dsl_apps::schedule_matmul(p, dsl::Target::host());
    }
    p.output.compile_jit();
    dsl_set_num_threads(threads);
    p.output.realize(c);
    std::mt19937 rng(3);
    for (int i = 0; i < 256; i++) {
        int x = static_cast<int>(rng() % n), y = static_cast<int>(rng() % m);
        if (c(x, y) != dsl_apps::matmul_reference_at(a, b, x, y)) {
            state.SkipWithError("the product does not match the reference");
            dsl_set_num_threads(0);
            return;
        }
    }
    time_matmul(state, 2.0 * m * n * k, threads, [&] { p.output.realize(c); });
    dsl_set_num_threads(0);
}

BENCHMARK(BM_fma_peak)->Name("matmul/fma_peak")->Iterations(1)->Unit(benchmark::kMillisecond);
void BM_matmul_dsl(benchmark::State &state) {
    run_matmul_dsl(state, false);
}
void BM_matmul_dsl_auto(benchmark::State &state) {
    run_matmul_dsl(state, true);
}

BENCHMARK(BM_matmul_dsl)->Name("matmul/dsl")->Apply(matmul_sizes);
BENCHMARK(BM_matmul_dsl_auto)->Name("matmul/dsl_auto")->Apply(matmul_sizes);

}  // namespace

double fma_peak_gflops() {
    static const double peak = measure_peak();
    return peak;
}

void matmul_sizes(benchmark::internal::Benchmark *b) {
    for (int threads : {1, 2}) {
        for (int size : {512, 1024, 2048})
            b->Args({size, size, size, threads});
        b->Args({2048, 64, 2048, threads});
    }
    b->ArgNames({"M", "K", "N", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace dsl_bench
