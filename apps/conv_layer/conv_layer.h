#pragma once
// A float32 convolution layer: a K x K convolution with stride 1 and "same" zero padding
// ((K - 1) / 2 on each side), plus a bias per output channel, then ReLU, in NHWC.
//
//   input(c, x, y, n)             C_in channels innermost, then x (width), y (height), the image n
//   weights(co, ci, kx, ky)       dense: HWIO, the output channel innermost
//   weights(c, kx, ky)            depthwise (one kernel per channel, C_in == C_out): HWC
//   bias(co)
//   output(co, x, y, n)           = max(0, bias(co) + sum of input * weights)
//
// The output covers the same x and y as the input. The sum starts from the bias and adds the terms
// with fused multiply-adds in the order ky, kx, ci (ci innermost); the C++ reference sums in that
// same order, so results are bit-exact.

#include <optional>

#include "dsl/dsl.h"

namespace dsl_apps {

/// The dense layer's register tile: 4 AVX-512 vectors of output channels by 6 pixels of a row.
constexpr int kConvTileChannels = 64;
constexpr int kConvTileX = 6;
/// The depthwise layer's tile: one vector of channels by 4 pixels by 2 rows.
constexpr int kDepthwiseTileX = 4;
constexpr int kDepthwiseTileY = 2;

struct ConvLayerPipeline {
    dsl::Var c{"c"}, x{"x"}, y{"y"}, n{"n"};
    dsl::Func padded{"padded"};  // the input with zeros around (the input itself when K == 1)
    dsl::Func conv{"conv"};      // bias + the sum
    dsl::Func output{"conv_layer"};
    dsl::RDom r;  // dense: (ci, kx, ky); depthwise: (kx, ky)
    int kernel = 3;
    bool depthwise = false;
};

/// The algorithm over `input` (4-D), `weights` (4-D dense, 3-D depthwise) and `bias` (1-D), all
/// float32. `kernel` is K, odd, 1..7.
ConvLayerPipeline make_conv_layer(const dsl::ImageParam &input, const dsl::ImageParam &weights,
                                  const dsl::ImageParam &bias, int kernel, bool depthwise);

/// The hand-written CPU schedule: the output in tiles of kConvTileChannels x kConvTileX (dense) or
/// a vector of channels x kDepthwiseTileX x kDepthwiseTileY (depthwise) summed in registers, the
/// padded input a row at a time (dense) or the input read in place (depthwise), images in
/// parallel. It needs at least one tile (`conv_layer_fits_schedule` says whether the sizes allow
/// it).
void schedule_conv_layer(ConvLayerPipeline &p, const dsl::Target &target);
/// The GPU schedule (any target with a GPU API): a thread per output, 32 channels by 8 pixels
/// per block, the sum in a register.
void schedule_conv_layer_gpu(ConvLayerPipeline &p);
bool conv_layer_fits_schedule(bool depthwise, int channels_out, int width, int height);

/// A 1x1 layer reads each pixel alone. Where the rows of an image lie one after another in both
/// buffers (x, then y, without gaps: an NHWC buffer's do), its rows can be joined into one of
/// width x height pixels, and the same layer over those views computes the same output. Its
/// register tiles then run on across the rows instead of shifting back at the end of each (a row
/// of 64 pixels in tiles of 6 computes 66). Returns views of `input` and `output` with dimensions
/// (c, width x height, 1, n), sharing their memory (keep them alive), or nothing where a buffer's
/// rows are not consecutive or the two do not cover the same pixels.
struct JoinedRows {
    dsl::Buffer<float> input, output;
};
std::optional<JoinedRows> conv_layer_join_rows(const dsl::Buffer<float> &input,
                                               const dsl::Buffer<float> &output);

/// The sizes of a layer's buffers.
struct ConvLayerShape {
    int n, c_in, c_out, width, height, kernel;
    bool depthwise;
};

/// Random buffers in [-1, 1) for `shape` (the same for the same seed): input, weights, bias.
dsl::Buffer<float> conv_layer_random_input(const ConvLayerShape &shape, unsigned seed);
dsl::Buffer<float> conv_layer_random_weights(const ConvLayerShape &shape, unsigned seed);
dsl::Buffer<float> conv_layer_random_bias(const ConvLayerShape &shape, unsigned seed);

/// The plain C++ version, summing in the same order as the pipeline: one element, and all.
float conv_layer_reference_at(const dsl::Buffer<float> &input, const dsl::Buffer<float> &weights,
                              const dsl::Buffer<float> &bias, int kernel, bool depthwise, int co,
                              int x, int y, int n);
dsl::Buffer<float> conv_layer_reference(const dsl::Buffer<float> &input,
                                        const dsl::Buffer<float> &weights,
                                        const dsl::Buffer<float> &bias, int kernel, bool depthwise);

}  // namespace dsl_apps
