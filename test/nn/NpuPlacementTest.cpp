// Quantized models on the NPU (graph/Placement.cpp): on host-npu the QLinearConvs and
// QLinearMatMuls that map run there and the rest on the CPU, all in TFLite's fixed-point
// arithmetic; the outputs are the same bytes as the CPU's with fixed_point_requantization, which
// match a plain loop of that arithmetic and differ from ONNX's float rescaling by at most one
// step. The run reports each step's multiply-adds and NPU cycles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "NNTestUtil.h"
#include "OnnxModels.h"
#include "common/TempDirectory.h"
#include "dsl/Math.h"
#include "dsl/nn/Model.h"

namespace {

using namespace dsl;
using namespace dsl_test;

template <typename T>
std::vector<T> random_values(size_t n, unsigned seed, int lo, int hi) {
    std::mt19937 rng(seed);
    std::vector<T> v(n);
    for (T &x : v)
        x = static_cast<T>(lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)));
    return v;
}

/// One QLinearConv layer: uint8 activations, int8 weights symmetric per output channel.
struct Layer {
    std::string name;
    int c, m, k, stride, groups;
    float x_scale, y_scale;
    int x_zero, y_zero;
    std::vector<float> w_scales;
    std::vector<int8_t> w;
    std::vector<int32_t> bias;
};

Layer make_layer(const std::string &name, int c, int m, int k, int stride, int groups, float xs,
                 int xz, unsigned seed) {
    Layer l{name, c, m, k, stride, groups, xs, 0, xz, 0, {}, {}, {}};
    const int taps = c / groups * k * k;
    l.w = random_values<int8_t>(static_cast<size_t>(m * taps), seed, -127, 127);
    l.bias = random_values<int32_t>(static_cast<size_t>(m), seed + 1, -3000, 3000);
    std::mt19937 rng(seed + 2);
    std::uniform_real_distribution<float> scale(0.004f, 0.02f);
    for (int i = 0; i < m; i++)
        l.w_scales.push_back(scale(rng));
    // Sums of `taps` products of about 74 x 73 spread to about 40 steps of the output.
    const double sum_spread = std::sqrt(static_cast<double>(taps)) * 74.0 * 73.0;
    l.y_scale = static_cast<float>(xs * 0.012 * sum_spread / 40.0);
    l.y_zero = 100 + static_cast<int>(seed % 40);
    return l;
}

void add_conv(onnx::ModelProto &m, const Layer &l, const std::string &in, const std::string &out) {
    const std::string p = l.name + "_";
    add_float_initializer(m, p + "xs", {}, {l.x_scale});
    add_raw_initializer(m, p + "xz", onnx::TensorProto::UINT8, {},
                        std::vector<uint8_t>{static_cast<uint8_t>(l.x_zero)});
    add_raw_initializer(m, p + "w", onnx::TensorProto::INT8, {l.m, l.c / l.groups, l.k, l.k}, l.w);
    add_float_initializer(m, p + "ws", {l.m}, l.w_scales);
    add_raw_initializer(m, p + "wz", onnx::TensorProto::INT8, {l.m},
                        std::vector<int8_t>(static_cast<size_t>(l.m), 0));
    add_float_initializer(m, p + "ys", {}, {l.y_scale});
    add_raw_initializer(m, p + "yz", onnx::TensorProto::UINT8, {},
                        std::vector<uint8_t>{static_cast<uint8_t>(l.y_zero)});
    add_raw_initializer(m, p + "b", onnx::TensorProto::INT32, {l.m}, l.bias);
    auto *n =
        add_node(m, "QLinearConv",
                 {in, p + "xs", p + "xz", p + "w", p + "ws", p + "wz", p + "ys", p + "yz", p + "b"},
                 {out}, l.name);
    const int64_t pad = l.k / 2;
    add_ints_attr(n, "pads", {pad, pad, pad, pad});
    add_ints_attr(n, "strides", {l.stride, l.stride});
    add_int_attr(n, "group", l.groups);
}

