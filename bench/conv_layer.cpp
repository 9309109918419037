// apps/conv_layer against oneDNN (conv_layer_onednn.cpp), on the layers of conv_layer_bench.h.
//
//   conv_layer/dsl/<shape>/threads:T   the app's hand-written schedule through the JIT (a 1x1
//                                      layer over the images' rows joined)
//   conv_layer/dsl_auto/<shape>/...    the same algorithm auto-scheduled (Pipeline::auto_schedule)
//                                      for those sizes
//
// Each reports GFLOP/s and the percentage of the FMA peak that matmul/fma_peak measures. The
// output is checked against the app's reference on sampled elements before timing (exactly: both
// sum in the same order with fused multiply-adds).
#include <benchmark/benchmark.h>

#include <optional>
#include <random>
#include <string>

#include "conv_layer.h"
#include "conv_layer_bench.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"
#include "matmul_bench.h"

namespace dsl_bench {

namespace {

void run(benchmark::State &state, const ConvShape &s, int threads, bool autoschedule) {
    const dsl_apps::ConvLayerShape shape{s.n,      s.c_in,   s.c_out,    s.width,
                                         s.height, s.kernel, s.depthwise};
    dsl::Buffer<float> input = dsl_apps::conv_layer_random_input(shape, 1),
                       weights = dsl_apps::conv_layer_random_weights(shape, 2),
                       bias = dsl_apps::conv_layer_random_bias(shape, 3),
                       out(s.c_out, s.width, s.height, s.n);
    dsl::ImageParam pi(dsl::Float(32), 4, "input"),
        pw(dsl::Float(32), s.depthwise ? 3 : 4, "weights"), pb(dsl::Float(32), 1, "bias");
    // A 1x1 layer runs over the images' rows joined (conv_layer_join_rows): the same layer, with
    // no tile shifted back at the end of each row.
    std::optional<dsl_apps::JoinedRows> joined;
    if (s.kernel == 1) joined = dsl_apps::conv_layer_join_rows(input, out);
    dsl::Buffer<float> &result = joined ? joined->output : out;
    pi.set(joined ? joined->input : input);
    pw.set(weights);
    pb.set(bias);
    dsl_apps::ConvLayerPipeline p = dsl_apps::make_conv_layer(pi, pw, pb, s.kernel, s.depthwise);
    if (autoschedule) {
        const dsl::Buffer<float> &in = joined ? joined->input : input;
        const dsl::Buffer<float> &o = result;
        dsl::Region in_est, out_est;
        for (int d = 0; d < 4; d++) {
            in_est.push_back({in.dim(d).min(), in.dim(d).extent()});
            out_est.push_back({o.dim(d).min(), o.dim(d).extent()});
        }
        pi.set_estimates(in_est);
        p.output.set_estimates(out_est);
        dsl::Pipeline(p.output).auto_schedule(dsl::Target::host());
    } else {
        dsl_apps::schedule_conv_layer(p, dsl::Target::host());
    }
    p.output.compile_jit();
    dsl_set_num_threads(threads);
    p.output.realize(result);
    std::mt19937 rng(3);
    for (int i = 0; i < 256; i++) {
        int c = static_cast<int>(rng() % s.c_out), x = static_cast<int>(rng() % s.width),
            y = static_cast<int>(rng() % s.height), n = static_cast<int>(rng() % s.n);
        if (out(c, x, y, n) != dsl_apps::conv_layer_reference_at(input, weights, bias, s.kernel,
                                                                 s.depthwise, c, x, y, n)) {
            state.SkipWithError(
                ("the output of " + s.name + " does not match the reference").c_str());
            dsl_set_num_threads(0);
            return;
        }
    }
    time_matmul(state, conv_flops(s), threads, [&] { p.output.realize(result); });
    dsl_set_num_threads(0);
}

void run_dsl(benchmark::State &state, const ConvShape &s, int threads) {
    run(state, s, threads, false);
}
void run_dsl_auto(benchmark::State &state, const ConvShape &s, int threads) {
    run(state, s, threads, true);
}

const bool registered =
    (conv_register("dsl", run_dsl), conv_register("dsl_auto", run_dsl_auto), true);

}  // namespace

}  // namespace dsl_bench
