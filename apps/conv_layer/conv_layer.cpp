#include "conv_layer.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace dsl_apps {

using namespace dsl;

ConvLayerPipeline make_conv_layer(const ImageParam &input, const ImageParam &weights,
                                  const ImageParam &bias, int kernel, bool depthwise) {
    if (kernel < 1 || kernel > 7 || kernel % 2 == 0) {
        throw std::invalid_argument("conv_layer: the kernel size must be odd and in [1, 7], not " +
                                    std::to_string(kernel));
    }
    ConvLayerPipeline p;
    p.kernel = kernel;
    p.depthwise = depthwise;
    Var c = p.c, x = p.x, y = p.y, n = p.n;
    const int pad = (kernel - 1) / 2;
    Expr y0 = input.min(2), y1 = input.min(2) + input.extent(2) - 1;

    if (pad == 0) {
        p.padded(c, x, y, n) = input(c, x, y, n);
    } else {
        // Zeros outside the image in x and y (the channel and the image index are never outside).
        Expr x0 = input.min(1), x1 = input.min(1) + input.extent(1) - 1;
        // Marked likely: where the padded input is read in place (the depthwise layer), each
        // loop over rows or tiles runs its steady state without the test or the clamps.
        Expr inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
        p.padded(c, x, y, n) =
            select(likely(inside), input(c, clamp(x, x0, x1), clamp(y, y0, y1), n), 0.0f);
    }

    p.conv(c, x, y, n) = bias(c);
    if (depthwise) {
        // (Skipping the rows of taps outside the image, as the dense layer does below, made the
        // loop over ky's count vary: LLVM then no longer unrolls it, and this layer's tiles of
        // 72 multiply-adds ran 8% slower.)
        p.r = RDom(0, kernel, 0, kernel, "r");
        RDom r = p.r;
        p.conv(c, x, y, n) = fma(p.padded(c, x + r.x - pad, y + r.y - pad, n), weights(c, r.x, r.y),
                                 p.conv(c, x, y, n));
    } else {
        p.r = RDom(input.min(0), input.extent(0), 0, kernel, 0, kernel, "r");
        RDom r = p.r;
        // The rows of taps outside the image read zeros: the sum skips them (the loop over the
        // kernel's rows then runs only over the rows inside).
        if (pad > 0) r.where(y + r.z - pad >= y0 && y + r.z - pad <= y1);
        p.conv(c, x, y, n) = fma(p.padded(r.x, x + r.y - pad, y + r.z - pad, n),
                                 weights(c, r.x, r.y, r.z), p.conv(c, x, y, n));
    }
    p.output(c, x, y, n) = max(p.conv(c, x, y, n), 0.0f);
    return p;
}

bool conv_layer_fits_schedule(bool depthwise, int channels_out, int width, int height) {
    // A vector of channels is at most 16 floats (AVX-512).
    if (depthwise) {
        return channels_out >= 16 && width >= kDepthwiseTileX && height >= kDepthwiseTileY;
    }
    return channels_out >= kConvTileChannels && width >= kConvTileX;
}

void schedule_conv_layer_gpu(ConvLayerPipeline &p) {
    // A thread per output: 32 channels (the threads of a warp, which read consecutive weights and
    // the same input) by 8 pixels of a row per block, the rows and images across blocks; each
    // thread sums its bias and terms in a register, in the reference's order.
    Var c = p.c, x = p.x, y = p.y, n = p.n, bc("bc"), bx("bx"), tc("tc"), tx("tx"), yn("yn");
    p.output.fuse(y, n, yn).gpu_tile(c, x, bc, bx, tc, tx, 32, 8).gpu_blocks(yn);
    p.conv.compute_at(p.output, tc);
}