/// x (1, 16, 14, 14) uint8 -> 3x3 conv into 24 -> depthwise 5x5 stride 2 -> 1x1 in 2 groups
/// into 8 -> y.
std::vector<Layer> conv_layers() {
    std::vector<Layer> ls;
    ls.push_back(make_layer("conv", 16, 24, 3, 1, 1, 0.02f, 128, 1));
    ls.push_back(make_layer("depthwise", 24, 24, 5, 2, 24, ls.back().y_scale, ls.back().y_zero, 2));
    ls.push_back(make_layer("grouped", 24, 8, 1, 1, 2, ls.back().y_scale, ls.back().y_zero, 3));
    return ls;
}

onnx::ModelProto conv_model(const std::vector<Layer> &ls) {
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", onnx::TensorProto::UINT8, {1, 16, 14, 14});
    add_conv(m, ls[0], "x", "a");
    add_conv(m, ls[1], "a", "b");
    add_conv(m, ls[2], "b", "y");
    add_output(m, "y", onnx::TensorProto::UINT8, {1, 8, 7, 7});
    return m;
}

/// One layer in TFLite's arithmetic, written out: x is (C, H, W) uint8, dense.
std::vector<uint8_t> reference_conv(const Layer &l, const std::vector<uint8_t> &x, int h, int w,
                                    int *oh, int *ow) {
    const int pad = l.k / 2, cg = l.c / l.groups, mg = l.m / l.groups;
    *oh = (h + 2 * pad - l.k) / l.stride + 1;
    *ow = (w + 2 * pad - l.k) / l.stride + 1;
    std::vector<uint8_t> y(static_cast<size_t>(l.m * *oh * *ow));
    for (int o = 0; o < l.m; o++) {
        const double real =
            static_cast<double>(l.x_scale) * l.w_scales[static_cast<size_t>(o)] / l.y_scale;
        int32_t multiplier = 0, shift = 0;
        quantize_multiplier(real, &multiplier, &shift);
        const int g = o / mg;
        for (int i = 0; i < *oh; i++) {
            for (int j = 0; j < *ow; j++) {
                int32_t acc = l.bias[static_cast<size_t>(o)];
                for (int ci = 0; ci < cg; ci++) {
                    for (int a = 0; a < l.k; a++) {
                        for (int b = 0; b < l.k; b++) {
                            const int yy = i * l.stride + a - pad, xx = j * l.stride + b - pad;
                            const int c = g * cg + ci;
                            const int v = yy < 0 || yy >= h || xx < 0 || xx >= w
                                              ? l.x_zero
                                              : x[static_cast<size_t>((c * h + yy) * w + xx)];
                            acc += (v - l.x_zero) *
                                   l.w[static_cast<size_t>(((o * cg + ci) * l.k + a) * l.k + b)];
                        }
                    }
                }
                const int32_t r = l.y_zero + test::rescale(acc, multiplier, shift);
                y[static_cast<size_t>((o * *oh + i) * *ow + j)] =
                    static_cast<uint8_t>(std::max(0, std::min(255, r)));
            }
        }
    }
    return y;
}

Buffer<uint8_t> run(const std::string &path, const nn::ModelOptions &o, const Buffer<uint8_t> &x,
                    nn::Model *model = nullptr) {
    nn::Model m = nn::Model::load(path, o);
    Buffer<uint8_t> y = m.run({{"x", x}}).at("y");
    if (model) *model = m;
    return y;
}

int bytes_differing(const Buffer<uint8_t> &a, const Buffer<uint8_t> &b) {
    int n = 0;
    for (int64_t i = 0; i < a.number_of_elements(); i++)
        n += a.data()[i] != b.data()[i];
    return n;
}

