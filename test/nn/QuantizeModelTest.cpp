// Post-training quantization (dsl/nn/QuantizeModel.h): the calibration statistics on known
// distributions, then float models quantized on samples, read back (ONNX's checker runs on
// them), run, and compared with the float model.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "NNTestUtil.h"
#include "OnnxModels.h"
#include "common/TempDirectory.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/QuantizeModel.h"
#include "nn/graph/Calibration.h"
#include "nn/graph/QdqFusion.h"
#include "nn/onnx/OnnxReader.h"

namespace {

using namespace dsl;
using namespace dsl_test;
using nn::graph::ActivationStatistics;
using nn::graph::RangeMethod;

constexpr int kFloat = onnx::TensorProto::FLOAT;

std::vector<float> weights(size_t n, unsigned seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (float &x : v)
        x = dist(rng);
    return v;
}

TEST(NNCalibration, RangesOfEachMethod) {
    // 100000 values uniform in [-1, 3], and ten outliers at 50.
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.0f, 3.0f);
    std::vector<float> v(100000);
    for (float &x : v)
        x = dist(rng);
    for (int i = 0; i < 10; i++)
        v[static_cast<size_t>(i) * 1000] = 50.0f;
    ActivationStatistics s;
    s.observe_range(v.data(), static_cast<int64_t>(v.size()));
    s.observe_histogram(v.data(), static_cast<int64_t>(v.size()));
    float lo = 0, hi = 0;
    s.range(RangeMethod::MinMax, 0, &lo, &hi);
    EXPECT_NEAR(lo, -1.0f, 1e-3f);
    EXPECT_EQ(hi, 50.0f);
    // 99.9% at each end clips the ten outliers (0.01%) and 0.09% of the uniform values.
    s.range(RangeMethod::Percentile, 99.9, &lo, &hi);
    EXPECT_NEAR(lo, -1.0f, 0.05f);
    EXPECT_NEAR(hi, 3.0f, 0.05f);
    s.range(RangeMethod::Entropy, 0, &lo, &hi);
    EXPECT_NEAR(lo, -1.0f, 1e-3f);
    EXPECT_GT(hi, 2.5f);
    EXPECT_LT(hi, 4.0f);

    // Only positive values: the range still holds 0.
    ActivationStatistics p;
    const float positive[] = {0.5f, 2.0f, 1.0f};
    p.observe_range(positive, 3);
    p.range(RangeMethod::MinMax, 0, &lo, &hi);
    EXPECT_EQ(lo, 0.0f);
    EXPECT_EQ(hi, 2.0f);
}

TEST(NNCalibration, MedianChannelLevels) {
    // Two channels of 100 values each: one in [0, 1], one in [0, 100] (sets the scale).
    std::vector<float> v;
    for (int c = 0; c < 2; c++) {
        for (int i = 0; i < 100; i++)
            v.push_back(static_cast<float>(i) / 99.0f * (c == 0 ? 1.0f : 100.0f));
    }
    ActivationStatistics s;
    s.observe_range(v.data(), static_cast<int64_t>(v.size()), 2, 100);
    // The median (upper) channel spans all 255 steps; a range of [0, 400] makes it 63.75.
    EXPECT_NEAR(s.median_channel_levels(0.0f, 100.0f), 255.0, 1e-6);
    EXPECT_NEAR(s.median_channel_levels(0.0f, 400.0f), 63.75, 1e-6);
    // Without channels: no limit.
    ActivationStatistics flat;
    flat.observe_range(v.data(), static_cast<int64_t>(v.size()));
    EXPECT_TRUE(std::isinf(flat.median_channel_levels(0.0f, 100.0f)));
}

TEST(NNCalibration, EntropyThresholdOfAGaussianIgnoresAFarTail) {
    // Magnitudes of a unit Gaussian over [0, 20): one value in a thousand at 19.
    std::vector<double> h(2048, 0.0);
    const double width = 20.0 / 2048;
    for (size_t i = 0; i < h.size(); i++) {
        const double x = (static_cast<double>(i) + 0.5) * width;
        h[i] = 1e6 * std::exp(-x * x / 2);
    }
    h[static_cast<size_t>(19.0 / width)] += 1000;
    const double t = nn::graph::entropy_threshold(h, 20.0);
    EXPECT_GT(t, 2.0);
    EXPECT_LT(t, 8.0);
}

