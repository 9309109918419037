// GPU throughput: a 3x3 blur of a uint16 image (GB/s moved: the input read once and the output
// written once) and a float matrix multiply through shared-memory tiles (GFLOP/s, 2 N^3), on the
// GPU API of DSL_BENCH_GPU_TARGET (default host-cuda; host-opencl for PoCL). The buffers stay on
// the device between runs (Buffer::copy_to_device), so each run times the kernels alone, up to
// device_sync(). A machine without that device skips both with the reason.
// scripts/gpu_check.sh runs them on a machine with an NVIDIA GPU:
//   dsl_bench --benchmark_filter=gpu/
// No peer runs here: cuBLAS is not among this project's dependencies.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <string>

#include "dsl/dsl.h"

namespace dsl_bench {

namespace {

using namespace dsl;

Target gpu_bench_target() {
    const char *name = std::getenv("DSL_BENCH_GPU_TARGET");
    return Target(name && *name ? name : "host-cuda");
}

void gpu_blur(benchmark::State &state) {
    const int w = static_cast<int>(state.range(0)), h = w;
    Buffer<uint16_t> in(w + 2, h + 2), out(w, h);
    std::mt19937 rng(5);
    in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint16_t>(rng()); });
    in.translate({-1, -1});
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    blur_y.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
    blur_x.compute_at(blur_y, bx).gpu_threads(x, y);
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
    for (auto _ : state) {
        blur_y.realize(out, target);
        out.device_sync();
    }
    state.SetBytesProcessed(state.iterations() * int64_t(w) * h * 2 * 2);
    state.SetLabel(target.to_string());
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
    for (auto _ : state) {
        prod.realize(c, target);
        c.device_sync();
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
    state.SetLabel(target.to_string());
}

}  // namespace

BENCHMARK(gpu_blur)->Name("gpu/blur")->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(gpu_matmul)
    ->Name("gpu/matmul")
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace dsl_bench
