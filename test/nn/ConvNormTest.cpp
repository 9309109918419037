// Convolutions, pooling, normalizations and losses of dsl::nn against plain C++ loops, on odd
// shapes (17, 33), with strides, dilations, padding and groups.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "NNTestUtil.h"
#include "common/ErrorCheck.h"
#include "dsl/dsl.h"
#include "dsl/nn/Conv.h"
#include "dsl/nn/Elementwise.h"
#include "dsl/nn/Linear.h"
#include "nn/ops/RegisterTiles.h"
#include "dsl/nn/Norm.h"

namespace {

using namespace dsl;
using test::random_buffer;
using test::realize;

TEST(NNConv, GroupedStridedDilatedPaddedConvMatchesALoop) {
    // x (1, 6, 17, 33), w (9, 2, 3, 3): 3 groups, stride 2, dilation 2, pads (1, 2) / (0, 1).
    Buffer<float> x = random_buffer({33, 17, 6, 1}, 1), w = random_buffer({3, 3, 2, 9}, 2),
                  b = random_buffer({9}, 3);
    nn::Window win;
    win.strides = {2, 2};
    win.dilations = {2, 2};
    win.pads_begin = {Expr(1), Expr(2)};
    win.pads_end = {Expr(0), Expr(1)};
    nn::Tensor y = nn::conv(nn::Tensor(Buffer<>(x), "x"), nn::Tensor(Buffer<>(w), "w"),
                            nn::Tensor(Buffer<>(b), "b"), win, 3);
    Buffer<float> out = realize(y);
    const int oh = (17 + 1 + 0 - 5) / 2 + 1, ow = (33 + 2 + 1 - 5) / 2 + 1;
    ASSERT_EQ(out.extent(1), oh);
    ASSERT_EQ(out.extent(0), ow);
    for (int m = 0; m < 9; m++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                double acc = b(m);
                for (int c = 0; c < 2; c++)
                    for (int ki = 0; ki < 3; ki++)
                        for (int kj = 0; kj < 3; kj++) {
                            int yy = i * 2 - 1 + ki * 2, xx = j * 2 - 2 + kj * 2;
                            if (yy < 0 || yy >= 17 || xx < 0 || xx >= 33) continue;
                            acc += double(x(xx, yy, (m / 3) * 2 + c, 0)) * w(kj, ki, c, m);
                        }
                ASSERT_NEAR(out(j, i, m, 0), acc, 1e-4) << m << " " << i << " " << j;
            }
}

// A padded convolution compiled once for any image size, as the model compiler builds it:
// zeros past the edges are a likely condition, so the loop over tiles of a row has a steady
// state whose loads are neither clamped nor selected; the output buffer must hold the tensor's
// known extents. Checked against a loop at two sizes from one compile.
TEST(NNConv, PaddedConvHasASteadyStateAtAnySize) {
    ImageParam in(Float(32), 4, "pad_x");
    in.dim(2).set_extent(5);
    in.dim(3).set_extent(1);
    nn::Tensor x(in);
    nn::Shape shape = x.shape();
    shape[0] = Expr(1);
    shape[1] = Expr(5);
    Buffer<float> w = random_buffer({3, 3, 5, 7}, 11), b = random_buffer({7}, 12);
    nn::Window win;
    win.strides = {1, 1};
    win.pads_begin = {Expr(1), Expr(1)};
    win.pads_end = {Expr(1), Expr(1)};
    nn::Tensor y = nn::conv(nn::Tensor(x.func(), shape), nn::Tensor(Buffer<>(w), "w"),
                            nn::Tensor(Buffer<>(b), "b"), win);
    nn::schedule_output(y, get_host_target());
    Func f = y.func();
    const std::string stmt = f.lowered_stmt();
    EXPECT_NE(stmt.find(".steady_first"), std::string::npos) << "no steady state:\n" << stmt;
    for (int size : {17, 70}) {
        Buffer<float> xb = random_buffer({size + 3, size, 5, 1}, 13 + size);
        in.set(xb);
        Buffer<float> out({size + 3, size, 7, 1});
        f.realize(out);
        int bad = 0;
        for (int m = 0; m < 7; m++)
            for (int i = 0; i < size; i++)
                for (int j = 0; j < size + 3; j++) {
                    double acc = b(m);
                    for (int c = 0; c < 5; c++)
                        for (int ki = 0; ki < 3; ki++)
                            for (int kj = 0; kj < 3; kj++) {
                                int yy = i - 1 + ki, xx = j - 1 + kj;
                                if (yy < 0 || yy >= size || xx < 0 || xx >= size + 3) continue;
                                acc += double(xb(xx, yy, c, 0)) * w(kj, ki, c, m);
                            }
                    bad += std::fabs(out(j, i, m, 0) - acc) > 1e-4;
                }
        EXPECT_EQ(bad, 0) << "size " << size;
    }
    // The output's channels are known: a buffer of other channels is refused, naming it.
    Buffer<float> wrong({20, 17, 6, 1});
    in.set(random_buffer({20, 17, 5, 1}, 14));
    std::string m = test::message_of<RuntimeError>([&] { f.realize(wrong); });
    EXPECT_NE(m.find(f.name()), std::string::npos) << m;
    EXPECT_NE(m.find("extent"), std::string::npos) << m;
}

// A pointwise convolution compiled once for any map size, as the model compiler builds it: the
// rows are joined (H * W points as one axis, in tiles of two vectors that run across the ends
// of rows), and every load of the input is a dense vector load (the point p of a dense input at
// row p / W and column p % W is at offset p). Against a loop at sizes whose rows are narrower
// than a tile, not a multiple of one, and of one point, with a batch of two, channels that the
// tile of 12 does not divide, and a fused residual add; rows longer than a block (320 points)
// go in pieces.
TEST(NNConv, PointwiseConvJoinsRowsAtAnySize) {
    for (bool residual : {false, true}) {
        const int c = residual ? 36 : 35, m = residual ? 36 : 29;
        ImageParam in(Float(32), 4, residual ? "pw_res" : "pw_x");
        in.dim(2).set_extent(c);
        nn::Tensor x(in);
        nn::Shape shape = x.shape();
        shape[1] = Expr(c);
        x = nn::Tensor(x.func(), shape);
        Buffer<float> w = random_buffer({1, 1, c, m}, 21), b = random_buffer({m}, 22);
        nn::Tensor y =
            nn::conv(x, nn::Tensor(Buffer<>(w), "w"), nn::Tensor(Buffer<>(b), "b"), nn::Window());
        y = nn::relu(residual ? nn::add(y, x) : y);
        nn::schedule_output(y, get_host_target());
        Func f = y.func();
        // The dense-strides version of the pipeline, which the JIT runs: the rows are joined
        // (the output's blocks of points and channels are one parallel loop), and no load of
        // the input divides or takes a remainder.
        const std::string stmt = f.lowered_stmt();
        const std::string dense = stmt.substr(0, stmt.find("\nelse"));
        EXPECT_NE(dense.find("parallel for (" + f.name() + ".s0.task,"), std::string::npos)
            << dense;
        size_t loads = 0;
        for (size_t at = dense.find(in.name() + "["); at != std::string::npos;
             at = dense.find(in.name() + "[", at + 1)) {
            loads++;
            const size_t end = dense.find(']', at);
            const std::string index = dense.substr(at, end - at);
            EXPECT_EQ(index.find('%'), std::string::npos) << index;
            EXPECT_EQ(index.find('/'), std::string::npos) << index;
        }
        EXPECT_GT(loads, 0u) << dense;
        for (auto [width, height, batch] :
             {std::tuple{40, 20, 2}, std::tuple{20, 9, 1}, std::tuple{7, 50, 2},
              std::tuple{33, 17, 1}, std::tuple{1, 5, 1}, std::tuple{700, 2, 1}}) {
            Buffer<float> xb = random_buffer({width, height, c, batch}, 23 + width);
            in.set(xb);
            Buffer<float> out({width, height, m, batch});
            f.realize(out);
            int bad = 0;
            for (int n = 0; n < batch; n++)
                for (int o = 0; o < m; o++)
                    for (int i = 0; i < height; i++)
                        for (int j = 0; j < width; j++) {
                            double acc = b(o);
                            for (int k = 0; k < c; k++)
                                acc += double(xb(j, i, k, n)) * w(0, 0, k, o);
                            if (residual) acc += xb(j, i, o, n);
                            bad += std::fabs(out(j, i, o, n) - std::max(acc, 0.0)) > 1e-4;
                        }
            EXPECT_EQ(bad, 0) << "width " << width << ", height " << height;
        }
    }
}

// A map known to be one row high is not joined: a reader of it (a swish, conv * sigmoid(conv),
// as the recogniser's squeezed feature maps have) indexes the convolution at row 0, which a
// loop over joined points would not read back as its point. Against a loop, at widths that
// fill a tile, do not, and are narrower than one.
TEST(NNConv, RegisterTilesFitTheTargetsVectorRegisters) {
    // Accumulators, the tile's vectors of input and a broadcast weight: 2 x 12 + 3 of AVX-512's
    // 32 registers; AVX2 has 16, which hold 2 x 6 + 3 (2 x 12 spilled: a 3x3 convolution 96 ->
    // 24 at 160x160 took 3.5 times ONNX Runtime's time on an AVX2 machine).
    const Target avx2("x86-64-linux-avx2-fma"), avx512("x86-64-linux-avx512");
    EXPECT_EQ(nn::tile_channels(avx512, 2, 12), 12);
    EXPECT_EQ(nn::tile_channels(avx2, 2, 12), 6);
    EXPECT_EQ(nn::tile_channels(avx2, 2, 8), 6);
    EXPECT_EQ(nn::tile_channels(avx2, 1, 8), 8);
    EXPECT_EQ(nn::tile_channels(Target("x86-64-linux"), 2, 4), 4);
    EXPECT_EQ(nn::tile_channels(Target("arm-64-linux"), 2, 12), 12);
}

TEST(NNConv, PointwiseConvOfOneRowWithASwish) {
    constexpr int c = 40, m = 24;
    ImageParam in(Float(32), 4, "pw_row");
    in.dim(2).set_extent(c);
    in.dim(1).set_extent(1);
    nn::Tensor x(in);
    nn::Shape shape = x.shape();
    shape[1] = Expr(c);
    shape[2] = Expr(1);
    x = nn::Tensor(x.func(), shape);
    Buffer<float> w = random_buffer({1, 1, c, m}, 31), b = random_buffer({m}, 32);
    nn::Tensor v =
        nn::conv(x, nn::Tensor(Buffer<>(w), "w"), nn::Tensor(Buffer<>(b), "b"), nn::Window());
    nn::Tensor y = nn::mul(v, nn::sigmoid(v));
    nn::schedule_output(y, get_host_target());
    Func f = y.func();
    for (int width : {64, 40, 7}) {
        Buffer<float> xb = random_buffer({width, 1, c, 1}, 33 + width);
        in.set(xb);
        Buffer<float> out({width, 1, m, 1});
        f.realize(out);
        int bad = 0;
        for (int o = 0; o < m; o++)
            for (int j = 0; j < width; j++) {
                double acc = b(o);
                for (int k = 0; k < c; k++)
                    acc += double(xb(j, 0, k, 0)) * w(0, 0, k, o);
                const double want = acc / (1 + std::exp(-acc));
                bad += std::fabs(out(j, 0, o, 0) - want) > 1e-4 * (1 + std::fabs(want));
            }
        EXPECT_EQ(bad, 0) << "width " << width;
    }
}

TEST(NNConv, TransposedConvScattersEachInputPoint) {
    // x (1, 2, 5, 7), w (2, 3, 3, 3), stride 2, pad 1 each side, output padding 1.
    Buffer<float> x = random_buffer({7, 5, 2, 1}, 4), w = random_buffer({3, 3, 3, 2}, 5);
    nn::Window win;
    win.strides = {2, 2};
    win.pads_begin = {Expr(1), Expr(1)};
    win.pads_end = {Expr(1), Expr(1)};
    Buffer<float> out = realize(nn::conv_transpose(
        nn::Tensor(Buffer<>(x), "x"), nn::Tensor(Buffer<>(w), "w"), nn::Tensor(), win, 1, {1, 1}));
    const int oh = 2 * 4 + 1 + 3 - 2, ow = 2 * 6 + 1 + 3 - 2;
    ASSERT_EQ(out.extent(1), oh);
    ASSERT_EQ(out.extent(0), ow);
    std::vector<double> ref(3 * oh * ow, 0.0);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 7; j++)
                for (int m = 0; m < 3; m++)
                    for (int ki = 0; ki < 3; ki++)
                        for (int kj = 0; kj < 3; kj++) {
                            int yy = i * 2 + ki - 1, xx = j * 2 + kj - 1;
                            if (yy < 0 || yy >= oh || xx < 0 || xx >= ow) continue;
                            ref[(m * oh + yy) * ow + xx] += double(x(j, i, c, 0)) * w(kj, ki, m, c);
                        }
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++)
                ASSERT_NEAR(out(j, i, m, 0), ref[(m * oh + i) * ow + j], 1e-4);
}

