// Halide's schedules of halide_style_kernels.inc, compiled against dsl (see
// halide_style_bench.h); also the shared inputs and checks.

#include <cmath>
#include <random>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"
#include "halide_style_bench.h"

namespace dsl_bench {

namespace dsl_style {
namespace hs = dsl;
#include "halide_style_kernels.inc"
}  // namespace dsl_style

const HalideStyleInputs &halide_style_inputs() {
    static const HalideStyleInputs inputs = [] {
        HalideStyleInputs in;
        std::mt19937 rng(20261202);
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        auto fill = [&](AlignedVector<float> &v, size_t n) {
            v.resize(n);
            for (float &x : v)
                x = value(rng);
        };
        const size_t s = kStyleSgemmSize;
        fill(in.sgemm_a, s * s);
        fill(in.sgemm_b, s * s);
        fill(in.conv_input, size_t(kStyleConvIn) * (kStyleConvWidth + 2) * (kStyleConvHeight + 2) *
                                kStyleConvBatch);
        fill(in.conv_filter, size_t(kStyleConvOut) * 3 * 3 * kStyleConvIn);
        fill(in.conv_bias, kStyleConvOut);
        in.blur_input.resize(size_t(kStyleBlurWidth + 2) * (kStyleBlurHeight + 2));
        std::uniform_int_distribution<int> pixel(0, 65535);
        for (uint16_t &p : in.blur_input)
            p = static_cast<uint16_t>(pixel(rng));
        return in;
    }();
    return inputs;
}

namespace {

std::string at(int x, int y, double got, double want) {
    return "at (" + std::to_string(x) + ", " + std::to_string(y) + "): " + std::to_string(got) +
           " instead of " + std::to_string(want);
}

}  // namespace

std::string packed_sgemm_mismatch(const float *c) {
    const HalideStyleInputs &in = halide_style_inputs();
    const int n = kStyleSgemmSize;
    for (int y = 0; y < n; y += 37) {
        for (int x = 0; x < n; x += 29) {
            double sum = 0;
            for (int k = 0; k < n; k++)
                sum += double(in.sgemm_a[size_t(y) * n + k]) * in.sgemm_b[size_t(k) * n + x];
            const float got = c[size_t(y) * n + x];
            if (std::fabs(got - sum) > 1e-3 * (1 + std::fabs(sum))) return at(x, y, got, sum);
        }
    }
    return "";
}

std::string conv_relu_mismatch(const float *out) {
    const HalideStyleInputs &in = halide_style_inputs();
    const int ci_n = kStyleConvIn, co_n = kStyleConvOut, w = kStyleConvWidth;
    const int h = kStyleConvHeight;
    for (int y = 0; y < h; y += 7) {
        for (int x = 0; x < w; x += 3) {
            for (int c = 0; c < co_n; c += 13) {
                double sum = in.conv_bias[c];
                for (int ky = 0; ky < 3; ky++) {
                    for (int kx = 0; kx < 3; kx++) {
                        for (int i = 0; i < ci_n; i++) {
                            const float f =
                                in.conv_filter[((size_t(i) * 3 + ky) * 3 + kx) * co_n + c];
                            const float v =
                                in.conv_input[(size_t(y + ky) * (w + 2) + (x + kx)) * ci_n + i];
                            sum += double(f) * v;
                        }
                    }
                }
                const double want = sum > 0 ? sum : 0;
                const float got = out[(size_t(y) * w + x) * co_n + c];
                if (std::fabs(got - want) > 1e-3 * (1 + std::fabs(want)))
                    return "channel " + std::to_string(c) + " " + at(x, y, got, want);
            }
        }
    }
    return "";
}

std::string blur_mismatch(const uint16_t *out) {
    const HalideStyleInputs &in = halide_style_inputs();
    const int w = kStyleBlurWidth, iw = kStyleBlurWidth + 2;
    auto input = [&](int x, int y) { return in.blur_input[size_t(y) * iw + x]; };
    auto blur_x = [&](int x, int y) {
        return uint16_t(uint16_t(input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3);
    };
    for (int y = 0; y < kStyleBlurHeight; y += 11) {
        for (int x = 0; x < w; x += 7) {
            const uint16_t want =
                uint16_t(uint16_t(blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3);
            const uint16_t got = out[size_t(y) * w + x];
            if (got != want) return at(x, y, got, want);
        }
    }
    return "";
}

namespace {

/// This machine, with float multiply-adds fused: Halide 14 contracts a * b + c by default, and
/// so do the apps' benchmarks (bench/apps.cpp); dsl's default keeps each operation rounded.
dsl::Target style_target() {
    return dsl::Target::host().with_feature(dsl::Target::FP_CONTRACT);
}

/// Sets the thread count for a run and back to the default after it.
class Threads {
  public:
    explicit Threads(int n) { dsl_set_num_threads(n); }
    ~Threads() { dsl_set_num_threads(0); }
    Threads(const Threads &) = delete;
    Threads &operator=(const Threads &) = delete;
};

void sgemm_dsl(benchmark::State &state) {
    Threads threads(static_cast<int>(state.range(0)));
    const int n = kStyleSgemmSize;
    dsl::Buffer<float> c(n, n);
    dsl::ImageParam a(dsl::Float(32), 2, "a"), b(dsl::Float(32), 2, "b");
    run_halide_style(
        state, "dsl's",
        [&] {
            const HalideStyleInputs &in = halide_style_inputs();
            a.set(dsl::Buffer<float>(const_cast<float *>(in.sgemm_a.data()), {n, n}));
            b.set(dsl::Buffer<float>(const_cast<float *>(in.sgemm_b.data()), {n, n}));
            dsl::Func f = dsl_style::packed_sgemm(a, b, n);
            f.compile_jit(style_target());
            return [f, c, t = style_target()]() mutable { f.realize(c, t); };
        },
        [&] { return packed_sgemm_mismatch(c.data()); });
}

void conv_dsl(benchmark::State &state) {
    Threads threads(static_cast<int>(state.range(0)));
    dsl::Buffer<float> out({kStyleConvOut, kStyleConvWidth, kStyleConvHeight, kStyleConvBatch});
    dsl::ImageParam input(dsl::Float(32), 4, "input"), filter(dsl::Float(32), 4, "filter"),
        bias(dsl::Float(32), 1, "bias");
    run_halide_style(
        state, "dsl's",
        [&] {
            HalideStyleInputs &in = const_cast<HalideStyleInputs &>(halide_style_inputs());
            input.set(dsl::Buffer<float>(
                in.conv_input.data(),
                {kStyleConvIn, kStyleConvWidth + 2, kStyleConvHeight + 2, kStyleConvBatch}));
            filter.set(
                dsl::Buffer<float>(in.conv_filter.data(), {kStyleConvOut, 3, 3, kStyleConvIn}));
            bias.set(dsl::Buffer<float>(in.conv_bias.data(), {kStyleConvOut}));
            dsl::Func f = dsl_style::conv_relu(input, filter, bias, kStyleConvIn);
            f.compile_jit(style_target());
            return [f, out, t = style_target()]() mutable { f.realize(out, t); };
        },
        [&] { return conv_relu_mismatch(out.data()); });
}

void blur_dsl(benchmark::State &state) {
    Threads threads(static_cast<int>(state.range(0)));
    dsl::Buffer<uint16_t> out(kStyleBlurWidth, kStyleBlurHeight);
    dsl::ImageParam input(dsl::UInt(16), 2, "input");
    run_halide_style(
        state, "dsl's",
        [&] {
            HalideStyleInputs &in = const_cast<HalideStyleInputs &>(halide_style_inputs());
            input.set(dsl::Buffer<uint16_t>(in.blur_input.data(),
                                            {kStyleBlurWidth + 2, kStyleBlurHeight + 2}));
            dsl::Func f = dsl_style::blur(input);
            f.compile_jit(style_target());
            return [f, out, t = style_target()]() mutable { f.realize(out, t); };
        },
        [&] { return blur_mismatch(out.data()); });
}

BENCHMARK(sgemm_dsl)->Name("halide_style/packed_sgemm/dsl")->Apply(halide_style_args);
BENCHMARK(conv_dsl)->Name("halide_style/conv_relu/dsl")->Apply(halide_style_args);
BENCHMARK(blur_dsl)->Name("halide_style/blur/dsl")->Apply(halide_style_args);

}  // namespace
}  // namespace dsl_bench
