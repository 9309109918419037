// The transpose of transpose.cpp in Halide 14, with the same tiles, vectors, unrolling and prefetch
// (Halide's Func::prefetch with the same loops, offset and strategy). Compiled in only when
// Halide 14 is found (DSL_BENCH_HAVE_HALIDE).
//
//   transpose/halide/unrolled:0|1/prefetch:0|1   realize() into a preallocated output after
//                                                compile_jit(), checked against a plain loop
//                                                first

#include <benchmark/benchmark.h>

#include <Halide.h>

#include <string>

#include "dsl/Target.h"
#include "transpose_bench.h"

namespace dsl_bench {
namespace {

void transpose_halide(benchmark::State &state) {
    const bool unrolled = state.range(0) != 0, prefetch = state.range(1) != 0;
    Halide::Buffer<float> out(kTransposeSize, kTransposeSize);
    run_transpose(state, "Halide's", out.data(), [&] {
        const dsl::Buffer<float> &input = transpose_input();
        Halide::Buffer<float> in(const_cast<float *>(input.data()), kTransposeSize, kTransposeSize);
        Halide::ImageParam param(Halide::Float(32), 2, "transpose_in");
        param.set(in);
        Halide::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        Halide::Func f("transpose");
        f(x, y) = param(y, x) * 2.0f;
        // GuardWithIf, ours by default (the size divides evenly: no tail either way).
        f.tile(x, y, xo, yo, xi, yi, kTransposeTile, kTransposeTile,
               Halide::TailStrategy::GuardWithIf)
            .vectorize(xi);
        if (unrolled) f.unroll(yi);
        if (prefetch) f.prefetch(param, xo, xo, 1, Halide::PrefetchBoundStrategy::Clamp);
        // The host without avx512_sapphirerapids, as for the apps (apps_halide.cpp says why).
        f.compile_jit(
            Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids));
        return [f, &out]() mutable { f.realize(out); };
    });
}

BENCHMARK(transpose_halide)->Name("transpose/halide")->Apply(transpose_args);

}  // namespace
}  // namespace dsl_bench
