// Resize, TopK and Einsum of dsl::nn against plain C++ loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "NNTestUtil.h"
#include "dsl/dsl.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Reduce.h"
#include "dsl/nn/Resize.h"

namespace {

using namespace dsl;
using test::random_buffer;
using test::realize;

TEST(NNResize, BilinearHalfPixelMatchesTheFormula) {
    // (1, 1, 3, 5) -> (1, 1, 7, 17) by sizes.
    Buffer<float> x(5, 3, 1, 1);
    x.fill([](int i, int j, int, int) { return float(i * i + 3 * j); });
    nn::ResizeOptions o;
    o.mode = nn::ResizeMode::Linear;
    std::vector<Expr> sizes{Expr(int64_t(1)), Expr(int64_t(1)), Expr(int64_t(7)),
                            Expr(int64_t(17))};
    std::vector<Expr> scales{Expr(1.0), Expr(1.0), Expr(7.0 / 3.0), Expr(17.0 / 5.0)};
    Buffer<float> y = realize(nn::resize(nn::Tensor(Buffer<>(x), "x"), sizes, scales, o));
    auto sample = [&](double cy, double cx) {
        auto lerp_axis = [](double c, int n, int *i0, int *i1) {
            double f = std::floor(c);
            *i0 = std::clamp(int(f), 0, n - 1);
            *i1 = std::clamp(int(f) + 1, 0, n - 1);
            return c - f;
        };
        int y0, y1, x0, x1;
        double wy = lerp_axis(cy, 3, &y0, &y1), wx = lerp_axis(cx, 5, &x0, &x1);
        double top = x(x0, y0, 0, 0) * (1 - wx) + x(x1, y0, 0, 0) * wx;
        double bottom = x(x0, y1, 0, 0) * (1 - wx) + x(x1, y1, 0, 0) * wx;
        return top * (1 - wy) + bottom * wy;
    };
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 17; j++) {
            double cy = (i + 0.5) / (7.0 / 3.0) - 0.5, cx = (j + 0.5) / (17.0 / 5.0) - 0.5;
            ASSERT_NEAR(y(j, i, 0, 0), sample(cy, cx), 1e-4) << i << " " << j;
        }
}

TEST(NNResize, NearestRoundingModes) {
    Buffer<float> x(4);
    std::iota(x.data(), x.data() + 4, 0.0f);
    nn::Tensor t(Buffer<>(x), "x");
    nn::ResizeOptions o;
    o.transform = nn::CoordinateTransform::Asymmetric;
    auto run = [&](nn::NearestRounding r) {
        o.rounding = r;
        return realize(nn::resize(t, {Expr(int64_t(8))}, {Expr(2.0)}, o));
    };
    // Output i reads input coordinate i / 2: 0, 0.5, 1, 1.5, ...
    Buffer<float> floor_ = run(nn::NearestRounding::Floor), ceil_ = run(nn::NearestRounding::Ceil),
                  rpf = run(nn::NearestRounding::RoundPreferFloor);
    for (int i = 0; i < 8; i++) {
        EXPECT_EQ(floor_(i), float(i / 2));
        EXPECT_EQ(ceil_(i), float(std::min((i + 1) / 2, 3)));
        EXPECT_EQ(rpf(i), float(i / 2));  // x.5 rounds down
    }
}

TEST(NNResize, TopKAndEinsum) {
    Buffer<float> x(17, 3);
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> dist(0, 9);  // ties on purpose
    x.for_each_value([&](float &v) { v = float(dist(rng)); });
    nn::TopK k = nn::top_k(nn::Tensor(Buffer<>(x), "x"), Expr(int64_t(5)), 1, true);
    Buffer<float> values = realize(k.values);
    Buffer<int64_t> indices = realize<int64_t>(k.indices);
    for (int r = 0; r < 3; r++) {
        std::vector<int> order(17);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return x(a, r) > x(b, r); });
        for (int j = 0; j < 5; j++) {
            EXPECT_EQ(indices(j, r), order[j]) << r << " " << j;
            EXPECT_EQ(values(j, r), x(order[j], r));
        }
    }
    // Batched matrix product and a trace through einsum.
    Buffer<float> a(3, 2, 4), b(5, 3, 4), sq(3, 3);
    a.fill([](int i, int j, int n) { return float(i + 2 * j - n); });
    b.fill([](int i, int j, int n) { return float(i * j + n); });
    sq.fill([](int i, int j) { return float(i * 3 + j); });
    Buffer<float> c = realize(
        nn::einsum("nij,njk->nik", {nn::Tensor(Buffer<>(a), "a"), nn::Tensor(Buffer<>(b), "b")}));
    for (int n = 0; n < 4; n++)
        for (int i = 0; i < 2; i++)
            for (int kk = 0; kk < 5; kk++) {
                float acc = 0;
                for (int j = 0; j < 3; j++)
                    acc += a(j, i, n) * b(kk, j, n);
                ASSERT_EQ(c(kk, i, n), acc);
            }
    Buffer<float> trace = realize(nn::einsum("ii", {nn::Tensor(Buffer<>(sq), "sq")}));
    EXPECT_EQ(trace(), 0.0f + 4.0f + 8.0f);
}

}  // namespace
