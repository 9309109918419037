// The graph compiler on models built here: symbolic sizes (one compile, two input sizes),
// constants folded while compiling, and hostile files, each a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <tuple>

#include "OnnxModels.h"
#include "common/ErrorCheck.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/Npy.h"
#include "lang/JITCompile.h"
#include "lang/Realize.h"

namespace {

using namespace dsl;
using namespace dsl_test;

constexpr int kFloat = onnx::TensorProto::FLOAT;

/// y = relu(x * w + b) with x of shape (N, 5) and w, b initializers of shape (5).
onnx::ModelProto scale_shift_relu() {
    onnx::ModelProto m = make_model();
    add_input(m, "x", kFloat, {"N", 5});
    add_output(m, "y", kFloat, {"N", 5});
    add_float_initializer(m, "w", {5}, {1, -2, 3, -4, 5});
    add_float_initializer(m, "b", {5}, {0.5f, 0.5f, -0.5f, -0.5f, 0});
    add_node(m, "Mul", {"x", "w"}, {"xw"});
    add_node(m, "Add", {"xw", "b"}, {"xwb"});
    add_node(m, "Relu", {"xwb"}, {"y"});
    return m;
}

TEST(NNModel, SymbolicBatchRunsAtTwoSizesWithoutCompilingAgain) {
    test::TempDirectory dir;
    std::string path = dir.path() + "/m.onnx";
    save_model(scale_shift_relu(), path);
    nn::Model model = nn::Model::load(path);
    ASSERT_EQ(model.inputs().size(), 1u);
    EXPECT_EQ(model.inputs()[0].shape, (std::vector<std::string>{"N", "5"}));
    // Mul, Add and Relu are fused into one pipeline.
    const int compiled = model.compiled_pipelines();
    EXPECT_EQ(compiled, 1);
    const float w[5] = {1, -2, 3, -4, 5}, b[5] = {0.5f, 0.5f, -0.5f, -0.5f, 0};
    for (int n : {1, 17}) {
        Buffer<float> x(5, n);
        x.fill([](int i, int j) { return float(i - 2) * 0.75f + float(j); });
        auto out = model.run({{"x", x}});
        Buffer<float> y = out.at("y");
        ASSERT_EQ(y.extent(1), n);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < 5; i++)
                ASSERT_FLOAT_EQ(y(i, j), std::max(0.0f, x(i, j) * w[i] + b[i]));
    }
    EXPECT_EQ(model.compiled_pipelines(), compiled);
}

/// `mp` saved to a file and loaded from it (Model::load reads the file whole).
nn::Model load_model(const onnx::ModelProto &mp) {
    test::TempDirectory dir;
    const std::string path = dir.path() + "/model.onnx";
    save_model(mp, path);
    return nn::Model::load(path);
}

/// The weights and bias of a pointwise convolution of `c` channels into `c` (the model's "w" and
/// "b"), and its value at a point of x.
struct PointwiseWeights {
    int c;
    std::vector<float> w, b;

    explicit PointwiseWeights(int channels)
        : c(channels),
          w(static_cast<size_t>(channels * channels)),
          b(static_cast<size_t>(channels)) {
        for (int i = 0; i < c * c; i++)
            w[static_cast<size_t>(i)] = float((i * 7) % 11 - 5) * 0.0625f;
        for (int i = 0; i < c; i++)
            b[static_cast<size_t>(i)] = float(i % 5) * 0.25f - 0.5f;
    }
    /// A model of input x and output y (1 x c x H x W) whose first node is the convolution of
    /// x into "conv"; the caller adds the nodes from "conv" to "y".
    onnx::ModelProto model() const {
        onnx::ModelProto mp = make_model();
        add_input(mp, "x", kFloat, {1, c, "H", "W"});
        add_output(mp, "y", kFloat, {1, c, "H", "W"});
        add_float_initializer(mp, "w", {c, c, 1, 1}, w);
        add_float_initializer(mp, "b", {c}, b);
        add_node(mp, "Conv", {"x", "w", "b"}, {"conv"});
        return mp;
    }
    /// Output channel o at column j (from the crop's x0) of row i.
    float at(const Buffer<float> &x, int x0, int j, int i, int o) const {
        float acc = b[static_cast<size_t>(o)];
        for (int k = 0; k < c; k++)
            acc += x(x0 + j, i, k, 0) * w[static_cast<size_t>(o * c + k)];
        return acc;
    }
};

