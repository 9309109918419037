// Resize, TopK and Einsum of dsl::nn against plain C++ loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

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

// Nearest by an integer factor k takes its index in integers, (x + e) / k (Resize.cpp): every
// coordinate transform that allows it, every rounding, k from 1 to 8, output sizes of in * k
// (no clamp) and others (clamped), vectorized, against ONNX's formula in doubles. Then the
// form the ONNX builders give, floor(in * scale) of an input whose extent is known only when it
// runs.
TEST(NNResize, NearestByIntegerFactorsMatchesTheFormula) {
    const int n = 7;
    Buffer<float> x(n);
    std::iota(x.data(), x.data() + n, 10.0f);
    using CT = nn::CoordinateTransform;
    using NR = nn::NearestRounding;
    for (CT ct : {CT::Asymmetric, CT::HalfPixel, CT::PytorchHalfPixel, CT::TfHalfPixelForNN,
                  CT::AlignCorners}) {
        for (NR nr : {NR::Floor, NR::Ceil, NR::RoundPreferFloor, NR::RoundPreferCeil}) {
            for (int k : {1, 2, 3, 4, 5, 8}) {
                for (int extra : {0, -3, 2}) {
                    const int out_n = n * k + extra;
                    nn::ResizeOptions o;
                    o.transform = ct;
                    o.rounding = nr;
                    nn::Tensor y = nn::resize(nn::Tensor(Buffer<>(x), "x"), {Expr(int64_t(out_n))},
                                              {Expr(double(k))}, o);
                    nn::schedule_output(y, get_host_target());
                    Buffer<float> got = realize(y);
                    int wrong = 0;
                    for (int i = 0; i < out_n; i++) {
                        double c = 0, scale = k;
                        switch (ct) {
                            case CT::Asymmetric:
                                c = i / scale;
                                break;
                            case CT::HalfPixel:
                                c = (i + 0.5) / scale - 0.5;
                                break;
                            case CT::PytorchHalfPixel:
                                c = n * scale > 1 ? (i + 0.5) / scale - 0.5 : 0.0;
                                break;
                            case CT::TfHalfPixelForNN:
                                c = (i + 0.5) / scale;
                                break;
                            default:
                                c = i * (n - 1.0) / std::max(n * scale - 1.0, 1.0);
                                break;
                        }
                        double r = nr == NR::Floor              ? std::floor(c)
                                   : nr == NR::Ceil             ? std::ceil(c)
                                   : nr == NR::RoundPreferFloor ? std::ceil(c - 0.5)
                                                                : std::floor(c + 0.5);
                        int j = std::clamp(static_cast<int>(r), 0, n - 1);
                        wrong += got(i) != x(j);
                    }
                    EXPECT_EQ(wrong, 0) << "transform " << int(ct) << ", rounding " << int(nr)
                                        << ", k " << k << ", " << out_n << " points";
                }
            }
        }
    }
    // The builders' form: an input of unknown extent, floor(in * 2) points.
    ImageParam in(Float(32), 1, "nearest_in");
    nn::Tensor t(in);
    nn::ResizeOptions o;
    o.transform = CT::Asymmetric;
    o.rounding = NR::Floor;
    Expr scale = cast(Float(64), Expr(2.0f));
    nn::Tensor y =
        nn::resize(t, {cast(Int(64), floor(cast(Float(64), t.dim(0)) * scale))}, {scale}, o);
    nn::schedule_output(y, get_host_target());
    Buffer<float> big(45);
    std::iota(big.data(), big.data() + 45, 0.0f);
    in.set(big);
    Buffer<float> got(90);
    y.func().realize(got);
    for (int i = 0; i < 90; i++)
        ASSERT_EQ(got(i), float(i / 2)) << i;
    // The index in integers and unclamped: no float coordinate, no clamp in the loops.
    const std::string stmt = y.func().lowered_stmt();
    std::istringstream lines(stmt);
    int loads = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.find("= nearest_in[") == std::string::npos) continue;
        loads++;
        EXPECT_EQ(line.find("floor"), std::string::npos) << line;
        EXPECT_EQ(line.find("max("), std::string::npos) << line;
    }
    EXPECT_GT(loads, 0) << stmt;
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
