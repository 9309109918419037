// Graph rewrites (graph/Rewrite.h): batch norms folded into the Conv, ConvTranspose or Gemm
// before them, Pads of zeros folded into the Convs after them. Each model runs twice: as it is
// (folded: fewer pipelines) and with the intermediate value also a graph output, which keeps
// it from being folded; the two must agree.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "NNTestUtil.h"
#include "OnnxModels.h"
#include "common/TempDirectory.h"
#include "dsl/nn/Model.h"

namespace {

using namespace dsl;
using namespace dsl_test;

constexpr int kFloat = onnx::TensorProto::FLOAT;

std::vector<float> values(size_t n, float seed, float lo = -1.0f, float hi = 1.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = lo + (hi - lo) * 0.5f * (1.0f + std::sin(seed + 1.37f * static_cast<float>(i)));
    return v;
}

/// Adds a BatchNormalization of `channels` channels from `in` to `out`, with constants.
void add_batch_norm(onnx::ModelProto &m, const std::string &in, const std::string &out,
                    int64_t channels) {
    const size_t c = static_cast<size_t>(channels);
    add_float_initializer(m, "bn_scale", {channels}, values(c, 0.1f, 0.5f, 2.0f));
    add_float_initializer(m, "bn_shift", {channels}, values(c, 0.7f));
    add_float_initializer(m, "bn_mean", {channels}, values(c, 1.9f));
    add_float_initializer(m, "bn_var", {channels}, values(c, 2.3f, 0.2f, 3.0f));
    auto *bn = add_node(m, "BatchNormalization", {in, "bn_scale", "bn_shift", "bn_mean", "bn_var"},
                        {out}, "bn");
    auto *eps = bn->add_attribute();
    eps->set_name("epsilon");
    eps->set_type(onnx::AttributeProto::FLOAT);
    eps->set_f(1e-3f);
}

/// Loads the model `build(keep)` makes twice (keep = false: foldable; keep = true: the
/// intermediate is also an output) and compares output "y" on `x`; returns the folded model's
/// pipeline count and the kept one's.
std::pair<int, int> compare_folded(const std::function<onnx::ModelProto(bool)> &build,
                                   const Buffer<float> &x) {
    test::TempDirectory dir;
    std::vector<Buffer<float>> ys;
    std::vector<int> pipelines;
    for (bool keep : {false, true}) {
        const std::string path = dir.path() + (keep ? "/kept.onnx" : "/folded.onnx");
        save_model(build(keep), path);
        nn::Model model = nn::Model::load(path);
        ys.push_back(model.run({{"x", x}}).at("y"));
        pipelines.push_back(model.compiled_pipelines());
    }
    EXPECT_EQ(ys[0].number_of_elements(), ys[1].number_of_elements());
    float worst = 0;
    // Both are dense buffers of one shape.
    for (int64_t i = 0; i < ys[1].number_of_elements(); i++) {
        const float a = ys[0].data()[i], b = ys[1].data()[i];
        worst = std::max(worst, std::abs(a - b) / (1.0f + std::abs(b)));
    }
    EXPECT_LT(worst, 1e-5f);
    return {pipelines[0], pipelines[1]};
}

TEST(NNRewrite, BatchNormFoldsIntoConv) {
    auto build = [](bool keep) {
        onnx::ModelProto m = make_model(15);
        add_input(m, "x", kFloat, {1, 3, 9, 11});
        add_output(m, "y", kFloat, {1, 5, 9, 11});
        if (keep) add_output(m, "c", kFloat, {1, 5, 9, 11});
        add_float_initializer(m, "w", {5, 3, 3, 3}, values(5 * 3 * 3 * 3, 0.4f));
        add_float_initializer(m, "b", {5}, values(5, 3.1f));
        auto *conv = add_node(m, "Conv", {"x", "w", "b"}, {"c"}, "conv");
        add_ints_attr(conv, "pads", {1, 1, 1, 1});
        add_batch_norm(m, "c", "y", 5);
        return m;
    };
    auto [folded, kept] = compare_folded(build, test::random_buffer({11, 9, 3, 1}, 3));
    EXPECT_EQ(folded, 1);
    EXPECT_EQ(kept, 2);
}

TEST(NNRewrite, BatchNormFoldsIntoGroupedConvTransposeWithoutBias) {
    auto build = [](bool keep) {
        onnx::ModelProto m = make_model(15);
        add_input(m, "x", kFloat, {2, 4, 5, 6});
        add_output(m, "y", kFloat, {2, 6, 10, 12});
        if (keep) add_output(m, "c", kFloat, {2, 6, 10, 12});
        // Two groups: weights (in 4, out per group 3, 2, 2).
        add_float_initializer(m, "w", {4, 3, 2, 2}, values(4 * 3 * 2 * 2, 1.1f));
        auto *conv = add_node(m, "ConvTranspose", {"x", "w"}, {"c"}, "deconv");
        add_ints_attr(conv, "strides", {2, 2});
        add_int_attr(conv, "group", 2);
        add_batch_norm(m, "c", "y", 6);
        return m;
    };
    auto [folded, kept] = compare_folded(build, test::random_buffer({6, 5, 4, 2}, 5));
    EXPECT_EQ(folded, 1);
    EXPECT_EQ(kept, 2);
}

TEST(NNRewrite, BatchNormFoldsIntoGemmEitherLayout) {
    for (int trans_b : {0, 1}) {
        auto build = [trans_b](bool keep) {
            onnx::ModelProto m = make_model(15);
            add_input(m, "x", kFloat, {3, 7});
            add_output(m, "y", kFloat, {3, 4});
            if (keep) add_output(m, "c", kFloat, {3, 4});
            add_float_initializer(m, "w",
                                  trans_b ? std::vector<int64_t>{4, 7} : std::vector<int64_t>{7, 4},
                                  values(28, 2.2f));
            add_float_initializer(m, "b", {1, 4}, values(4, 0.3f));
            auto *gemm = add_node(m, "Gemm", {"x", "w", "b"}, {"c"}, "fc");
            add_int_attr(gemm, "transB", trans_b);
            auto *beta = gemm->add_attribute();
            beta->set_name("beta");
            beta->set_type(onnx::AttributeProto::FLOAT);
            beta->set_f(0.5f);
            add_batch_norm(m, "c", "y", 4);
            return m;
        };
        SCOPED_TRACE("transB " + std::to_string(trans_b));
        auto [folded, kept] = compare_folded(build, test::random_buffer({7, 3}, 9));
        EXPECT_EQ(folded, 1);
        EXPECT_EQ(kept, 2);
    }
}

TEST(NNRewrite, ZeroPadFoldsIntoTheConvsReadingIt) {
    auto build = [](bool keep) {
        onnx::ModelProto m = make_model(13);
        add_input(m, "x", kFloat, {1, 2, 8, 7});
        add_output(m, "y", kFloat, {1, 3, 9, 5});
        add_output(m, "z", kFloat, {1, 3, 8, 4});
        if (keep) add_output(m, "p", kFloat, {1, 2, 11, 9});
        add_int64_initializer(m, "pads", {8}, {0, 0, 1, 2, 0, 0, 2, 0});
        add_node(m, "Pad", {"x", "pads"}, {"p"}, "pad");
        add_float_initializer(m, "w", {3, 2, 3, 3}, values(3 * 2 * 3 * 3, 0.9f));
        add_node(m, "Conv", {"p", "w"}, {"y"}, "conv1");
        // A second reader with pads of its own and a stride.
        auto *conv2 = add_node(m, "Conv", {"p", "w"}, {"z"}, "conv2");
        add_ints_attr(conv2, "pads", {1, 0, 0, 1});
        add_ints_attr(conv2, "strides", {1, 2});
        return m;
    };
    auto [folded, kept] = compare_folded(build, test::random_buffer({7, 8, 2, 1}, 11));
    EXPECT_EQ(folded, 2);
    EXPECT_EQ(kept, 3);
}

TEST(NNRewrite, ReflectPadIsNotFolded) {
    auto build = [](bool keep) {
        onnx::ModelProto m = make_model(13);
        add_input(m, "x", kFloat, {1, 1, 5, 5});
        add_output(m, "y", kFloat, {1, 1, 5, 5});
        if (keep) add_output(m, "p", kFloat, {1, 1, 7, 7});
        add_int64_initializer(m, "pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
        auto *pad = add_node(m, "Pad", {"x", "pads"}, {"p"}, "pad");
        auto *mode = pad->add_attribute();
        mode->set_name("mode");
        mode->set_type(onnx::AttributeProto::STRING);
        mode->set_s("reflect");
        add_float_initializer(m, "w", {1, 1, 3, 3}, values(9, 0.2f));
        add_node(m, "Conv", {"p", "w"}, {"y"}, "conv");
        return m;
    };
    auto [folded, kept] = compare_folded(build, test::random_buffer({5, 5, 1, 1}, 13));
    EXPECT_EQ(folded, 2);
    EXPECT_EQ(kept, 2);
}

}  // namespace