// A pointwise convolution of 40 channels with a residual add and Relu (one kernel, its rows
// joined) at two map sizes from one compile, the second given as a crop of a larger buffer: its
// rows are not dense and its coordinates do not start at 0, and the model reads a dense copy.
TEST(NNModel, PointwiseConvRunsOnDenseAndCroppedInputs) {
    constexpr int c = 40;
    const PointwiseWeights pw(c);
    onnx::ModelProto mp = pw.model();
    add_node(mp, "Add", {"conv", "x"}, {"sum"});
    add_node(mp, "Relu", {"sum"}, {"y"});
    nn::Model model = load_model(mp);
    EXPECT_EQ(model.compiled_pipelines(), 1);
    for (auto [width, height, cropped] : {std::tuple{40, 9, false}, std::tuple{13, 3, true}}) {
        Buffer<float> whole(width + 5, height, c, 1);
        whole.fill([](int i, int j, int k, int) { return float((i * 3 + j * 5 + k) % 13) - 6.0f; });
        Buffer<float> x = cropped ? whole.cropped(0, 2, width) : whole;
        const int x0 = x.dim(0).min(), wd = x.extent(0);
        Buffer<float> y = model.run({{"x", x}}).at("y");
        ASSERT_EQ(y.extent(0), wd);
        int bad = 0;
        for (int o = 0; o < c; o++)
            for (int i = 0; i < height; i++)
                for (int j = 0; j < wd; j++) {
                    float acc = pw.at(x, x0, j, i, o) + x(x0 + j, i, o, 0);
                    bad += std::fabs(y(j, i, o, 0) - std::max(acc, 0.0f)) > 1e-3f;
                }
        EXPECT_EQ(bad, 0) << "width " << wd << (cropped ? ", cropped" : "");
    }
}

// A pointwise convolution, a per-channel scale and shift, then a hard-swish written out as ONNX
// exporters write it, v * Clip(v + 3, 0, 6) / 6: v is read by two nodes that both end in the
// Div, so the whole chain is one kernel (the convolution's; that its schedule passes through
// both branches is NNElementwise.BranchesOfOneScheduledOperatorKeepItsSchedule's to check). A
// Relu and a Neg of one value that are both outputs end in two
// kernels, so that value gets a kernel of its own.
TEST(NNModel, AHardSwishOverAConvolutionIsOneKernel) {
    constexpr int c = 40;
    const PointwiseWeights pw(c);
    onnx::ModelProto mp = pw.model();
    std::vector<float> scale(c), shift(c);
    for (int i = 0; i < c; i++) {
        scale[static_cast<size_t>(i)] = 0.5f + float(i % 3) * 0.25f;
        shift[static_cast<size_t>(i)] = float(i % 4) - 1.5f;
    }
    add_float_initializer(mp, "scale", {c, 1, 1}, scale);
    add_float_initializer(mp, "shift", {c, 1, 1}, shift);
    add_float_initializer(mp, "three", {}, {3.0f});
    add_float_initializer(mp, "zero", {}, {0.0f});
    add_float_initializer(mp, "six", {}, {6.0f});
    add_node(mp, "Mul", {"scale", "conv"}, {"scaled"});
    add_node(mp, "Add", {"scaled", "shift"}, {"v"});
    add_node(mp, "Add", {"v", "three"}, {"v3"});
    add_node(mp, "Clip", {"v3", "zero", "six"}, {"clipped"});
    add_node(mp, "Mul", {"v", "clipped"}, {"product"});
    add_node(mp, "Div", {"product", "six"}, {"y"});
    nn::Model model = load_model(mp);
    EXPECT_EQ(model.compiled_pipelines(), 1);
    for (auto [width, height] : {std::pair{40, 9}, std::pair{13, 3}}) {
        Buffer<float> x(width, height, c, 1);
        x.fill([](int i, int j, int k, int) { return float((i * 3 + j * 5 + k) % 13) - 6.0f; });
        Buffer<float> y = model.run({{"x", x}}).at("y");
        int bad = 0;
        for (int o = 0; o < c; o++)
            for (int i = 0; i < height; i++)
                for (int j = 0; j < width; j++) {
                    const float acc = pw.at(x, 0, j, i, o);
                    const float v =
                        acc * scale[static_cast<size_t>(o)] + shift[static_cast<size_t>(o)];
                    const float want = v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
                    bad += std::fabs(y(j, i, o, 0) - want) > 1e-3f * (1.0f + std::fabs(want));
                }
        EXPECT_EQ(bad, 0) << "width " << width;
    }

    onnx::ModelProto two = make_model();
    add_input(two, "x", kFloat, {"N", 5});
    add_output(two, "r", kFloat, {"N", 5});
    add_output(two, "n", kFloat, {"N", 5});
    add_float_initializer(two, "one", {}, {1.0f});
    add_node(two, "Add", {"x", "one"}, {"v"});
    add_node(two, "Relu", {"v"}, {"r"});
    add_node(two, "Neg", {"v"}, {"n"});
    nn::Model split = load_model(two);
    EXPECT_EQ(split.compiled_pipelines(), 3);
    Buffer<float> x(5, 2);
    x.fill([](int i, int j) { return float(i) - 2.5f * float(j); });
    auto out = split.run({{"x", x}});
    Buffer<float> r = out.at("r"), n = out.at("n");
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 5; i++) {
            EXPECT_EQ(r(i, j), std::max(x(i, j) + 1.0f, 0.0f));
            EXPECT_EQ(n(i, j), -(x(i, j) + 1.0f));
        }
}

