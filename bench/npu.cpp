// The NPU (simulated, src/npu/README.md): int8 matmuls and a 3x3 convolution offloaded with
// npu_gemm, reported as the cycle model's counters (cycles, GEMM utilisation, MACs per cycle);
// the benchmark's own time is the host's, copying operands and simulating. No peer runs here:
// no other NPU or simulator of this one exists.
//   dsl_bench --benchmark_filter=npu/
#include <benchmark/benchmark.h>

#include <random>

#include "dsl/dsl.h"

namespace dsl_bench {

namespace {

using namespace dsl;

Buffer<int8_t> random_int8(const std::vector<int> &sizes, uint32_t seed) {
    Buffer<int8_t> b(sizes);
    std::mt19937 rng(seed);
    b.for_each_value([&](int8_t &v) { v = static_cast<int8_t>(int(rng() % 256) - 128); });
    return b;
}

void report(benchmark::State &state) {
    const NPUStats s = npu_last_run_stats();
    state.counters["cycles"] = static_cast<double>(s.cycles);
    state.counters["gemm_util_pct"] = 100 * s.gemm_utilisation;
    state.counters["macs_per_cycle"] =
        s.cycles ? static_cast<double>(s.macs) / static_cast<double>(s.cycles) : 0;
}

/// C(n, m) = sum_k A(k, m) B(n, k), size^3; args: size, npu_tile rows (0: default), copies.
void npu_matmul(benchmark::State &state) {
    const int size = static_cast<int>(state.range(0));
    Buffer<int8_t> a = random_int8({size, size}, 1), b = random_int8({size, size}, 2);
    Var n("n"), m("m");
    RDom k(0, size, "k");
    Func c("c");
    c(n, m) = 0;
    c(n, m) += cast<int32_t>(a(k, m)) * cast<int32_t>(b(n, k));
    c.update()
        .npu_gemm()
        .npu_tile(static_cast<int>(state.range(1)))
        .npu_pipeline(static_cast<int>(state.range(2)));
    const Target target("host-npu");
    Buffer<int32_t> out(size, size);
    c.realize(out, target);
    for (auto _ : state)
        c.realize(out, target);
    report(state);
}

/// A 3x3 convolution, stride 1, of 56 x 56 x 64 into 64 channels (channels innermost), its
/// input padded by one pixel as a Func computed first.
void npu_conv3x3(benchmark::State &state) {
    const int w = 56, h = 56, ci = 64, co = 64;
    Buffer<int8_t> in = random_int8({ci, w, h}, 3), weights = random_int8({ci, 3, 3, co}, 4);
    Var c("c"), x("x"), y("y");
    Func padded("padded");
    padded(c, x, y) = BoundaryConditions::constant_exterior(in, 0)(c, x - 1, y - 1);
    RDom r(0, ci, 0, 3, 0, 3, "r");
    Func conv("conv");
    conv(c, x, y) = 0;
    conv(c, x, y) +=
        cast<int32_t>(padded(r.x, x + r.y, y + r.z)) * cast<int32_t>(weights(r.x, r.y, r.z, c));
    padded.compute_root();
    conv.update().npu_gemm().npu_pipeline(static_cast<int>(state.range(0)));
    const Target target("host-npu");
    Buffer<int32_t> out(co, w, h);
    conv.realize(out, target);
    for (auto _ : state)
        conv.realize(out, target);
    report(state);
}

}  // namespace

BENCHMARK(npu_matmul)
    ->Name("npu/matmul")
    ->ArgNames({"size", "tile", "copies"})
    ->Args({256, 0, 2})
    ->Args({256, 16, 2})
    ->Args({256, 64, 1})
    ->Args({512, 0, 2})
    ->Args({1024, 0, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(npu_conv3x3)
    ->Name("npu/conv3x3_56x56x64")
    ->ArgName("copies")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace dsl_bench