TEST(NNConv, PoolingWithCeilModeAndPadding) {
    Buffer<float> x = random_buffer({17, 1, 1}, 6);  // (1, 1, 17): 1-D pooling
    nn::Window win;
    win.kernel = {3};
    win.strides = {2};
    win.pads_begin = {Expr(1)};
    win.pads_end = {Expr(1)};
    nn::Tensor t(Buffer<>(x), "x");
    Buffer<float> mx = realize(nn::pool(t, nn::PoolKind::Max, win, true));
    Buffer<float> avg = realize(nn::pool(t, nn::PoolKind::Average, win, true, false));
    Buffer<float> avg_pad = realize(nn::pool(t, nn::PoolKind::Average, win, true, true));
    // ceil((17 + 2 - 3) / 2) + 1 = 9 windows; the last starts at 15, inside the input.
    ASSERT_EQ(mx.extent(0), 9);
    for (int o = 0; o < 9; o++) {
        float m = -INFINITY;
        double s = 0;
        int n = 0, n_pad = 0;
        for (int k = 0; k < 3; k++) {
            int p = o * 2 - 1 + k;
            if (p < 17 + 1) n_pad++;
            if (p < 0 || p >= 17) continue;
            m = std::max(m, x(p, 0, 0));
            s += x(p, 0, 0);
            n++;
        }
        EXPECT_EQ(mx(o, 0, 0), m) << o;
        EXPECT_NEAR(avg(o, 0, 0), s / n, 1e-6) << o;
        EXPECT_NEAR(avg_pad(o, 0, 0), s / n_pad, 1e-6) << o;
    }
}

