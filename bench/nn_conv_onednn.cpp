// The peer of nn_conv/dsl: oneDNN's convolution primitive on the PP-OCRv4 detector's
// convolutions (nn_conv_bench.h).
//
//   nn_conv/onednn/<shape>/threads:T
//
// Each layer is one convolution_forward primitive (forward_inference, convolution_direct) with
// the bias in the primitive where the model has one. As on our side: the input and output are
// NCHW (format_tag::nchw, no reorder timed or hidden), the weights are created in ONNX's layout
// (oihw, goihw for groups) and reordered once, untimed, into the layout the primitive picks (they
// are constants of the model). The timed call is execute + stream.wait(). The output is checked
// on sampled elements against the plain loop before timing; the label is the implementation
// oneDNN chose and its instruction set.
#include <cmath>
#include <random>
#include <string>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "aligned_vector.h"
#include "matmul_bench.h"
#include "nn_conv_bench.h"
#include "onednn_peer.h"

namespace dsl_bench {

namespace {

/// One layer's convolution primitive (forward inference, direct) on the caller's buffers: the
/// input and output in `layout`, the weights created in ONNX's layout and reordered once,
/// untimed, into the one the primitive picks (they are constants of the model).
struct OnednnConvLayer {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward conv;
    std::unordered_map<int, dnnl::memory> args;

    OnednnConvLayer(const NnConvShape &s, dnnl::memory::format_tag layout,
                    dnnl::memory::data_type data, dnnl::memory::data_type weight,
                    dnnl::memory::data_type result, void *input, void *weights, void *bias,
                    void *output) {
        using dnnl::memory;
        using tag = memory::format_tag;
        const int cg = s.c_in / s.groups, out = s.out_size(), pad = (s.kernel - 1) / 2;
        const int k = s.kernel;
        const memory::dims weight_dims = s.groups > 1
                                             ? memory::dims{s.groups, s.c_out / s.groups, cg, k, k}
                                             : memory::dims{s.c_out, cg, k, k};
        const memory::desc src_md({1, s.c_in, s.size, s.size}, data, layout),
            dst_md({1, s.c_out, out, out}, result, layout), bias_md({s.c_out}, result, tag::a),
            any_weights_md(weight_dims, weight, tag::any),
            user_weights_md(weight_dims, weight, s.groups > 1 ? tag::goihw : tag::oihw);
        const memory::dims strides = {s.stride, s.stride}, pads = {pad, pad};
        auto desc =
            s.bias ? dnnl::convolution_forward::desc(
                         dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                         src_md, any_weights_md, bias_md, dst_md, strides, pads, pads)
                   : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::convolution_direct, src_md,
                                                     any_weights_md, dst_md, strides, pads, pads);
        pd = dnnl::convolution_forward::primitive_desc(desc, engine);
        memory user_weights_mem(user_weights_md, engine, weights);
        args = {{DNNL_ARG_SRC, memory(src_md, engine, input)},
                {DNNL_ARG_WEIGHTS, primitive_weights(pd, user_weights_mem, engine, stream)},
                {DNNL_ARG_DST, memory(dst_md, engine, output)}};
        if (s.bias) args[DNNL_ARG_BIAS] = memory(bias_md, engine, bias);
        conv = dnnl::convolution_forward(pd);
    }
    void run() {
        conv.execute(stream, args);
        stream.wait();
    }
};

void run_onednn(benchmark::State &state, const NnConvShape &s, int threads) {
    OmpThreads omp(threads);
    if (!onednn_threads_set(state, omp)) return;
    using dnnl::memory;
    using tag = memory::format_tag;
    const int cg = s.c_in / s.groups, out = s.out_size();
    const int k = s.kernel;
    AlignedVector<float> input(size_t(s.c_in) * s.size * s.size),
        weights(size_t(s.c_out) * cg * k * k), bias(size_t(s.c_out)),
        output(size_t(s.c_out) * out * out);
    for (size_t i = 0; i < input.size(); i++)
        input[i] = nn_conv_value(1, i);
    for (size_t i = 0; i < weights.size(); i++)
        weights[i] = nn_conv_value(2, i);
    for (size_t i = 0; i < bias.size(); i++)
        bias[i] = nn_conv_value(3, i);
    try {
        OnednnConvLayer layer(s, tag::nchw, memory::data_type::f32, memory::data_type::f32,
                              memory::data_type::f32, input.data(), weights.data(), bias.data(),
                              output.data());
        auto run = [&] { layer.run(); };
        run();
        std::mt19937 rng(4);
        for (int i = 0; i < 256; i++) {
            const int m = int(rng() % s.c_out), y = int(rng() % out), x = int(rng() % out);
            double want = nn_conv_reference_at(
                s,
                [&](int c, int iy, int ix) {
                    return input[(size_t(c) * s.size + iy) * s.size + ix];
                },
                [&](int mm, int c, int ky, int kx) {
                    return weights[((size_t(mm) * cg + c) * k + ky) * k + kx];
                },
                [&](int mm) { return bias[size_t(mm)]; }, m, y, x);
            const float got = output[(size_t(m) * out + y) * out + x];
            if (!(std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want)) * cg)) {
                state.SkipWithError(("oneDNN's " + s.name +
                                     " does not match the reference at m=" + std::to_string(m) +
                                     " y=" + std::to_string(y) + " x=" + std::to_string(x))
                                        .c_str());
                return;
            }
        }
        time_matmul(state, nn_conv_flops(s), threads, run);
        state.SetLabel(primitive_label(layer.pd));
    } catch (const dnnl::error &e) {
        state.SkipWithError(("oneDNN: " + s.name + ": " + e.what()).c_str());
    }
}

