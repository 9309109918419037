// Halide's schedules of halide_style_kernels.inc, compiled against Halide 14 (see
// halide_style_bench.h). Compiled in only when Halide 14 is found.

#include <Halide.h>

#include <vector>

#include "halide_peer.h"
#include "halide_style_bench.h"

namespace dsl_bench {

namespace halide_style {
namespace hs = Halide;
#include "halide_style_kernels.inc"
}  // namespace halide_style

namespace {

/// Compiles `f` for the thread count (a serial do_par_for for one thread, the pool of two
/// otherwise) and returns the function that realizes it into `out`.
template <typename T>
auto halide_runner(Halide::Func f, int threads, Halide::Buffer<T> out) {
    ensure_pool_of_two();
    f.jit_handlers().custom_do_par_for = threads == 1 ? serial_do_par_for : nullptr;
    f.compile_jit(halide_target());
    return [f, out]() mutable { f.realize(out); };
}

void sgemm_halide(benchmark::State &state) {
    const int threads = static_cast<int>(state.range(0)), n = kStyleSgemmSize;
    Halide::Buffer<float> c(n, n);
    Halide::ImageParam a(Halide::Float(32), 2, "a"), b(Halide::Float(32), 2, "b");
    run_halide_style(
        state, "Halide's",
        [&] {
            HalideStyleInputs &in = const_cast<HalideStyleInputs &>(halide_style_inputs());
            a.set(Halide::Buffer<float>(in.sgemm_a.data(), {n, n}));
            b.set(Halide::Buffer<float>(in.sgemm_b.data(), {n, n}));
            return halide_runner(halide_style::packed_sgemm(a, b, n), threads, c);
        },
        [&] { return packed_sgemm_mismatch(c.data()); });
}

void conv_halide(benchmark::State &state) {
    const int threads = static_cast<int>(state.range(0));
    Halide::Buffer<float> out(
        std::vector<int>{kStyleConvOut, kStyleConvWidth, kStyleConvHeight, kStyleConvBatch});
    Halide::ImageParam input(Halide::Float(32), 4, "input"), filter(Halide::Float(32), 4, "filter"),
        bias(Halide::Float(32), 1, "bias");
    run_halide_style(
        state, "Halide's",
        [&] {
            HalideStyleInputs &in = const_cast<HalideStyleInputs &>(halide_style_inputs());
            input.set(Halide::Buffer<float>(
                in.conv_input.data(),
                {kStyleConvIn, kStyleConvWidth + 2, kStyleConvHeight + 2, kStyleConvBatch}));
            filter.set(
                Halide::Buffer<float>(in.conv_filter.data(), {kStyleConvOut, 3, 3, kStyleConvIn}));
            bias.set(Halide::Buffer<float>(in.conv_bias.data(), {kStyleConvOut}));
            return halide_runner(halide_style::conv_relu(input, filter, bias, kStyleConvIn),
                                 threads, out);
        },
        [&] { return conv_relu_mismatch(out.data()); });
}

void blur_halide(benchmark::State &state) {
    const int threads = static_cast<int>(state.range(0));
    Halide::Buffer<uint16_t> out(kStyleBlurWidth, kStyleBlurHeight);
    Halide::ImageParam input(Halide::UInt(16), 2, "input");
    run_halide_style(
        state, "Halide's",
        [&] {
            HalideStyleInputs &in = const_cast<HalideStyleInputs &>(halide_style_inputs());
            input.set(Halide::Buffer<uint16_t>(in.blur_input.data(),
                                               {kStyleBlurWidth + 2, kStyleBlurHeight + 2}));
            return halide_runner(halide_style::blur(input), threads, out);
        },
        [&] { return blur_mismatch(out.data()); });
}

BENCHMARK(sgemm_halide)->Name("halide_style/packed_sgemm/halide")->Apply(halide_style_args);
BENCHMARK(conv_halide)->Name("halide_style/conv_relu/halide")->Apply(halide_style_args);
BENCHMARK(blur_halide)->Name("halide_style/blur/halide")->Apply(halide_style_args);

}  // namespace
}  // namespace dsl_bench
