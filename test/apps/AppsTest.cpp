// The image apps (apps/): each algorithm on its default schedule and on its hand-written
// schedule, through the JIT and through the AOT libraries its generator writes at build time
// (dsl_add_library; `<app>_aot` scheduled, `<app>_aot_naive` not), compared with its plain C++
// reference on crops of the photographs in apps/images/ (and, for the blur, on random uint16 values
// whose sums wrap). Integer pipelines must match exactly; the unsharp mask's uint8 output may
// differ by one level (float rounding at the truncation); the Harris response by 1e-4 of the
// largest magnitude; the local Laplacian filter's uint16 output by 8 levels of 65535 (float
// rounding through eight pyramid levels and exp()).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>

#include "bilateral_grid.h"
#include "bilateral_grid_aot.h"
#include "bilateral_grid_aot_naive.h"
#include "blur.h"
#include "blur_aot.h"
#include "blur_aot_naive.h"
#include "camera_pipe.h"
#include "camera_pipe_aot.h"
#include "camera_pipe_aot_naive.h"
#include "dsl/ImageIO.h"
#include "dsl/dsl.h"
#include "harris.h"
#include "harris_aot.h"
#include "harris_aot_naive.h"
#include "histogram_equalize.h"
#include "histogram_equalize_aot.h"
#include "histogram_equalize_aot_naive.h"
#include "local_laplacian.h"
#include "local_laplacian_aot.h"
#include "local_laplacian_aot_naive.h"
#include "matmul.h"
#include "matmul_aot.h"
#include "matmul_aot_naive.h"
#include "unsharp.h"
#include "unsharp_aot.h"
#include "unsharp_aot_naive.h"

