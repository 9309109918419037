// Quantization, grid sampling and max-unpooling of dsl::nn against plain C++.
#include <gtest/gtest.h>

#include <cmath>

#include "NNTestUtil.h"
#include "dsl/dsl.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Quantize.h"
#include "dsl/nn/Resize.h"

namespace {

using namespace dsl;
using test::random_buffer;
using test::realize;

TEST(NNQuantize, PerChannelRoundTripAndSaturation) {
    // x (2 channels, 17 values), per-channel scales and int8 zero points.
    Buffer<float> x(17, 2);
    x.fill([](int i, int c) { return (float(i) - 8.0f) * (c ? 3.3f : 0.25f); });
    Buffer<float> scale(2);
    scale(0) = 0.1f;
    scale(1) = 0.2f;
    Buffer<int8_t> zp(2);
    zp(0) = 3;
    zp(1) = -5;
    nn::Tensor s(Buffer<>(scale), "s"), z(Buffer<>(zp), "z");
    Buffer<int8_t> q = realize<int8_t>(nn::quantize_linear(nn::Tensor(Buffer<>(x), "x"), s, z, 0));
    Buffer<float> back = realize(nn::dequantize_linear(nn::Tensor(Buffer<>(q), "q"), s, z, 0));
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 17; i++) {
            double want = std::nearbyint(x(i, c) / scale(c)) + zp(c);
            want = std::min(127.0, std::max(-128.0, want));
            ASSERT_EQ(q(i, c), int8_t(want)) << c << " " << i;
            ASSERT_NEAR(back(i, c), (want - zp(c)) * scale(c), 1e-6);
        }
}

TEST(NNQuantize, GridSampleBilinearAndMaxUnpool) {
    // Sampling the centre of pixel (1, 2) of a 3x4 image returns that pixel (align_corners).
    Buffer<float> img(4, 3, 1, 1);
    img.fill([](int i, int j, int, int) { return float(10 * j + i); });
    Buffer<float> grid(2, 1, 1, 1);
    grid(0, 0, 0, 0) = 2.0f / 3.0f * 2.0f - 1.0f;  // x = 2 of 0..3
    grid(1, 0, 0, 0) = 0.0f;                       // y = 1 of 0..2
    Buffer<float> out = realize(
        nn::grid_sample(nn::Tensor(Buffer<>(img), "img"), nn::Tensor(Buffer<>(grid), "grid"),
                        nn::ResizeMode::Linear, nn::GridPadding::Zeros, true));
    EXPECT_NEAR(out(0, 0, 0, 0), 12.0f, 1e-5);
    // Unpooling writes each value at its index and zeros elsewhere.
    Buffer<float> v(2);
    v(0) = 5;
    v(1) = 7;
    Buffer<int64_t> at(2);
    at(0) = 4;
    at(1) = 1;
    Buffer<float> u = realize(
        nn::max_unpool(nn::Tensor(Buffer<>(v), "v"), nn::Tensor(Buffer<>(at), "at"), {Expr(6)}));
    const float want[6] = {0, 7, 0, 0, 5, 0};
    for (int i = 0; i < 6; i++)
        EXPECT_EQ(u(i), want[i]) << i;
}

}  // namespace
