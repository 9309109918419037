// The 3x3 box blur as two separable passes on a 6400x4800 uint16 image, as in Halide's
// apps/blur:
//   blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3
//   blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3
// in uint16 arithmetic (sums wrap modulo 2^16 before the division, in every version here).
//
// No boundary condition: the input covers [-1, 6400] x [-1, 4800], one pixel more than the
// output on every side, so every stencil tap lies inside it.
//
// Each dsl schedule is compiled, and its output checked against the plain C++ loop, before the
// timed loop; the timed loop only realizes into a preallocated output buffer. Every benchmark
// reports wall-clock time (UseRealTime), since the parallel ones use several threads.
//
// The plain C++ loop is compiled with the project's flags (-O3, no -march), so GCC vectorizes it
// for baseline x86-64 (SSE2); the dsl JIT compiles for the host's SIMD (AVX-512 where there
// is). blur_cpp_avx2 is the same loop compiled for AVX2, for a fairer comparison.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace {

using dsl::Buffer;
using dsl::Func;
using dsl::Var;

constexpr int kWidth = 6400;
constexpr int kHeight = 4800;
constexpr double kPixels = kWidth * static_cast<double>(kHeight);

// Random values over the whole uint16 range, so that the sums really wrap.
Buffer<uint16_t> make_input() {
    Buffer<uint16_t> input(kWidth + 2, kHeight + 2);
    input.translate(0, -1).translate(1, -1);
    std::mt19937 rng(20240601);
    uint16_t *data = input.data();
    for (int64_t i = 0; i < input.number_of_elements(); i++) {
        data[i] = static_cast<uint16_t>(rng());
    }
    return input;
}

const Buffer<uint16_t> &input_image() {
    static const Buffer<uint16_t> input = make_input();
    return input;
}

// The reference point: the naive two-pass blur in plain C++. `in` has rows of `in_stride`
// elements and starts at (-1, -1); `tmp` holds blur_x for rows -1 .. height (width elements a
// row); `out` is width x height, dense.
inline __attribute__((always_inline)) void blur_rows(const uint16_t *in, int in_stride,
                                                     uint16_t *tmp, uint16_t *out, int width,
                                                     int height) {
    for (int y = -1; y <= height; y++) {
        const uint16_t *row = in + static_cast<int64_t>(y + 1) * in_stride + 1;
        uint16_t *tmp_row = tmp + static_cast<int64_t>(y + 1) * width;
        for (int x = 0; x < width; x++) {
            tmp_row[x] = static_cast<uint16_t>(row[x - 1] + row[x] + row[x + 1]) / 3;
        }
    }
    for (int y = 0; y < height; y++) {
        const uint16_t *above = tmp + static_cast<int64_t>(y) * width;
        const uint16_t *here = above + width;
        const uint16_t *below = here + width;
        uint16_t *out_row = out + static_cast<int64_t>(y) * width;
        for (int x = 0; x < width; x++) {
            out_row[x] = static_cast<uint16_t>(above[x] + here[x] + below[x]) / 3;
        }
    }
}

