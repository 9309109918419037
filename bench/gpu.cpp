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

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "blur.h"
#include "dsl/dsl.h"
#include "gpu_bench.h"
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

/// The share of the CUDA device's peak `rate` reached, as the counter "peak%", where the device
/// reported its attributes and ran the benchmark (not on OpenCL, whose device may be another).
void report_peak_share(benchmark::State &state, double rate, double peak, bool on_cuda) {
    if (on_cuda && peak > 0) state.counters["peak%"] = 100.0 * rate / peak;
}

bool on_cuda() {
    return gpu_bench_target().has_feature(Target::Feature::CUDA);
}

/// The blur's GPU schedules: the app's (schedule_blur_gpu: 32 x 32 tiles on 32 x 8 threads,
/// four rows per thread, blur_x per block in shared memory), one output per thread (32 x 8
/// tiles, as the app had before), and four rows per thread with blur_x inlined (each thread
/// reads its 6 x 3 inputs; neighbours share them through the L1 cache).
enum class BlurSchedule { App, OneRow, RowsInline };

void gpu_blur(benchmark::State &state, BlurSchedule schedule) {
    const int w = static_cast<int>(state.range(0)), h = w;
    Buffer<uint16_t> in(w, h), out(w, h);
    std::mt19937 rng(5);
    in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint16_t>(rng()); });
    ImageParam input(UInt(16), 2, "input");
    input.set(in);
    dsl_apps::BlurPipeline p = dsl_apps::make_blur(input);
    Var x = p.x, y = p.y, bx("bx"), by("by"), tx("tx"), ty("ty");
    if (schedule == BlurSchedule::App) {
        dsl_apps::schedule_blur_gpu(p);
    } else if (schedule == BlurSchedule::OneRow) {
        p.blur_y.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
        p.blur_x.compute_at(p.blur_y, bx).gpu_threads(x, y);
    } else {
        dsl_apps::schedule_blur_gpu(p, false);
    }
    if (!first_run_on_device(state, p.blur_y, out, {in})) return;
    // A timing is only worth reporting for a right result: points sampled across the image.
    auto at = [&](int col, int row) {
        return int(in(std::clamp(col, 0, w - 1), std::clamp(row, 0, h - 1)));
    };
    for (int i = 0; i < 256; i++) {
        const int col = int(rng() % w), row = int(rng() % h);
        int rows[3];
        for (int d = -1; d <= 1; d++)
            rows[d + 1] =
                uint16_t(at(col - 1, row + d) + at(col, row + d) + at(col + 1, row + d)) / 3;
        if (out(col, row) != uint16_t(rows[0] + rows[1] + rows[2]) / 3) {
            state.SkipWithError("the GPU's blur differs from the C++ reference");
            return;
        }
    }
    const double seconds = time_on_device(state, p.blur_y, out);
    state.SetBytesProcessed(state.iterations() * int64_t(w) * h * 2 * 2);
    report_peak_share(state, double(w) * h * 2 * 2 / seconds / 1e9, cuda_peak().gbytes_per_s,
                      on_cuda());
}

/// The matrix multiply on 16 x 16 threads, each summing `px` x `py` outputs (blocks of 16 px x
/// 16 py), the reduction in steps of 16 whose tiles of A and B the threads load into shared
/// memory. A thread's outputs stay in registers over each step (lowering/RegisterAccumulators).
void gpu_matmul(benchmark::State &state, int px, int py) {
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
    prod(x, y) = fma(A(r, y), B(x, r), prod(x, y));
    prod.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    Var xii("xii"), yii("yii"), yo("yo"), xo("xo");
    prod.update()
        .split(x, bx, xi, 16 * px)
        .split(y, by, yi, 16 * py)
        .split(xi, tx, xii, px)
        .split(yi, ty, yii, py)
        .split(r, ro, ri, 16)
        .reorder(xii, yii, ri, tx, ty, ro, bx, by)
        .gpu_blocks(bx, by)
        .gpu_threads(tx, ty)
        .unroll(xii)
        .unroll(yii);
    // The tiles of A (16 x 16 py) and B (16 px x 16), loaded by the threads in rows of 16.
    A.compute_at(prod, ro).split(y, yo, yi, 16).reorder(x, yi, yo).gpu_threads(x, yi);
    B.compute_at(prod, ro).split(x, xo, xi, 16).reorder(xi, y, xo).gpu_threads(xi, y);
    if (!first_run_on_device(state, prod, c, {a, b})) return;
    // A timing is only worth reporting for a right result: points sampled across C.
    for (int i = 0; i < 64; i++) {
        const int col = int(rng() % n), row = int(rng() % n);
        double sum = 0;
        for (int k = 0; k < n; k++)
            sum += double(a(k, row)) * b(col, k);
        if (std::abs(sum - c(col, row)) > 1e-3 * std::sqrt(double(n))) {
            state.SkipWithError("the GPU's matrix product differs from the C++ reference");
            return;
        }
    }
    const double seconds = time_on_device(state, prod, c);
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
    report_peak_share(state, 2.0 * n * n * n / seconds / 1e9, cuda_peak().gflops, on_cuda());
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
    report_peak_share(state, 2.0 * n * n * n / seconds_per_run(state, start) / 1e9,
                      cuda_peak().gflops, true);
}

}  // namespace

Target gpu_bench_target() {
    const char *name = std::getenv("DSL_BENCH_GPU_TARGET");
    return Target(name && *name ? name : "host-cuda");
}

bool first_run_on_device(benchmark::State &state, Func output, Buffer<> out,
                         const std::vector<Buffer<>> &inputs) {
    const Target target = gpu_bench_target();
    try {
        for (Buffer<> in : inputs)
            in.copy_to_device(target);
        out.copy_to_device(target);
        output.realize(out, target);
        out.copy_to_host();
    } catch (const Error &e) {
        state.SkipWithError(e.what());
        return false;
    }
    return true;
}

double time_on_device(benchmark::State &state, Func output, Buffer<> out) {
    const Target target = gpu_bench_target();
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) {
        output.realize(out, target);
        out.device_sync();
    }
    const bool named = on_cuda() && !cuda_peak().name.empty();
    state.SetLabel(target.to_string() + (named ? " on " + cuda_peak().name : ""));
    return seconds_per_run(state, start);
}

BENCHMARK_CAPTURE(gpu_blur, app, BlurSchedule::App)
    ->Name("gpu/blur")
    ->Arg(4096)
    ->Arg(8192)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpu_blur, one_row, BlurSchedule::OneRow)
    ->Name("gpu/blur_one_row")
    ->Arg(8192)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpu_blur, rows_inline, BlurSchedule::RowsInline)
    ->Name("gpu/blur_rows_inline")
    ->Arg(8192)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpu_matmul, tiles_1x1, 1, 1)
    ->Name("gpu/matmul_1x1")
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpu_matmul, tiles_4x4, 4, 4)
    ->Name("gpu/matmul_4x4")
    ->Arg(1024)
    ->Arg(2048)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpu_matmul, tiles_8x4, 8, 4)
    ->Name("gpu/matmul_8x4")
    ->Arg(1024)
    ->Arg(2048)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpu_matmul, tiles_4x8, 4, 8)
    ->Name("gpu/matmul_4x8")
    ->Arg(2048)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpu_matmul, tiles_8x8, 8, 8)
    ->Name("gpu/matmul_8x8")
    ->Arg(2048)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gpu_matmul_cublas)
    ->Name("gpu/matmul_cublas")
    ->Arg(1024)
    ->Arg(2048)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace dsl_bench
