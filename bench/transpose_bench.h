#pragma once
// The transpose of bench/transpose.cpp, shared with its Halide 14 version
// (transpose_halide.cpp): out(x, y) = in(y, x) * 2 on a float32 square of kTransposeSize, in
// tiles of kTransposeTile x kTransposeTile outputs whose rows are vectors, the tile's rows a
// loop or unrolled, with or without a prefetch of the next tile's input at each tile.

#include <benchmark/benchmark.h>

#include <exception>
#include <string>

#include "dsl/Buffer.h"

namespace dsl_bench {

constexpr int kTransposeSize = 4096;
constexpr int kTransposeTile = 16;

/// The input, made once.
const dsl::Buffer<float> &transpose_input();

/// An empty message if `out` (kTransposeSize^2 floats, dense) is the transpose times 2, else
/// where it differs.
std::string transpose_mismatch(const float *out);

/// The body of a transpose benchmark: `build()` makes and compiles the pipeline and returns a
/// function that realizes it into `out` (kTransposeSize^2 floats, dense); it runs once and is
/// checked, then timed. `who` names the side in the error of a wrong output.
template <typename Build>
void run_transpose(benchmark::State &state, const char *who, float *out, Build build) {
    try {
        auto realize = build();
        realize();
        const std::string mismatch = transpose_mismatch(out);
        if (!mismatch.empty()) {
            state.SkipWithError(
                (std::string(who) + " output differs from the transpose " + mismatch).c_str());
            return;
        }
        for (auto _ : state) {
            realize();
            benchmark::DoNotOptimize(out);
            benchmark::ClobberMemory();
        }
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
}

/// The arguments of both sides: the tile's rows a loop or unrolled, without and with the
/// prefetch; one thread, milliseconds.
inline void transpose_args(benchmark::internal::Benchmark *b) {
    b->ArgNames({"unrolled", "prefetch"})
        ->ArgsProduct({{0, 1}, {0, 1}})
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

}  // namespace dsl_bench