void schedule_conv_layer(ConvLayerPipeline &p, const Target &target) {
    const int vec = target.natural_vector_size<float>();
    Var c = p.c, x = p.x, y = p.y, n = p.n;
    if (p.depthwise) {
        // Tiles of one vector of channels x kDepthwiseTileX pixels x kDepthwiseTileY rows (8
        // accumulators) summed in registers over the kernel, images in parallel. The input is
        // read in place (`padded` is inlined): its test is marked likely, so lowering splits the
        // rows and the tiles of a row into the edges and a steady state that reads the input
        // without tests or clamps. Within a row of taps, the taps are unrolled outside the tile's
        // pixels, and the tile's rows inside the rows of taps: pixel x + 1's tap kx and pixel x's
        // tap kx + 1 read the same vector, as do row y + 1's tap ky and row y's tap ky + 1, which
        // LLVM then loads once (24 loads of the input for 72 multiply-adds, against 30 for a
        // tile of 8 x 1). Measured, best of 200 at one thread: 0.41 ms with the padded input
        // copied a row at a time (35% of the time in the copy), 0.33 ms in place in tiles of
        // 8 x 1, 0.28-0.29 ms in tiles of 4 x 2; tiles of 8 x 2 or 4 x 4 spilled registers, and
        // the channel blocks outside the rows (each block's rows reused from L1) ran 0.53 ms.
        const int tx = kDepthwiseTileX, ty = kDepthwiseTileY;
        Var co("co"), xo("xo"), yo("yo"), ci("ci"), xi("xi"), yi("yi");
        p.output.tile(c, x, co, xo, ci, xi, vec, tx, TailStrategy::ShiftInwards)
            .split(y, yo, yi, ty, TailStrategy::ShiftInwards)
            .reorder(ci, xi, yi, co, xo, yo, n)
            .vectorize(ci)
            .unroll(xi)
            .unroll(yi)
            .parallel(n);
        p.conv.compute_at(p.output, co)
            .bound_extent(c, vec)
            .bound_extent(x, tx)
            .bound_extent(y, ty)
            .vectorize(c)
            .unroll(x)
            .unroll(y);
        p.conv.update()
            .reorder(c, p.r.x, x, y, p.r.y)
            .vectorize(c)
            .unroll(p.r.x)
            .unroll(x)
            .unroll(y);
        return;
    }

    // Dense: tiles of kConvTileChannels x kConvTileX outputs (4 x 6 AVX-512 registers) summed in
    // registers over (ci, kx, ky): for each term, one vector load of the weights per register
    // column, one broadcast of the input per pixel, a fused multiply-add per register. The same
    // micro-kernel as apps/matmul, with the input's rows read in place (no im2col copy). Along a
    // row, the tiles of one block of output channels share its weights in the cache.
    // The last block of channels shifts back to overlap the one before; the last tile of a row
    // is a partial one (PartialTile): lowering gives each count of pixels such a tile can have
    // its own copy of the tile's code, which computes only those (a row of 64 pixels in tiles of
    // 6 computes 64, not 66).
    // Images in parallel; within one, rows in order, so that the padded input slides down the
    // image a row at a time (each row padded once, three rows kept).
    if (p.kernel > 1) p.padded.store_at(p.output, n).compute_at(p.output, y).vectorize(c, vec);
    const int tc = kConvTileChannels, tx = kConvTileX;
    Var co("co"), xo("xo"), ci("ci"), xi("xi");
    p.output.split(c, co, ci, tc, TailStrategy::ShiftInwards)
        .split(x, xo, xi, tx, TailStrategy::PartialTile)
        .reorder(ci, xi, xo, co, y, n)
        .vectorize(ci, vec)
        .unroll(ci)
        .unroll(xi)
        .parallel(n);
    p.conv.compute_at(p.output, xo)
        .bound_extent(c, tc)
        .bound_extent(x, tx)
        .vectorize(c, vec)
        .unroll(c)
        .unroll(x);
    p.conv.update().reorder(c, x, p.r.x, p.r.y, p.r.z).vectorize(c, vec).unroll(c).unroll(x);
}

