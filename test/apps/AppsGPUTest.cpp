// The apps' GPU schedules, hand-written and chosen by the autoscheduler for the GPU target,
// against their C++ references, once per GPU API: through OpenCL (PoCL
// here) and CUDA (skipped without an NVIDIA GPU; run by CTest as apps.gpu_cuda_ptxas against the
// tests' stand-in driver, which assembles each PTX module with ptxas and runs nothing).
#include <gtest/gtest.h>

#include <random>

#include "bilateral_grid.h"
#include "blur.h"
#include "camera_pipe.h"
#include "conv_layer.h"
#include "dsl/dsl.h"
#include "gpu/GPUTestUtil.h"
#include "harris.h"
#include "histogram_equalize.h"
#include "local_laplacian.h"
#include "matmul.h"
#include "unsharp.h"

namespace {

using namespace dsl;
using namespace dsl_apps;

/// Every element of `out` equals `expected`'s, or differs by at most `tolerance`; the first five
/// that do not are reported under `what`, with their coordinates.
template <typename T>
void expect_matches(const std::string &what, const Buffer<T> &out, const Buffer<T> &expected,
                    double tolerance = 0) {
    int mismatches = 0;
    expected.for_each_element([&](const int *pos) {
        std::vector<int> at(pos, pos + expected.dimensions());
        const double got = out(at), want = expected(at);
        if (std::abs(got - want) <= tolerance || mismatches++ >= 5) return;
        std::string coordinates;
        for (int c : at)
            coordinates += (coordinates.empty() ? "" : ", ") + std::to_string(c);
        ADD_FAILURE() << what << " at (" << coordinates << "): " << got << ", expected " << want;
    });
    EXPECT_EQ(mismatches, 0);
}

class AppsGPU : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override { DSL_REQUIRE_GPU(target()); }
    Target target() const { return Target(GetParam()); }
    /// Whether kernels really run (not so on the stand-in CUDA driver).
    bool kernels_run() const {
        return !(target().has_feature(Target::Feature::CUDA) && test::stand_in_cuda_driver());
    }
};

TEST_P(AppsGPU, BlurMatchesReference) {
    // Odd sizes: partial blocks at the right and bottom edges.
    Buffer<uint16_t> in(301, 203);
    std::mt19937 rng(11);
    in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint16_t>(rng()); });
    ImageParam input(UInt(16), 2, "input");
    input.set(in);
    BlurPipeline p = make_blur(input);
    schedule_blur_gpu(p);
    Buffer<uint16_t> out = p.blur_y.realize({301, 203}, target());
    if (!kernels_run()) return;
    Buffer<uint16_t> expected = blur_reference(in);
    expect_matches("blur", out, expected);
}

TEST_P(AppsGPU, UnsharpMatchesReference) {
    const float amount = 1.5f;
    Buffer<float> in(157, 93, 3);
    std::mt19937 rng(12);
    in.for_each_element([&](int x, int y, int c) { in(x, y, c) = (rng() % 1000) / 999.0f; });
    ImageParam input(Float(32), 3, "input");
    input.set(in);
    UnsharpPipeline p = make_unsharp(input, amount);
    schedule_unsharp_gpu(p);
    Buffer<uint8_t> out = p.output.realize({157, 93, 3}, target());
    if (!kernels_run()) return;
    // The same float operations in the same order: equal but for rounding at .5 boundaries.
    Buffer<uint8_t> expected = unsharp_reference(in, amount);
    expect_matches("unsharp", out, expected, 1);
}

