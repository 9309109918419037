// Data-movement operators of dsl::nn against plain C++ index arithmetic, on odd shapes, with
// sizes known only when the pipeline runs where the operator allows it.
#include <gtest/gtest.h>

#include <random>

#include "NNTestUtil.h"
#include "dsl/dsl.h"
#include "dsl/nn/Movement.h"

namespace {

using namespace dsl;
using test::random_buffer;
using test::realize;

Buffer<float> iota_buffer(const std::vector<int> &sizes) {
    Buffer<float> b(sizes);
    float v = 0;
    b.for_each_value([&](float &x) { x = v++; });
    return b;
}

TEST(NNMovement, ReshapeKeepsRowMajorOrderAtRunTimeSizes) {
    ImageParam in(Float(32), 3, "in");
    nn::Tensor x(in);
    // (a, b, c) -> (a * b, c): sizes from the ImageParam, so one compile for both sizes.
    nn::Tensor r = nn::reshape(x, {x.dim(0) * x.dim(1), x.dim(2)});
    for (int c : {3, 17}) {
        Buffer<float> data = iota_buffer({c, 5, 2});
        in.set(data);
        Buffer<float> out(c, 10);
        Func f = r.func();
        f.realize(out);
        for (int j = 0; j < 10; j++)
            for (int i = 0; i < c; i++)
                ASSERT_EQ(out(i, j), float(j * c + i));
    }
}

TEST(NNMovement, TransposeConcatAndSlice) {
    nn::Tensor x(Buffer<>(iota_buffer({17, 3, 2})), "x");    // shape (2, 3, 17)
    Buffer<float> t = realize(nn::transpose(x, {2, 0, 1}));  // (17, 2, 3)
    for (int k = 0; k < 17; k++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                ASSERT_EQ(t(j, i, k), float((i * 3 + j) * 17 + k));

    nn::Tensor y(Buffer<>(iota_buffer({17, 1, 2})), "y");  // (2, 1, 17)
    Buffer<float> c = realize(nn::concat({x, y}, 1));      // (2, 4, 17)
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 17; k++) {
            ASSERT_EQ(c(k, 1, i), float((i * 3 + 1) * 17 + k));
            ASSERT_EQ(c(k, 3, i), float(i * 17 + k));
        }

    // x[:, :, 15:1:-3] and x[:, -2:, :] clamped as numpy clamps.
    nn::Tensor s =
        nn::slice(x, {Expr(int64_t(15)), Expr(int64_t(-2))}, {Expr(int64_t(1)), Expr(INT64_MAX)},
                  {2, 1}, {Expr(int64_t(-3)), Expr(int64_t(1))});
    Buffer<float> sl = realize(s);
    ASSERT_EQ(sl.extent(0), 5);  // 15, 12, 9, 6, 3
    ASSERT_EQ(sl.extent(1), 2);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 5; k++)
                ASSERT_EQ(sl(k, j, i), float((i * 3 + 1 + j) * 17 + 15 - 3 * k));
}

TEST(NNMovement, GatherWithNegativeIndicesAndScatterAdd) {
    nn::Tensor x(Buffer<>(iota_buffer({33, 3})), "x");  // (3, 33)
    Buffer<int64_t> idx(2);
    idx(0) = -1;
    idx(1) = 4;
    nn::Tensor i(Buffer<>(idx), "i");
    Buffer<float> g = realize(nn::gather(x, i, 1));  // (3, 2)
    for (int r = 0; r < 3; r++) {
        EXPECT_EQ(g(0, r), float(r * 33 + 32));
        EXPECT_EQ(g(1, r), float(r * 33 + 4));
    }
    // Two updates land on one element: add combines them.
    Buffer<float> zeros(5);
    Buffer<int64_t> at(3);
    at(0) = 1;
    at(1) = 3;
    at(2) = 1;
    Buffer<float> upd(3);
    upd(0) = 1;
    upd(1) = 2;
    upd(2) = 4;
    Buffer<float> sc = realize(
        nn::scatter_elements(nn::Tensor(Buffer<>(zeros), "z"), nn::Tensor(Buffer<>(at), "at"),
                             nn::Tensor(Buffer<>(upd), "u"), 0, nn::ScatterReduction::Add));
    const float want[5] = {0, 5, 0, 2, 0};
    for (int k = 0; k < 5; k++)
        EXPECT_EQ(sc(k), want[k]) << k;
}

TEST(NNMovement, PadModesAndDepthToSpaceRoundTrip) {
    nn::Tensor x(Buffer<>(iota_buffer({3})), "x");  // 0 1 2
    auto padded = [&](nn::PadMode m) {
        return realize(nn::pad(x, {Expr(int64_t(2))}, {Expr(int64_t(3))}, m, Expr(-1.0f)));
    };
    const float constant[8] = {-1, -1, 0, 1, 2, -1, -1, -1};
    const float reflect[8] = {2, 1, 0, 1, 2, 1, 0, 1};
    const float edge[8] = {0, 0, 0, 1, 2, 2, 2, 2};
    Buffer<float> pc = padded(nn::PadMode::Constant), pr = padded(nn::PadMode::Reflect),
                  pe = padded(nn::PadMode::Edge);
    for (int k = 0; k < 8; k++) {
        EXPECT_EQ(pc(k), constant[k]) << k;
        EXPECT_EQ(pr(k), reflect[k]) << k;
        EXPECT_EQ(pe(k), edge[k]) << k;
    }
    nn::Tensor img(Buffer<>(iota_buffer({6, 4, 8, 1})), "img");  // (1, 8, 4, 6)
    nn::Tensor back = nn::space_to_depth(nn::depth_to_space(img, 2), 2);
    Buffer<float> b = realize(back), orig = iota_buffer({6, 4, 8, 1});
    b.for_each_element(
        [&](const int *p) { ASSERT_EQ(b(p[0], p[1], p[2], p[3]), orig(p[0], p[1], p[2], p[3])); });
}

TEST(NNMovement, CumSumExclusiveAndReversed) {
    nn::Tensor x(Buffer<>(iota_buffer({5, 2})), "x");  // rows 0..4, 5..9
    Buffer<float> inc = realize(nn::cumsum(x, 1)), exr = realize(nn::cumsum(x, 1, true, true));
    for (int r = 0; r < 2; r++) {
        float run = 0, total = 0;
        for (int k = 0; k < 5; k++)
            total += float(r * 5 + k);
        for (int k = 0; k < 5; k++) {
            run += float(r * 5 + k);
            EXPECT_EQ(inc(k, r), run);
            EXPECT_EQ(exr(k, r), total - run);  // the sum of the elements after k
        }
    }
}

}  // namespace
