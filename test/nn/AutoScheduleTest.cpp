// The operator library's use of the built-in autoscheduler on a CPU (nn::schedule_output,
// ModelOptions::auto_schedule): the kernels that no operator schedules (an argmax, an einsum, a
// running sum, a local response normalisation) take its schedule and give the values of loops;
// the kernels an operator schedules, and chains of elementwise operators, keep theirs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "NNTestUtil.h"
#include "OnnxModels.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"
#include "dsl/nn/Linear.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Norm.h"
#include "dsl/nn/Reduce.h"
#include "dsl/nn/Tensor.h"

namespace dsl {
namespace {

using namespace dsl_test;

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kUint8 = onnx::TensorProto::UINT8;
constexpr int kInt64 = onnx::TensorProto::INT64;

/// The tensor that `build` makes of `input`, scheduled as a model's output (with or without the
/// autoscheduler, as `automatic` says; whether it chose the schedule goes to `chosen`) and
/// realized.
Buffer<float> scheduled_result(const Buffer<float> &input,
                               const std::function<nn::Tensor(const nn::Tensor &)> &build,
                               bool automatic, bool *chosen) {
    nn::Tensor t = build(nn::Tensor(input, "x"));
    if (t.type() != Float(32)) {
        const nn::Tensor v = t;
        t = nn::compute("as_float", v.shape(),
                        [&](const nn::Index &i) { return cast(Float(32), v(i)); });
    }
    *chosen = nn::schedule_output(t, Target::host(), automatic);
    return test::realize(t);
}

/// `build` of `input` gives the same values auto-scheduled as on the default schedule (within
/// `tolerance`: the autoscheduler may sum in another order), the autoscheduler chooses its
/// schedule, and the values match `expected` at every point.
void expect_auto_scheduled(const Buffer<float> &input,
                           const std::function<nn::Tensor(const nn::Tensor &)> &build,
                           const std::function<double(const std::vector<int> &)> &expected,
                           double tolerance) {
    bool automatic = false, by_default = true;
    Buffer<float> a = scheduled_result(input, build, true, &automatic);
    Buffer<float> d = scheduled_result(input, build, false, &by_default);
    EXPECT_TRUE(automatic);
    EXPECT_FALSE(by_default);
    ASSERT_EQ(a.dimensions(), d.dimensions());
    int wrong = 0;
    a.for_each_element([&](const int *pos) {
        std::vector<int> at(pos, pos + a.dimensions());
        const double want = expected(at);
        const double got = a(at), got_default = d(at);
        if (wrong < 5 &&
            (std::abs(got - want) > tolerance || std::abs(got_default - want) > tolerance)) {
            ADD_FAILURE() << "at element " << ::testing::PrintToString(at) << ": auto-scheduled "
                          << got << ", default " << got_default << ", expected " << want;
            wrong++;
        }
    });
}

TEST(NNAutoSchedule, ArgMaxOverTheMiddleAxisMatchesALoop) {
    // x of shape (4, 300, 50): the index along axis 1 of each largest value.
    Buffer<float> x = test::random_buffer({50, 300, 4}, 11);
    expect_auto_scheduled(
        x, [](const nn::Tensor &t) { return nn::argmax(t, 1, false, false); },
        [&](const std::vector<int> &p) {
            int best = 0;
            for (int j = 1; j < 300; j++) {
                if (x(p[0], j, p[1]) > x(p[0], best, p[1])) best = j;
            }
            return double(best);
        },
        0);
}

TEST(NNAutoSchedule, BatchedEinsumMatchesALoop) {
    // (2, 64, 48) by (2, 48, 80), both read from one input of shape (2, 2, 64, 80): batch b's
    // left matrix is the first 48 columns of x[b][0], its right one the first 48 rows of x[b][1].
    Buffer<float> x = test::random_buffer({80, 64, 2, 2}, 12);
    auto a = [&](int b, int i, int j) { return double(x(j, i, 0, b)); };
    auto bm = [&](int b, int j, int k) { return double(x(k, j, 1, b)); };
    expect_auto_scheduled(
        x,
        [](const nn::Tensor &t) {
            nn::Tensor lhs =
                nn::compute("lhs", {Expr(2), Expr(64), Expr(48)}, [&](const nn::Index &i) {
                    return t({i[0], 0, i[1], i[2]});
                });
            nn::Tensor rhs =
                nn::compute("rhs", {Expr(2), Expr(48), Expr(80)}, [&](const nn::Index &i) {
                    return t({i[0], 1, i[1], i[2]});
                });
            return nn::einsum("bij,bjk->bik", {lhs, rhs});
        },
        [&](const std::vector<int> &p) {
            double s = 0;
            for (int j = 0; j < 48; j++)
                s += a(p[2], p[1], j) * bm(p[2], j, p[0]);
            return s;
        },
        1e-4);
}

TEST(NNAutoSchedule, RunningSumAlongRowsMatchesALoop) {
    Buffer<float> x = test::random_buffer({40, 200, 3}, 13);
    expect_auto_scheduled(
        x, [](const nn::Tensor &t) { return nn::cumsum(t, 1); },
        [&](const std::vector<int> &p) {
            double s = 0;
            for (int j = 0; j <= p[1]; j++)
                s += x(p[0], j, p[2]);
            return s;
        },
        1e-4);
}

TEST(NNAutoSchedule, LocalResponseNormalisationMatchesALoop) {
    Buffer<float> x = test::random_buffer({20, 20, 16, 1}, 14);
    const int size = 5;
    const double alpha = 1e-4, beta = 0.75, bias = 1.0;
    expect_auto_scheduled(
        x,
        [&](const nn::Tensor &t) {
            return nn::lrn(t, size, float(alpha), float(beta), float(bias));
        },
        [&](const std::vector<int> &p) {
            double sq = 0;
            for (int c = p[2] - (size - 1) / 2; c <= p[2] + size / 2; c++) {
                if (c >= 0 && c < 16) sq += double(x(p[0], p[1], c, 0)) * x(p[0], p[1], c, 0);
            }
            return x(p[0], p[1], p[2], 0) / std::pow(bias + alpha / size * sq, beta);
        },
        1e-5);
}

TEST(NNAutoSchedule, ScheduledOperatorsAndElementwiseChainsKeepTheirSchedules) {
    Buffer<float> x = test::random_buffer({32, 32}, 15);
    nn::Tensor in(x, "x");
    // A matrix product has the operator's register tiles, also under a scaled bias (Gemm).
    nn::Tensor p = nn::matmul(in, in);
    EXPECT_FALSE(nn::schedule_output(p, Target::host()));
    nn::Tensor g = nn::gemm(in, in, in, 0.5f, 2.0f, false, true);
    EXPECT_TRUE(static_cast<bool>(g.schedule()));
    EXPECT_FALSE(nn::schedule_output(g, Target::host()));
    Buffer<float> gv = test::realize(g);
    for (int i = 0; i < 32; i += 7) {
        for (int j = 0; j < 32; j += 5) {
            double s = 0;
            for (int k = 0; k < 32; k++)
                s += double(x(k, i)) * x(k, j);
            EXPECT_NEAR(gv(j, i), 0.5 * s + 2.0 * x(j, i), 1e-4);
        }
    }
    // Elementwise operators inlined into one loop nest: the default schedule is the best one.
    nn::Tensor e =
        nn::compute("e", in.shape(), [&](const nn::Index &i) { return in(i)*2.0f + 1.0f; });
    EXPECT_FALSE(nn::schedule_output(e, Target::host()));
}

// A model whose node has several outputs made of shared intermediates (DynamicQuantizeLinear's
// y, scale and zero point all read the minimum and maximum of x), auto-scheduled: each step
// compiles with the schedule chosen for it. The bytes are those of the default schedule and of
// ONNX's definition.
TEST(NNAutoSchedule, ModelOutputsSharingIntermediatesMatchTheDefaultSchedule) {
    test::TempDirectory dir;
    const std::string path = dir.path() + "/m.onnx";
    onnx::ModelProto m = make_model(11);
    add_input(m, "x", kFloat, {30, 40});
    add_output(m, "y", kUint8, {30, 40});
    add_output(m, "scale", kFloat, {});
    add_output(m, "zero_point", kUint8, {});
    add_output(m, "best", kInt64, {30});
    add_node(m, "DynamicQuantizeLinear", {"x"}, {"y", "scale", "zero_point"});
    onnx::NodeProto *argmax = add_node(m, "ArgMax", {"x"}, {"best"});
    add_int_attr(argmax, "axis", 1);
    add_int_attr(argmax, "keepdims", 0);
    save_model(m, path);
    Buffer<float> x = test::random_buffer({40, 30}, 16, -3.0f, 5.0f);
    std::map<std::string, Buffer<>> results[2];
    for (bool automatic : {true, false}) {
        nn::ModelOptions options;
        options.auto_schedule = automatic;
        nn::Model model = nn::Model::load(path, options);
        results[automatic ? 0 : 1] = model.run({{"x", x}});
    }
    double lo = 0, hi = 0;
    x.for_each_value([&](float v) {
        lo = std::min(lo, double(v));
        hi = std::max(hi, double(v));
    });
    const float scale = float((hi - lo) / 255.0);
    const int zero_point = int(std::nearbyint(std::min(255.0, std::max(0.0, -lo / scale))));
    for (const auto &r : results) {
        Buffer<float> s = r.at("scale");
        Buffer<uint8_t> z = r.at("zero_point"), y = r.at("y");
        Buffer<int64_t> best = r.at("best");
        EXPECT_FLOAT_EQ(s(), scale);
        EXPECT_EQ(int(z()), zero_point);
        for (int i = 0; i < 30; i++) {
            int b = 0;
            for (int j = 0; j < 40; j++) {
                const double q = std::nearbyint(double(x(j, i)) / scale) + zero_point;
                ASSERT_EQ(int(y(j, i)), int(std::min(255.0, std::max(0.0, q)))) << j << ", " << i;
                if (x(j, i) > x(b, i)) b = j;
            }
            EXPECT_EQ(best(i), b);
        }
    }
}

}  // namespace
}  // namespace dsl