/// `t` realized with its default schedule (nn::schedule_output) and without any: the two must
/// agree (the schedule never changes the result beyond reassociation, which these sums keep).
void expect_schedule_keeps_values(const nn::Tensor &unscheduled, const nn::Tensor &scheduled) {
    Buffer<float> a = realize(unscheduled);
    nn::schedule_output(scheduled, get_host_target());
    Buffer<float> b = realize(scheduled);
    a.for_each_element([&](const int *p) {
        ASSERT_NEAR(a(p[0], p[1], p[2], p[3]), b(p[0], p[1], p[2], p[3]), 1e-4)
            << p[0] << " " << p[1] << " " << p[2] << " " << p[3];
    });
}

TEST(NNConv, DefaultSchedulesKeepTheValuesOnOddShapes) {
    // Widths below and above two vectors, channel counts that four does not divide, a stride,
    // a depthwise layer, and a fused activation and residual add.
    struct Case {
        int c, m, h, w, stride, groups;
    };
    for (Case k : {Case{3, 9, 5, 7, 1, 1}, Case{5, 6, 17, 33, 2, 1}, Case{6, 6, 9, 37, 1, 6}}) {
        Buffer<float> x = random_buffer({k.w, k.h, k.c, 2}, 11),
                      w = random_buffer({3, 3, k.c / k.groups, k.m}, 12),
                      b = random_buffer({k.m}, 13);
        nn::Window win;
        win.strides = {k.stride, k.stride};
        win.pads_begin = {Expr(1), Expr(1)};
        win.pads_end = {Expr(1), Expr(1)};
        auto build = [&] {
            nn::Tensor xt(Buffer<>(x), "x");
            nn::Tensor y = nn::conv(xt, nn::Tensor(Buffer<>(w), "w"), nn::Tensor(Buffer<>(b), "b"),
                                    win, k.groups);
            return nn::relu(k.stride == 1 && k.c == k.m ? nn::add(y, xt) : y);
        };
        expect_schedule_keeps_values(build(), build());
        auto build_t = [&] {
            return nn::conv_transpose(
                nn::Tensor(Buffer<>(x), "x"),
                nn::Tensor(Buffer<>(random_buffer({3, 3, k.m / k.groups, k.c}, 14)), "wt"),
                nn::Tensor(), win, k.groups);
        };
        expect_schedule_keeps_values(build_t(), build_t());
    }
    // A convolution of one point per image (a squeeze-and-excitation layer's): rows narrower
    // than a vector, so vectors of output channels.
    {
        Buffer<float> x = random_buffer({1, 1, 20, 2}, 17), w = random_buffer({1, 1, 20, 37}, 18),
                      b = random_buffer({37}, 19);
        nn::Window win;
        win.strides = {1, 1};
        win.pads_begin = {Expr(0), Expr(0)};
        win.pads_end = {Expr(0), Expr(0)};
        auto build = [&] {
            return nn::relu(nn::conv(nn::Tensor(Buffer<>(x), "x"), nn::Tensor(Buffer<>(w), "w"),
                                     nn::Tensor(Buffer<>(b), "b"), win));
        };
        expect_schedule_keeps_values(build(), build());
    }
    // Pooling whose windows are written out tap by tap: 3 x 2 windows with strides 3 x 2 over
    // rows wider than a vector, and padded 3 x 3 ones (the edges a likely condition).
    {
        Buffer<float> x = random_buffer({41, 9, 5, 2}, 20);
        for (bool padded : {false, true}) {
            nn::Window win;
            win.kernel = padded ? std::vector<int>{3, 3} : std::vector<int>{3, 2};
            win.strides = padded ? std::vector<int>{1, 1} : std::vector<int>{3, 2};
            const int p = padded ? 1 : 0;
            win.pads_begin = {Expr(p), Expr(p)};
            win.pads_end = {Expr(p), Expr(p)};
            for (nn::PoolKind kind : {nn::PoolKind::Max, nn::PoolKind::Average}) {
                auto build = [&] { return nn::pool(nn::Tensor(Buffer<>(x), "x"), kind, win); };
                expect_schedule_keeps_values(build(), build());
            }
        }
    }
    // Batched matrix products of 17 x 5 by 5 x 33, and 3 x 5 by 5 x 1.
    for (int n : {33, 1}) {
        Buffer<float> a = random_buffer({5, n == 1 ? 3 : 17, 2, 1}, 15),
                      bb = random_buffer({n, 5, 2, 1}, 16);
        auto build = [&] {
            return nn::matmul(nn::Tensor(Buffer<>(a), "a"), nn::Tensor(Buffer<>(bb), "b"));
        };
        expect_schedule_keeps_values(build(), build());
    }
}

