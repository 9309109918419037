// The apps' GPU schedules against their C++ references, once per GPU API: through OpenCL (PoCL
// here) and CUDA (skipped without an NVIDIA GPU; run by CTest as apps.gpu_cuda_ptxas against the
// tests' stand-in driver, which assembles each PTX module with ptxas and runs nothing).
#include <gtest/gtest.h>

#include <random>

#include "blur.h"
#include "dsl/dsl.h"
#include "gpu/GPUTestUtil.h"
#include "unsharp.h"

namespace {

using namespace dsl;
using namespace dsl_apps;

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
    int mismatches = 0;
    expected.for_each_element([&](int x, int y) {
        if (out(x, y) != expected(x, y) && mismatches++ < 5)
            ADD_FAILURE() << "blur at (" << x << ", " << y << "): " << out(x, y) << ", expected "
                          << expected(x, y);
    });
    EXPECT_EQ(mismatches, 0);
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
    int mismatches = 0;
    expected.for_each_element([&](int x, int y, int c) {
        if (std::abs(out(x, y, c) - expected(x, y, c)) > 1 && mismatches++ < 5)
            ADD_FAILURE() << "unsharp at (" << x << ", " << y << ", " << c << "): " << +out(x, y, c)
                          << ", expected " << +expected(x, y, c);
    });
    EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(APIs, AppsGPU, ::testing::Values("host-opencl", "host-cuda"),
                         [](const ::testing::TestParamInfo<std::string> &api) {
                             return api.param == "host-opencl" ? std::string("OpenCL")
                                                               : std::string("CUDA");
                         });

}  // namespace