// Opset 11's Softmax over its last axis (taken as is, not flattened) and over axis 1 of a 3-D
// tensor (the trailing axes flattened into one), and Pow by a constant 2 (taken as x * x),
// against loops, at two sizes of the symbolic axis from one compile (the second run of a size
// right after the first reuses the shapes it computed; the next size computes them anew).
TEST(NNModel, OldSoftmaxAndASquareMatchLoopsAtTwoSizes) {
    test::TempDirectory dir;
    std::string path = dir.path() + "/m.onnx";
    onnx::ModelProto m = make_model(11);
    add_input(m, "x", kFloat, {2, "N", 3});
    add_output(m, "last", kFloat, {2, "N", 3});
    add_output(m, "all", kFloat, {2, "N", 3});
    add_float_initializer(m, "two", {}, {2.0f});
    add_node(m, "Pow", {"x", "two"}, {"sq"});
    add_int_attr(add_node(m, "Softmax", {"sq"}, {"last"}), "axis", -1);
    add_int_attr(add_node(m, "Softmax", {"x"}, {"all"}), "axis", 1);
    save_model(m, path);
    nn::Model model = nn::Model::load(path);
    const int compiled = model.compiled_pipelines();
    for (int n : {5, 5, 18}) {
        Buffer<float> x(3, n, 2);
        x.fill([](int i, int j, int k) { return 0.25f * float(i) - 0.125f * float(j) + float(k); });
        auto out = model.run({{"x", x}});
        Buffer<float> last = out.at("last"), all = out.at("all");
        ASSERT_EQ(last.extent(1), n);
        for (int k = 0; k < 2; k++) {
            double total = 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < 3; i++)
                    total += std::exp(double(x(i, j, k)));
            for (int j = 0; j < n; j++) {
                double row = 0;
                for (int i = 0; i < 3; i++)
                    row += std::exp(double(x(i, j, k)) * x(i, j, k));
                for (int i = 0; i < 3; i++) {
                    EXPECT_NEAR(last(i, j, k), std::exp(double(x(i, j, k)) * x(i, j, k)) / row,
                                1e-5);
                    EXPECT_NEAR(all(i, j, k), std::exp(double(x(i, j, k))) / total, 1e-5);
                }
            }
        }
    }
    EXPECT_EQ(model.compiled_pipelines(), compiled);
}

