// Models on a GPU target: the operator library's kernels auto-scheduled as GPU kernels
// (nn::schedule_output), run for real through OpenCL (PoCL here) and on CUDA where a GPU is
// (on the tests' stand-in driver, `nn.gpu_cuda_ptxas`, each kernel's PTX is assembled by
// ptxas and nothing is compared), against the same model on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "OnnxModels.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/Spectral.h"
#include "gpu/GPUTestUtil.h"

namespace {

using namespace dsl;
using namespace dsl_test;

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kInt64 = onnx::TensorProto::INT64;

std::vector<float> pattern(size_t n, int seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = float(static_cast<int>((i * 37 + static_cast<size_t>(seed) * 11) % 23) - 11) / 16;
    return v;
}

/// The largest difference between two float buffers of one shape, relative to 1 + |expected|.
double max_difference(const Buffer<float> &got, const Buffer<float> &want) {
    EXPECT_EQ(got.number_of_elements(), want.number_of_elements());
    double worst = 0;
    for (int64_t i = 0; i < want.number_of_elements(); i++) {
        const double g = got.data()[i], w = want.data()[i];
        worst = std::max(worst, std::fabs(g - w) / (1 + std::fabs(w)));
    }
    return worst;
}

class GpuModel : public ::testing::TestWithParam<const char *> {
  protected:
    Target target() const { return Target(GetParam()); }
    /// Whether results are computed (the stand-in CUDA driver only assembles the PTX).
    bool results_are_real() const {
        return !(target().has_feature(Target::Feature::CUDA) && test::stand_in_cuda_driver());
    }
    nn::Model load(const std::string &path, const Target &t) const {
        nn::ModelOptions o;
        o.target = t;
        return nn::Model::load(path, o);
    }
};

// A small network of fixed shapes: a padded 3x3 convolution, Relu, max pooling, a pointwise
// convolution, Softmax over the channels, a global mean of the Relu's maps and a matrix product
// of the flattened result. Every step that computes launches kernels, and the outputs match the
// CPU's. Run twice, the input written in between: no kernel reads an old device copy.
TEST_P(GpuModel, ASmallNetworkMatchesTheCpu) {
    DSL_REQUIRE_GPU(target());
    test::TempDirectory dir;
    const std::string path = dir.path() + "/net.onnx";
    onnx::ModelProto m = make_model(13);
    add_input(m, "x", kFloat, {1, 4, 10, 12});
    add_output(m, "probabilities", kFloat, {1, 6, 5, 6});
    add_output(m, "means", kFloat, {1, 8});
    add_output(m, "scores", kFloat, {1, 10});
    add_float_initializer(m, "w1", {8, 4, 3, 3}, pattern(8 * 4 * 9, 1));
    add_float_initializer(m, "b1", {8}, pattern(8, 2));
    add_float_initializer(m, "w2", {6, 8, 1, 1}, pattern(6 * 8, 3));
    add_float_initializer(m, "w3", {180, 10}, pattern(1800, 4));
    add_ints_attr(add_node(m, "Conv", {"x", "w1", "b1"}, {"c1"}), "pads", {1, 1, 1, 1});
    add_node(m, "Relu", {"c1"}, {"r1"});
    onnx::NodeProto *pool = add_node(m, "MaxPool", {"r1"}, {"p1"});
    add_ints_attr(pool, "kernel_shape", {2, 2});
    add_ints_attr(pool, "strides", {2, 2});
    add_node(m, "Conv", {"p1", "w2"}, {"c2"});
    add_int_attr(add_node(m, "Softmax", {"c2"}, {"probabilities"}), "axis", 1);
    onnx::NodeProto *mean = add_node(m, "ReduceMean", {"r1"}, {"means"});
    add_ints_attr(mean, "axes", {2, 3});
    add_int_attr(mean, "keepdims", 0);
    add_node(m, "Flatten", {"probabilities"}, {"flat"});
    add_node(m, "MatMul", {"flat", "w3"}, {"scores"});
    save_model(m, path);

    nn::Model gpu = load(path, target());
    nn::Model cpu = load(path, Target::host());
    Buffer<float> x(12, 10, 4, 1);
    for (int round = 0; round < 2; round++) {
        x.fill([&](int i, int j, int k, int) {
            return float((i * 5 + j * 3 + k * 7 + round * 2) % 17 - 8) / 8;
        });
        auto got = gpu.run({{"x", x}});
        int launched = 0;
        for (const nn::StepReport &s : gpu.last_run()) {
            if (s.macs > 0) {
                EXPECT_TRUE(s.gpu) << s.node << " ran on the host";
            }
            launched += s.gpu;
        }
        EXPECT_GE(launched, 3);
        if (!results_are_real()) continue;
        auto want = cpu.run({{"x", x}});
        for (const char *name : {"probabilities", "means", "scores"}) {
            EXPECT_LE(max_difference(got.at(name), want.at(name)), 1e-5)
                << name << ", round " << round;
        }
    }
}

// Symbolic sizes: one compile runs at sizes below a tile and the estimate of unknown extents
// (64), and at sizes that leave partial tiles; a shape computed by a kernel sizes a Reshape
// (its values are read on the host, after the kernel that wrote them on the device; not on
// the stand-in CUDA driver, whose kernels compute nothing).
TEST_P(GpuModel, SymbolicSizesAndShapesComputedOnTheDevice) {
    DSL_REQUIRE_GPU(target());
    test::TempDirectory dir;
    const std::string path = dir.path() + "/sym.onnx";
    onnx::ModelProto m = make_model(13);
    const bool reshape = results_are_real();
    add_input(m, "x", kFloat, {"N", 3, "H", "W"});
    if (reshape) add_input(m, "shape", kInt64, {2});
    add_output(m, "y", kFloat, {"N", 5, "H", "W"});
    if (reshape) add_output(m, "pooled", kFloat, {"A", "B"});
    add_float_initializer(m, "w", {5, 3, 3, 3}, pattern(5 * 27, 5));
    if (reshape) add_int64_initializer(m, "one", {2}, {1, 1});
    add_ints_attr(add_node(m, "Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
    add_node(m, "Sigmoid", {"c"}, {"y"});
    add_node(m, "GlobalAveragePool", {"y"}, {"g"});
    if (reshape) {
        add_node(m, "Mul", {"shape", "one"}, {"computed"});
        add_node(m, "Reshape", {"g", "computed"}, {"pooled"});
    }
    save_model(m, path);

    nn::Model gpu = load(path, target());
    nn::Model cpu = load(path, Target::host());
    for (auto [n, h, w] : {std::tuple{1, 5, 7}, std::tuple{2, 70, 33}}) {
        Buffer<float> x(w, h, 3, n);
        x.fill([](int i, int j, int k, int b) {
            return float((i * 3 + j * 7 + k * 5 + b) % 13 - 6) / 4;
        });
        Buffer<int64_t> shape(2);
        shape(0) = 5;
        shape(1) = n;
        if (!reshape) {
            gpu.run({{"x", x}});
            continue;
        }
        auto got = gpu.run({{"x", x}, {"shape", shape}});
        ASSERT_EQ(got.at("pooled").extent(1), 5);
        ASSERT_EQ(got.at("pooled").extent(0), n);
        bool shape_on_device = false;
        for (const nn::StepReport &s : gpu.last_run())
            shape_on_device |= s.output == "computed" && s.gpu;
        EXPECT_TRUE(shape_on_device) << "the shape was not computed by a kernel";
        auto want = cpu.run({{"x", x}, {"shape", shape}});
        EXPECT_LE(max_difference(got.at("y"), want.at("y")), 1e-5) << h << "x" << w;
        EXPECT_LE(max_difference(got.at("pooled"), want.at("pooled")), 1e-5) << h << "x" << w;
    }
}

// An output whose estimates are one point (the sizes are values read when it runs, estimated
// at 1) gets GPU tiles of one point; the producer it reads at three offsets (the mel filters'
// edges) is then a kernel of its own, not a per-block copy (whose region, clamped to the
// whole, had no constant size: a CompileError before).
TEST_P(GpuModel, AnOutputEstimatedAtOnePointLowersAndMatchesTheCpu) {
    DSL_REQUIRE_GPU(target());
    Param<int64_t> bins("mel_bins"), length("dft_length"), rate("sample_rate");
    Param<double> low("low_hz"), high("high_hz");
    for (Param<int64_t> *p : {&bins, &length, &rate})
        p->set_estimate(1);
    low.set_estimate(1.0);
    high.set_estimate(1.0);
    nn::Tensor gpu = nn::mel_weight_matrix(bins, length, rate, low, high, Float(32));
    nn::schedule_output(gpu, target());
    bins.set(8);
    length.set(16);
    rate.set(8192);
    low.set(0.0);
    high.set(4096.0);
    Buffer<float> got = gpu.func().realize({8, 9}, target());
    if (!results_are_real()) return;
    nn::Tensor cpu = nn::mel_weight_matrix(bins, length, rate, low, high, Float(32));
    Buffer<float> want = cpu.func().realize({8, 9});
    EXPECT_EQ(max_difference(got, want), 0);
}

INSTANTIATE_TEST_SUITE_P(APIs, GpuModel, ::testing::Values("host-opencl", "host-cuda"),
                         [](const ::testing::TestParamInfo<const char *> &p) {
                             return std::string(p.param).find("cuda") != std::string::npos
                                        ? "CUDA"
                                        : "OpenCL";
                         });

}  // namespace
