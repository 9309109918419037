#include "blur.h"

#include <algorithm>
#include <vector>

namespace dsl_apps {

using namespace dsl;

BlurPipeline make_blur(const ImageParam &input) {
    BlurPipeline p;
    Var x = p.x, y = p.y;
    Func in = BoundaryConditions::repeat_edge(input);
    p.blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    p.blur_y(x, y) = (p.blur_x(x, y - 1) + p.blur_x(x, y) + p.blur_x(x, y + 1)) / 3;
    return p;
}

void schedule_blur(BlurPipeline &p, const Target &target) {
    // Halide's apps/blur CPU schedule: tiles of 256x32 output pixels, rows of tiles in
    // parallel, the inner x loop in SIMD; blur_x is computed per tile (34 rows of 256) so that it
    // stays in cache, and vectorized too. Two SIMD registers of uint16 per vector (32 lanes on
    // AVX-512) measured fastest in bench/. blur_x's last vector of a row shifts inwards (overlaps
    // the one before) rather than being guarded, as Halide's default does for a pure definition:
    // no tail loop, and a quarter of the machine code to compile.
    const int lanes = 2 * target.natural_vector_size<uint16_t>();
    Var x = p.x, y = p.y, xo("xo"), yo("yo"), xi("xi"), yi("yi");
    p.blur_y.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, lanes).parallel(yo);
    p.blur_x.compute_at(p.blur_y, xo).vectorize(x, lanes, TailStrategy::ShiftInwards);
}

void schedule_blur_gpu(BlurPipeline &p, bool blur_x_in_shared_memory) {
    // Four rows per thread: with one, each thread's few bytes in flight left the H200 at a ninth
    // of its memory bandwidth; with four (unrolled), a quarter (bench/README.md).
    Var x = p.x, y = p.y, bx("bx"), by("by"), tx("tx"), ty("ty"), xi("xi"), yi("yi"), yii("yii");
    p.blur_y.tile(x, y, bx, by, xi, yi, 32, 32)
        .split(yi, ty, yii, 4)
        .reorder(yii, xi, ty, bx, by)
        .gpu_blocks(bx, by)
        .gpu_threads(xi, ty)
        .unroll(yii);
    if (!blur_x_in_shared_memory) return;  // inlined: each thread reads its 6 x 3 inputs
    Var yo("yo"), yt("yt");
    p.blur_x.compute_at(p.blur_y, bx).split(y, yo, yt, 8).reorder(x, yt, yo).gpu_threads(x, yt);
}

Buffer<uint16_t> blur_reference(const Buffer<uint16_t> &input) {
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    const int x0 = input.dim(0).min(), y0 = input.dim(1).min();
    auto at = [&](int x, int y) {
        return input(x0 + std::clamp(x, 0, w - 1), y0 + std::clamp(y, 0, h - 1));
    };
    // blur_x over rows -1 .. h.
    std::vector<uint16_t> bx(static_cast<size_t>(w) * (h + 2));
    for (int y = -1; y <= h; y++) {
        for (int x = 0; x < w; x++) {
            bx[static_cast<size_t>(y + 1) * w + x] =
                static_cast<uint16_t>(at(x - 1, y) + at(x, y) + at(x + 1, y)) / 3;
        }
    }
    Buffer<uint16_t> out(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const uint16_t *col = &bx[static_cast<size_t>(y) * w + x];
            out(x, y) = static_cast<uint16_t>(col[0] + col[w] + col[2 * w]) / 3;
        }
    }
    return out;
}

}  // namespace dsl_apps
