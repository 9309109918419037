// nn_int8/dsl: nn::integer_matmul (vpdpbusd where the host has avx512_vnni), and nn_int8/dsl_f32:
// nn::matmul of the same shapes in float32, on the shapes of nn_int8_bench.h. A is an
// ImageParam set before timing, B a constant; the result is checked on sampled elements first.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>

#include "dsl/dsl.h"
#include "dsl/nn/Linear.h"
#include "dsl/nn/Quantize.h"
#include "dsl/runtime/dsl_runtime.h"
#include "nn_int8_bench.h"

namespace dsl_bench {

namespace {

void run_dsl(benchmark::State &state, const Int8Shape &s, bool int8, int threads) {
    using namespace dsl;
    Buffer<uint8_t> a(s.k, s.m);
    Buffer<int8_t> b(s.n, s.k);
    for (int i = 0; i < s.m; i++)
        for (int q = 0; q < s.k; q++)
            a(q, i) = int8_bench_a(size_t(i) * s.k + q);
    for (int q = 0; q < s.k; q++)
        for (int j = 0; j < s.n; j++)
            b(j, q) = int8_bench_b(size_t(q) * s.n + j);
    Buffer<uint8_t> za = Buffer<uint8_t>::make_scalar();
    za() = kInt8ZeroPointA;
    const Target target("host-fp_contract");
    // A is an input; B a constant of the pipeline (a layer's weights), as on oneDNN's side,
    // whose weights are reordered once before timing: integer_matmul packs it when the
    // pipeline is built.
    ImageParam pa(int8 ? UInt(8) : Float(32), 2, "a");
    Buffer<float> af(s.k, s.m), bf(s.n, s.k);
    af.for_each_element([&](int q, int i) { af(q, i) = float(a(q, i)) - kInt8ZeroPointA; });
    bf.for_each_element([&](int j, int q) { bf(j, q) = float(b(j, q)); });
    nn::Tensor y = int8 ? nn::integer_matmul(nn::Tensor(pa), nn::Tensor(Buffer<>(b), "b"),
                                             nn::Tensor(Buffer<>(za), "za"), nn::Tensor())
                        : nn::matmul(nn::Tensor(pa), nn::Tensor(Buffer<>(bf), "b"));
    nn::schedule_output(y, target);
    Func f = y.func();
    f.compile_jit(target);
    if (int8) {
        pa.set(a);
    } else {
        pa.set(af);
    }
    Buffer<int32_t> out(s.n, s.m);
    Buffer<float> outf(s.n, s.m);
    auto run = [&] { int8 ? f.realize(out) : f.realize(outf); };
    dsl_set_num_threads(threads);
    run();
    std::mt19937 rng(5);
    for (int t = 0; t < 64; t++) {
        const int i = int(rng() % s.m), j = int(rng() % s.n);
        int32_t want = 0;
        for (int q = 0; q < s.k; q++)
            want += (int32_t(a(q, i)) - kInt8ZeroPointA) * int32_t(b(j, q));
        // float32 sums of integers are exact up to 2^24 only.
        double got = int8 ? double(out(j, i)) : double(outf(j, i));
        if (std::abs(got - double(want)) > (int8 ? 0.0 : 1e-6 * s.k * 255 * 128)) {
            state.SkipWithError(("nn_int8: " + s.name() + " is wrong at " + std::to_string(i) +
                                 ", " + std::to_string(j))
                                    .c_str());
            dsl_set_num_threads(0);
            return;
        }
    }
    time_int8(state, s, run);
    dsl_set_num_threads(0);
}

const bool registered = (int8_register("dsl", [](benchmark::State &st, const Int8Shape &s,
                                                 int t) { run_dsl(st, s, true, t); }),
                         int8_register("dsl_f32", [](benchmark::State &st, const Int8Shape &s,
                                                     int t) { run_dsl(st, s, false, t); }),
                         true);

}  // namespace

}  // namespace dsl_bench