// ConvInteger and MatMulInteger with their weights as initializers take the dot-product kernels
// (integer_conv, integer_matmul: weights packed when the model is loaded), at two sizes of the
// symbolic axes from one compile, against loops of ONNX's arithmetic.
TEST(NNModel, IntegerConvAndMatMulWithConstantWeightsMatchLoops) {
    test::TempDirectory dir;
    std::string path = dir.path() + "/m.onnx";
    onnx::ModelProto m = make_model(13);
    const int kU8 = onnx::TensorProto::UINT8, kI8 = onnx::TensorProto::INT8,
              kI32 = onnx::TensorProto::INT32;
    add_input(m, "x", kU8, {1, 6, "H", "W"});
    add_input(m, "a", kU8, {"M", 24});
    add_output(m, "y", kI32, {1, 10, "H", "W"});
    add_output(m, "z", kI32, {"M", 20});
    std::vector<int8_t> w(10 * 6 * 3 * 3), b(24 * 20);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = static_cast<int8_t>(int(i * 37 % 255) - 127);
    for (size_t i = 0; i < b.size(); i++)
        b[i] = static_cast<int8_t>(int(i * 53 % 255) - 127);
    add_raw_initializer(m, "w", kI8, {10, 6, 3, 3}, w);
    add_raw_initializer(m, "b", kI8, {24, 20}, b);
    add_raw_initializer(m, "xz", kU8, {}, std::vector<uint8_t>{7});
    add_raw_initializer(m, "az", kU8, {}, std::vector<uint8_t>{200});
    add_ints_attr(add_node(m, "ConvInteger", {"x", "w", "xz"}, {"y"}), "pads", {1, 1, 1, 1});
    add_node(m, "MatMulInteger", {"a", "b", "az"}, {"z"});
    save_model(m, path);
    nn::Model model = nn::Model::load(path);
    const int compiled = model.compiled_pipelines();
    for (auto [h, wd, rows] : {std::tuple(9, 21, 5), std::tuple(4, 37, 17)}) {
        Buffer<uint8_t> x(wd, h, 6, 1), a(24, rows);
        x.fill([](int i, int j, int c, int) { return uint8_t((i * 31 + j * 17 + c * 7) % 256); });
        a.fill([](int k, int r) { return uint8_t((k * 13 + r * 29) % 256); });
        auto out = model.run({{"x", x}, {"a", a}});
        Buffer<int32_t> y = out.at("y"), z = out.at("z");
        int wrong = 0;
        for (int o = 0; o < 10; o++)
            for (int j = 0; j < h; j++)
                for (int i = 0; i < wd; i++) {
                    int32_t want = 0;
                    for (int c = 0; c < 6; c++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++) {
                                int iy = j + ky - 1, ix = i + kx - 1;
                                bool in = iy >= 0 && iy < h && ix >= 0 && ix < wd;
                                int32_t v = in ? int32_t(x(ix, iy, c, 0)) : 7;
                                want += (v - 7) * w[size_t(((o * 6 + c) * 3 + ky) * 3 + kx)];
                            }
                    wrong += y(i, j, o, 0) != want;
                }
        for (int r = 0; r < rows; r++)
            for (int n = 0; n < 20; n++) {
                int32_t want = 0;
                for (int k = 0; k < 24; k++)
                    want += (int32_t(a(k, r)) - 200) * b[size_t(k * 20 + n)];
                wrong += z(n, r) != want;
            }
        EXPECT_EQ(wrong, 0) << h << "x" << wd << ", " << rows << " rows";
    }
    EXPECT_EQ(model.compiled_pipelines(), compiled);
}

// The model's Funcs are named the same at every load, so a second load of one model in one
// process finds each of its pipelines in the disk cache (the key holds the names) instead of
// compiling it again.
TEST(NNModel, ASecondLoadInOneProcessCompilesNothing) {
    test::TempDirectory dir, cache;
    test::ScopedEnvironmentVariable cache_dir("DSL_CACHE_DIR", cache.path());
    std::string path = dir.path() + "/m.onnx";
    onnx::ModelProto m = make_model();
    add_input(m, "x", kFloat, {1, 2, "H", "W"});
    add_output(m, "y", kFloat, {1, 3, "H", "W"});
    add_float_initializer(m, "w", {3, 2, 3, 3}, std::vector<float>(54, 0.25f));
    add_float_initializer(m, "b", {3}, {1, 2, 3});
    auto *conv = add_node(m, "Conv", {"x", "w", "b"}, {"c"});
    add_ints_attr(conv, "pads", {1, 1, 1, 1});
    add_node(m, "Relu", {"c"}, {"r"});
    add_int_attr(add_node(m, "Softmax", {"r"}, {"y"}), "axis", 1);
    save_model(m, path);
    // The cache's entries (compiled objects, not temporary files).
    auto entries = [&] {
        int n = 0;
        for (const std::string &name : test::list_directory(cache.path()))
            n += name.size() > 2 && name.compare(name.size() - 2, 2, ".o") == 0 && name[0] != '.';
        return n;
    };
    nn::Model first = nn::Model::load(path);
    const int compiled = entries();
    ASSERT_GT(compiled, 0);
    nn::Model second = nn::Model::load(path);
    EXPECT_EQ(entries(), compiled) << "the second load compiled pipelines again";
    Buffer<float> x(9, 7, 2, 1);
    x.fill([](int i, int j, int c, int) { return 0.1f * float(i - j) + float(c); });
    Buffer<float> a = first.run({{"x", x}}).at("y"), b = second.run({{"x", x}}).at("y");
    int differ = 0;
    a.for_each_element(
        [&](int i, int j, int c, int n) { differ += a(i, j, c, n) != b(i, j, c, n); });
    EXPECT_EQ(differ, 0);
}

