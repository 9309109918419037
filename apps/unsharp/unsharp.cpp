#include "unsharp.h"

#include <algorithm>
#include <vector>

namespace dsl_apps {

using namespace dsl;

namespace {

// The 5-tap binomial approximation of a Gaussian (sigma about 1).
constexpr float kOuter = 1.0f / 16.0f, kNear = 4.0f / 16.0f, kCentre = 6.0f / 16.0f;

}  // namespace

UnsharpPipeline make_unsharp(const ImageParam &input, const Expr &amount) {
    UnsharpPipeline p;
    Var x = p.x, y = p.y, c = p.c;
    Func in = BoundaryConditions::repeat_edge(input);
    p.blur_x(x, y, c) = in(x - 2, y, c) * kOuter + in(x - 1, y, c) * kNear + in(x, y, c) * kCentre +
                        in(x + 1, y, c) * kNear + in(x + 2, y, c) * kOuter;
    p.blur_y(x, y, c) = p.blur_x(x, y - 2, c) * kOuter + p.blur_x(x, y - 1, c) * kNear +
                        p.blur_x(x, y, c) * kCentre + p.blur_x(x, y + 1, c) * kNear +
                        p.blur_x(x, y + 2, c) * kOuter;
    p.sharpened(x, y, c) = in(x, y, c) + amount * (in(x, y, c) - p.blur_y(x, y, c));
    p.output(x, y, c) = cast<uint8_t>(clamp(p.sharpened(x, y, c) * 255.0f + 0.5f, 0.0f, 255.0f));
    return p;
}

void schedule_unsharp_gpu(UnsharpPipeline &p) {
    Var x = p.x, y = p.y, c = p.c, bx("bx"), by("by"), tx("tx"), ty("ty");
    p.output.gpu_tile(x, y, bx, by, tx, ty, 32, 8).gpu_blocks(c);
    p.blur_x.compute_at(p.output, bx).gpu_threads(x, y);
}

void schedule_unsharp(UnsharpPipeline &p, const Target &target) {
    // Strips of 32 rows of one channel in parallel (channels and strips fused into one parallel
    // loop, so that both cores have work for a 3-channel image); blur_x is computed per strip
    // (36 rows, in cache) and vectorized; blur_y and the sharpening are inlined into the output,
    // whose x loop is vectorized (the float lanes narrowed to uint8 at the store).
    const int lanes = target.natural_vector_size<float>();
    Var x = p.x, y = p.y, c = p.c, yo("yo"), yi("yi"), t("t");
    p.output.split(y, yo, yi, 32)
        .reorder(x, yi, yo, c)
        .fuse(yo, c, t)
        .parallel(t)
        .vectorize(x, lanes);
    // blur_x's last vector of a row shifts inwards (Halide's default for a pure definition).
    p.blur_x.compute_at(p.output, t).vectorize(x, lanes, TailStrategy::ShiftInwards);
}

Buffer<uint8_t> unsharp_reference(const Buffer<float> &input, float amount) {
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    const int channels = input.dim(2).extent();
    const int x0 = input.dim(0).min(), y0 = input.dim(1).min(), c0 = input.dim(2).min();
    Buffer<uint8_t> out(w, h, channels);
    // blur_x of rows -2 .. h + 1 of one channel.
    std::vector<float> bx(static_cast<size_t>(w) * (h + 4));
    for (int c = 0; c < channels; c++) {
        auto in = [&](int x, int y) {
            return input(x0 + std::clamp(x, 0, w - 1), y0 + std::clamp(y, 0, h - 1), c0 + c);
        };
        for (int y = -2; y < h + 2; y++) {
            for (int x = 0; x < w; x++) {
                bx[static_cast<size_t>(y + 2) * w + x] =
                    in(x - 2, y) * kOuter + in(x - 1, y) * kNear + in(x, y) * kCentre +
                    in(x + 1, y) * kNear + in(x + 2, y) * kOuter;
            }
        }
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                auto b = [&](int dy) { return bx[static_cast<size_t>(y + 2 + dy) * w + x]; };
                float blurred =
                    b(-2) * kOuter + b(-1) * kNear + b(0) * kCentre + b(1) * kNear + b(2) * kOuter;
                float sharp = in(x, y) + amount * (in(x, y) - blurred);
                out(x, y, c) =
                    static_cast<uint8_t>(std::clamp(sharp * 255.0f + 0.5f, 0.0f, 255.0f));
            }
        }
    }
    return out;
}

}  // namespace dsl_apps
