#pragma once
// What the app benchmarks share (bench/apps.cpp, ours; bench/apps_halide.cpp, Halide 14's): the
// six apps of apps/, their benchmark sizes and inputs, and the comparison of outputs.
//
// Inputs are made once per process from the photographs in apps/images/, mirrored and tiled up
// to the benchmark size so that the data-dependent pipelines (the histogram, the bilateral grid)
// see the statistics of a real image; the blur gets random uint16 values.

#include <cstdint>
#include <string>
#include <vector>

#include "dsl/Buffer.h"

namespace dsl_bench {

/// How an output is compared with the one it must match.
enum class Tolerance {
    kExact,      // every element equal
    kWithinOne,  // integers: no element differs by more than 1
    kCurveStep,  // uint8 through a look-up table of float indices: at most 1% of the elements
                 // differ, each by at most 8 (one step of the camera pipe's tone curve where it
                 // is steepest: a float rounding moved the index by one)
    kCurveStepSharpened,  // the same after an unsharp mask of strength 1 (weights 2 - 1/4 at the
                          // centre): each by at most 16
    kRelative1e4,         // floats: no element differs by more than 1e-4 of the largest magnitude
    kPyramid,     // uint16 out of float pyramids: at most 1% of the elements differ, each by at
                  // most 8 (as test/apps checks the local Laplacian filter)
    kPyramidFast  // the same against Halide, each by at most 128 of 65535: Halide's exp() is its
                  // own polynomial and its float code is reassociated (measured: 216 of 11.8
                  // million values differ by more than 8, at most by about 60)
};

/// One app: its name (as in apps/), its output's sizes, and how its outputs are compared.
struct AppSpec {
    const char *name;
    std::vector<int> output_sizes;
    /// Ours against the app's plain C++ reference (as test/apps checks it).
    Tolerance dsl_vs_reference;
    /// Halide's against ours.
    Tolerance halide_vs_dsl;
};

/// The seven apps, in the order of the summary table.
const std::vector<AppSpec> &app_specs();
const AppSpec &app_spec(const std::string &name);

/// "6400x4800" for the blur, "1536x2560" for the others: the label of their benchmarks.
std::string size_label(const AppSpec &spec);

/// The strength of the unsharp mask.
constexpr float kUnsharpAmount = 1.5f;

/// The local Laplacian filter's intensity levels and strengths (its driver's defaults).
constexpr int kLaplacianLevels = 8;
constexpr float kLaplacianAlpha = 1.0f, kLaplacianBeta = 1.0f;

/// The inputs, made once: width x height with the minimums at 0, dense, planar.
const dsl::Buffer<uint16_t> &blur_input();             // random uint16, 6400x4800
const dsl::Buffer<float> &unsharp_input();             // coffee.jpg, RGB float in [0, 1]
const dsl::Buffer<uint8_t> &histogram_input();         // camera.png, grey uint8
const dsl::Buffer<float> &harris_input();              // coffee.jpg, RGB float in [0, 1]
const dsl::Buffer<float> &bilateral_input();           // camera.png, grey float in [0, 1]
const dsl::Buffer<uint16_t> &camera_pipe_input();      // coffee.jpg made into raw GRBG data
const dsl::Buffer<uint16_t> &local_laplacian_input();  // coffee.jpg, RGB uint16

/// Compares `actual` (dense, the same shape and element type as `expected`) with `expected`.
/// Empty when they match within `tolerance`, else a message naming the first differing element
/// and how many differ.
std::string compare_outputs(const dsl::Buffer<> &expected, const void *actual, Tolerance tolerance);

/// Our output of an app (its hand-written schedule, through the JIT), computed once and checked
/// against the plain C++ reference: what Halide's output is compared with. Throws
/// std::runtime_error when ours does not match the reference. Defined in apps.cpp.
const dsl::Buffer<> &dsl_output(const std::string &app);

/// Registers `<app>/dsl/threads:{1,2}`, `<app>/dsl_compile` and `<app>/dsl_compile_cached`
/// (apps.cpp), and the first two for Halide (apps_halide.cpp, compiled in only when Halide 14 is
/// found). main() registers each app's in turn, so that the peers' rows run next to each other.
void register_dsl_benchmarks(const AppSpec &spec);
void register_dsl_compile_benchmark(const AppSpec &spec);
void register_halide_benchmarks(const AppSpec &spec);
void register_halide_compile_benchmark(const AppSpec &spec);

}  // namespace dsl_bench