// Two layers of the same shapes and operators differ only in their names (of nodes, tensors
// and weights): one compiled function serves both (lang::KeyNames::Canonical), each reading its
// own inputs, with the disk cache on or off.
TEST(NNModel, LayersThatDifferInNamesShareOneCompiledFunction) {
    test::TempDirectory dir;
    const std::string path = dir.path() + "/twin.onnx";
    onnx::ModelProto m = make_model();
    add_input(m, "x", kFloat, {1, 4, "H", "W"});
    add_output(m, "y", kFloat, {1, 4, "H", "W"});
    std::vector<float> w1(16), w2(16), b1{1, -2, 0.5f, 3}, b2{-1, 2, 0.25f, -3};
    for (int i = 0; i < 16; i++) {
        w1[size_t(i)] = 0.1f * float(i % 5) - 0.2f;
        w2[size_t(i)] = 0.3f - 0.05f * float(i % 7);
    }
    add_float_initializer(m, "first.weight", {4, 4, 1, 1}, w1);
    add_float_initializer(m, "first.bias", {4}, b1);
    add_float_initializer(m, "second.weight", {4, 4, 1, 1}, w2);
    add_float_initializer(m, "second.bias", {4}, b2);
    add_node(m, "Conv", {"x", "first.weight", "first.bias"}, {"c1"});
    add_node(m, "Relu", {"c1"}, {"r1"});
    add_node(m, "Conv", {"r1", "second.weight", "second.bias"}, {"c2"});
    add_node(m, "Relu", {"c2"}, {"y"});
    save_model(m, path);
    Buffer<float> x(6, 5, 4, 1);
    x.fill([](int i, int j, int c, int) { return 0.5f * float(i - j) + float(c) - 1.0f; });
    // Per pixel: relu(W2 relu(W1 x + b1) + b2).
    auto layer = [](const std::vector<float> &w, const std::vector<float> &b, const float *in,
                    float *out) {
        for (int o = 0; o < 4; o++) {
            float s = b[size_t(o)];
            for (int c = 0; c < 4; c++)
                s += w[size_t(o * 4 + c)] * in[c];
            out[o] = std::max(s, 0.0f);
        }
    };
    for (const char *cache : {"off", "dir"}) {
        test::TempDirectory cache_dir;
        test::ScopedEnvironmentVariable env("DSL_CACHE_DIR",
                                            std::string(cache) == "off" ? "off" : cache_dir.path());
        const int64_t shared = lang::PipelineCompilation::shared_compilations();
        nn::Model model = nn::Model::load(path);
        EXPECT_EQ(lang::PipelineCompilation::shared_compilations(), shared + 1) << cache;
        Buffer<float> y = model.run({{"x", x}}).at("y");
        int wrong = 0;
        for (int j = 0; j < 5; j++) {
            for (int i = 0; i < 6; i++) {
                float in[4], mid[4], want[4];
                for (int c = 0; c < 4; c++)
                    in[c] = x(i, j, c, 0);
                layer(w1, b1, in, mid);
                layer(w2, b2, mid, want);
                for (int c = 0; c < 4; c++)
                    wrong += std::abs(y(i, j, c, 0) - want[c]) > 1e-5f;
            }
        }
        EXPECT_EQ(wrong, 0) << cache;
    }
    // Compiled ahead of time, one function for both steps (nn.aot_model_c_program runs such a
    // library against the JIT's results).
    test::TempDirectory library;
    nn::StaticModelOptions options;
    options.shapes["x"] = {1, 4, 5, 6};
    const nn::StaticModel compiled =
        nn::compile_model_to_static_library(path, library.path(), options);
    EXPECT_EQ(compiled.pipelines, 1);
    EXPECT_EQ(compiled.shared_steps, 1);
}