TEST_P(AppsGPU, BilateralGridMatchesReference) {
    // A splat of every pixel into its grid cell (one thread per cell, atomic adds), three blurs
    // of the grid and the slice, all on the device; odd sizes leave partial cells and tiles.
    Buffer<float> in(157, 93);
    std::mt19937 rng(13);
    in.for_each_element([&](int x, int y) { in(x, y) = (rng() % 1000) / 999.0f; });
    ImageParam input(Float(32), 2, "input");
    input.set(in);
    BilateralGridPipeline p = make_bilateral_grid(input);
    schedule_bilateral_grid_gpu(p);
    Buffer<float> out = p.output.realize({157, 93}, target());
    if (!kernels_run()) return;
    // Each cell's pixels are summed in the reference's order by one thread: equal but for the
    // division's rounding.
    Buffer<float> expected = bilateral_grid_reference(in);
    expect_matches("bilateral_grid", out, expected, 1e-5);
}

TEST_P(AppsGPU, CameraPipeMatchesReference) {
    // Hot-pixel suppression, demosaic, colour correction, tone curve and sharpening on the
    // device, from a random 12-bit mosaic (odd numbers of quads: partial tiles).
    Buffer<uint16_t> raw(2 * 79, 2 * 47);
    std::mt19937 rng(14);
    raw.for_each_element([&](int x, int y) { raw(x, y) = static_cast<uint16_t>(rng() % 1024); });
    ImageParam input(UInt(16), 2, "raw");
    input.set(raw);
    CameraPipePipeline p = make_camera_pipe(input);
    schedule_camera_pipe_gpu(p);
    Buffer<uint8_t> out = p.output.realize({raw.width(), raw.height(), 3}, target());
    if (!kernels_run()) return;
    // The same integer and float operations in the same order: bit-exact.
    Buffer<uint8_t> expected = camera_pipe_reference(raw);
    expect_matches("camera_pipe", out, expected);
}

TEST_P(AppsGPU, LocalLaplacianMatchesReference) {
    // Three pyramids of eight levels, every level a kernel, the remapped ones over the eight
    // intensity levels too; a random 16-bit colour image of odd size.
    Buffer<uint16_t> in(123, 77, 3);
    std::mt19937 rng(15);
    in.for_each_element([&](int x, int y, int c) { in(x, y, c) = static_cast<uint16_t>(rng()); });
    ImageParam input(UInt(16), 3, "input");
    input.set(in);
    Param<int> levels("levels", 8);
    Param<float> alpha("alpha", 1.0f), beta("beta", 1.0f);
    LocalLaplacianPipeline p = make_local_laplacian(input, levels, alpha, beta);
    schedule_local_laplacian_gpu(p);
    Buffer<uint16_t> out = p.output.realize({123, 77, 3}, target());
    if (!kernels_run()) return;
    // Float pyramids in the same order as the reference but for the rounding of exp and the
    // like on the device (OpenCL's bounds): within 8 of 65535, as the CPU's tests allow.
    Buffer<uint16_t> expected = local_laplacian_reference(in, 8, 1.0f, 1.0f);
    expect_matches("local_laplacian", out, expected, 8);
}

TEST_P(AppsGPU, ConvLayerMatchesReference) {
    // Dense 3x3 and 1x1 layers and a depthwise 3x3 one, NHWC, channel counts that do not fill
    // the 32 threads of a block, two images.
    for (ConvLayerShape shape :
         {ConvLayerShape{2, 19, 40, 13, 9, 3, false}, ConvLayerShape{1, 24, 33, 11, 6, 1, false},
          ConvLayerShape{2, 45, 45, 10, 7, 3, true}}) {
        Buffer<float> in = conv_layer_random_input(shape, 1);
        Buffer<float> w = conv_layer_random_weights(shape, 2);
        Buffer<float> b = conv_layer_random_bias(shape, 3);
        ImageParam input(Float(32), 4, "input"),
            weights(Float(32), shape.depthwise ? 3 : 4, "weights"), bias(Float(32), 1, "bias");
        input.set(in);
        weights.set(w);
        bias.set(b);
        ConvLayerPipeline p = make_conv_layer(input, weights, bias, shape.kernel, shape.depthwise);
        schedule_conv_layer_gpu(p);
        Buffer<float> out =
            p.output.realize({shape.c_out, shape.width, shape.height, shape.n}, target());
        if (!kernels_run()) continue;
        // The same fused multiply-adds in the same order: bit-exact.
        Buffer<float> expected = conv_layer_reference(in, w, b, shape.kernel, shape.depthwise);
        expect_matches(std::string("conv_layer (K ") + std::to_string(shape.kernel) +
                           (shape.depthwise ? ", depthwise)" : ")"),
                       out, expected);
    }
}

