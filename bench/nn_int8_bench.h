#pragma once
// What nn_int8.cpp (the operator library's nn::integer_matmul, and nn::matmul in float32 for
// scale) and nn_int8_onednn.cpp (oneDNN's matmul primitive, uint8 by int8 into int32) share:
// the shapes, the operands' values and the reference, and how the benchmarks are named.
//
//   nn_int8/<side>/<M>x<K>x<N>/threads:T     side: dsl, dsl_f32, onednn
//
// A (M x K) is uint8 with zero point 3; B (K x N) int8 with zero point 0; the result is int32,
// sum_k (A - 3) B. GOP/s counts a multiply and an add per term, as GFLOP/s does for floats.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace dsl_bench {

struct Int8Shape {
    int m, k, n;
    std::string name() const {
        return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    }
    double ops() const { return 2.0 * m * k * n; }
};

/// Square products, and the matrix products of PP-OCRv4's recogniser at 8 lines (its SVTR
/// block's projections and its 6625-way classifier).
inline const std::vector<Int8Shape> &int8_shapes() {
    static const std::vector<Int8Shape> shapes{
        {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {320, 120, 360}, {320, 120, 6625}};
    return shapes;
}

constexpr int kInt8ZeroPointA = 3;

inline uint8_t int8_bench_a(size_t i) {
    return static_cast<uint8_t>((i * 2654435761u) >> 24);
}
inline int8_t int8_bench_b(size_t i) {
    return static_cast<int8_t>(((i * 40503u + 7u) * 2246822519u) >> 24);
}

/// Element (i, j) of the result from the row-major operands.
inline int32_t int8_reference_at(const Int8Shape &s, const uint8_t *a, const int8_t *b, int i,
                                 int j) {
    int32_t sum = 0;
    for (int q = 0; q < s.k; q++)
        sum +=
            (int32_t(a[size_t(i) * s.k + q]) - kInt8ZeroPointA) * int32_t(b[size_t(q) * s.n + j]);
    return sum;
}

/// Registers a benchmark per shape and thread count (1, 2).
inline void int8_register(const std::string &side,
                          void (*run)(benchmark::State &, const Int8Shape &, int threads)) {
    for (const Int8Shape &shape : int8_shapes()) {
        for (int threads : {1, 2}) {
            benchmark::RegisterBenchmark(
                ("nn_int8/" + side + "/" + shape.name() + "/threads:" + std::to_string(threads))
                    .c_str(),
                [run, &shape, threads](benchmark::State &state) { run(state, shape, threads); })
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
}

/// Times the loop around `multiply` and reports GOP/s.
template <typename F>
void time_int8(benchmark::State &state, const Int8Shape &s, F &&multiply) {
    auto start = std::chrono::steady_clock::now();
    for (auto _ : state)
        multiply();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.counters["GOP/s"] = s.ops() * double(state.iterations()) / seconds * 1e-9;
}

}  // namespace dsl_bench