TEST(NNModel, AKernelReadingAValueTwiceHasAKeyForTheCaches) {
    // y = (x + Relu(x)) * -x: the Relu and the Neg are fused into the kernel, which reads x
    // directly and through both producers. Its ImageParams once all had the name "in_x": such a
    // kernel has no key made from its definitions, so every load lowered it again before
    // finding it in the caches.
    test::TempDirectory dir, cache;
    test::ScopedEnvironmentVariable cache_dir("DSL_CACHE_DIR", cache.path());
    std::string path = dir.path() + "/twice.onnx";
    onnx::ModelProto m = make_model();
    add_input(m, "x", kFloat, {"N", 5});
    add_output(m, "y", kFloat, {"N", 5});
    add_node(m, "Relu", {"x"}, {"a.b"});
    add_node(m, "Neg", {"x"}, {"a_b"});
    add_node(m, "Add", {"x", "a.b"}, {"s"});
    add_node(m, "Mul", {"s", "a_b"}, {"y"});
    save_model(m, path);
    nn::Model first = nn::Model::load(path);
    // A second load finds every kernel in the disk cache by its key, lowering none.
    const uint64_t lowered = lang::jit_counters().lowerings;
    nn::Model model = nn::Model::load(path);
    EXPECT_EQ(lang::jit_counters().lowerings, lowered) << "a kernel without a key was lowered";
    Buffer<float> x(5, 3);
    x.fill([](int i, int j) { return float(i) - 2.0f * float(j); });
    Buffer<float> y = model.run({{"x", x}}).at("y");
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 5; i++) {
            const float v = x(i, j);
            EXPECT_EQ(y(i, j), (std::max(v, 0.0f) + v) * -v) << i << ", " << j;
        }
    }
}

TEST(NNModel, AProducerReadWithBroadcastingKeepsItsOwnPipeline) {
    // y = x - ReduceMean(x, axis 1): the mean is read once per row element, so fusing it would
    // recompute the reduction per element; it stays a pipeline of its own.
    test::TempDirectory dir;
    onnx::ModelProto mp = make_model(13);
    add_input(mp, "x", kFloat, {"N", 7});
    add_output(mp, "y", kFloat, {"N", 7});
    auto *mean = add_node(mp, "ReduceMean", {"x"}, {"m"});
    add_ints_attr(mean, "axes", {1});
    add_node(mp, "Sub", {"x", "m"}, {"y"});
    std::string path = dir.path() + "/center.onnx";
    save_model(mp, path);
    nn::Model model = nn::Model::load(path);
    EXPECT_EQ(model.compiled_pipelines(), 2);
    Buffer<float> x(7, 3);
    x.fill([](int i, int j) { return float(i * i - 3 * j); });
    // Twice: the second run reuses the pooled memory of the mean.
    for (int run = 0; run < 2; run++) {
        Buffer<float> y = model.run({{"x", x}}).at("y");
        for (int j = 0; j < 3; j++) {
            float m = 0;
            for (int i = 0; i < 7; i++)
                m += x(i, j) / 7;
            for (int i = 0; i < 7; i++)
                EXPECT_NEAR(y(i, j), x(i, j) - m, 1e-5);
        }
    }
    // The only intermediate is the mean: 3 floats, in one 64-byte block.
    EXPECT_EQ(model.peak_intermediate_bytes(), 64);
}

TEST(NNModel, WrongInputsAreRuntimeErrorsNamingTheInput) {
    test::TempDirectory dir;
    std::string path = dir.path() + "/m.onnx";
    save_model(scale_shift_relu(), path);
    nn::Model model = nn::Model::load(path);
    std::string m = test::message_of<RuntimeError>([&] { model.run({}); });
    EXPECT_CONTAINS(m, "input \"x\" is not given");
    m = test::message_of<RuntimeError>([&] { model.run({{"x", Buffer<float>(4, 2)}}); });
    EXPECT_CONTAINS(m, "input \"x\" has shape (2, 4) but the model takes (N, 5)");
    m = test::message_of<RuntimeError>([&] { model.run({{"x", Buffer<int>(5, 2)}}); });
    EXPECT_CONTAINS(m, "must hold float but holds int32");
}

