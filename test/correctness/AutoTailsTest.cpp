// TailStrategy::Auto shifts a split inwards where a producer is computed between its outer and
// inner loops, in the pure definition of a Func computed at root: the producer's region per
// iteration is then the factor exactly, so Halide schedules that unroll such producers work
// unchanged. Elsewhere Auto guards (no recomputation, any extent).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

constexpr int kChannelsIn = 5, kChannelsOut = 16, kWidth = 20, kHeight = 7;

/// A 3x3 convolution with bias and ReLU over (c, x, y), channels innermost, scheduled as
/// Halide's conv_layer app schedules it for a CPU: relu's channels and columns split into
/// tiles of 2 vectors x 4 columns, the convolution computed per tile with every loop of the
/// tile unrolled (its accumulators in registers).
struct ConvRelu {
    Buffer<float> input{kChannelsIn, kWidth + 2, kHeight + 2};
    Buffer<float> filter{kChannelsOut, 3, 3, kChannelsIn};
    Buffer<float> bias{kChannelsOut};
    ImageParam input_p{Float(32), 3, "at_input"}, filter_p{Float(32), 4, "at_filter"};
    Func conv{"at_conv"}, relu{"at_relu"};
    Var c{"c"}, x{"x"}, y{"y"}, co{"co"}, ci{"ci"}, xo{"xo"}, xi{"xi"};
    RDom r{0, kChannelsIn, 0, 3, 0, 3, "r"};

    /// With Halide's staging of the taps as well: `filter.in()` copies the channels of one
    /// tap per step of r.x's unrolled pair, in vectors, and `input.in()` the pixels of a
    /// column, every loop of both unrolled (so their regions must have constant sizes).
    explicit ConvRelu(bool staged = false) {
        for (int k = 0; k < kChannelsOut; k++)
            bias(k) = 0.25f * static_cast<float>(k % 3) - 0.25f;
        input.for_each_element([&](int i, int u, int v) {
            input(i, u, v) = static_cast<float>((i * 3 + u * 5 + v * 7) % 9) - 4.0f;
        });
        filter.for_each_element([&](int o, int kx, int ky, int i) {
            filter(o, kx, ky, i) = static_cast<float>((o + 2 * kx + 3 * ky + 5 * i) % 5) - 2.0f;
        });
        conv(c, x, y) = bias(c);
        input_p.set(input);
        filter_p.set(filter);
        conv(c, x, y) += filter_p(c, r.y, r.z, r.x) * input_p(r.x, x + r.y, y + r.z);
        relu(c, x, y) = max(0.0f, conv(c, x, y));

        const int vec = 8;
        relu.split(c, co, ci, 2 * vec)
            .split(x, xo, xi, 4)
            .reorder(ci, xi, xo, y, co)
            .vectorize(ci, vec)
            .unroll(ci)
            .unroll(xi);
        conv.compute_at(relu, xo).vectorize(c, vec).unroll(c).unroll(x).unroll(y);
        conv.update()
            .reorder(c, x, y, r.x, r.y, r.z)
            .vectorize(c, vec)
            .unroll(c)
            .unroll(x)
            .unroll(y)
            .unroll(r.x, 5);
        if (staged) {
            filter_p.in().compute_at(conv, r.x).vectorize(_0, vec).unroll(_0).unroll(_3);
            input_p.in().compute_at(conv, x).unroll(_0);
        }
    }

    float expected(int o, int u, int v) const {
        float sum = bias(o);
        for (int i = 0; i < kChannelsIn; i++) {
            for (int ky = 0; ky < 3; ky++) {
                for (int kx = 0; kx < 3; kx++)
                    sum += filter(o, kx, ky, i) * input(i, u + kx, v + ky);
            }
        }
        return std::max(0.0f, sum);
    }
};

/// relu's values at two widths against the plain loop: 20 columns in tiles of 4 divide; 18 do
/// not (the last tile shifts back and recomputes).
void expect_reference_values(ConvRelu &p) {
    for (int width : {kWidth, kWidth - 2}) {
        Buffer<float> out = p.relu.realize({kChannelsOut, width, kHeight});
        for (int v = 0; v < kHeight; v++) {
            for (int u = 0; u < width; u++) {
                for (int o = 0; o < kChannelsOut; o++)
                    ASSERT_FLOAT_EQ(out(o, u, v), p.expected(o, u, v))
                        << "width " << width << " at (" << o << ", " << u << ", " << v << ")";
            }
        }
    }
}