/// x (1, 3, 12, 12) -> conv_a -> relu -> conv_b -> relu -> conv_c (1x1) + the relu's output ->
/// conv_d -> y: four quantizable Convs, a residual add between. With `loud_channel`, channel 3
/// of conv_b's input is multiplied by 1000.
onnx::ModelProto conv_model(bool loud_channel = false) {
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", kFloat, {1, 3, 12, 12});
    auto conv = [&](const std::string &name, const std::string &in, const std::string &out,
                    int64_t cin, int64_t cout, int64_t k, unsigned seed) {
        add_float_initializer(m, name + "_w", {cout, cin, k, k},
                              weights(static_cast<size_t>(cout * cin * k * k), seed,
                                      1.0f / std::sqrt(static_cast<float>(cin * k * k))));
        add_float_initializer(m, name + "_b", {cout},
                              weights(static_cast<size_t>(cout), seed + 100, 0.1f));
        auto *n = add_node(m, "Conv", {in, name + "_w", name + "_b"}, {out}, name);
        const int64_t p = k / 2;
        add_ints_attr(n, "pads", {p, p, p, p});
    };
    conv("conv_a", "x", "a", 3, 8, 3, 1);
    add_node(m, "Relu", {"a"}, {"ra"});
    std::string b_input = "ra";
    if (loud_channel) {
        std::vector<float> scale(8, 1.0f);
        scale[3] = 1000.0f;
        add_float_initializer(m, "channel_scale", {1, 8, 1, 1}, scale);
        add_node(m, "Mul", {"ra", "channel_scale"}, {"ra_scaled"});
        b_input = "ra_scaled";
    }
    conv("conv_b", b_input, "b", 8, 16, 3, 2);
    add_node(m, "Relu", {"b"}, {"rb"});
    conv("conv_c", "rb", "c", 16, 16, 1, 3);
    add_node(m, "Add", {"c", "rb"}, {"sum"});
    conv("conv_d", "sum", "y", 16, 4, 3, 4);
    add_output(m, "y", kFloat, {1, 4, 12, 12});
    return m;
}

std::vector<std::map<std::string, Buffer<>>> samples(int n, const std::vector<int> &sizes) {
    std::vector<std::map<std::string, Buffer<>>> s;
    for (int i = 0; i < n; i++)
        s.push_back(
            {{"x", test::random_buffer(sizes, 100 + static_cast<unsigned>(i), -1.0f, 1.0f)}});
    return s;
}

/// The largest difference between the outputs "y" of two models on `x`, relative to the
/// largest magnitude of the float model's output.
double relative_error(const std::string &float_path, const std::string &int8_path,
                      const Buffer<float> &x) {
    Buffer<float> want = nn::Model::load(float_path).run({{"x", x}}).at("y");
    Buffer<float> got = nn::Model::load(int8_path).run({{"x", x}}).at("y");
    double worst = 0, top = 0;
    for (int64_t i = 0; i < want.number_of_elements(); i++) {
        worst = std::max(worst, static_cast<double>(std::abs(got.data()[i] - want.data()[i])));
        top = std::max(top, static_cast<double>(std::abs(want.data()[i])));
    }
    return worst / top;
}

TEST(NNQuantizeModel, ConvolutionsBecomeInt8GroupsThatRunAsIntegers) {
    test::TempDirectory dir;
    const std::string float_path = dir.path() + "/float.onnx";
    const std::string int8_path = dir.path() + "/int8.onnx";
    save_model(conv_model(), float_path);
    for (nn::Calibration method :
         {nn::Calibration::MinMax, nn::Calibration::Percentile, nn::Calibration::Entropy}) {
        SCOPED_TRACE(static_cast<int>(method));
        nn::QuantizationOptions o;
        o.calibration = method;
        nn::QuantizationReport r =
            nn::quantize_model(float_path, samples(4, {12, 12, 3, 1}), int8_path, o);
        EXPECT_EQ(r.quantized, (std::vector<std::string>{"conv_b", "conv_c"}));
        EXPECT_EQ(r.kept_float, (std::vector<std::string>{"conv_a", "conv_d"}));
        // conv_b's input (ra), its result after the Relu (rb), conv_c's result.
        EXPECT_EQ(r.ranges.size(), 3u);
        EXPECT_EQ(r.ranges.at("rb").first, 0.0f);  // after a Relu

        // The file: int8 weights, int32 biases, activations through Q and DQ; the checker
        // passes (read_model runs it), and the groups become integer convolutions.
        nn::graph::Graph g = nn::onnx::read_model(int8_path);
        int quantize = 0, dequantize = 0, int8_weights = 0, int32_biases = 0;
        for (const nn::graph::Node &n : g.nodes) {
            quantize += n.op_type == "QuantizeLinear";
            dequantize += n.op_type == "DequantizeLinear";
        }
        for (const auto &kv : g.initializers) {
            int8_weights += kv.second.type() == Int(8);
            int32_biases += kv.second.type() == Int(32);
        }
        EXPECT_EQ(quantize, 3);
        EXPECT_EQ(dequantize, 3 + 2 + 2);
        EXPECT_EQ(int8_weights, 2);
        EXPECT_EQ(int32_biases, 2);
        EXPECT_EQ(nn::graph::fuse_quantized_groups(g).convs, 2);

        // On a sample (its values are inside the ranges min/max calibrates); the entropy
        // method clips the tails of these few values, for less rounding in the rest.
        Buffer<float> x = samples(1, {12, 12, 3, 1})[0].at("x");
        EXPECT_LT(relative_error(float_path, int8_path, x),
                  method == nn::Calibration::Entropy ? 0.1 : 0.05);
    }
}