std::optional<JoinedRows> conv_layer_join_rows(const Buffer<float> &input,
                                               const Buffer<float> &output) {
    auto joinable = [](const Buffer<float> &b) {
        return b.dimensions() == 4 &&
               int64_t(b.dim(1).stride()) * b.dim(1).extent() == b.dim(2).stride() &&
               int64_t(b.dim(1).extent()) * b.dim(2).extent() <= INT32_MAX;
    };
    if (!joinable(input) || !joinable(output)) return std::nullopt;
    for (int d : {1, 2}) {
        if (input.dim(d).min() != output.dim(d).min() ||
            input.dim(d).extent() != output.dim(d).extent()) {
            return std::nullopt;
        }
    }
    auto view = [](const Buffer<float> &b) {
        std::vector<dsl_dimension_t> dims;
        for (int d = 0; d < 4; d++)
            dims.push_back({b.dim(d).min(), b.dim(d).extent(), b.dim(d).stride(), 0});
        const int pixels = b.dim(1).extent() * b.dim(2).extent();
        dims[1] = {0, pixels, b.dim(1).stride(), 0};
        dims[2] = {0, 1, b.dim(1).stride() * pixels, 0};
        return Buffer<float>(Float(32), b.data(), dims, b.name());
    };
    return JoinedRows{view(input), view(output)};
}

namespace {

Buffer<float> random_buffer(const std::vector<int> &sizes, unsigned seed) {
    Buffer<float> b(sizes);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    float *data = b.data();
    for (int64_t i = 0; i < b.number_of_elements(); i++)
        data[i] = value(rng);
    return b;
}

}  // namespace

Buffer<float> conv_layer_random_input(const ConvLayerShape &s, unsigned seed) {
    return random_buffer({s.c_in, s.width, s.height, s.n}, seed);
}

Buffer<float> conv_layer_random_weights(const ConvLayerShape &s, unsigned seed) {
    if (s.depthwise) return random_buffer({s.c_out, s.kernel, s.kernel}, seed);
    return random_buffer({s.c_out, s.c_in, s.kernel, s.kernel}, seed);
}

Buffer<float> conv_layer_random_bias(const ConvLayerShape &s, unsigned seed) {
    return random_buffer({s.c_out}, seed);
}

float conv_layer_reference_at(const Buffer<float> &input, const Buffer<float> &weights,
                              const Buffer<float> &bias, int kernel, bool depthwise, int co, int x,
                              int y, int n) {
    const int pad = (kernel - 1) / 2;
    const int x0 = input.dim(1).min(), x1 = x0 + input.dim(1).extent() - 1;
    const int y0 = input.dim(2).min(), y1 = y0 + input.dim(2).extent() - 1;
    const int c0 = input.dim(0).min(), c1 = c0 + input.dim(0).extent() - 1;
    auto at = [&](int c, int xx, int yy) {
        return xx < x0 || xx > x1 || yy < y0 || yy > y1 ? 0.0f : input(c, xx, yy, n);
    };
    float acc = bias(co);
    for (int ky = 0; ky < kernel; ky++) {
        for (int kx = 0; kx < kernel; kx++) {
            if (depthwise) {
                acc = std::fmaf(at(co, x + kx - pad, y + ky - pad), weights(co, kx, ky), acc);
                continue;
            }
            for (int ci = c0; ci <= c1; ci++)
                acc = std::fmaf(at(ci, x + kx - pad, y + ky - pad), weights(co, ci, kx, ky), acc);
        }
    }
    return std::max(acc, 0.0f);
}

Buffer<float> conv_layer_reference(const Buffer<float> &input, const Buffer<float> &weights,
                                   const Buffer<float> &bias, int kernel, bool depthwise) {
    Buffer<float> out({bias.dim(0).extent(), input.dim(1).extent(), input.dim(2).extent(),
                       input.dim(3).extent()});
    const int mins[4] = {bias.dim(0).min(), input.dim(1).min(), input.dim(2).min(),
                         input.dim(3).min()};
    for (int d = 0; d < 4; d++)
        out.translate(d, mins[d]);
    out.for_each_element([&](int co, int x, int y, int n) {
        out(co, x, y, n) =
            conv_layer_reference_at(input, weights, bias, kernel, depthwise, co, x, y, n);
    });
    return out;
}

}  // namespace dsl_apps
