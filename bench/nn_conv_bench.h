#pragma once
// What nn_conv.cpp (the operator library's nn::conv) and nn_conv_onednn.cpp (the peer) share:
// every distinct convolution of the PP-OCRv4 text detector at a 1x3x640x640 input (issue 32),
// and how the benchmarks are named and timed.
//
// Each layer is float32 in ONNX's layout, NCHW for the input and output and (M, C / group, KH,
// KW) for the weights, with the model's pads ((kernel - 1) / 2 on each side), stride and groups,
// and a bias where the model has one. No activation: in the model it is fused on both sides.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "matmul_bench.h"

namespace dsl_bench {

struct NnConvShape {
    std::string name;                               // nn_conv/<side>/<name>/threads:T
    int c_in, c_out, size, kernel, stride, groups;  // size: the input's height and width
    bool bias;
    int out_size() const { return (size + 2 * ((kernel - 1) / 2) - kernel) / stride + 1; }
};

/// The detector's convolutions with more than one output point (the squeeze-and-excitation
/// layers' 1x1 ones on a single point are left out), one of each shape.
inline const std::vector<NnConvShape> &nn_conv_shapes() {
    static const std::vector<NnConvShape> shapes = [] {
        struct Row {
            int c_in, c_out, size, kernel, stride, groups;
            bool bias;
        };
        const Row rows[] = {
            {3, 16, 640, 3, 2, 1, true},   {16, 16, 320, 3, 1, 16, true},
            {16, 32, 320, 1, 1, 1, true},  {32, 32, 320, 3, 2, 32, true},
            {32, 48, 160, 1, 1, 1, true},  {48, 48, 160, 3, 1, 48, true},
            {48, 48, 160, 1, 1, 1, true},  {48, 48, 160, 3, 2, 48, true},
            {48, 96, 80, 1, 1, 1, true},   {96, 96, 80, 3, 1, 96, true},
            {96, 96, 80, 1, 1, 1, true},   {96, 96, 80, 3, 2, 96, true},
            {96, 192, 40, 1, 1, 1, true},  {192, 192, 40, 5, 1, 192, true},
            {192, 192, 40, 1, 1, 1, true}, {192, 192, 40, 5, 2, 192, true},
            {192, 384, 20, 1, 1, 1, true}, {384, 384, 20, 5, 1, 384, true},
            {384, 384, 20, 1, 1, 1, true}, {48, 12, 160, 1, 1, 1, true},
            {96, 18, 80, 1, 1, 1, true},   {192, 42, 40, 1, 1, 1, true},
            {384, 360, 20, 1, 1, 1, true}, {12, 96, 160, 1, 1, 1, false},
            {18, 96, 80, 1, 1, 1, false},  {42, 96, 40, 1, 1, 1, false},
            {360, 96, 20, 1, 1, 1, false}, {96, 24, 160, 3, 1, 1, false},
            {96, 24, 80, 3, 1, 1, false},  {96, 24, 40, 3, 1, 1, false},
            {96, 24, 20, 3, 1, 1, false},
        };
        std::vector<NnConvShape> v;
        for (const Row &r : rows) {
            std::string name = (r.groups > 1 ? "dw" : "conv") + std::to_string(r.kernel) + "x" +
                               std::to_string(r.kernel) + "_" + std::to_string(r.c_in) + "to" +
                               std::to_string(r.c_out) + "_" + std::to_string(r.size) +
                               (r.stride > 1 ? "_s" + std::to_string(r.stride) : "");
            v.push_back({name, r.c_in, r.c_out, r.size, r.kernel, r.stride, r.groups, r.bias});
        }
        return v;
    }();
    return shapes;
}

/// Floating-point operations of one layer: a multiply and an add per term of each sum.
inline double nn_conv_flops(const NnConvShape &s) {
    const double terms = double(s.kernel) * s.kernel * (s.c_in / s.groups);
    return 2.0 * terms * s.c_out * s.out_size() * s.out_size();
}

/// The value of input element (c, y, x), weight (m, c, ky, kx) and bias m: seeded, in [-1, 1),
/// the same on both sides.
inline float nn_conv_value(uint32_t seed, size_t index) {
    uint32_t h = static_cast<uint32_t>(index) * 2654435761u ^ (seed * 40503u + 1u);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return static_cast<float>(h & 0xffffff) / float(1 << 23) - 1.0f;
}

/// The int8 versions of the values (nn_conv/*_int8): the input as uint8 in [0, 255], the
/// weights as int8 in [-127, 127], the bias as int32.
inline uint8_t nn_conv_u8(uint32_t seed, size_t index) {
    return static_cast<uint8_t>((nn_conv_value(seed, index) + 1.0f) * 127.5f);
}
inline int8_t nn_conv_s8(uint32_t seed, size_t index) {
    return static_cast<int8_t>(nn_conv_value(seed, index) * 127.0f);
}

/// Registers a benchmark per shape and thread count (1, 2); `dense_only`: the shapes of one
/// group (the int8 sides).
inline void nn_conv_register(const std::string &side,
                             void (*run)(benchmark::State &, const NnConvShape &, int threads),
                             bool dense_only = false) {
    for (const NnConvShape &shape : nn_conv_shapes()) {
        if (dense_only && shape.groups != 1) continue;
        for (int threads : {1, 2}) {
            benchmark::RegisterBenchmark(
                ("nn_conv/" + side + "/" + shape.name + "/threads:" + std::to_string(threads))
                    .c_str(),
                [run, &shape, threads](benchmark::State &state) { run(state, shape, threads); })
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
}

/// A plain-loop reference of output (m, y, x) (n = 0), in double.
template <typename In, typename W, typename B>
double nn_conv_reference_at(const NnConvShape &s, In in, W weight, B bias, int m, int y, int x) {
    const int pad = (s.kernel - 1) / 2, cg = s.c_in / s.groups, g = m / (s.c_out / s.groups);
    double sum = s.bias ? bias(m) : 0.0;
    for (int c = 0; c < cg; c++)
        for (int ky = 0; ky < s.kernel; ky++)
            for (int kx = 0; kx < s.kernel; kx++) {
                const int iy = y * s.stride - pad + ky, ix = x * s.stride - pad + kx;
                if (iy < 0 || iy >= s.size || ix < 0 || ix >= s.size) continue;
                sum += double(in(g * cg + c, iy, ix)) * weight(m, c, ky, kx);
            }
    return sum;
}

}  // namespace dsl_bench
