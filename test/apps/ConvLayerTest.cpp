// apps/conv_layer: the dense and depthwise layers on the default and the hand-written schedules,
// through the JIT and the AOT libraries, compared exactly with the C++ reference (both sum with
// fused multiply-adds in the same order). The shapes have tails in every tiled dimension, kernels
// of 1, 3 and 5, channel counts that are not multiples of a vector, and images smaller than the
// kernel's reach.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "conv_layer.h"
#include "conv_layer_1x1_aot.h"
#include "conv_layer_1x1_aot_naive.h"
#include "conv_layer_aot.h"
#include "conv_layer_aot_naive.h"
#include "depthwise_layer_aot.h"
#include "depthwise_layer_aot_naive.h"
#include "dsl/dsl.h"

namespace {

using namespace dsl;
using namespace dsl_apps;

std::string describe(const ConvLayerShape &s) {
    return std::string(s.depthwise ? "depthwise " : "dense ") + std::to_string(s.kernel) + "x" +
           std::to_string(s.kernel) + ", n=" + std::to_string(s.n) +
           " c_in=" + std::to_string(s.c_in) + " c_out=" + std::to_string(s.c_out) + " " +
           std::to_string(s.width) + "x" + std::to_string(s.height);
}

void expect_same(const Buffer<float> &actual, const Buffer<float> &expected,
                 const std::string &what) {
    int mismatches = 0;
    expected.for_each_element([&](int c, int x, int y, int n) {
        if (actual(c, x, y, n) != expected(c, x, y, n) && mismatches++ < 5) {
            ADD_FAILURE() << what << ": output(" << c << ", " << x << ", " << y << ", " << n
                          << ") is " << actual(c, x, y, n) << ", the reference "
                          << expected(c, x, y, n);
        }
    });
    EXPECT_EQ(mismatches, 0) << what;
}

struct Data {
    Buffer<float> input, weights, bias;
};

Data random_data(const ConvLayerShape &s, unsigned seed) {
    return {conv_layer_random_input(s, seed), conv_layer_random_weights(s, seed + 1),
            conv_layer_random_bias(s, seed + 2)};
}

Buffer<float> reference(const Data &d, const ConvLayerShape &s) {
    return conv_layer_reference(d.input, d.weights, d.bias, s.kernel, s.depthwise);
}

// How jit() schedules the layer: the default, the app's hand-written schedule, or the
// autoscheduler told the layer's sizes.
enum class Sched { Naive, Hand, Auto };

Buffer<float> jit(const Data &d, const ConvLayerShape &s, Sched mode) {
    ImageParam input(Float(32), 4, "input"), weights(Float(32), s.depthwise ? 3 : 4, "weights"),
        bias(Float(32), 1, "bias");
    input.set(d.input);
    weights.set(d.weights);
    bias.set(d.bias);
    ConvLayerPipeline p = make_conv_layer(input, weights, bias, s.kernel, s.depthwise);
    if (mode == Sched::Hand) schedule_conv_layer(p, Target::host());
    Buffer<float> out(s.c_out, s.width, s.height, s.n);
    out.translate(1, d.input.dim(1).min()).translate(2, d.input.dim(2).min());
    if (mode == Sched::Auto) {
        Region estimates;
        for (int k = 0; k < 4; k++)
            estimates.push_back({out.dim(k).min(), out.dim(k).extent()});
        p.output.set_estimates(estimates);
        Pipeline(p.output).auto_schedule(Target::host());
    }
    p.output.realize(out);
    return out;
}

// {n, c_in, c_out, width, height, kernel, depthwise}
const std::vector<ConvLayerShape> kDenseShapes = {
    {2, 20, 70, 13, 5, 3, false},  // a channel tail, an x tail, 2 images
    {1, 3, 128, 6, 3, 3, false},   // one tile wide, fewer rows than the kernel's reach
    {1, 7, 64, 9, 8, 5, false},    // a 5x5 kernel
    {2, 33, 100, 7, 3, 1, false},  // pointwise
};
const std::vector<ConvLayerShape> kDepthwiseShapes = {
    {2, 70, 70, 10, 6, 3, true},  // a channel tail, an x tail
    {1, 20, 20, 9, 3, 5, true},   // a 5x5 kernel taller than the image
    {3, 16, 16, 4, 2, 3, true},   // one tile
};

TEST(ConvLayer, DefaultScheduleMatchesReference) {
    std::vector<ConvLayerShape> shapes = kDenseShapes;
    shapes.insert(shapes.end(), kDepthwiseShapes.begin(), kDepthwiseShapes.end());
    shapes.push_back({1, 5, 9, 4, 3, 3, false});   // smaller than the hand-written tile
    shapes.push_back({2, 24, 24, 3, 2, 3, true});  // likewise, depthwise
    shapes.push_back({1, 16, 16, 8, 1, 3, true});  // a single row: lower than the tile
    for (const ConvLayerShape &s : shapes) {
        Data d = random_data(s, 10);
        expect_same(jit(d, s, Sched::Naive), reference(d, s), "default schedule, " + describe(s));
    }
}

TEST(ConvLayer, ScheduledJitMatchesReference) {
    std::vector<ConvLayerShape> shapes = kDenseShapes;
    shapes.insert(shapes.end(), kDepthwiseShapes.begin(), kDepthwiseShapes.end());
    for (const ConvLayerShape &s : shapes) {
        ASSERT_TRUE(conv_layer_fits_schedule(s.depthwise, s.c_out, s.width, s.height))
            << describe(s);
        Data d = random_data(s, 20);
        expect_same(jit(d, s, Sched::Hand), reference(d, s),
                    "hand-written schedule, " + describe(s));
    }
}

TEST(ConvLayer, AutoScheduledJitMatchesReference) {
    std::vector<ConvLayerShape> shapes = kDenseShapes;
    shapes.insert(shapes.end(), kDepthwiseShapes.begin(), kDepthwiseShapes.end());
    shapes.push_back({1, 5, 9, 4, 3, 3, false});  // smaller than a register tile
    for (const ConvLayerShape &s : shapes) {
        Data d = random_data(s, 30);
        expect_same(jit(d, s, Sched::Auto), reference(d, s), "auto-scheduled, " + describe(s));
    }
}

// A 1x1 layer over the images' rows joined (conv_layer_join_rows) computes the same output, also
// where a row alone is narrower than a tile; buffers whose rows are not consecutive (a crop of
// a wider image), or that cover other pixels, are not joined.
TEST(ConvLayer, PointwiseOverJoinedRows) {
    for (const ConvLayerShape &s :
         {ConvLayerShape{2, 33, 100, 7, 3, 1, false}, ConvLayerShape{1, 16, 64, 5, 4, 1, false}}) {
        Data d = random_data(s, 40);
        d.input.translate(1, 2).translate(2, -1);
        Buffer<float> out(s.c_out, s.width, s.height, s.n);
        out.translate(1, 2).translate(2, -1);
        std::optional<JoinedRows> joined = conv_layer_join_rows(d.input, out);
        ASSERT_TRUE(joined) << describe(s);
        EXPECT_EQ(joined->input.dim(1).extent(), s.width * s.height);
        EXPECT_EQ(joined->output.dim(2).extent(), 1);
        ImageParam input(Float(32), 4, "input"), weights(Float(32), 4, "weights"),
            bias(Float(32), 1, "bias");
        input.set(joined->input);
        weights.set(d.weights);
        bias.set(d.bias);
        ConvLayerPipeline p = make_conv_layer(input, weights, bias, 1, false);
        schedule_conv_layer(p, Target::host());
        p.output.realize(joined->output);
        expect_same(out, reference(d, s), "joined rows, " + describe(s));
    }
    Buffer<float> wide(8, 10, 3, 1), out(8, 10, 3, 1), other(8, 10, 3, 1);
    other.translate(1, 1);
    Buffer<float> crop(Float(32), wide.data(),
                       {{0, 8, 1, 0}, {0, 6, 8, 0}, {0, 3, 80, 0}, {0, 1, 240, 0}});
    EXPECT_FALSE(conv_layer_join_rows(crop, out));
    EXPECT_FALSE(conv_layer_join_rows(wide, other));
    EXPECT_TRUE(conv_layer_join_rows(wide, out));
}

// An image whose x and y start elsewhere than 0: the padding is around the image where it is.
TEST(ConvLayer, ImageThatDoesNotStartAtZero) {
    for (const ConvLayerShape &s :
         {ConvLayerShape{1, 9, 64, 8, 5, 3, false}, ConvLayerShape{1, 32, 32, 11, 4, 3, true}}) {
        Data d = random_data(s, 30);
        Buffer<float> expected = reference(d, s);
        d.input.translate(1, 5).translate(2, -3);
        for (Sched mode : {Sched::Naive, Sched::Hand, Sched::Auto}) {
            Buffer<float> out = jit(d, s, mode);
            out.translate(1, -5).translate(2, 3);
            expect_same(out, expected, "shifted, " + describe(s));
        }
    }
}

TEST(ConvLayer, AotMatchesReference) {
    using Library = int (*)(dsl_buffer_t *, dsl_buffer_t *, dsl_buffer_t *, dsl_buffer_t *);
    struct Case {
        ConvLayerShape shape;
        Library library;
        const char *name;
    };
    const std::vector<Case> cases = {
        {kDenseShapes[0], conv_layer_aot, "conv_layer_aot"},
        {kDenseShapes[1], conv_layer_aot_naive, "conv_layer_aot_naive"},
        {kDenseShapes[3], conv_layer_1x1_aot, "conv_layer_1x1_aot"},
        {kDepthwiseShapes[0], depthwise_layer_aot, "depthwise_layer_aot"},
        {kDepthwiseShapes[2], depthwise_layer_aot_naive, "depthwise_layer_aot_naive"},
        {kDenseShapes[3], conv_layer_1x1_aot_naive, "conv_layer_1x1_aot_naive"},
    };
    for (const Case &c : cases) {
        Data d = random_data(c.shape, 40);
        Buffer<float> out(c.shape.c_out, c.shape.width, c.shape.height, c.shape.n);
        ASSERT_EQ(c.library(d.input.raw_buffer(), d.weights.raw_buffer(), d.bias.raw_buffer(),
                            out.raw_buffer()),
                  0)
            << c.name;
        expect_same(out, reference(d, c.shape), std::string(c.name) + ", " + describe(c.shape));
    }
}

// Fewer output channels than the dense tile: the scheduled library refuses with an error status
// (the driver then uses the default schedule); make_conv_layer refuses an even kernel.
TEST(ConvLayer, TooSmallForTheScheduleAndBadKernels) {
    ConvLayerShape s{1, 8, 32, 10, 4, 3, false};
    EXPECT_FALSE(conv_layer_fits_schedule(false, s.c_out, s.width, s.height));
    Data d = random_data(s, 50);
    Buffer<float> out(s.c_out, s.width, s.height, s.n);
    EXPECT_NE(conv_layer_aot(d.input.raw_buffer(), d.weights.raw_buffer(), d.bias.raw_buffer(),
                             out.raw_buffer()),
              0);
    ImageParam input(Float(32), 4, "input"), weights(Float(32), 4, "weights"),
        bias(Float(32), 1, "bias");
    EXPECT_THROW(make_conv_layer(input, weights, bias, 2, false), std::invalid_argument);
    EXPECT_THROW(make_conv_layer(input, weights, bias, 9, false), std::invalid_argument);
}

}  // namespace