/// nn_conv/onednn_int8: the int8 version (uint8 input, int8 weights, int32 bias and output).
/// The input and output are NHWC, oneDNN's layout for int8 (with NCHW it runs its reference
/// implementation, about 1000x slower): a model kept in NHWC throughout, no reorder timed. The
/// weights are reordered once into the primitive's layout.
void run_onednn_int8(benchmark::State &state, const NnConvShape &s, int threads) {
    OmpThreads omp(threads);
    if (!onednn_threads_set(state, omp)) return;
    using dnnl::memory;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const int out = s.out_size(), k = s.kernel;
    AlignedVector<uint8_t> input(size_t(s.c_in) * s.size * s.size);
    AlignedVector<int8_t> weights(size_t(s.c_out) * s.c_in * k * k);
    AlignedVector<int32_t> bias(size_t(s.c_out)), output(size_t(s.c_out) * out * out);
    for (size_t i = 0; i < input.size(); i++)
        input[i] = nn_conv_u8(1, i);
    for (size_t i = 0; i < weights.size(); i++)
        weights[i] = nn_conv_s8(2, i);
    for (size_t i = 0; i < bias.size(); i++)
        bias[i] = int32_t(nn_conv_s8(3, i)) * 100;
    try {
        OnednnConvLayer layer(s, tag::nhwc, dt::u8, dt::s8, dt::s32, input.data(), weights.data(),
                              bias.data(), output.data());
        auto run = [&] { layer.run(); };
        run();
        std::mt19937 rng(4);
        for (int i = 0; i < 256; i++) {
            const int m = int(rng() % s.c_out), y = int(rng() % out), x = int(rng() % out);
            double want = nn_conv_reference_at(
                s,
                [&](int c, int iy, int ix) {
                    return double(input[(size_t(iy) * s.size + ix) * s.c_in + c]);
                },
                [&](int mm, int c, int ky, int kx) {
                    return double(weights[((size_t(mm) * s.c_in + c) * k + ky) * k + kx]);
                },
                [&](int mm) { return double(bias[size_t(mm)]); }, m, y, x);
            if (double(output[(size_t(y) * out + x) * s.c_out + m]) != want) {
                state.SkipWithError(
                    ("oneDNN's int8 " + s.name + " does not match the reference").c_str());
                return;
            }
        }
        time_matmul(state, nn_conv_flops(s), threads, run);
        state.counters.erase("%peak");
        state.SetLabel(primitive_label(layer.pd));
    } catch (const dnnl::error &e) {
        state.SkipWithError(("oneDNN int8: " + s.name + ": " + e.what()).c_str());
    }
}

const bool registered = (nn_conv_register("onednn", run_onednn),
                         nn_conv_register("onednn_int8", run_onednn_int8, true), true);

}  // namespace

}  // namespace dsl_bench