TEST(NNPlacement, QuantizeMultiplierIsTFLites) {
    int32_t m = 0, s = 0;
    quantize_multiplier(0.5, &m, &s);
    EXPECT_EQ(m, 1 << 30);
    EXPECT_EQ(s, 0);
    quantize_multiplier(1.0, &m, &s);
    EXPECT_EQ(m, 1 << 30);
    EXPECT_EQ(s, 1);
    quantize_multiplier(0.75 / 1024, &m, &s);
    EXPECT_EQ(m, 1610612736);
    EXPECT_EQ(s, -10);
    // q rounds up to 1: the next power of two.
    quantize_multiplier(std::nextafter(1.0, 0.0), &m, &s);
    EXPECT_EQ(m, 1 << 30);
    EXPECT_EQ(s, 1);
    quantize_multiplier(0.0, &m, &s);
    EXPECT_EQ(m, 0);
    quantize_multiplier(std::ldexp(1.0, -40), &m, &s);  // below 2^-32
    EXPECT_EQ(m, 0);
    quantize_multiplier(std::ldexp(1.0, 35), &m, &s);  // the largest the shifts reach
    EXPECT_EQ(m, INT32_MAX);
    EXPECT_EQ(s, 30);
    for (double real : {3.1e-5, 0.0123, 0.999, 7.5}) {
        quantize_multiplier(real, &m, &s);
        EXPECT_NEAR(std::ldexp(static_cast<double>(m), s - 31), real, real * 1e-9) << real;
    }
    EXPECT_THROW(quantize_multiplier(-1.0, &m, &s), CompileError);
    EXPECT_THROW(quantize_multiplier(std::nan(""), &m, &s), CompileError);
}

TEST(NNPlacement, ConvolutionsOnTheNPUAreTheCPUsBytes) {
    test::TempDirectory dir;
    const std::string path = dir.path() + "/qconv.onnx";
    const std::vector<Layer> ls = conv_layers();
    save_model(conv_model(ls), path);
    Buffer<uint8_t> x(14, 14, 16, 1);
    std::mt19937 rng(7);
    x.for_each_value([&](uint8_t &v) { v = static_cast<uint8_t>(rng() % 256); });

    nn::ModelOptions npu;
    npu.target = Target("host-npu");
    nn::Model on_npu = nn::Model::load(path, npu);
    const Buffer<uint8_t> npu_y = on_npu.run({{"x", x}}).at("y");
    nn::ModelOptions fixed;
    fixed.fixed_point_requantization = true;
    const Buffer<uint8_t> cpu_y = run(path, fixed, x);
    const Buffer<uint8_t> float_y = run(path, nn::ModelOptions(), x);

    // Where each layer ran, and why the grouped one stayed on the CPU.
    const std::vector<nn::NodePlacement> p = on_npu.placement();
    ASSERT_EQ(p.size(), 3u);
    EXPECT_TRUE(p[0].npu && p[0].node == "conv" && p[0].op_type == "QLinearConv");
    EXPECT_TRUE(p[1].npu && p[1].node == "depthwise");
    EXPECT_FALSE(p[2].npu);
    EXPECT_NE(p[2].reason.find("grouped convolution (groups 2)"), std::string::npos) << p[2].reason;
    EXPECT_TRUE(nn::Model::load(path).placement().empty());  // no NPU, nothing placed

    // The same bytes on both devices, and those of the arithmetic written out.
    EXPECT_EQ(bytes_differing(npu_y, cpu_y), 0);
    std::vector<uint8_t> v(x.data(), x.data() + x.number_of_elements());
    int h = 14, w = 14;
    for (const Layer &l : ls) {
        int oh = 0, ow = 0;
        v = reference_conv(l, v, h, w, &oh, &ow);
        h = oh;
        w = ow;
    }
    ASSERT_EQ(static_cast<int64_t>(v.size()), cpu_y.number_of_elements());
    int wrong = 0;
    for (size_t i = 0; i < v.size(); i++)
        wrong += v[i] != cpu_y.data()[i];
    EXPECT_EQ(wrong, 0);
    // ONNX's float rescaling rounds ties another way: a step at most, here and there (the
    // first layer's differences propagate, so a few).
    int far = 0, near = 0;
    for (int64_t i = 0; i < float_y.number_of_elements(); i++) {
        const int d = std::abs(int(float_y.data()[i]) - int(cpu_y.data()[i]));
        far += d > 2;
        near += d != 0;
    }
    EXPECT_EQ(far, 0);
    EXPECT_LT(near, float_y.number_of_elements() / 10);

    // Each step's multiply-adds, and the NPU's cycles for the two layers it ran.
    const std::vector<nn::StepReport> steps = on_npu.last_run();
    for (const nn::StepReport &s : steps) {
        if (s.npu.cycles == 0) continue;
        EXPECT_GT(s.npu.gemm_steps, 0u) << s.node;
        EXPECT_GT(s.npu.gemm_utilisation, 0.0) << s.node;
        EXPECT_LE(s.npu.gemm_utilisation, 1.0) << s.node;
    }
    const int64_t conv = 24 * 14 * 14 * 16 * 9, depthwise = 24 * 7 * 7 * 25,
                  grouped = 8 * 7 * 7 * 12;
    const nn::RunTotals t = nn::run_totals(steps);
    EXPECT_EQ(t.npu_steps, 2);
    EXPECT_EQ(t.macs, conv + depthwise + grouped);
    EXPECT_EQ(t.npu_macs, conv + depthwise);
}