TEST(AutoTails, ProducerUnrolledInsideATileOfItsConsumer) {
    ConvRelu p;
    expect_reference_values(p);
}

TEST(AutoTails, ProducerLoopsHaveTheTileSize) {
    ConvRelu p;
    // Every loop of conv is unrolled: no loop of it remains in the lowered code.
    std::string stmt = p.relu.lowered_stmt();
    EXPECT_EQ(stmt.find("for (at_conv.s0.x"), std::string::npos) << stmt;
    EXPECT_EQ(stmt.find("for (at_conv.s1.x"), std::string::npos) << stmt;
}

TEST(AutoTails, TapsStagedPerStepOfTheReductionAsHalidesConvLayerDoes) {
    // conv's update guards its vectors of channels (Auto in an update), so the guard is in
    // force inside r.x, where filter's wrapper is computed; its region there is still the
    // tile's 16 channels exactly (two vectors, unrolled), not clamped to an unknown size.
    ConvRelu p(/*staged=*/true);
    expect_reference_values(p);
    std::string stmt = p.relu.lowered_stmt();
    EXPECT_EQ(stmt.find("for (at_filter"), std::string::npos) << stmt;
    EXPECT_EQ(stmt.find("for (at_input"), std::string::npos) << stmt;
}

TEST(AutoTails, ProducerAtAReductionLoopAroundAGuardedVectorTail) {
    // f's update vectorizes c by 8 with a guard (13 channels: a vector and a masked tail);
    // g is computed per step of r, around that loop, over what the lanes that run read (the
    // capped reads). This checks the values at a masked tail, a whole vector and less than
    // one; it does not look at g's region, which the clamp of the time before gave too.
    Var c("c"), k("k");
    RDom r(0, 4, "r");
    Func g("gv_g"), f("gv_f");
    g(c, k) = c * 10 + k;
    f(c) = 0;
    f(c) += g(c, r);
    f.update().reorder(c, r).vectorize(c, 8);
    g.compute_at(f, r).vectorize(c, 8);
    for (int channels : {13, 16, 5}) {
        Buffer<int> out = f.realize({channels});
        for (int i = 0; i < channels; i++)
            ASSERT_EQ(out(i), i * 40 + 6) << channels << " channels, at " << i;
    }
}

TEST(AutoTails, ProducerUnrolledPerTileOfAGuardedSplit) {
    // g's tiles of 8 are guarded (23 is no multiple of 8); f, unrolled over its whole region
    // per tile, computes a window of 8 points slid into the image at the last tile, whose own
    // region (7 points, up to the guard) has no constant size.
    Buffer<float> in(100);
    in.for_each_element([&](int i) { in(i) = static_cast<float>(i) * 2.0f; });
    Var x("x"), xo("xo"), xi("xi");
    Func f("ud_f"), g("ud_g");
    f(x) = in(x)*3;
    g(x) = f(x) * 2;
    g.split(x, xo, xi, 8, TailStrategy::GuardWithIf).unroll(xi);
    f.compute_at(g, xo).unroll(x);
    Buffer<float> out = g.realize({23});
    for (int i = 0; i < 23; i++)
        ASSERT_EQ(out(i), static_cast<float>(i * 12)) << i;
}

TEST(AutoTails, OutputNarrowerThanTheFactorIsARuntimeError) {
    ConvRelu p;
    // A buffer of three columns cannot hold a tile of four that shifts inwards. (realize with
    // sizes would compute four columns and return three.)
    Buffer<float> narrow(kChannelsOut, 3, kHeight);
    std::string message = test::message_of<RuntimeError>([&] { p.relu.realize(narrow); });
    EXPECT_CONTAINS(message, "at_relu");
    EXPECT_CONTAINS(message, "TailStrategy::GuardWithIf");
}

TEST(AutoTails, GuardWithIfWhereNoProducerIsInside) {
    // Without a producer inside the tile, Auto guards: a width smaller than the vector works.
    Buffer<int> in(3);
    for (int i = 0; i < 3; i++)
        in(i) = i * 10;
    Var x("x");
    Func f("at_plain");
    f(x) = in(x) + 1;
    f.vectorize(x, 8);
    Buffer<int> out = f.realize({3});
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(out(i), i * 10 + 1);
}

}  // namespace
}  // namespace dsl
