#pragma once
// Local Laplacian filter (Paris, Hasinoff and Kautz 2011, in the fast form of Aubry et al. 2014)
// of a planar RGB uint16 image, as in Halide's apps/local_laplacian: detail enhancement and tone
// mapping that keeps edges.
//
// The grey image (BT.601 weights) is remapped at `levels` evenly spaced intensities
// I_k = k / (levels - 1): beta * (grey - I_k) + I_k + detail, where the detail, read from a
// look-up table, is alpha * t * exp(-t^2 / 2) intensity steps of 1 / (levels - 1) at t steps
// from I_k (beta below 1 compresses the range; alpha above 0 enhances detail). Each remapped image
// gets a Laplacian pyramid of 8 levels; the output pyramid takes, at each pixel of each level, the
// coefficients of the two remapped images whose intensities bracket the grey pyramid's value
// there, interpolated linearly. Collapsing the output pyramid gives the new grey image, and the
// colour follows it: each channel is scaled by (channel + 0.01) / (grey + 0.01). Only the input's
// edges are repeated; the pyramid levels are computed wherever the next level needs them.
//
// Pyramids: downsampling is the 4-tap filter 1 3 3 1 / 8 at 2x-1 .. 2x+2, in x then in y;
// upsampling takes 3/4 of the nearest coarse sample and 1/4 of the next one on the other side.

#include <vector>

#include "dsl/dsl.h"

namespace dsl_apps {

constexpr int kLaplacianPyramidLevels = 8;

struct LocalLaplacianPipeline {
    dsl::Var x{"x"}, y{"y"}, c{"c"}, k{"k"};
    dsl::Func floating{"floating"};  // the input as float in [0, 1]
    dsl::Func gray{"gray"};
    dsl::Func remap{"remap"};  // the look-up table
    // The grey image remapped at each intensity level k: the values of processed[0], read by
    // laplacian[0] (processed[0] itself is read by processed[1] only).
    dsl::Func remapped{"remapped"};
    // One Func per pyramid level, level 0 the finest. processed[j](x, y, k): the Gaussian
    // pyramid of the image remapped at intensity k; laplacian[j]: its Laplacian pyramid;
    // in_gaussian[j](x, y): the grey image's Gaussian pyramid; out_laplacian[j] and
    // out_gaussian[j]: the output's Laplacian pyramid and its collapse.
    std::vector<dsl::Func> processed, laplacian, in_gaussian, out_laplacian, out_gaussian;
    // Helpers of the pyramid Funcs: the x pass of each downsampling and upsampling.
    std::vector<dsl::Func> processed_down_x, processed_up_x, in_gaussian_down_x, out_gaussian_up_x;
    dsl::Func color{"color"};
    dsl::Func output{"local_laplacian"};  // uint16, x, y, c
};

/// The algorithm over `input` (uint16, x, y, c with 3 channels): `levels` intensity levels (an
/// int32 Expr, at least 2), detail strength `alpha` and range compression `beta` (floats).
LocalLaplacianPipeline make_local_laplacian(const dsl::ImageParam &input, const dsl::Expr &levels,
                                            const dsl::Expr &alpha, const dsl::Expr &beta);

/// The hand-written CPU schedule for `target`.
void schedule_local_laplacian(LocalLaplacianPipeline &p, const dsl::Target &target);

/// The baseline schedule: every pyramid level computed at root, in serial loops without SIMD.
/// (The default schedule inlines every level into the next, a tree of 16^8 input reads per
/// output pixel, which no compiler can build.)
void schedule_local_laplacian_naive(LocalLaplacianPipeline &p);

/// The GPU schedule (any target with a GPU API): every pyramid level at root, one kernel each,
/// the remapped levels in three dimensions.
void schedule_local_laplacian_gpu(LocalLaplacianPipeline &p);

/// The plain C++ version, with the same float operations in the same order.
dsl::Buffer<uint16_t> local_laplacian_reference(const dsl::Buffer<uint16_t> &input, int levels,
                                                float alpha, float beta);

}  // namespace dsl_apps
