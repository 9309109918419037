// A transpose, where each row of an output tile reads a column of the input, one cache line per
// input row (see transpose_bench.h): the access pattern hardware prefetchers handle worst, and
// a gather per row of a tile. Prefetching (Stage::prefetch) asks for the next tile's lines
// before computing a tile. With the tile's rows unrolled, lowering turns the tile's 16 gathers
// into 16 dense loads and a transposition in registers (src/lowering/TransposedGathers.cpp).
//
//   transpose/dsl/unrolled:0|1/prefetch:0|1   realize() into a preallocated output, after
//                                             checking it against a plain loop
// transpose_halide.cpp runs the same algorithm and schedule in Halide 14. One thread: the
// pipeline has no parallel loop.

#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "dsl/dsl.h"
#include "transpose_bench.h"

namespace dsl_bench {

const dsl::Buffer<float> &transpose_input() {
    static const dsl::Buffer<float> input = [] {
        dsl::Buffer<float> b(kTransposeSize, kTransposeSize);
        std::mt19937 rng(20261201);
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        float *data = b.data();
        for (int64_t i = 0; i < b.number_of_elements(); i++)
            data[i] = value(rng);
        return b;
    }();
    return input;
}

std::string transpose_mismatch(const float *out) {
    const dsl::Buffer<float> &in = transpose_input();
    for (int y = 0; y < kTransposeSize; y++) {
        for (int x = 0; x < kTransposeSize; x++) {
            float expected = in(y, x) * 2.0f;
            float got = out[static_cast<int64_t>(y) * kTransposeSize + x];
            if (got != expected) {
                return "at (" + std::to_string(x) + ", " + std::to_string(y) +
                       "): " + std::to_string(got) + " instead of " + std::to_string(expected);
            }
        }
    }
    return "";
}

namespace {

void transpose_dsl(benchmark::State &state) {
    const bool unrolled = state.range(0) != 0, prefetch = state.range(1) != 0;
    dsl::Buffer<float> out(kTransposeSize, kTransposeSize);
    run_transpose(state, "our", out.data(), [&] {
        dsl::ImageParam in(dsl::Float(32), 2, "transpose_in");
        in.set(transpose_input());
        dsl::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        dsl::Func f("transpose");
        f(x, y) = in(y, x) * 2.0f;
        f.tile(x, y, xo, yo, xi, yi, kTransposeTile, kTransposeTile).vectorize(xi);
        if (unrolled) f.unroll(yi);
        if (prefetch) f.prefetch(in, xo, xo, 1, dsl::PrefetchBoundStrategy::Clamp);
        f.compile_jit();
        return [f, &out]() mutable { f.realize(out); };
    });
}

BENCHMARK(transpose_dsl)->Name("transpose/dsl")->Apply(transpose_args);

}  // namespace
}  // namespace dsl_bench