// A model compiled for given input extents (ModelOptions::shapes): the same results as the
// model of any batch, a shape of those extents only, and extents that contradict the model's or
// name no input are compile errors naming the input.
TEST(NNModel, GivenInputShapesCompileForThoseExtentsOnly) {
    test::TempDirectory dir;
    std::string path = dir.path() + "/m.onnx";
    save_model(scale_shift_relu(), path);
    nn::ModelOptions options;
    options.shapes["x"] = {3, 5};
    nn::Model fixed = nn::Model::load(path, options);
    nn::Model any = nn::Model::load(path);
    EXPECT_EQ(fixed.inputs()[0].shape, (std::vector<std::string>{"3", "5"}));
    Buffer<float> x(5, 3);
    x.fill([](int i, int j) { return float(i - 2) * 0.75f - float(j); });
    Buffer<float> want = any.run({{"x", x}}).at("y"), got = fixed.run({{"x", x}}).at("y");
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 5; i++)
            ASSERT_EQ(got(i, j), want(i, j));
    std::string m = test::message_of<RuntimeError>([&] {
        fixed.run({{"x", Buffer<float>(5, 4)}});
    });
    EXPECT_CONTAINS(m, "input \"x\" has shape (4, 5) but the model takes (3, 5)");
    options.shapes["x"] = {3, 6};
    m = test::message_of([&] { nn::Model::load(path, options); });
    EXPECT_CONTAINS(m, "input \"x\": extent 1 is declared as 5, not 6");
    options.shapes = {{"y", {3, 5}}};
    m = test::message_of([&] { nn::Model::load(path, options); });
    EXPECT_CONTAINS(m, "a shape is given for \"y\", which is not an input");
}