TEST(NNQuantizeModel, LinearLayersPerTensorAndEveryLayer) {
    // x (6, 32) -> MatMul + bias -> Relu -> MatMul -> Clip -> MatMul -> y
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", kFloat, {6, 32});
    add_float_initializer(m, "w1", {32, 24}, weights(32 * 24, 1, 0.2f));
    add_float_initializer(m, "b1", {24}, weights(24, 2, 0.1f));
    add_float_initializer(m, "w2", {24, 16}, weights(24 * 16, 3, 0.2f));
    add_float_initializer(m, "w3", {16, 8}, weights(16 * 8, 4, 0.25f));
    add_float_initializer(m, "lo", {}, {0.0f});
    add_float_initializer(m, "hi", {}, {6.0f});
    add_node(m, "MatMul", {"x", "w1"}, {"m1"}, "fc1");
    add_node(m, "Add", {"m1", "b1"}, {"a1"}, "fc1_bias");
    add_node(m, "Relu", {"a1"}, {"r1"});
    add_node(m, "MatMul", {"r1", "w2"}, {"m2"}, "fc2");
    add_node(m, "Clip", {"m2", "lo", "hi"}, {"r2"});
    add_node(m, "MatMul", {"r2", "w3"}, {"y"}, "fc3");
    add_output(m, "y", kFloat, {6, 8});
    test::TempDirectory dir;
    const std::string float_path = dir.path() + "/float.onnx";
    const std::string int8_path = dir.path() + "/int8.onnx";
    save_model(m, float_path);
    nn::QuantizationOptions o;
    o.per_channel = false;
    o.keep_first_and_last = false;
    o.keep_float = {"fc3"};
    nn::QuantizationReport r = nn::quantize_model(float_path, samples(3, {32, 6}), int8_path, o);
    EXPECT_EQ(r.quantized, (std::vector<std::string>{"fc1", "fc2"}));
    EXPECT_EQ(r.kept_float, (std::vector<std::string>{"fc3"}));
    nn::graph::Graph g = nn::onnx::read_model(int8_path);
    for (const auto &kv : g.initializers) {
        if (kv.second.type() == Float(32) && kv.first.find("_scale") != std::string::npos) {
            EXPECT_EQ(kv.second.number_of_elements(), 1) << kv.first;  // per tensor
        }
    }
    const nn::graph::QdqCounts counts = nn::graph::fuse_quantized_groups(g);
    EXPECT_EQ(counts.linears, 1);  // fc1 with its bias and Relu
    EXPECT_EQ(counts.matmuls, 1);  // fc2 with its Clip
    Buffer<float> x = samples(1, {32, 6})[0].at("x");
    EXPECT_LT(relative_error(float_path, int8_path, x), 0.05);
}

TEST(NNQuantizeModel, ChannelsOfVeryDifferentRangesStayFloat) {
    // conv_b's input: one channel scaled by 1000, so that per-tensor uint8 leaves the others
    // a step or two.
    onnx::ModelProto m = conv_model(true);
    test::TempDirectory dir;
    const std::string path = dir.path() + "/float.onnx";
    save_model(m, path);
    nn::QuantizationReport r =
        nn::quantize_model(path, samples(2, {12, 12, 3, 1}), dir.path() + "/int8.onnx");
    EXPECT_EQ(r.quantized, (std::vector<std::string>{"conv_c"}));
    ASSERT_TRUE(r.reasons.count("conv_b"));
    EXPECT_NE(r.reasons.at("conv_b").find("median channel spans"), std::string::npos)
        << r.reasons.at("conv_b");
    nn::QuantizationOptions all;
    all.min_channel_levels = 0;
    r = nn::quantize_model(path, samples(2, {12, 12, 3, 1}), dir.path() + "/int8.onnx", all);
    EXPECT_EQ(r.quantized, (std::vector<std::string>{"conv_b", "conv_c"}));
}

TEST(NNQuantizeModel, ErrorsNameTheNodeAndTheFix) {
    test::TempDirectory dir;
    const std::string float_path = dir.path() + "/float.onnx";
    save_model(conv_model(), float_path);
    nn::QuantizationOptions o;
    o.keep_float = {"conv_z"};
    try {
        nn::quantize_model(float_path, samples(1, {12, 12, 3, 1}), dir.path() + "/q.onnx", o);
        FAIL() << "an unknown node was accepted";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("conv_z"), std::string::npos) << e.what();
    }
    try {
        nn::quantize_model(float_path, {}, dir.path() + "/q.onnx");
        FAIL() << "no samples were accepted";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("at least one sample"), std::string::npos) << e.what();
    }
    try {
        nn::quantize_model(float_path, samples(1, {12, 12, 4, 1}), dir.path() + "/q.onnx");
        FAIL() << "a sample of the wrong shape was accepted";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("calibration sample 0"), std::string::npos)
            << e.what();
    }
}

}  // namespace