void blur_plain_cpp(const uint16_t *in, int in_stride, uint16_t *tmp, uint16_t *out, int width,
                    int height) {
    blur_rows(in, in_stride, tmp, out, width, height);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define DSL_BENCH_HAVE_AVX2_LOOP 1
__attribute__((target("avx2"))) void blur_plain_cpp_avx2(const uint16_t *in, int in_stride,
                                                         uint16_t *tmp, uint16_t *out, int width,
                                                         int height) {
    blur_rows(in, in_stride, tmp, out, width, height);
}
#endif

const std::vector<uint16_t> &expected_output() {
    static const std::vector<uint16_t> expected = [] {
        const Buffer<uint16_t> &in = input_image();
        std::vector<uint16_t> tmp(static_cast<size_t>(kWidth) * (kHeight + 2));
        std::vector<uint16_t> out(static_cast<size_t>(kWidth) * kHeight);
        blur_plain_cpp(in.data(), in.dim(1).stride(), tmp.data(), out.data(), kWidth, kHeight);
        return out;
    }();
    return expected;
}

// A schedule of the blur. `lanes == 0` leaves every Func on the defaults: blur_x is inlined into
// blur_y, which is one serial loop nest. Otherwise blur_y is tiled, its inner x loop vectorized
// and its rows of tiles run in parallel; blur_x is computed per tile and vectorized.
struct BlurSchedule {
    int tile_width;
    int tile_height;
    int lanes;
    // bound() the output to the benchmark's size: the tiles then divide it exactly and the
    // compiler drops the guards of the last tile.
    bool bounded;
    // Instead of tiles: strips of `tile_height` full rows in parallel, blur_x stored per strip
    // and computed per row (a sliding window: each row of blur_x once, in a 4-row circular
    // buffer).
    bool sliding = false;
};

struct BlurPipeline {
    Func blur_x{"blur_x"};
    Func blur_y{"blur_y"};
};

BlurPipeline make_blur(const BlurSchedule &schedule) {
    const Buffer<uint16_t> &in = input_image();
    BlurPipeline p;
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    p.blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    p.blur_y(x, y) = (p.blur_x(x, y - 1) + p.blur_x(x, y) + p.blur_x(x, y + 1)) / 3;

    if (schedule.bounded) p.blur_y.bound(x, 0, kWidth).bound(y, 0, kHeight);
    if (schedule.sliding) {
        p.blur_y.split(y, yo, yi, schedule.tile_height).parallel(yo).vectorize(x, schedule.lanes);
        p.blur_x.store_at(p.blur_y, yo).compute_at(p.blur_y, yi).vectorize(x, schedule.lanes);
    } else if (schedule.lanes > 0) {
        p.blur_y.tile(x, y, xo, yo, xi, yi, schedule.tile_width, schedule.tile_height)
            .vectorize(xi, schedule.lanes)
            .parallel(yo);
        p.blur_x.compute_at(p.blur_y, xo).vectorize(x, schedule.lanes);
    }
    return p;
}

void set_counters(benchmark::State &state) {
    // Shown as pixels per second, e.g. "pixels=2.5G/s".
    state.counters["pixels"] =
        benchmark::Counter(kPixels, benchmark::Counter::kIsIterationInvariantRate);
}

// range(0): the number of threads of the dsl runtime's pool. Google Benchmark calls this
// function several times (to size the timed loop); each call builds and compiles the pipeline
// again, outside the timed loop, and checks its output at this thread count.
void blur_dsl(benchmark::State &state, BlurSchedule schedule) {
    dsl_set_num_threads(static_cast<int>(state.range(0)));
    Buffer<uint16_t> out(kWidth, kHeight);
    BlurPipeline p = make_blur(schedule);
    try {
        // The first realize compiles; the JIT keeps the code on the Func for the timed loop.
        p.blur_y.realize(out);
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
        dsl_set_num_threads(0);
        return;
    }
    const std::vector<uint16_t> &expected = expected_output();
    if (std::memcmp(out.data(), expected.data(), expected.size() * sizeof(uint16_t)) != 0) {
        state.SkipWithError("the output differs from the plain C++ blur");
        dsl_set_num_threads(0);
        return;
    }

    for (auto _ : state) {
        p.blur_y.realize(out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_counters(state);
    dsl_set_num_threads(0);
}

using PlainBlur = void (*)(const uint16_t *, int, uint16_t *, uint16_t *, int, int);

void run_plain_blur(benchmark::State &state, PlainBlur blur) {
    const Buffer<uint16_t> &in = input_image();
    std::vector<uint16_t> tmp(static_cast<size_t>(kWidth) * (kHeight + 2));
    std::vector<uint16_t> out(static_cast<size_t>(kWidth) * kHeight);
    blur(in.data(), in.dim(1).stride(), tmp.data(), out.data(), kWidth, kHeight);
    if (out != expected_output()) {
        state.SkipWithError("this build of the plain C++ blur differs from the baseline one");
        return;
    }
    for (auto _ : state) {
        blur(in.data(), in.dim(1).stride(), tmp.data(), out.data(), kWidth, kHeight);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_counters(state);
}

void blur_cpp(benchmark::State &state) {
    run_plain_blur(state, blur_plain_cpp);
}

#ifdef DSL_BENCH_HAVE_AVX2_LOOP
void blur_cpp_avx2(benchmark::State &state) {
    if (!__builtin_cpu_supports("avx2")) {
        state.SkipWithError("this CPU has no AVX2");
        return;
    }
    run_plain_blur(state, blur_plain_cpp_avx2);
}
#endif

void thread_counts(benchmark::internal::Benchmark *b) {
    b->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
}

// {tile width, tile height, lanes, bounded}; see BlurSchedule.
BENCHMARK_CAPTURE(blur_dsl, default_schedule, BlurSchedule{0, 0, 0, false})->Apply(thread_counts);
// The CPU schedule of Halide's apps/blur.
BENCHMARK_CAPTURE(blur_dsl, tiled_256x32_16_lanes, BlurSchedule{256, 32, 16, false})
    ->Apply(thread_counts);
BENCHMARK_CAPTURE(blur_dsl, tiled_256x32_32_lanes, BlurSchedule{256, 32, 32, false})
    ->Apply(thread_counts);
// The same with the output bound to the image: no tail guards. The tiled schedule kept after
// trying others (see README.md).
BENCHMARK_CAPTURE(blur_dsl, tiled_256x32_32_lanes_bounded, BlurSchedule{256, 32, 32, true})
    ->Apply(thread_counts);
// Line buffering: strips of 64 rows, sliding window and storage folding.
BENCHMARK_CAPTURE(blur_dsl, sliding_strips_64_rows_32_lanes, BlurSchedule{0, 64, 32, false, true})
    ->Apply(thread_counts);
BENCHMARK(blur_cpp)->UseRealTime()->Unit(benchmark::kMillisecond);
#ifdef DSL_BENCH_HAVE_AVX2_LOOP
BENCHMARK(blur_cpp_avx2)->UseRealTime()->Unit(benchmark::kMillisecond);
#endif

}  // namespace
