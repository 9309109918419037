// The apps' GPU schedules (schedule_*_gpu) on the GPU API of DSL_BENCH_GPU_TARGET (default
// host-cuda), at the sizes of the CPU table in README.md (1536 x 2560 images; conv_layer's
// layers of bench/conv_layer_bench.h), with random inputs. Buffers stay on the device between
// runs; each run ends with device_sync(). Their results are checked by the tests (AppsGPU, also
// on CUDA through scripts/gpu_check.sh), not here.
//   dsl_gpu_bench --benchmark_filter=gpu_app/

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bilateral_grid.h"
#include "camera_pipe.h"
#include "conv_layer.h"
#include "conv_layer_bench.h"
#include "dsl/dsl.h"
#include "gpu_bench.h"
#include "local_laplacian.h"

namespace dsl_bench {

namespace {

using namespace dsl;

constexpr int kWidth = 1536, kHeight = 2560;

/// Times `output.realize(out)` with the inputs and `out` on the device.
void time_app(benchmark::State &state, Func output, Buffer<> out,
              const std::vector<Buffer<>> &inputs) {
    if (first_run_on_device(state, output, out, inputs)) time_on_device(state, output, out);
}

template <typename T>
Buffer<T> random_image(std::vector<int> sizes, unsigned seed, int bits) {
    Buffer<T> b(sizes);
    std::mt19937 rng(seed);
    b.for_each_value([&](T &v) {
        if constexpr (std::is_floating_point_v<T>) {
            v = static_cast<T>(rng() % 1000) / 999.0f;
        } else {
            v = static_cast<T>(rng() % (1u << bits));
        }
    });
    return b;
}

void gpu_bilateral_grid(benchmark::State &state) {
    Buffer<float> in = random_image<float>({kWidth, kHeight}, 1, 0), out(kWidth, kHeight);
    ImageParam input(Float(32), 2, "input");
    input.set(in);
    dsl_apps::BilateralGridPipeline p = dsl_apps::make_bilateral_grid(input);
    dsl_apps::schedule_bilateral_grid_gpu(p);
    time_app(state, p.output, out, {in});
}

void gpu_camera_pipe(benchmark::State &state) {
    Buffer<uint16_t> raw = random_image<uint16_t>({kWidth, kHeight}, 2, 10);
    Buffer<uint8_t> out(kWidth, kHeight, 3);
    ImageParam input(UInt(16), 2, "raw");
    input.set(raw);
    dsl_apps::CameraPipePipeline p = dsl_apps::make_camera_pipe(input);
    dsl_apps::schedule_camera_pipe_gpu(p);
    time_app(state, p.output, out, {raw});
}

void gpu_local_laplacian(benchmark::State &state) {
    Buffer<uint16_t> in = random_image<uint16_t>({kWidth, kHeight, 3}, 3, 16);
    Buffer<uint16_t> out(kWidth, kHeight, 3);
    ImageParam input(UInt(16), 3, "input");
    input.set(in);
    Param<int> levels("levels", 8);
    Param<float> alpha("alpha", 1.0f), beta("beta", 1.0f);
    dsl_apps::LocalLaplacianPipeline p = dsl_apps::make_local_laplacian(input, levels, alpha, beta);
    dsl_apps::schedule_local_laplacian_gpu(p);
    time_app(state, p.output, out, {in});
}

void gpu_conv_layer(benchmark::State &state, const ConvShape &s) {
    const dsl_apps::ConvLayerShape shape{s.n,      s.c_in,   s.c_out,    s.width,
                                         s.height, s.kernel, s.depthwise};
    Buffer<float> in = dsl_apps::conv_layer_random_input(shape, 1),
                  w = dsl_apps::conv_layer_random_weights(shape, 2),
                  b = dsl_apps::conv_layer_random_bias(shape, 3);
    Buffer<float> out(s.c_out, s.width, s.height, s.n);
    ImageParam input(Float(32), 4, "input"), weights(Float(32), s.depthwise ? 3 : 4, "weights"),
        bias(Float(32), 1, "bias");
    input.set(in);
    weights.set(w);
    bias.set(b);
    dsl_apps::ConvLayerPipeline p =
        dsl_apps::make_conv_layer(input, weights, bias, s.kernel, s.depthwise);
    dsl_apps::schedule_conv_layer_gpu(p);
    time_app(state, p.output, out, {in, w, b});
    state.counters["GFLOP/s"] = benchmark::Counter(conv_flops(s) * double(state.iterations()) / 1e9,
                                                   benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(gpu_bilateral_grid)
    ->Name("gpu_app/bilateral_grid/1536x2560")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gpu_camera_pipe)
    ->Name("gpu_app/camera_pipe/1536x2560")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gpu_local_laplacian)
    ->Name("gpu_app/local_laplacian/1536x2560")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

namespace {
const bool registered_conv_layers = [] {
    for (const ConvShape &s : conv_shapes()) {
        benchmark::RegisterBenchmark(("gpu_app/conv_layer/" + s.name).c_str(),
                                     [s](benchmark::State &state) { gpu_conv_layer(state, s); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    return true;
}();
}  // namespace

}  // namespace dsl_bench