TEST_P(AppsGPU, MatmulMatchesReference) {
    // K = 2100: the first chunk of 1024, one further chunk, and 52 terms past it, each stage a
    // kernel; C of 45 x 37 ends in partial blocks.
    Buffer<float> a = matmul_random_matrix(2100, 37, 16), b = matmul_random_matrix(45, 2100, 17);
    ImageParam pa(Float(32), 2, "a"), pb(Float(32), 2, "b");
    pa.set(a);
    pb.set(b);
    MatmulPipeline p = make_matmul(pa, pb);
    schedule_matmul_gpu(p);
    Buffer<float> out = p.output.realize({45, 37}, target());
    if (!kernels_run()) return;
    // The same fused multiply-adds in the same order: bit-exact.
    Buffer<float> expected = matmul_reference(a, b);
    expect_matches("matmul", out, expected);
}

/// Auto-schedules `out` for `target` at `sizes` (its estimates) and realizes it there.
template <typename T>
Buffer<T> auto_scheduled(Func out, const std::vector<int> &sizes, const Target &target) {
    for (size_t d = 0; d < sizes.size(); d++)
        out.set_estimate(out.args()[d], 0, sizes[d]);
    Pipeline p(out);
    std::string source = p.auto_schedule(target).schedule_source;
    EXPECT_NE(source.find("gpu_blocks("), std::string::npos) << source;
    return out.realize(sizes, target);
}

