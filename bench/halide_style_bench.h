#pragma once
// Halide's own schedules, unchanged, on both sides: the kernels of halide_style_kernels.inc
// compiled against dsl (halide_style.cpp) and against Halide 14 (halide_style_halide.cpp), on
// the same inputs, each output checked before it is timed.
//
//   halide_style/<kernel>/<dsl|halide>/threads:1|2   <kernel>: packed_sgemm, conv_relu, blur

#include <benchmark/benchmark.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "aligned_vector.h"

namespace dsl_bench {

constexpr int kStyleSgemmSize = 1024;
// conv_relu: input (channels, width + 2, height + 2, batch), filter (out, 3, 3, in), bias (out).
constexpr int kStyleConvIn = 128, kStyleConvOut = 128, kStyleConvWidth = 100, kStyleConvHeight = 80,
              kStyleConvBatch = 1;
// blur: the output's size; the input has two more columns and rows.
constexpr int kStyleBlurWidth = 6400, kStyleBlurHeight = 4800;

/// The inputs, made once, dense, first dimension innermost.
struct HalideStyleInputs {
    AlignedVector<float> sgemm_a, sgemm_b;
    AlignedVector<float> conv_input, conv_filter, conv_bias;
    AlignedVector<uint16_t> blur_input;
};
const HalideStyleInputs &halide_style_inputs();

/// An empty string if the output (dense) is right at a sample of points, else where it is not.
std::string packed_sgemm_mismatch(const float *c);
std::string conv_relu_mismatch(const float *out);
std::string blur_mismatch(const uint16_t *out);

/// Builds (compiles) once, runs and checks once, then times `run`. `build()` returns the
/// function that realizes into the output that `check()` then reads.
template <typename Build, typename Check>
void run_halide_style(benchmark::State &state, const char *who, Build build, Check check) {
    try {
        auto run = build();
        run();
        const std::string mismatch = check();
        if (!mismatch.empty()) {
            state.SkipWithError((std::string(who) + " output is wrong " + mismatch).c_str());
            return;
        }
        for (auto _ : state) {
            run();
            benchmark::ClobberMemory();
        }
    } catch (const std::exception &e) {
        state.SkipWithError((std::string(who) + ": " + e.what()).c_str());
    }
}

inline void halide_style_args(benchmark::internal::Benchmark *b) {
    b->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace dsl_bench
