// Quantized models in the QDQ form (graph/QdqFusion.h): each group of QuantizeLinear around a
// Conv or MatMul of DequantizeLinears runs as the integer operator it stands for. Each model
// runs with and without the rewrite; the outputs must agree to one step of the output's scale
// (the float sums and the integer ones round differently), and the rewritten graph must hold
// the integer operators and none of the float ones.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "NNTestUtil.h"
#include "OnnxModels.h"
#include "common/TempDirectory.h"
#include "dsl/nn/Model.h"
#include "nn/graph/QdqFusion.h"
#include "nn/onnx/OnnxReader.h"

namespace {

using namespace dsl;
using namespace dsl_test;

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kUInt8 = onnx::TensorProto::UINT8;
constexpr int kInt8 = onnx::TensorProto::INT8;
constexpr int kInt32 = onnx::TensorProto::INT32;

/// x -> QuantizeLinear(scale, zero point) -> DequantizeLinear -> `out`: an activation made
/// quantized, as quantization tools write it.
void add_qdq(onnx::ModelProto &m, const std::string &in, const std::string &out, float scale,
             uint8_t zero_point) {
    add_float_initializer(m, out + "_scale", {}, {scale});
    add_raw_initializer<uint8_t>(m, out + "_zp", kUInt8, {}, {zero_point});
    add_node(m, "QuantizeLinear", {in, out + "_scale", out + "_zp"}, {out + "_q"});
    add_node(m, "DequantizeLinear", {out + "_q", out + "_scale", out + "_zp"}, {out});
}

/// Weights of `dims` (output channels first, or columns last when `axis` is 1) as int8 with
/// one scale per index of `axis`, and their DequantizeLinear into `out`.
void add_weights(onnx::ModelProto &m, const std::string &out, const std::vector<int64_t> &dims,
                 int64_t axis, unsigned seed) {
    int64_t n = 1;
    for (int64_t d : dims)
        n *= d;
    std::vector<int8_t> q(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++)
        q[static_cast<size_t>(i)] = static_cast<int8_t>((i * 37 + seed * 11) % 255 - 127);
    const int64_t channels = dims[static_cast<size_t>(axis)];
    std::vector<float> scales;
    for (int64_t c = 0; c < channels; c++)
        scales.push_back(0.002f + 0.0005f * static_cast<float>((c + seed) % 5));
    add_raw_initializer<int8_t>(m, out + "_q", kInt8, dims, q);
    add_float_initializer(m, out + "_scale", {channels}, scales);
    auto *dq = add_node(m, "DequantizeLinear", {out + "_q", out + "_scale"}, {out});
    add_int_attr(dq, "axis", axis);
}

/// Runs the model at `path` on `x` with and without the rewrite; returns the largest difference
/// of output "y" in units of `step`, and the share of elements that differ.
std::pair<double, double> compare(const std::string &path, const Buffer<float> &x, double step) {
    std::vector<Buffer<float>> ys;
    for (bool fuse : {true, false}) {
        nn::ModelOptions o;
        o.fuse_quantized = fuse;
        nn::Model model = nn::Model::load(path, o);
        ys.push_back(model.run({{"x", x}}).at("y"));
    }
    double worst = 0;
    int64_t differ = 0;
    for (int64_t i = 0; i < ys[0].number_of_elements(); i++) {
        const double d = std::abs(ys[0].data()[i] - ys[1].data()[i]) / step;
        worst = std::max(worst, d);
        differ += d > 1e-3;
    }
    return {worst, static_cast<double>(differ) / static_cast<double>(ys[0].number_of_elements())};
}

std::map<std::string, int> op_counts(const nn::graph::Graph &g) {
    std::map<std::string, int> counts;
    for (const nn::graph::Node &n : g.nodes)
        counts[n.op_type]++;
    return counts;
}

TEST(NNQdqFusion, ConvGroupsBecomeQLinearConv) {
    // Conv (int32 bias) -> Relu -> Q, then Conv (float bias) -> Clip -> Q, then a float output.
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", kFloat, {1, 8, 10, 12});
    add_qdq(m, "x", "xq", 0.02f, 128);
    add_weights(m, "w1", {16, 8, 3, 3}, 0, 1);
    std::vector<int32_t> b1;
    for (int c = 0; c < 16; c++)
        b1.push_back(c * 97 - 700);
    add_raw_initializer<int32_t>(m, "b1_q", kInt32, {16}, b1);
    std::vector<float> b1_scale;
    for (int c = 0; c < 16; c++)
        b1_scale.push_back(0.02f * (0.002f + 0.0005f * static_cast<float>((c + 1) % 5)));
    add_float_initializer(m, "b1_scale", {16}, b1_scale);
    auto *b1dq = add_node(m, "DequantizeLinear", {"b1_q", "b1_scale"}, {"b1"});
    add_int_attr(b1dq, "axis", 0);
    auto *c1 = add_node(m, "Conv", {"xq", "w1", "b1"}, {"c1"}, "conv1");
    add_ints_attr(c1, "pads", {1, 1, 1, 1});
    add_node(m, "Relu", {"c1"}, {"r1"});
    add_qdq(m, "r1", "a1", 0.03f, 10);  // a zero point above 0: the Relu is a Max
    add_weights(m, "w2", {6, 16, 3, 3}, 0, 2);
    add_float_initializer(m, "b2", {6}, {0.1f, -0.2f, 0.3f, 0.0f, -0.05f, 0.25f});
    auto *c2 = add_node(m, "Conv", {"a1", "w2", "b2"}, {"c2"}, "conv2");
    add_ints_attr(c2, "strides", {2, 2});
    add_float_initializer(m, "lo", {}, {-0.5f});
    add_float_initializer(m, "hi", {}, {0.75f});
    add_node(m, "Clip", {"c2", "lo", "hi"}, {"r2"});
    add_qdq(m, "r2", "y", 0.01f, 100);
    add_output(m, "y", kFloat, {1, 6, 4, 5});

    test::TempDirectory dir;
    const std::string path = dir.path() + "/qdq_conv.onnx";
    save_model(m, path);

    nn::graph::Graph g = nn::onnx::read_model(path);
    const nn::graph::QdqCounts counts = nn::graph::fuse_quantized_groups(g);
    EXPECT_EQ(counts.convs, 2);
    std::map<std::string, int> ops = op_counts(g);
    EXPECT_EQ(ops["QLinearConv"], 2);
    EXPECT_EQ(ops["Conv"], 0);
    EXPECT_EQ(ops["Relu"] + ops["Clip"], 0);
    EXPECT_EQ(ops["Max"], 2);  // the Relu's and the Clip's lower bound
    EXPECT_EQ(ops["Min"], 1);
    // The input's quantization and the output's dequantization stay.
    EXPECT_EQ(ops["QuantizeLinear"], 1);
    EXPECT_EQ(ops["DequantizeLinear"], 1);

    Buffer<float> x = test::random_buffer({12, 10, 8, 1}, 7, -2.0f, 2.5f);
    auto [worst, share] = compare(path, x, 0.01);
    EXPECT_LE(worst, 1.0 + 1e-6);
    EXPECT_LT(share, 0.05);
}

TEST(NNQdqFusion, MatMulGroupsBecomeIntegerProducts) {
    // A Linear layer (MatMul + bias, weights per column) and a MatMul of two activations.
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", kFloat, {5, 24});
    add_qdq(m, "x", "xq", 0.015f, 120);
    add_weights(m, "w", {24, 20}, 1, 3);
    std::vector<float> bias;
    for (int c = 0; c < 20; c++)
        bias.push_back(0.05f * static_cast<float>(c % 7) - 0.1f);
    add_float_initializer(m, "bias", {20}, bias);
    add_node(m, "MatMul", {"xq", "w"}, {"mm"}, "linear");
    add_node(m, "Add", {"mm", "bias"}, {"lin"});
    add_node(m, "Relu", {"lin"}, {"act"});
    add_qdq(m, "act", "h", 0.004f, 0);
    // h (5, 20) times h's transpose (20, 5): B is computed, per-tensor.
    add_node(m, "Transpose", {"h"}, {"ht_f"});
    add_qdq(m, "ht_f", "ht", 0.004f, 0);
    add_node(m, "MatMul", {"h", "ht"}, {"gram"}, "gram");
    add_qdq(m, "gram", "y", 0.002f, 3);
    add_output(m, "y", kFloat, {5, 5});

    test::TempDirectory dir;
    const std::string path = dir.path() + "/qdq_matmul.onnx";
    save_model(m, path);

    nn::graph::Graph g = nn::onnx::read_model(path);
    const nn::graph::QdqCounts counts = nn::graph::fuse_quantized_groups(g);
    EXPECT_EQ(counts.linears, 1);
    EXPECT_EQ(counts.matmuls, 1);
    std::map<std::string, int> ops = op_counts(g);
    EXPECT_EQ(ops["MatMul"], 0);
    EXPECT_EQ(ops["MatMulInteger"], 1);
    EXPECT_EQ(ops["QLinearMatMul"], 1);

    Buffer<float> x = test::random_buffer({24, 5}, 11, -1.0f, 2.0f);
    auto [worst, share] = compare(path, x, 0.002);
    EXPECT_LE(worst, 1.0 + 1e-6);
    EXPECT_LT(share, 0.2);
}

TEST(NNQdqFusion, GroupsWhoseFloatValuesAreReadElsewhereStayFloat) {
    // The Conv's float result is also a graph output: the group cannot become integer.
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", kFloat, {1, 4, 6, 6});
    add_qdq(m, "x", "xq", 0.02f, 128);
    add_weights(m, "w", {4, 4, 1, 1}, 0, 5);
    add_node(m, "Conv", {"xq", "w"}, {"c"}, "conv");
    add_qdq(m, "c", "y", 0.01f, 128);
    add_output(m, "y", kFloat, {1, 4, 6, 6});
    add_output(m, "c", kFloat, {1, 4, 6, 6});
    test::TempDirectory dir;
    const std::string path = dir.path() + "/kept.onnx";
    save_model(m, path);
    nn::graph::Graph g = nn::onnx::read_model(path);
    EXPECT_EQ(nn::graph::fuse_quantized_groups(g).convs, 0);
    EXPECT_EQ(op_counts(g)["Conv"], 1);
}

}  // namespace
