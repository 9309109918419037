// The peer of conv_layer/dsl: oneDNN's convolution primitive on the same layers.
//
//   conv_layer/onednn/<shape>/threads:T
//
// Each layer (conv_layer_bench.h: float32, stride 1, "same" padding, bias, ReLU) is one oneDNN
// convolution_forward primitive, forward_inference, algorithm::convolution_direct, with the bias
// in the primitive and the ReLU fused as an eltwise post-op, so that the whole layer is one pass
// over the output as on our side. The choices that keep it fair:
//   - activations stay in our layout: source and destination are format_tag::nhwc memory over
//     the same buffers, so no reorder of the input or output is timed or hidden;
//   - weights are created in our layout (HWIO, depthwise HWC, as groups = C with tag hwigo) and
//     reordered once, untimed, into the layout the primitive picks with format_tag::any (they are
//     the layer's constants; our side may reorder its own too);
//   - the timed call is execute + stream.wait(), with oneDNN's default (library-owned) scratchpad.
// oneDNN 2.6 (Debian libdnnl-dev) runs on OpenMP: the thread count is set with
// omp_set_num_threads, looked up with dlsym (libgomp comes with libdnnl), before the primitive
// is created, and restored afterwards. The output is checked on 256 sampled elements against a
// plain loop before timing. The label is the implementation oneDNN chose and its effective ISA.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "aligned_vector.h"
#include "conv_layer_bench.h"
#include "matmul_bench.h"
#include "onednn_peer.h"

namespace dsl_bench {

namespace {

using Floats = AlignedVector<float>;

Floats random_values(size_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    Floats v(count);
    for (float &x : v)
        x = dist(rng);
    return v;
}

void run_onednn(benchmark::State &state, const ConvShape &s, int threads) {
#if DNNL_CPU_RUNTIME != DNNL_RUNTIME_OMP
    state.SkipWithError(
        "this oneDNN is not built on OpenMP, the only runtime whose thread count "
        "conv_layer/onednn sets");
    return;
#endif
    OmpThreads omp(threads);
    if (!omp.ok()) {
        state.SkipWithError(
            "omp_set_num_threads/omp_get_max_threads not found (oneDNN's OpenMP runtime, libgomp, "
            "is not loaded): cannot set oneDNN's thread count");
        return;
    }
    using dnnl::memory;
    using tag = memory::format_tag;
    const int n = s.n, ci = s.c_in, co = s.c_out, w = s.width, h = s.height, k = s.kernel;
    const int pad = (k - 1) / 2;
    // Our layouts: input index ((b * h + y) * w + x) * ci + c, output likewise with co; weights
    // ((ky * k + kx) * ci + i) * co + o, depthwise (ky * k + kx) * co + o.
    const size_t weight_count = size_t(k) * k * (s.depthwise ? co : size_t(ci) * co);
    Floats input = random_values(size_t(n) * h * w * ci, 1),
           weights = random_values(weight_count, 2), bias = random_values(co, 3),
           output(size_t(n) * h * w * co);
    try {
        dnnl::engine engine(dnnl::engine::kind::cpu, 0);
        dnnl::stream stream(engine);
        const memory::dims src_dims = {n, ci, h, w}, dst_dims = {n, co, h, w}, bias_dims = {co};
        const memory::dims weight_dims =
            s.depthwise ? memory::dims{co, 1, 1, k, k} : memory::dims{co, ci, k, k};
        const tag weight_tag = s.depthwise ? tag::hwigo : tag::hwio;
        const memory::desc src_md(src_dims, memory::data_type::f32, tag::nhwc),
            dst_md(dst_dims, memory::data_type::f32, tag::nhwc),
            bias_md(bias_dims, memory::data_type::f32, tag::a),
            any_weights_md(weight_dims, memory::data_type::f32, tag::any),
            user_weights_md(weight_dims, memory::data_type::f32, weight_tag);
        dnnl::convolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
            any_weights_md, bias_md, dst_md, {1, 1}, {pad, pad}, {pad, pad});
        dnnl::post_ops ops;
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);

        memory src_mem(src_md, engine, input.data()), dst_mem(dst_md, engine, output.data()),
            bias_mem(bias_md, engine, bias.data()),
            user_weights_mem(user_weights_md, engine, weights.data());
        memory weights_mem = primitive_weights(pd, user_weights_mem, engine, stream);
        dnnl::convolution_forward conv(pd);
        const std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src_mem},
                                                      {DNNL_ARG_WEIGHTS, weights_mem},
                                                      {DNNL_ARG_BIAS, bias_mem},
                                                      {DNNL_ARG_DST, dst_mem}};
        auto run = [&] {
            conv.execute(stream, args);
            stream.wait();
        };
        run();

        // oneDNN sums in its own order: close to the reference, not equal.
        std::mt19937 rng(4);
        for (int i = 0; i < 256; i++) {
            const int b = int(rng() % n), y = int(rng() % h), x = int(rng() % w),
                      o = int(rng() % co);
            double sum = 0, magnitude = 0;
            for (int ky = 0; ky < k; ky++) {
                const int iy = y + ky - pad;
                if (iy < 0 || iy >= h) continue;
                for (int kx = 0; kx < k; kx++) {
                    const int ix = x + kx - pad;
                    if (ix < 0 || ix >= w) continue;
                    const float *in = &input[((size_t(b) * h + iy) * w + ix) * ci];
                    if (s.depthwise) {
                        double term = double(in[o]) * weights[(size_t(ky) * k + kx) * co + o];
                        sum += term;
                        magnitude += std::fabs(term);
                        continue;
                    }
                    const float *wt = &weights[(size_t(ky) * k + kx) * ci * co];
                    for (int c = 0; c < ci; c++) {
                        double term = double(in[c]) * wt[size_t(c) * co + o];
                        sum += term;
                        magnitude += std::fabs(term);
                    }
                }
            }
            sum += bias[o];
            magnitude += std::fabs(bias[o]);
            const double want = sum > 0 ? sum : 0;
            const float got = output[((size_t(b) * h + y) * w + x) * co + o];
            if (!(std::fabs(got - want) <= 1e-4 * (1 + magnitude))) {
                state.SkipWithError(("oneDNN's " + s.name + " does not match the reference at n=" +
                                     std::to_string(b) + " y=" + std::to_string(y) +
                                     " x=" + std::to_string(x) + " c=" + std::to_string(o) + ": " +
                                     std::to_string(got) + " vs " + std::to_string(want))
                                        .c_str());
                return;
            }
        }
        time_matmul(state, conv_flops(s), threads, run);
        state.SetLabel(primitive_label(pd));
    } catch (const dnnl::error &e) {
        state.SkipWithError(("oneDNN: " + s.name + ": " + e.what()).c_str());
    }
}

const bool registered = (conv_register("onednn", run_onednn), true);

}  // namespace

}  // namespace dsl_bench