TEST_P(AppsGPU, AutoScheduledAppsMatchReferences) {
    // Every app, its groups made kernels by the autoscheduler (odd sizes: partial blocks).
    std::mt19937 rng(21);
    {
        Buffer<uint16_t> in(301, 203);
        in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint16_t>(rng()); });
        ImageParam input(UInt(16), 2, "input");
        input.set(in);
        Buffer<uint16_t> out =
            auto_scheduled<uint16_t>(make_blur(input).blur_y, {301, 203}, target());
        if (kernels_run()) expect_matches("auto blur", out, blur_reference(in));
    }
    {
        Buffer<float> in(157, 93, 3);
        in.for_each_element([&](int x, int y, int c) { in(x, y, c) = (rng() % 1000) / 999.0f; });
        ImageParam input(Float(32), 3, "input");
        input.set(in);
        Buffer<uint8_t> out =
            auto_scheduled<uint8_t>(make_unsharp(input, 1.5f).output, {157, 93, 3}, target());
        if (kernels_run()) expect_matches("auto unsharp", out, unsharp_reference(in, 1.5f), 1);
    }
    {
        Buffer<float> in(131, 77, 3);
        in.for_each_element([&](int x, int y, int c) { in(x, y, c) = (rng() % 1000) / 999.0f; });
        ImageParam input(Float(32), 3, "input");
        input.set(in);
        Buffer<float> out = auto_scheduled<float>(make_harris(input).output, {131, 77}, target());
        if (kernels_run()) {
            // Within 1e-4 of the largest response (fused multiply-adds round differently).
            Buffer<float> expected = harris_reference(in);
            float largest = 0;
            expected.for_each_element(
                [&](int x, int y) { largest = std::max(largest, std::abs(expected(x, y))); });
            expect_matches("auto harris", out, expected, 1e-4 * largest);
        }
    }
    {
        Buffer<uint8_t> in(203, 101);
        in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint8_t>(rng() % 200); });
        ImageParam input(UInt(8), 2, "input");
        input.set(in);
        Buffer<uint8_t> out =
            auto_scheduled<uint8_t>(make_histogram_equalize(input).output, {203, 101}, target());
        if (kernels_run())
            expect_matches("auto histogram_equalize", out, histogram_equalize_reference(in));
    }
    {
        Buffer<float> in(157, 93);
        in.for_each_element([&](int x, int y) { in(x, y) = (rng() % 1000) / 999.0f; });
        ImageParam input(Float(32), 2, "input");
        input.set(in);
        Buffer<float> out =
            auto_scheduled<float>(make_bilateral_grid(input).output, {157, 93}, target());
        if (kernels_run())
            expect_matches("auto bilateral_grid", out, bilateral_grid_reference(in), 1e-5);
    }
    {
        Buffer<uint16_t> raw(2 * 79, 2 * 47);
        raw.for_each_element(
            [&](int x, int y) { raw(x, y) = static_cast<uint16_t>(rng() % 1024); });
        ImageParam input(UInt(16), 2, "raw");
        input.set(raw);
        Buffer<uint8_t> out = auto_scheduled<uint8_t>(make_camera_pipe(input).output,
                                                      {raw.width(), raw.height(), 3}, target());
        if (kernels_run()) expect_matches("auto camera_pipe", out, camera_pipe_reference(raw));
    }
    {
        Buffer<uint16_t> in(123, 77, 3);
        in.for_each_element(
            [&](int x, int y, int c) { in(x, y, c) = static_cast<uint16_t>(rng()); });
        ImageParam input(UInt(16), 3, "input");
        input.set(in);
        Param<int> levels("levels", 8);
        Param<float> alpha("alpha", 1.0f), beta("beta", 1.0f);
        LocalLaplacianPipeline p = make_local_laplacian(input, levels, alpha, beta);
        Buffer<uint16_t> out = auto_scheduled<uint16_t>(p.output, {123, 77, 3}, target());
        if (kernels_run())
            expect_matches("auto local_laplacian", out,
                           local_laplacian_reference(in, 8, 1.0f, 1.0f), 8);
    }
    {
        Buffer<float> a = matmul_random_matrix(300, 37, 16), b = matmul_random_matrix(45, 300, 17);
        ImageParam pa(Float(32), 2, "a"), pb(Float(32), 2, "b");
        pa.set(a);
        pb.set(b);
        Buffer<float> out = auto_scheduled<float>(make_matmul(pa, pb).output, {45, 37}, target());
        if (kernels_run()) expect_matches("auto matmul", out, matmul_reference(a, b), 1e-3);
    }
    {
        ConvLayerShape shape{2, 19, 40, 13, 9, 3, false};
        Buffer<float> in = conv_layer_random_input(shape, 1);
        Buffer<float> w = conv_layer_random_weights(shape, 2);
        Buffer<float> b = conv_layer_random_bias(shape, 3);
        ImageParam input(Float(32), 4, "input"), weights(Float(32), 4, "weights"),
            bias(Float(32), 1, "bias");
        input.set(in);
        weights.set(w);
        bias.set(b);
        ConvLayerPipeline p = make_conv_layer(input, weights, bias, shape.kernel, false);
        Buffer<float> out = auto_scheduled<float>(
            p.output, {shape.c_out, shape.width, shape.height, shape.n}, target());
        if (kernels_run())
            expect_matches("auto conv_layer", out,
                           conv_layer_reference(in, w, b, shape.kernel, false), 1e-3);
    }
}

INSTANTIATE_TEST_SUITE_P(APIs, AppsGPU, ::testing::Values("host-opencl", "host-cuda"),
                         [](const ::testing::TestParamInfo<std::string> &api) {
                             return api.param == "host-opencl" ? std::string("OpenCL")
                                                               : std::string("CUDA");
                         });

}  // namespace
