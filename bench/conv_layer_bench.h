#pragma once
// What conv_layer.cpp (ours) and conv_layer_onednn.cpp (the peer) share: the shapes of the layers
// and how the benchmarks are named and timed.
//
// Every layer is float32, stride 1, "same" padding ((kernel - 1) / 2 zeros on each side), then
// bias and ReLU, in NHWC: the input is c_in x width x height x n with the channel innermost, the
// output likewise with c_out. Weights are HWIO (c_out innermost, then c_in, the kernel's x, its y)
// for a dense layer and HWC (the channel innermost) for a depthwise one; each side may reorder
// them once, untimed, into the layout it prefers (they are a layer's constants).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "matmul_bench.h"

namespace dsl_bench {

struct ConvShape {
    std::string name;  // the benchmark's name: conv_layer/<side>/<name>/threads:T
    int n, c_in, c_out, width, height, kernel;
    bool depthwise;  // one kernel per channel (c_in == c_out), no sum over channels
};

/// The layers: the 3x3 layer of the issue and the two layers of a MobileNet block of the same
/// size (depthwise 3x3, pointwise 1x1).
inline const std::vector<ConvShape> &conv_shapes() {
    static const std::vector<ConvShape> shapes = {
        {"conv3x3_n4_c128_64x64", 4, 128, 128, 64, 64, 3, false},
        {"conv1x1_n4_c128_64x64", 4, 128, 128, 64, 64, 1, false},
        {"depthwise3x3_n4_c128_64x64", 4, 128, 128, 64, 64, 3, true},
    };
    return shapes;
}

/// Floating-point operations of one layer: a multiply and an add per term of each sum.
inline double conv_flops(const ConvShape &s) {
    const double terms = double(s.kernel) * s.kernel * (s.depthwise ? 1 : s.c_in);
    return 2.0 * terms * s.c_out * s.width * s.height * s.n;
}

/// Registers a benchmark per shape and thread count (1, 2): its arguments are the shape's index
/// in conv_shapes() and the thread count.
inline void conv_register(const std::string &side,
                          void (*run)(benchmark::State &, const ConvShape &, int threads)) {
    for (size_t i = 0; i < conv_shapes().size(); i++) {
        for (int threads : {1, 2}) {
            const ConvShape &shape = conv_shapes()[i];
            benchmark::RegisterBenchmark(
                ("conv_layer/" + side + "/" + shape.name + "/threads:" + std::to_string(threads))
                    .c_str(),
                [run, &shape, threads](benchmark::State &state) { run(state, shape, threads); })
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
}

}  // namespace dsl_bench
