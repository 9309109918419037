// GPU throughput: the blur app (apps/blur, 3x3 uint16, its GPU schedule schedule_blur_gpu; GB/s
// moved: the input read once and the output written once) and a float matrix multiply through
// shared-memory tiles (GFLOP/s, 2 N^3), on the GPU API of DSL_BENCH_GPU_TARGET (default host-cuda;
// host-opencl for PoCL). The buffers stay on the device between runs (Buffer::copy_to_device), so
// each run times the kernels alone, up to device_sync(). A machine without that device skips both
// with the reason. On CUDA, each reports its share of the device's peak (peak%: FP32 GFLOP/s or
// DRAM GB/s from the driver's attributes), and gpu/matmul_cublas runs cuBLAS's SGEMM of the same
// size beside ours, loaded with dlopen where the toolkit's libraries are found (gpu_cuda_peer.h).
// They form their own program, dsl_gpu_bench, which scripts/gpu_check.sh runs on a machine with
// an NVIDIA GPU:
//   dsl_gpu_bench

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>

#include "blur.h"
#include "dsl/dsl.h"
#include "gpu_cuda_peer.h"

namespace dsl_bench {

namespace {

using namespace dsl;

/// Wall-clock seconds since `start`, per iteration of `state`'s loop (for the peak shares; the
/// benchmark's own timer is not readable from inside).
double seconds_per_run(const benchmark::State &state, std::chrono::steady_clock::time_point start) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    return state.iterations() ? elapsed.count() / double(state.iterations()) : 0.0;
}

Target gpu_bench_target() {
    const char *name = std::getenv("DSL_BENCH_GPU_TARGET");
    return Target(name && *name ? name : "host-cuda");
}

/// The share of the device's peak `rate` reached, as the counter "peak%", on CUDA targets whose
/// device reported its attributes.
void report_peak_share(benchmark::State &state, const Target &target, double rate, double peak) {
    if (!target.has_feature(Target::Feature::CUDA) || peak <= 0) return;
    state.counters["peak%"] = 100.0 * rate / peak;
    state.SetLabel(target.to_string() + " on " + cuda_peak().name);
}

void gpu_blur(benchmark::State &state) {
    const int w = static_cast<int>(state.range(0)), h = w;
    Buffer<uint16_t> in(w, h), out(w, h);
    std::mt19937 rng(5);
    in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint16_t>(rng()); });
    ImageParam input(UInt(16), 2, "input");
    input.set(in);
    dsl_apps::BlurPipeline p = dsl_apps::make_blur(input);
    dsl_apps::schedule_blur_gpu(p);
    Func blur_y = p.blur_y;
    const Target target = gpu_bench_target();
    try {
        in.copy_to_device(target);
        out.copy_to_device(target);
        blur_y.realize(out, target);  // compiles, and warms the device up
        out.device_sync();
    } catch (const Error &e) {
        state.SkipWithError(e.what());
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) {
        blur_y.realize(out, target);
        out.device_sync();
    }
    state.SetBytesProcessed(state.iterations() * int64_t(w) * h * 2 * 2);
    state.SetLabel(target.to_string());
    report_peak_share(state, target, double(w) * h * 2 * 2 / seconds_per_run(state, start) / 1e9,
                      cuda_peak().gbytes_per_s);
}

void gpu_matmul(benchmark::State &state) {
    const int n = static_cast<int>(state.range(0));
    Buffer<float> a(n, n), b(n, n), c(n, n);
    std::mt19937 rng(6);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    a.for_each_element([&](int x, int y) { a(x, y) = value(rng); });
    b.for_each_element([&](int x, int y) { b(x, y) = value(rng); });
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty"), xi("xi"), yi("yi");
    Func A("a_tile"), B("b_tile"), prod("matmul");
    A(x, y) = a(x, y);
    B(x, y) = b(x, y);
    RDom r(0, n, "r");
    RVar ro("ro"), ri("ri");
    prod(x, y) = 0.0f;
    prod(x, y) += A(r, y) * B(x, r);
    // Blocks of 16 x 16 outputs; the reduction in steps of 16, each step's tiles of A and B
    // loaded by the block's threads into shared memory.
    prod.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    prod.update()
        .split(x, bx, xi, 16)
        .split(y, by, yi, 16)
        .split(r, ro, ri, 16)
        .reorder(ri, xi, yi, ro, bx, by)
        .gpu_blocks(bx, by)
        .gpu_threads(xi, yi);
    A.compute_at(prod, ro).gpu_threads(x, y);
    B.compute_at(prod, ro).gpu_threads(x, y);
    const Target target = gpu_bench_target();
    try {
        a.copy_to_device(target);
        b.copy_to_device(target);
        c.copy_to_device(target);
        prod.realize(c, target);
        c.device_sync();
    } catch (const Error &e) {
        state.SkipWithError(e.what());
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) {
        prod.realize(c, target);
        c.device_sync();
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
    state.SetLabel(target.to_string());
    report_peak_share(state, target, 2.0 * n * n * n / seconds_per_run(state, start) / 1e9,
                      cuda_peak().gflops);
}

/// cuBLAS's SGEMM of the same size (no TF32), the peer of gpu/matmul.
void gpu_matmul_cublas(benchmark::State &state) {
    const int n = static_cast<int>(state.range(0));
    CublasSgemm sgemm(n);
    if (!sgemm.run()) {
        state.SkipWithError(sgemm.why_not().c_str());
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state)
        if (!sgemm.run()) {
            state.SkipWithError(sgemm.why_not().c_str());
            return;
        }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
    state.SetLabel("cuBLAS on " + cuda_peak().name);
    if (cuda_peak().gflops > 0)
        state.counters["peak%"] =
            100.0 * 2.0 * n * n * n / seconds_per_run(state, start) / 1e9 / cuda_peak().gflops;
}

}  // namespace

BENCHMARK(gpu_blur)->Name("gpu/blur")->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(gpu_matmul)
    ->Name("gpu/matmul")
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gpu_matmul_cublas)
    ->Name("gpu/matmul_cublas")
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace dsl_bench
