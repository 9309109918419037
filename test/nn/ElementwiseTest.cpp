// The elementwise operators of dsl::nn against plain C++ loops: odd shapes (1, 3, 17, 33, not
// multiples of the vector width), numpy broadcasting, symbolic sizes run at two sizes from one
// compile, and the integer semantics ONNX asks for (truncating division, the signs of mod,
// saturating casts).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "NNTestUtil.h"
#include "common/ErrorCheck.h"
#include "dsl/Math.h"
#include "dsl/dsl.h"
#include "dsl/nn/nn.h"
#include "lang/Realize.h"

namespace {

using namespace dsl;
using test::random_buffer;
using test::realize;

/// Realizes `t`, whose shape depends on its inputs, at the given sizes (dimension 0 innermost).
template <typename T>
Buffer<T> realize_sized(const nn::Tensor &t, const std::vector<int> &sizes) {
    Buffer<T> out(sizes);
    Func f = t.func();
    f.realize(out);
    return out;
}

TEST(NNElementwise, UnaryMathMatchesTheCLibrary) {
    ImageParam in(Float(32), 4, "in");
    nn::Tensor x(in);
    Buffer<float> data = random_buffer({33, 17, 3, 1}, 1, -3.0f, 3.0f);
    in.set(data);
    struct Case {
        const char *name;
        nn::Tensor (*op)(const nn::Tensor &);
        double (*ref)(double);
    };
    const Case cases[] = {
        {"tanh", nn::tanh, [](double v) { return std::tanh(v); }},
        {"erf", nn::erf, [](double v) { return std::erf(v); }},
        {"sinh", nn::sinh, [](double v) { return std::sinh(v); }},
        {"asinh", nn::asinh, [](double v) { return std::asinh(v); }},
        {"atan", nn::atan, [](double v) { return std::atan(v); }},
        {"sigmoid", nn::sigmoid, [](double v) { return 1 / (1 + std::exp(-v)); }},
        {"softplus", nn::softplus, [](double v) { return std::log1p(std::exp(v)); }},
        {"hard_swish", nn::hard_swish,
         [](double v) { return v * std::min(1.0, std::max(0.0, v / 6 + 0.5)); }},
        {"sign", nn::sign, [](double v) { return double((v > 0) - (v < 0)); }},
    };
    for (const Case &c : cases) {
        Buffer<float> out = realize_sized<float>(c.op(x), {33, 17, 3, 1});
        out.for_each_element([&](const int *p) {
            double want = c.ref(data(p[0], p[1], p[2], p[3]));
            ASSERT_NEAR(out(p[0], p[1], p[2], p[3]), want, 1e-6 + 2e-6 * std::fabs(want))
                << c.name << " at " << p[0] << ", " << p[1];
        });
    }
}

TEST(NNElementwise, FastExpIsWithinTwoUlpVectorizedAndAtTheEdges) {
    // Every 1/64 from -90 to 90 (beyond both ends of its range), then the special values, in
    // vectors of 16 and one by one.
    std::vector<float> v;
    for (int i = -90 * 64; i <= 90 * 64; i++)
        v.push_back(static_cast<float>(i) / 64.0f);
    const float inf = std::numeric_limits<float>::infinity();
    for (float s : {inf, -inf, std::nanf(""), 0.0f, -0.0f, 88.72f, -86.0f, 1e-30f})
        v.push_back(s);
    Buffer<float> in(static_cast<int>(v.size()));
    for (size_t i = 0; i < v.size(); i++)
        in(static_cast<int>(i)) = v[i];
    for (int lanes : {16, 1}) {
        Func f("fast_exp_" + std::to_string(lanes));
        Var x("x");
        f(x) = fast_exp(in(x));
        if (lanes > 1) f.vectorize(x, lanes);
        Buffer<float> out = f.realize({in.width()});
        for (int i = 0; i < in.width(); i++) {
            const float a = in(i), got = out(i), want = std::exp(a);
            if (std::isnan(a)) {
                EXPECT_TRUE(std::isnan(got)) << lanes << " lanes";
            } else if (a < -86.0f) {
                EXPECT_EQ(got, 0.0f) << a;
            } else if (a > 88.72f) {
                EXPECT_EQ(got, inf) << a;
            } else {
                // 2 ulp: a relative error of 2^-22.
                EXPECT_LE(std::fabs(got - want), 2.4e-7f * want) << "exp(" << a << ")";
            }
        }
    }
}

TEST(NNElementwise, BinaryBroadcastsLikeNumpy) {
    // (3, 1, 17) + (5, 1): the result is (3, 5, 17).
    ImageParam a(Float(32), 3, "a"), b(Float(32), 2, "b");
    Buffer<float> da = random_buffer({17, 1, 3}, 2, -1, 1), db = random_buffer({1, 5}, 3, -1, 1);
    a.set(da);
    b.set(db);
    nn::Tensor sum = nn::add(nn::Tensor(a), nn::Tensor(b));
    ASSERT_EQ(sum.rank(), 3);
    Buffer<float> out = realize_sized<float>(sum, {17, 5, 3});
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 17; k++)
                ASSERT_FLOAT_EQ(out(k, j, i), da(k, 0, i) + db(0, j));
}