TEST(NNNorm, LayerNormOverTheLastTwoAxes) {
    Buffer<float> x = random_buffer({33, 17, 3}, 7), scale = random_buffer({33, 17}, 8),
                  bias = random_buffer({33, 17}, 9);
    nn::LayerNorm ln =
        nn::layer_norm(nn::Tensor(Buffer<>(x), "x"), nn::Tensor(Buffer<>(scale), "s"),
                       nn::Tensor(Buffer<>(bias), "b"), 1, 1e-5f);
    Buffer<float> y = realize(ln.y), inv = realize(ln.inv_std_dev);
    for (int n = 0; n < 3; n++) {
        double mean = 0, var = 0;
        for (int i = 0; i < 17; i++)
            for (int j = 0; j < 33; j++)
                mean += x(j, i, n);
        mean /= 17 * 33;
        for (int i = 0; i < 17; i++)
            for (int j = 0; j < 33; j++)
                var += (x(j, i, n) - mean) * (x(j, i, n) - mean);
        var /= 17 * 33;
        double r = 1 / std::sqrt(var + 1e-5);
        EXPECT_NEAR(inv(0, 0, n), r, 1e-4);
        for (int i = 0; i < 17; i++)
            for (int j = 0; j < 33; j++)
                ASSERT_NEAR(y(j, i, n), (x(j, i, n) - mean) * r * scale(j, i) + bias(j, i), 1e-4);
    }
}

TEST(NNNorm, NllLossMeanSkipsTheIgnoredIndexAndWeighsClasses) {
    Buffer<float> logp = random_buffer({5, 4}, 10);  // (N=4, C=5)
    Buffer<int64_t> target(4);
    const int64_t t[4] = {2, -1, 4, 0};
    for (int i = 0; i < 4; i++)
        target(i) = t[i];
    Buffer<float> w(5);
    for (int c = 0; c < 5; c++)
        w(c) = 0.5f + c;
    nn::Tensor loss =
        nn::nll_loss(nn::Tensor(Buffer<>(logp), "logp"), nn::Tensor(Buffer<>(target), "target"),
                     nn::Tensor(Buffer<>(w), "w"), nn::LossReduction::Mean, true, -1);
    Buffer<float> l = realize(loss);
    double num = 0, den = 0;
    for (int i = 0; i < 4; i++) {
        if (t[i] == -1) continue;
        num += -logp(int(t[i]), i) * w(int(t[i]));
        den += w(int(t[i]));
    }
    EXPECT_NEAR(l(), num / den, 1e-5);
}

}  // namespace
