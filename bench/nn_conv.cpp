// The operator library's convolution (nn::conv with its default schedule) on every distinct
// convolution of the PP-OCRv4 detector (nn_conv_bench.h), against oneDNN (nn_conv_onednn.cpp).
//
//   nn_conv/dsl/<shape>/threads:T
//
// Built as the ONNX model compiler builds it: the input an ImageParam whose channels and batch
// are known and whose height and width are symbols (one compiled kernel serves every image
// size), the weights and bias constants of the pipeline, fused multiply-adds allowed (the
// model's default). The output is checked on sampled elements against a plain loop before
// timing; GFLOP/s and the percentage of the FMA peak are reported.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>

#include "dsl/dsl.h"
#include "dsl/nn/Conv.h"
#include "dsl/nn/Quantize.h"
#include "dsl/nn/Tensor.h"
#include "dsl/runtime/dsl_runtime.h"
#include "matmul_bench.h"
#include "nn_conv_bench.h"

namespace dsl_bench {

namespace {

/// The layer's input as the model compiler builds it: channels known, height and width
/// symbols.
dsl::nn::Tensor layer_input(dsl::ImageParam &x, const NnConvShape &s) {
    using namespace dsl;
    x.dim(2).set_extent(s.c_in);
    x.dim(3).set_extent(1);
    nn::Tensor xt(x);
    nn::Shape shape = xt.shape();
    shape[0] = Expr(1);
    shape[1] = Expr(s.c_in);
    return nn::Tensor(xt.func(), shape);
}

/// The layer's window: its kernel, stride, and pads of (kernel - 1) / 2.
dsl::nn::Window layer_window(const NnConvShape &s) {
    const int pad = (s.kernel - 1) / 2;
    dsl::nn::Window w;
    w.kernel = {s.kernel, s.kernel};
    w.strides = {s.stride, s.stride};
    w.pads_begin = {dsl::Expr(pad), dsl::Expr(pad)};
    w.pads_end = {dsl::Expr(pad), dsl::Expr(pad)};
    return w;
}

/// Whether `output` (x, y, channel, image) matches nn_conv_reference_at at 256 points sampled
/// with a fixed seed, `close(got, want)` at each; if not, the benchmark is skipped with the
/// first point that differs.
template <typename In, typename W, typename B, typename Out, typename Close>
bool matches_at_samples(benchmark::State &state, const std::string &side, const NnConvShape &s,
                        const dsl::Buffer<In> &input, const dsl::Buffer<W> &weights,
                        const dsl::Buffer<B> &bias, const dsl::Buffer<Out> &output, Close close) {
    const int out = s.out_size();
    std::mt19937 rng(4);
    for (int k = 0; k < 256; k++) {
        const int m = int(rng() % s.c_out), yy = int(rng() % out), xx = int(rng() % out);
        const double want = nn_conv_reference_at(
            s, [&](int c, int iy, int ix) { return double(input(ix, iy, c, 0)); },
            [&](int mm, int c, int ky, int kx) { return double(weights(kx, ky, c, mm)); },
            [&](int mm) { return double(bias(mm)); }, m, yy, xx);
        if (!close(double(output(xx, yy, m, 0)), want)) {
            state.SkipWithError(("nn_conv/" + side + ": " + s.name +
                                 " does not match the reference at m=" + std::to_string(m) +
                                 " y=" + std::to_string(yy) + " x=" + std::to_string(xx))
                                    .c_str());
            return false;
        }
    }
    return true;
}

void run_dsl(benchmark::State &state, const NnConvShape &s, int threads) {
    using namespace dsl;
    const int cg = s.c_in / s.groups, out = s.out_size();
    Buffer<float> input(s.size, s.size, s.c_in, 1), weights(s.kernel, s.kernel, cg, s.c_out),
        bias(s.c_out), output(out, out, s.c_out, 1);
    size_t i = 0;
    input.for_each_value([&](float &v) { v = nn_conv_value(1, i++); });
    i = 0;
    weights.for_each_value([&](float &v) { v = nn_conv_value(2, i++); });
    i = 0;
    bias.for_each_value([&](float &v) { v = nn_conv_value(3, i++); });

    ImageParam x(Float(32), 4, "x");
    nn::Tensor y = nn::conv(layer_input(x, s), nn::Tensor(Buffer<>(weights), "w"),
                            s.bias ? nn::Tensor(Buffer<>(bias), "b") : nn::Tensor(),
                            layer_window(s), s.groups);
    const Target target("host-fp_contract");
    nn::schedule_output(y, target);
    Func f = y.func();
    f.compile_jit(target);
    x.set(input);
    dsl_set_num_threads(threads);
    f.realize(output);

    if (!matches_at_samples(state, "dsl", s, input, weights, bias, output,
                            [&](double got, double want) {
                                return std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want)) * cg;
                            })) {
        dsl_set_num_threads(0);
        return;
    }
    time_matmul(state, nn_conv_flops(s), threads, [&] { f.realize(output); });
    dsl_set_num_threads(0);
}

/// nn_conv/dsl_int8: nn::integer_conv of uint8 input (zero point 0) by int8 weights, int32
/// out with the bias, the model's layer quantised (for speed only: the values are the float
/// benchmark's scaled to bytes).
void run_dsl_int8(benchmark::State &state, const NnConvShape &s, int threads) {
    using namespace dsl;
    const int out = s.out_size();
    Buffer<uint8_t> input(s.size, s.size, s.c_in, 1);
    Buffer<int8_t> weights(s.kernel, s.kernel, s.c_in, s.c_out);
    Buffer<int32_t> bias(s.c_out), output(out, out, s.c_out, 1);
    size_t i = 0;
    input.for_each_value([&](uint8_t &v) { v = nn_conv_u8(1, i++); });
    i = 0;
    weights.for_each_value([&](int8_t &v) { v = nn_conv_s8(2, i++); });
    i = 0;
    bias.for_each_value([&](int32_t &v) { v = int32_t(nn_conv_s8(3, i++)) * 100; });
    ImageParam x(UInt(8), 4, "x");
    nn::Tensor y = nn::integer_conv(
        layer_input(x, s), nn::Tensor(Buffer<>(weights), "w"), nn::Tensor(), nn::Tensor(),
        s.bias ? nn::Tensor(Buffer<>(bias), "b") : nn::Tensor(), layer_window(s));
    const Target target("host");
    nn::schedule_output(y, target);
    Func f = y.func();
    f.compile_jit(target);
    x.set(input);
    dsl_set_num_threads(threads);
    f.realize(output);
    if (!matches_at_samples(state, "dsl_int8", s, input, weights, bias, output,
                            [](double got, double want) { return got == want; })) {
        dsl_set_num_threads(0);
        return;
    }
    time_matmul(state, nn_conv_flops(s), threads, [&] { f.realize(output); });
    state.counters.erase("%peak");
    dsl_set_num_threads(0);
}

const bool registered =
    (nn_conv_register("dsl", run_dsl), nn_conv_register("dsl_int8", run_dsl_int8, true), true);

}  // namespace

}  // namespace dsl_bench