TEST(NNElementwise, SymbolicShapesRunAtTwoSizesFromOneCompile) {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 1, "b");
    nn::Tensor r = nn::prelu(nn::Tensor(a), nn::Tensor(b));
    const uint64_t compiled_before = lang::jit_counters().compilations;
    for (int w : {3, 33}) {
        Buffer<float> da = random_buffer({w, 17}, 4, -1, 1), db = random_buffer({w}, 5, 0, 1);
        a.set(da);
        b.set(db);
        Buffer<float> out = realize_sized<float>(r, {w, 17});
        for (int y = 0; y < 17; y++)
            for (int x = 0; x < w; x++) {
                float v = da(x, y);
                ASSERT_FLOAT_EQ(out(x, y), v < 0 ? v * db(x) : v);
            }
    }
    // The second size runs the pipeline the first one compiled.
    EXPECT_EQ(lang::jit_counters().compilations - compiled_before, 1u);
}

// A one-element constant (a graph's scalar: an affine block's weight, a quantization scale) is
// an immediate in the kernel, not a load, for every number type.
TEST(NNElementwise, OneElementConstantsAreImmediates) {
    ImageParam a(Float(32), 1, "imm_a");
    Buffer<float> scale(1), table(37);
    scale(0) = 0.375f;
    table.fill(2.0f);
    nn::Tensor s(Buffer<>(scale), "imm_scale"), t(Buffer<>(table), "imm_table");
    nn::Tensor r = nn::add(nn::mul(nn::Tensor(a), s), t);
    Buffer<float> da = random_buffer({37}, 6, -1, 1);
    a.set(da);
    Buffer<float> out = realize_sized<float>(r, {37});
    for (int x = 0; x < 37; x++)
        ASSERT_FLOAT_EQ(out(x), da(x) * 0.375f + 2.0f);
    const std::string stmt = r.func().lowered_stmt();
    EXPECT_EQ(stmt.find("imm_scale"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("0.375f"), std::string::npos) << stmt;
    // Integers of each width keep their value, signs included.
    Buffer<int8_t> i8(1);
    i8(0) = -7;
    Buffer<uint16_t> u16(1);
    u16(0) = 65000;
    Buffer<int32_t> i32(1);
    i32(0) = -2000000000;
    Buffer<uint32_t> u32(1);
    u32(0) = 4000000000u;
    EXPECT_EQ(realize<int8_t>(nn::Tensor(Buffer<>(i8)))(0), -7);
    EXPECT_EQ(realize<uint16_t>(nn::Tensor(Buffer<>(u16)))(0), 65000);
    EXPECT_EQ(realize<int32_t>(nn::Tensor(Buffer<>(i32)))(0), -2000000000);
    EXPECT_EQ(realize<uint32_t>(nn::Tensor(Buffer<>(u32)))(0), 4000000000u);
}

TEST(NNElementwise, IntegerDivisionAndModuloFollowOnnx) {
    Buffer<int32_t> da(4), db(4);
    const int32_t as[4] = {7, -7, 7, -7}, bs[4] = {2, 2, -2, -2};
    for (int i = 0; i < 4; i++) {
        da(i) = as[i];
        db(i) = bs[i];
    }
    nn::Tensor a(Buffer<>(da), "a"), b(Buffer<>(db), "b");
    Buffer<int32_t> q = realize_sized<int32_t>(nn::div(a, b), {4});
    Buffer<int32_t> m = realize_sized<int32_t>(nn::mod(a, b), {4});
    Buffer<int32_t> f = realize_sized<int32_t>(nn::mod(a, b, true), {4});
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(q(i), as[i] / bs[i]) << i;                    // C: toward zero
        EXPECT_EQ(f(i), std::fmod(double(as[i]), bs[i])) << i;  // sign of the dividend
        int py = ((as[i] % bs[i]) + bs[i]) % bs[i];             // Python: sign of the divisor
        EXPECT_EQ(m(i), py) << i;
    }
}