TEST(NNPlacement, MatrixProductsOnTheNPU) {
    // a (20, 40) uint8 times b (40, 24) int8, then by c (24, 12) uint8 (not the NPU's int8).
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", onnx::TensorProto::UINT8, {20, 40});
    add_float_initializer(m, "xs", {}, {0.03f});
    add_raw_initializer(m, "xz", onnx::TensorProto::UINT8, {}, std::vector<uint8_t>{120});
    add_raw_initializer(m, "b", onnx::TensorProto::INT8, {40, 24},
                        random_values<int8_t>(40 * 24, 11, -127, 127));
    add_float_initializer(m, "bs", {24}, std::vector<float>(24, 0.01f));
    add_raw_initializer(m, "bz", onnx::TensorProto::INT8, {24}, std::vector<int8_t>(24, 0));
    add_float_initializer(m, "ys", {}, {0.6f});
    add_raw_initializer(m, "yz", onnx::TensorProto::UINT8, {}, std::vector<uint8_t>{130});
    add_node(m, "QLinearMatMul", {"x", "xs", "xz", "b", "bs", "bz", "ys", "yz"}, {"h"}, "mm1");
    add_raw_initializer(m, "c", onnx::TensorProto::UINT8, {24, 12},
                        random_values<uint8_t>(24 * 12, 12, 0, 255));
    add_float_initializer(m, "cs", {}, {0.01f});
    add_raw_initializer(m, "cz", onnx::TensorProto::UINT8, {}, std::vector<uint8_t>{128});
    add_float_initializer(m, "zs", {}, {0.5f});
    add_raw_initializer(m, "zz", onnx::TensorProto::UINT8, {}, std::vector<uint8_t>{128});
    add_node(m, "QLinearMatMul", {"h", "ys", "yz", "c", "cs", "cz", "zs", "zz"}, {"y"}, "mm2");
    add_output(m, "y", onnx::TensorProto::UINT8, {20, 12});
    test::TempDirectory dir;
    const std::string path = dir.path() + "/qmatmul.onnx";
    save_model(m, path);
    Buffer<uint8_t> x(40, 20);
    std::mt19937 rng(5);
    x.for_each_value([&](uint8_t &v) { v = static_cast<uint8_t>(rng() % 256); });

    nn::ModelOptions npu;
    npu.target = Target("host-npu");
    nn::Model on_npu;
    const Buffer<uint8_t> npu_y = run(path, npu, x, &on_npu);
    nn::ModelOptions fixed;
    fixed.fixed_point_requantization = true;
    EXPECT_EQ(bytes_differing(npu_y, run(path, fixed, x)), 0);
    const std::vector<nn::NodePlacement> p = on_npu.placement();
    ASSERT_EQ(p.size(), 2u);
    EXPECT_TRUE(p[0].npu);
    EXPECT_FALSE(p[1].npu);
    EXPECT_NE(p[1].reason.find("not an int8 constant"), std::string::npos) << p[1].reason;
    EXPECT_EQ(nn::run_totals(on_npu.last_run()).npu_macs, 20 * 24 * 40);
}

}  // namespace