namespace {

using namespace dsl;
using namespace dsl_apps;

// Crops of odd sizes, so that the schedules' tiles and vectors have tails.
constexpr int kCropX = 100, kCropY = 120, kCropWidth = 301, kCropHeight = 203;

std::string image_path(const std::string &name) {
    return std::string(DSL_APPS_IMAGES_DIR) + "/" + name;
}

// A crop of an 8-bit image file, copied so that its minimums are 0.
Buffer<uint8_t> load_crop(const std::string &name) {
    Buffer<uint8_t> image(load_image(image_path(name)));
    Buffer<uint8_t> crop = image.cropped(0, kCropX, kCropWidth).cropped(1, kCropY, kCropHeight);
    crop.translate(0, -kCropX).translate(1, -kCropY);
    return crop.copy();
}

Buffer<uint16_t> grey_u16() {
    Buffer<uint8_t> grey = load_crop("camera.png");
    Buffer<uint16_t> out(kCropWidth, kCropHeight);
    out.for_each_element([&](int x, int y) { out(x, y) = grey(x, y) * 64; });
    return out;
}

Buffer<uint16_t> random_u16(int width, int height) {
    Buffer<uint16_t> out(width, height);
    std::mt19937 rng(7);
    out.for_each_element([&](int x, int y) { out(x, y) = static_cast<uint16_t>(rng()); });
    return out;
}

Buffer<float> rgb_float() {
    Buffer<uint8_t> rgb = load_crop("coffee.jpg");
    Buffer<float> out(kCropWidth, kCropHeight, 3);
    out.for_each_element([&](int x, int y, int c) { out(x, y, c) = rgb(x, y, c) / 255.0f; });
    return out;
}

template <typename T>
void expect_equal(const Buffer<T> &actual, const Buffer<T> &expected, const std::string &what) {
    ASSERT_EQ(actual.number_of_elements(), expected.number_of_elements()) << what;
    int mismatches = 0;
    actual.for_each_element([&](const int *p) {
        std::vector<int> at(p, p + actual.dimensions());
        if (actual(at) != expected(at) && mismatches++ < 5) {
            ADD_FAILURE() << what << ": at (" << at[0] << ", " << at[1] << ") got " << +actual(at)
                          << ", expected " << +expected(at);
        }
    });
    EXPECT_EQ(mismatches, 0) << what;
}

void expect_within_one(const Buffer<uint8_t> &actual, const Buffer<uint8_t> &expected,
                       const std::string &what) {
    int mismatches = 0;
    expected.for_each_element([&](int x, int y, int c) {
        if (std::abs(actual(x, y, c) - expected(x, y, c)) > 1 && mismatches++ < 5) {
            ADD_FAILURE() << what << ": at (" << x << ", " << y << ", " << c << ") got "
                          << +actual(x, y, c) << ", expected " << +expected(x, y, c);
        }
    });
    EXPECT_EQ(mismatches, 0) << what;
}

void expect_close(const Buffer<float> &actual, const Buffer<float> &expected,
                  const std::string &what) {
    float largest = 0.0f;
    expected.for_each_element(
        [&](int x, int y) { largest = std::max(largest, std::fabs(expected(x, y))); });
    ASSERT_GT(largest, 0.0f) << "the reference is all zero: the test image has no structure";
    const float tolerance = 1e-4f * largest;
    int mismatches = 0;
    expected.for_each_element([&](int x, int y) {
        if (!(std::fabs(actual(x, y) - expected(x, y)) <= tolerance) && mismatches++ < 5) {
            ADD_FAILURE() << what << ": at (" << x << ", " << y << ") got " << actual(x, y)
                          << ", expected " << expected(x, y) << " (tolerance " << tolerance << ")";
        }
    });
    EXPECT_EQ(mismatches, 0) << what;
}

// How a test schedules an app: not at all, by the app's hand-written schedule, or by the
// autoscheduler told the output's size (Pipeline::auto_schedule).
enum class Sched { Naive, Hand, Auto };

template <typename Hand>
void schedule_as(Sched mode, Func output, const std::vector<int> &sizes, Hand hand) {
    if (mode == Sched::Hand) hand();
    if (mode != Sched::Auto) return;
    for (size_t d = 0; d < sizes.size(); d++)
        output.set_estimate(output.args()[d], 0, sizes[d]);
    Pipeline(output).auto_schedule(Target::host());
}

// ---- blur ----

Buffer<uint16_t> blur_jit(const Buffer<uint16_t> &in, Sched mode) {
    ImageParam input(UInt(16), 2, "input");
    input.set(in);
    BlurPipeline p = make_blur(input);
    schedule_as(mode, p.blur_y, {in.dim(0).extent(), in.dim(1).extent()},
                [&] { schedule_blur(p, Target::host()); });
    return p.blur_y.realize({in.dim(0).extent(), in.dim(1).extent()});
}

TEST(Blur, NaiveMatchesReference) {
    for (const Buffer<uint16_t> &in : {grey_u16(), random_u16(67, 45)}) {
        expect_equal(blur_jit(in, Sched::Naive), blur_reference(in), "naive blur");
    }
}

TEST(Blur, ScheduledJitMatchesReference) {
    for (const Buffer<uint16_t> &in : {grey_u16(), random_u16(67, 45)}) {
        expect_equal(blur_jit(in, Sched::Hand), blur_reference(in), "scheduled blur");
    }
}

TEST(Blur, AutoScheduledJitMatchesReference) {
    for (const Buffer<uint16_t> &in : {grey_u16(), random_u16(67, 45)}) {
        expect_equal(blur_jit(in, Sched::Auto), blur_reference(in), "auto-scheduled blur");
    }
}

TEST(Blur, AotMatchesReference) {
    for (auto *library : {blur_aot, blur_aot_naive}) {
        for (const Buffer<uint16_t> &in : {grey_u16(), random_u16(67, 45)}) {
            Buffer<uint16_t> out(in.dim(0).extent(), in.dim(1).extent());
            ASSERT_EQ(library(in.raw_buffer(), out.raw_buffer()), 0);
            expect_equal(out, blur_reference(in), "AOT blur");
        }
    }
}

// ---- unsharp ----

constexpr float kAmount = 1.5f;

Buffer<uint8_t> unsharp_jit(const Buffer<float> &in, Sched mode) {
    ImageParam input(Float(32), 3, "input");
    Param<float> amount("amount", kAmount);
    input.set(in);
    UnsharpPipeline p = make_unsharp(input, amount);
    schedule_as(mode, p.output, {in.dim(0).extent(), in.dim(1).extent(), 3},
                [&] { schedule_unsharp(p, Target::host()); });
    return p.output.realize({in.dim(0).extent(), in.dim(1).extent(), 3});
}

TEST(Unsharp, NaiveMatchesReference) {
    Buffer<float> in = rgb_float();
    expect_within_one(unsharp_jit(in, Sched::Naive), unsharp_reference(in, kAmount),
                      "naive unsharp");
}

TEST(Unsharp, ScheduledJitMatchesReference) {
    Buffer<float> in = rgb_float();
    expect_within_one(unsharp_jit(in, Sched::Hand), unsharp_reference(in, kAmount),
                      "scheduled unsharp");
}

TEST(Unsharp, AutoScheduledJitMatchesReference) {
    Buffer<float> in = rgb_float();
    expect_within_one(unsharp_jit(in, Sched::Auto), unsharp_reference(in, kAmount),
                      "auto-scheduled unsharp");
}

TEST(Unsharp, AotMatchesReference) {
    Buffer<float> in = rgb_float();
    for (auto *library : {unsharp_aot, unsharp_aot_naive}) {
        Buffer<uint8_t> out(kCropWidth, kCropHeight, 3);
        ASSERT_EQ(library(in.raw_buffer(), kAmount, out.raw_buffer()), 0);
        expect_within_one(out, unsharp_reference(in, kAmount), "AOT unsharp");
    }
}

// ---- histogram_equalize ----

Buffer<uint8_t> equalize_jit(const Buffer<uint8_t> &in, Sched mode) {
    ImageParam input(UInt(8), 2, "input");
    input.set(in);
    HistogramEqualizePipeline p = make_histogram_equalize(input);
    schedule_as(mode, p.output, {in.dim(0).extent(), in.dim(1).extent()},
                [&] { schedule_histogram_equalize(p, Target::host()); });
    return p.output.realize({in.dim(0).extent(), in.dim(1).extent()});
}

TEST(HistogramEqualize, NaiveMatchesReference) {
    Buffer<uint8_t> in = load_crop("camera.png");
    expect_equal(equalize_jit(in, Sched::Naive), histogram_equalize_reference(in),
                 "naive equalize");
}

TEST(HistogramEqualize, ScheduledJitMatchesReference) {
    Buffer<uint8_t> in = load_crop("camera.png");
    expect_equal(equalize_jit(in, Sched::Hand), histogram_equalize_reference(in),
                 "scheduled equalize");
}

TEST(HistogramEqualize, AutoScheduledJitMatchesReference) {
    Buffer<uint8_t> in = load_crop("camera.png");
    expect_equal(equalize_jit(in, Sched::Auto), histogram_equalize_reference(in),
                 "auto-scheduled equalize");
}

TEST(HistogramEqualize, AotMatchesReference) {
    Buffer<uint8_t> in = load_crop("camera.png");
    for (auto *library : {histogram_equalize_aot, histogram_equalize_aot_naive}) {
        Buffer<uint8_t> out(kCropWidth, kCropHeight);
        ASSERT_EQ(library(in.raw_buffer(), out.raw_buffer()), 0);
        expect_equal(out, histogram_equalize_reference(in), "AOT equalize");
    }
}

// ---- harris ----

Buffer<float> harris_jit(const Buffer<float> &in, Sched mode) {
    ImageParam input(Float(32), 3, "input");
    input.set(in);
    HarrisPipeline p = make_harris(input);
    schedule_as(mode, p.output, {in.dim(0).extent(), in.dim(1).extent()},
                [&] { schedule_harris(p, Target::host()); });
    return p.output.realize({in.dim(0).extent(), in.dim(1).extent()});
}

TEST(Harris, NaiveMatchesReference) {
    Buffer<float> in = rgb_float();
    expect_close(harris_jit(in, Sched::Naive), harris_reference(in), "naive harris");
}

TEST(Harris, ScheduledJitMatchesReference) {
    Buffer<float> in = rgb_float();
    expect_close(harris_jit(in, Sched::Hand), harris_reference(in), "scheduled harris");
}

TEST(Harris, AutoScheduledJitMatchesReference) {
    Buffer<float> in = rgb_float();
    expect_close(harris_jit(in, Sched::Auto), harris_reference(in), "auto-scheduled harris");
}

TEST(Harris, AotMatchesReference) {
    Buffer<float> in = rgb_float();
    for (auto *library : {harris_aot, harris_aot_naive}) {
        Buffer<float> out(kCropWidth, kCropHeight);
        ASSERT_EQ(library(in.raw_buffer(), out.raw_buffer()), 0);
        expect_close(out, harris_reference(in), "AOT harris");
    }
}

// ---- bilateral_grid ----

Buffer<float> grey_float() {
    Buffer<uint8_t> grey = load_crop("camera.png");
    Buffer<float> out(kCropWidth, kCropHeight);
    out.for_each_element([&](int x, int y) { out(x, y) = grey(x, y) / 255.0f; });
    return out;
}

Buffer<float> bilateral_grid_jit(const Buffer<float> &in, Sched mode) {
    ImageParam input(Float(32), 2, "input");
    input.set(in);
    BilateralGridPipeline p = make_bilateral_grid(input);
    schedule_as(mode, p.output, {in.dim(0).extent(), in.dim(1).extent()},
                [&] { schedule_bilateral_grid(p, Target::host()); });
    return p.output.realize({in.dim(0).extent(), in.dim(1).extent()});
}

TEST(BilateralGrid, NaiveMatchesReference) {
    Buffer<float> in = grey_float();
    expect_close(bilateral_grid_jit(in, Sched::Naive), bilateral_grid_reference(in),
                 "naive bilateral grid");
}

TEST(BilateralGrid, ScheduledJitMatchesReference) {
    Buffer<float> in = grey_float();
    expect_close(bilateral_grid_jit(in, Sched::Hand), bilateral_grid_reference(in),
                 "scheduled bilateral grid");
}

TEST(BilateralGrid, AutoScheduledJitMatchesReference) {
    Buffer<float> in = grey_float();
    expect_close(bilateral_grid_jit(in, Sched::Auto), bilateral_grid_reference(in),
                 "auto-scheduled bilateral grid");
}

TEST(BilateralGrid, AotMatchesReference) {
    Buffer<float> in = grey_float();
    for (auto *library : {bilateral_grid_aot, bilateral_grid_aot_naive}) {
        Buffer<float> out(kCropWidth, kCropHeight);
        ASSERT_EQ(library(in.raw_buffer(), out.raw_buffer()), 0);
        expect_close(out, bilateral_grid_reference(in), "AOT bilateral grid");
    }
}

// ---- camera_pipe ----

// The mosaic of a crop of coffee.jpg with hot pixels (white, 1023) of each colour, in the middle,
// on the edges and in the corners, some next to each other.
Buffer<uint16_t> raw_bayer() {
    Buffer<uint16_t> raw = mosaic(load_crop("coffee.jpg"));
    const int w = raw.dim(0).extent(), h = raw.dim(1).extent();
    const int hot[][2] = {{0, 0},         {1, 0},         {w - 1, 0}, {0, h - 1},
                          {w - 1, h - 1}, {w - 2, h - 1}, {50, 40},   {51, 40},
                          {50, 41},       {52, 40},       {0, 77},    {w - 1, 100},
                          {120, 1},       {121, h - 2},   {200, 150}, {202, 150}};
    for (const auto &p : hot)
        raw(p[0], p[1]) = 1023;
    return raw;
}

Buffer<uint8_t> camera_pipe_jit(const Buffer<uint16_t> &raw, Sched mode) {
    ImageParam input(UInt(16), 2, "input");
    input.set(raw);
    CameraPipePipeline p = make_camera_pipe(input);
    schedule_as(mode, p.output, {raw.dim(0).extent(), raw.dim(1).extent(), 3},
                [&] { schedule_camera_pipe(p, Target::host()); });
    return p.output.realize({raw.dim(0).extent(), raw.dim(1).extent(), 3});
}

TEST(CameraPipe, NaiveMatchesReference) {
    Buffer<uint16_t> raw = raw_bayer();
    expect_equal(camera_pipe_jit(raw, Sched::Naive), camera_pipe_reference(raw),
                 "naive camera pipe");
}

TEST(CameraPipe, ScheduledJitMatchesReference) {
    Buffer<uint16_t> raw = raw_bayer();
    expect_equal(camera_pipe_jit(raw, Sched::Hand), camera_pipe_reference(raw),
                 "scheduled camera pipe");
}

TEST(CameraPipe, AutoScheduledJitMatchesReference) {
    Buffer<uint16_t> raw = raw_bayer();
    expect_equal(camera_pipe_jit(raw, Sched::Auto), camera_pipe_reference(raw),
                 "auto-scheduled camera pipe");
}

TEST(CameraPipe, AotMatchesReference) {
    Buffer<uint16_t> raw = raw_bayer();
    for (auto *library : {camera_pipe_aot, camera_pipe_aot_naive}) {
        Buffer<uint8_t> out(raw.dim(0).extent(), raw.dim(1).extent(), 3);
        ASSERT_EQ(library(raw.raw_buffer(), out.raw_buffer()), 0);
        expect_equal(out, camera_pipe_reference(raw), "AOT camera pipe");
    }
}

// A lone hot pixel of each colour, one of them in a corner, on a grey raw image vanishes: the
// output is that of the grey image.
TEST(CameraPipe, HotPixelsAreSuppressed) {
    Buffer<uint16_t> grey(64, 48), hot(64, 48);
    grey.fill(400);
    hot.fill(400);
    for (const auto &p : {std::pair{20, 10}, std::pair{31, 10}, std::pair{20, 31},
                          std::pair{41, 33}, std::pair{0, 0}})
        hot(p.first, p.second) = 1023;
    expect_equal(camera_pipe_jit(hot, Sched::Hand), camera_pipe_jit(grey, Sched::Hand),
                 "hot pixels");
    expect_equal(camera_pipe_reference(hot), camera_pipe_reference(grey), "hot pixels, reference");
}

// ---- local_laplacian ----

constexpr int kLevels = 8;
constexpr float kAlpha = 1.0f, kBeta = 1.0f;

Buffer<uint16_t> rgb_u16() {
    Buffer<uint8_t> rgb = load_crop("coffee.jpg");
    Buffer<uint16_t> out(kCropWidth, kCropHeight, 3);
    out.for_each_element([&](int x, int y, int c) { out(x, y, c) = rgb(x, y, c) * 257; });
    return out;
}

void expect_within(const Buffer<uint16_t> &actual, const Buffer<uint16_t> &expected, int tolerance,
                   const std::string &what) {
    int mismatches = 0, differences = 0;
    expected.for_each_element([&](int x, int y, int c) {
        int d = std::abs(actual(x, y, c) - expected(x, y, c));
        differences += d != 0;
        if (d > tolerance && mismatches++ < 5) {
            ADD_FAILURE() << what << ": at (" << x << ", " << y << ", " << c << ") got "
                          << actual(x, y, c) << ", expected " << expected(x, y, c);
        }
    });
    EXPECT_EQ(mismatches, 0) << what;
    // Rounding differences are rare: most values match exactly.
    EXPECT_LT(differences, expected.number_of_elements() / 100) << what;
}

Buffer<uint16_t> local_laplacian_jit(const Buffer<uint16_t> &in, Sched mode) {
    ImageParam input(UInt(16), 3, "input");
    input.set(in);
    Param<int> levels("levels", kLevels, 2, 32);
    Param<float> alpha("alpha", kAlpha), beta("beta", kBeta);
    LocalLaplacianPipeline p = make_local_laplacian(input, levels, alpha, beta);
    if (mode == Sched::Naive) schedule_local_laplacian_naive(p);
    schedule_as(mode, p.output, {in.dim(0).extent(), in.dim(1).extent(), 3},
                [&] { schedule_local_laplacian(p, Target::host()); });
    return p.output.realize({in.dim(0).extent(), in.dim(1).extent(), 3});
}

TEST(LocalLaplacian, NaiveMatchesReference) {
    Buffer<uint16_t> in = rgb_u16();
    expect_within(local_laplacian_jit(in, Sched::Naive),
                  local_laplacian_reference(in, kLevels, kAlpha, kBeta), 8,
                  "naive local Laplacian");
}

TEST(LocalLaplacian, ScheduledJitMatchesReference) {
    Buffer<uint16_t> in = rgb_u16();
    expect_within(local_laplacian_jit(in, Sched::Hand),
                  local_laplacian_reference(in, kLevels, kAlpha, kBeta), 8,
                  "scheduled local Laplacian");
}

TEST(LocalLaplacian, AutoScheduledJitMatchesReference) {
    Buffer<uint16_t> in = rgb_u16();
    expect_within(local_laplacian_jit(in, Sched::Auto),
                  local_laplacian_reference(in, kLevels, kAlpha, kBeta), 8,
                  "auto-scheduled local Laplacian");
}

TEST(LocalLaplacian, AotMatchesReference) {
    Buffer<uint16_t> in = rgb_u16();
    for (auto *library : {local_laplacian_aot, local_laplacian_aot_naive}) {
        Buffer<uint16_t> out(kCropWidth, kCropHeight, 3);
        ASSERT_EQ(library(in.raw_buffer(), kLevels, kAlpha, kBeta, out.raw_buffer()), 0);
        expect_within(out, local_laplacian_reference(in, kLevels, kAlpha, kBeta), 8,
                      "AOT local Laplacian");
    }
}

// A different number of levels and strengths change the result and still match.
TEST(LocalLaplacian, OtherLevelsAndStrengths) {
    Buffer<uint16_t> in = rgb_u16();
    ImageParam input(UInt(16), 3, "input");
    input.set(in);
    Param<int> levels("levels", 5, 2, 32);
    Param<float> alpha("alpha", 2.0f), beta("beta", 0.5f);
    LocalLaplacianPipeline p = make_local_laplacian(input, levels, alpha, beta);
    schedule_local_laplacian(p, Target::host());
    Buffer<uint16_t> out = p.output.realize({kCropWidth, kCropHeight, 3});
    expect_within(out, local_laplacian_reference(in, 5, 2.0f, 0.5f), 8,
                  "local Laplacian, 5 levels");
    Buffer<uint16_t> plain = local_laplacian_reference(in, kLevels, kAlpha, kBeta);
    int changed = 0;
    out.for_each_element([&](int x, int y, int c) { changed += out(x, y, c) != plain(x, y, c); });
    EXPECT_GT(changed, out.number_of_elements() / 2);
}

// ---- matmul ----

// (M, K, N): one chunk shorter than kMatmulChunk, exactly one, two and a tail, three; C smaller
// than a register tile in either direction, and sizes the tile does not divide.
const std::vector<std::array<int, 3>> kMatmulSizes = {{13, 37, 70},
                                                      {6, kMatmulChunk, 64},
                                                      {67, 2 * kMatmulChunk + 76, 130},
                                                      {20, 3 * kMatmulChunk, 100},
                                                      {5, 40, 200},
                                                      {30, 50, 9}};

Buffer<float> matmul_jit(const Buffer<float> &a, const Buffer<float> &b, Sched mode) {
    ImageParam pa(Float(32), 2, "a"), pb(Float(32), 2, "b");
    pa.set(a);
    pb.set(b);
    MatmulPipeline p = make_matmul(pa, pb);
    schedule_as(mode, p.output, {b.dim(0).extent(), a.dim(1).extent()},
                [&] { schedule_matmul(p, Target::host()); });
    return p.output.realize({b.dim(0).extent(), a.dim(1).extent()});
}

TEST(Matmul, NaiveMatchesReference) {
    for (const auto &[m, k, n] : kMatmulSizes) {
        Buffer<float> a = matmul_random_matrix(k, m, 1), b = matmul_random_matrix(n, k, 2);
        expect_equal(matmul_jit(a, b, Sched::Naive), matmul_reference(a, b), "naive matmul");
    }
}

TEST(Matmul, ScheduledJitMatchesReference) {
    for (const auto &[m, k, n] : kMatmulSizes) {
        if (!matmul_fits_schedule(m, n)) continue;
        Buffer<float> a = matmul_random_matrix(k, m, 3), b = matmul_random_matrix(n, k, 4);
        expect_equal(matmul_jit(a, b, Sched::Hand), matmul_reference(a, b),
                     "scheduled matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" +
                         std::to_string(n));
    }
}

TEST(Matmul, AutoScheduledJitMatchesReference) {
    for (const auto &[m, k, n] : kMatmulSizes) {
        Buffer<float> a = matmul_random_matrix(k, m, 3), b = matmul_random_matrix(n, k, 4);
        expect_equal(matmul_jit(a, b, Sched::Auto), matmul_reference(a, b),
                     "auto-scheduled matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" +
                         std::to_string(n));
    }
}

TEST(Matmul, AotMatchesReference) {
    for (const auto &[m, k, n] : kMatmulSizes) {
        Buffer<float> a = matmul_random_matrix(k, m, 5), b = matmul_random_matrix(n, k, 6), c(n, m);
        for (auto *library : {matmul_aot, matmul_aot_naive}) {
            if (library == matmul_aot && !matmul_fits_schedule(m, n)) continue;
            ASSERT_EQ(library(a.raw_buffer(), b.raw_buffer(), c.raw_buffer()), 0);
            expect_equal(c, matmul_reference(a, b), "AOT matmul");
        }
    }
}

// A and B whose k starts elsewhere than 0, and C smaller than a tile: the scheduled library
// reports an error instead of reading past A.
TEST(Matmul, ShiftedInputsAndTooSmallForTheSchedule) {
    Buffer<float> a = matmul_random_matrix(700, 40, 7), b = matmul_random_matrix(90, 700, 8);
    Buffer<float> expected = matmul_reference(a, b);
    a.translate(0, 11);  // k starts at 11 in A, at 2 in B (rows and columns are C's)
    b.translate(1, 2);
    Buffer<float> c(90, 40);
    ASSERT_EQ(matmul_aot(a.raw_buffer(), b.raw_buffer(), c.raw_buffer()), 0);
    expect_equal(c, expected, "shifted matmul");
    Buffer<float> small_a = matmul_random_matrix(8, 3, 9),
                  small_b = matmul_random_matrix(70, 8, 10);
    Buffer<float> small_c(70, 3);
    EXPECT_NE(matmul_aot(small_a.raw_buffer(), small_b.raw_buffer(), small_c.raw_buffer()), 0);
    EXPECT_FALSE(matmul_fits_schedule(3, 70));
}

}  // namespace