TEST(NNElementwise, CastsSaturateAndComparisonsGiveBools) {
    Buffer<float> d(5);
    const float vs[5] = {-1e10f, -3.7f, 0.5f, 300.5f, 1e10f};
    for (int i = 0; i < 5; i++)
        d(i) = vs[i];
    nn::Tensor x(Buffer<>(d), "x");
    Buffer<int8_t> c = realize_sized<int8_t>(nn::cast(x, Int(8)), {5});
    const int8_t want[5] = {-128, -3, 0, 127, 127};
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(c(i), want[i]) << i;
    nn::Tensor zero(Buffer<>(Buffer<float>::make_scalar()), "zero");
    nn::Tensor gt = nn::greater(x, zero);
    EXPECT_EQ(gt.type(), Bool());
    Buffer<bool> g = realize_sized<bool>(gt, {5});
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(g(i), vs[i] > 0) << i;
}

TEST(NNElementwise, MismatchedTypesAndShapesAreErrorsThatNameTheTensors) {
    ImageParam a(Float(32), 1, "fa"), b(Int(32), 1, "ib");
    std::string m = test::message_of([&] { nn::add(nn::Tensor(a), nn::Tensor(b)); });
    EXPECT_CONTAINS(m, "fa");
    EXPECT_CONTAINS(m, "cast");
    Buffer<float> d3(3), d4(4);
    m = test::message_of(
        [&] { nn::add(nn::Tensor(Buffer<>(d3), "three"), nn::Tensor(Buffer<>(d4), "four")); });
    EXPECT_CONTAINS(m, "cannot be broadcast");
}

TEST(NNElementwise, TheDocsExampleSchedulesTheResultLikeAnyFunc) {
    // docs/nn.md: softmax of relu over axis 1, vectorized and parallel.
    ImageParam in(Float(32), 4, "in");
    nn::Tensor x(in);
    nn::Tensor y = nn::softmax(nn::relu(x), /*axis=*/1);
    Func out = y.func();
    out.vectorize(y.var(-1), 8).parallel(y.var(0));
    Buffer<float> data = random_buffer({17, 3, 5, 2}, 9, -1, 1);
    in.set(data);
    Buffer<float> result(17, 3, 5, 2);
    out.realize(result);
    for (int n = 0; n < 2; n++)
        for (int h = 0; h < 3; h++)
            for (int w = 0; w < 17; w++) {
                double z = 0;
                for (int c = 0; c < 5; c++)
                    z += std::exp(std::max(0.0f, data(w, h, c, n)));
                for (int c = 0; c < 5; c++)
                    ASSERT_NEAR(result(w, h, c, n), std::exp(std::max(0.0f, data(w, h, c, n))) / z,
                                1e-6);
            }
}

// The two branches of x * relu(x + 1) over a scheduled operator carry its one schedule, so their
// product keeps it (a hard-swish over a convolution: the model compiler's diamond); two operators'
// own schedules, even the same code, still leave a sum of both without one.
TEST(NNElementwise, BranchesOfOneScheduledOperatorKeepItsSchedule) {
    Buffer<float> data(8, 3);
    data.fill(1.0f);
    nn::Tensor x(Buffer<>(data), "x");
    auto scheduled = [&](const std::string &name) {
        nn::Tensor t = nn::map(
            x, [](const Expr &v) { return v * 2.0f; }, name);
        t.set_schedule([](Func f, const Target &) { f.compute_root(); });
        return t;
    };
    nn::Tensor conv = scheduled("conv");
    Buffer<float> one = Buffer<float>::make_scalar();
    one() = 1.0f;
    nn::Tensor shifted = nn::add(conv, nn::Tensor(Buffer<>(one), "one"));
    nn::Tensor product = nn::mul(conv, nn::relu(shifted));
    EXPECT_TRUE(product.shares_schedule(conv));
    EXPECT_TRUE(static_cast<bool>(product.schedule()));

    nn::Tensor other = scheduled("other");
    EXPECT_FALSE(other.shares_schedule(conv));
    nn::Tensor sum = nn::add(conv, other);
    EXPECT_FALSE(static_cast<bool>(sum.schedule()));
}

}  // namespace