TEST(NNModel, HostileFilesAreErrorsNamingTheFileAndNode) {
    test::TempDirectory dir;
    // A truncated file.
    {
        std::string good = dir.path() + "/good.onnx", cut = dir.path() + "/cut.onnx";
        save_model(scale_shift_relu(), good);
        std::ifstream in(good, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
        std::string m = test::message_of([&] { nn::Model::load(cut); });
        EXPECT_CONTAINS(m, "cut.onnx");
    }
    // An initializer whose data does not match its shape.
    {
        onnx::ModelProto mp = scale_shift_relu();
        auto *w = mp.mutable_graph()->mutable_initializer(0);
        w->set_raw_data(w->raw_data().substr(0, 8));
        std::string path = dir.path() + "/short.onnx";
        save_model(mp, path);
        std::string m = test::message_of([&] { nn::Model::load(path); });
        EXPECT_CONTAINS(m, "tensor \"w\" has 8 bytes of data but its shape and type need 20");
    }
    // A shape beyond int32.
    {
        onnx::ModelProto mp = make_model();
        add_input(mp, "x", kFloat, {int64_t(1) << 33, 2});
        add_output(mp, "y", kFloat, {int64_t(1) << 33, 2});
        add_node(mp, "Relu", {"x"}, {"y"});
        std::string path = dir.path() + "/huge.onnx";
        save_model(mp, path);
        std::string m = test::message_of([&] { nn::Model::load(path); });
        EXPECT_CONTAINS(m, "above dsl's limit of 2^31 - 1");
    }
    // A cycle, and an input that nothing produces. ONNX's checker refuses both first (it needs
    // topological order); the compiler would name the node too.
    {
        onnx::ModelProto mp = make_model();
        add_input(mp, "x", kFloat, {3});
        add_output(mp, "y", kFloat, {3});
        add_node(mp, "Add", {"x", "z"}, {"y"}, "first");
        add_node(mp, "Relu", {"y"}, {"z"}, "second");
        std::string path = dir.path() + "/cycle.onnx";
        save_model(mp, path);
        std::string m = test::message_of([&] { nn::Model::load(path); });
        EXPECT_CONTAINS(m, "cycle.onnx");
        EXPECT_CONTAINS(m, "first");
    }
    {
        onnx::ModelProto mp = make_model();
        add_input(mp, "x", kFloat, {3});
        add_output(mp, "y", kFloat, {3});
        add_node(mp, "Add", {"x", "nowhere"}, {"y"}, "adder");
        std::string path = dir.path() + "/missing.onnx";
        save_model(mp, path);
        std::string m = test::message_of([&] { nn::Model::load(path); });
        EXPECT_CONTAINS(m, "nowhere");
    }
    // An operator dsl does not have.
    {
        onnx::ModelProto mp = make_model();
        add_input(mp, "x", kFloat, {3});
        add_output(mp, "y", kFloat, {3});
        add_node(mp, "StringNormalizer", {"x"}, {"y"}, "normalizer");
        std::string path = dir.path() + "/strings.onnx";
        save_model(mp, path);
        std::string m = test::message_of([&] { nn::Model::load(path); });
        EXPECT_CONTAINS(m,
                        "node \"normalizer\" (StringNormalizer): operator StringNormalizer is not "
                        "supported");
    }
    // An operator given an input it cannot take: the node and the fix are named.
    {
        onnx::ModelProto mp = make_model();
        add_input(mp, "x", kFloat, {3});
        add_output(mp, "y", kFloat, {});
        add_node(mp, "Det", {"x"}, {"y"}, "determinant");
        std::string path = dir.path() + "/det.onnx";
        save_model(mp, path);
        std::string m = test::message_of([&] { nn::Model::load(path); });
        EXPECT_CONTAINS(m, "node \"determinant\" (Det)");
        EXPECT_CONTAINS(m, "its last two axes must be one size");
    }
}

TEST(NNModel, InputsThatDecideRanksSpecializeTheModelPerValue) {
    // Unsqueeze's axes come from the caller: the model compiles when it runs, once per value.
    test::TempDirectory dir;
    onnx::ModelProto mp = make_model(13);
    add_input(mp, "x", kFloat, {3, 4});
    add_input(mp, "axes", onnx::TensorProto::INT64, {1});
    add_output(mp, "y", kFloat, {});
    add_node(mp, "Unsqueeze", {"x", "axes"}, {"y"});
    std::string path = dir.path() + "/unsqueeze.onnx";
    save_model(mp, path);
    nn::Model model = nn::Model::load(path);
    EXPECT_EQ(model.specialized_inputs(), std::vector<std::string>{"axes"});
    Buffer<float> x(4, 3);
    x.fill([](int i, int j) { return float(i + 4 * j); });
    for (int64_t axis : {0, 2, 1, 0}) {
        Buffer<int64_t> axes(1);
        axes(0) = axis;
        Buffer<float> y = model.run({{"x", x}, {"axes", axes}}).at("y");
        ASSERT_EQ(y.dimensions(), 3);
        EXPECT_EQ(y.extent(2 - int(axis)), 1) << axis;
        EXPECT_EQ(y.number_of_elements(), 12);
    }
    // Three distinct values: three compilations of one pipeline each.
    EXPECT_EQ(model.compiled_pipelines(), 3);
}

TEST(NNModel, InitializersInExternalFilesAreReadFromBesideTheModel) {
    test::TempDirectory dir;
    onnx::ModelProto mp = make_model();
    add_input(mp, "x", kFloat, {4});
    add_output(mp, "y", kFloat, {4});
    auto *w = mp.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(4);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto kv = [&](const char *k, const std::string &v) {
        auto *e = w->add_external_data();
        e->set_key(k);
        e->set_value(v);
    };
    kv("location", "weights.bin");
    kv("offset", "8");
    kv("length", "16");
    add_node(mp, "Mul", {"x", "w"}, {"y"});
    save_model(mp, dir.path() + "/ext.onnx");
    // 8 bytes of something else, then the four floats.
    const float values[4] = {1.5f, -2.0f, 0.25f, 8.0f};
    {
        std::ofstream out(dir.path() + "/weights.bin", std::ios::binary);
        out.write("PADDING!", 8);
        out.write(reinterpret_cast<const char *>(values), sizeof values);
    }
    nn::Model model = nn::Model::load(dir.path() + "/ext.onnx");
    Buffer<float> x(4);
    x.fill([](int i) { return float(i + 1); });
    Buffer<float> y = model.run({{"x", x}}).at("y");
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(y(i), float(i + 1) * values[i]);
    // A missing data file is an error naming it.
    std::remove((dir.path() + "/weights.bin").c_str());
    std::string m = test::message_of([&] { nn::Model::load(dir.path() + "/ext.onnx"); });
    EXPECT_CONTAINS(m, "weights.bin");
}

TEST(NNModel, NpyFilesRoundTrip) {
    test::TempDirectory dir;
    Buffer<float> b(3, 2, 4);
    b.fill([](int x, int y, int z) { return float(x + 10 * y + 100 * z); });
    std::string path = dir.path() + "/t.npy";
    nn::save_npy(path, b);
    Buffer<float> r = nn::load_npy(path);
    ASSERT_EQ(r.dimensions(), 3);
    EXPECT_EQ(r.extent(0), 3);
    EXPECT_EQ(r.extent(2), 4);
    r.for_each_element([&](const int *p) { ASSERT_EQ(r(p[0], p[1], p[2]), b(p[0], p[1], p[2])); });
    std::ofstream(dir.path() + "/bad.npy") << "not numpy";
    std::string m = test::message_of<RuntimeError>([&] { nn::load_npy(dir.path() + "/bad.npy"); });
    EXPECT_CONTAINS(m, "not a .npy file");
}

}  // namespace
