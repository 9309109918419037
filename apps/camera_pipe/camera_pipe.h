#pragma once
// A small camera pipeline: raw Bayer (GRBG) uint16 sensor values in [64, 1023] (black level 64,
// white 1023) to an RGB uint8 image. The raw image is split into its four colour planes at half
// resolution (edges repeated quad by quad, so the pattern is kept); hot pixels are suppressed
// (each sample is at most the largest of its four same-colour neighbours, two pixels away,
// mirrored past the edges); the planes are demosaicked bilinearly (integer averages of the 2 or 4
// nearest samples of each missing colour), colour-corrected by a 3x3 matrix in float, mapped
// through a 960-entry tone curve (gamma 2: 255 * sqrt(v / 959), rounded) computed in the
// pipeline, and sharpened on the curved uint8 values by an integer unsharp mask (a 3x3 binomial
// blur, strength 1, edges repeated).

#include "dsl/dsl.h"

namespace dsl_apps {

struct CameraPipePipeline {
    dsl::Var x{"x"}, y{"y"}, c{"c"}, i{"i"};
    dsl::Func g_gr{"g_gr"}, r_r{"r_r"}, b_b{"b_b"}, g_gb{"g_gb"};  // the planes, half resolution
    dsl::Func d_gr{"d_gr"}, d_r{"d_r"}, d_b{"d_b"}, d_gb{"d_gb"};  // the planes without hot pixels
    dsl::Func red{"red"}, green{"green"}, blue{"blue"};            // demosaicked, int32
    dsl::Func corrected{"corrected"};                              // float, x y c
    dsl::Func curve{"curve"};                                      // uint8, i in [0, 959]
    dsl::Func curved{"curved"};                                    // uint8, x y c
    dsl::Func blur_y{"blur_y"};                                    // int32, x y c: 1 2 1 down
    dsl::Func output{"camera_pipe"};                               // uint8, x y c: sharpened
};

/// The algorithm over `raw` (uint16, 2 dimensions, even width and height).
CameraPipePipeline make_camera_pipe(const dsl::ImageParam &raw);

/// The hand-written CPU schedule for `target`.
void schedule_camera_pipe(CameraPipePipeline &p, const dsl::Target &target);

/// The GPU schedule (any target with a GPU API): every stage at root, a thread per pixel.
void schedule_camera_pipe_gpu(CameraPipePipeline &p);

/// The plain C++ version, with the same operations in the same order.
dsl::Buffer<uint8_t> camera_pipe_reference(const dsl::Buffer<uint16_t> &raw);

/// A raw GRBG image made from an 8-bit RGB image: each pixel keeps the channel of its position,
/// squared (back to linear light, roughly) and mapped to [64, 1023]. The width and height are
/// rounded down to even numbers.
dsl::Buffer<uint16_t> mosaic(const dsl::Buffer<uint8_t> &rgb);

}  // namespace dsl_apps
