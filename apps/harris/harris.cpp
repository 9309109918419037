#include "harris.h"

#include <algorithm>
#include <vector>

namespace dsl_apps {

using namespace dsl;

namespace {

constexpr float kRed = 0.299f, kGreen = 0.587f, kBlue = 0.114f;
constexpr float kSobelSide = 1.0f / 12.0f, kSobelCentre = 2.0f / 12.0f;
constexpr float kHarrisK = 0.04f;

// The 3x3 box sum of f at (x, y), in the same order as the reference's.
Expr box3(const Func &f, const Var &x, const Var &y) {
    return f(x - 1, y - 1) + f(x, y - 1) + f(x + 1, y - 1) + f(x - 1, y) + f(x, y) + f(x + 1, y) +
           f(x - 1, y + 1) + f(x, y + 1) + f(x + 1, y + 1);
}

}  // namespace

HarrisPipeline make_harris(const ImageParam &input) {
    HarrisPipeline p;
    Var x = p.x, y = p.y;
    Func in = BoundaryConditions::repeat_edge(input);
    p.gray(x, y) = kRed * in(x, y, 0) + kGreen * in(x, y, 1) + kBlue * in(x, y, 2);
    const Func &g = p.gray;
    p.iy(x, y) = (g(x - 1, y + 1) - g(x - 1, y - 1)) * kSobelSide +
                 (g(x, y + 1) - g(x, y - 1)) * kSobelCentre +
                 (g(x + 1, y + 1) - g(x + 1, y - 1)) * kSobelSide;
    p.ix(x, y) = (g(x + 1, y - 1) - g(x - 1, y - 1)) * kSobelSide +
                 (g(x + 1, y) - g(x - 1, y)) * kSobelCentre +
                 (g(x + 1, y + 1) - g(x - 1, y + 1)) * kSobelSide;
    p.ixx(x, y) = p.ix(x, y) * p.ix(x, y);
    p.iyy(x, y) = p.iy(x, y) * p.iy(x, y);
    p.ixy(x, y) = p.ix(x, y) * p.iy(x, y);
    p.sxx(x, y) = box3(p.ixx, x, y);
    p.syy(x, y) = box3(p.iyy, x, y);
    p.sxy(x, y) = box3(p.ixy, x, y);
    Expr det = p.sxx(x, y) * p.syy(x, y) - p.sxy(x, y) * p.sxy(x, y);
    Expr trace = p.sxx(x, y) + p.syy(x, y);
    p.output(x, y) = det - kHarrisK * trace * trace;
    return p;
}

void schedule_harris(HarrisPipeline &p, const Target &target) {
    // After Halide's harris CPU schedule: strips of 32 output rows in parallel, the output's x
    // loop vectorized; per strip, the grey image (36 rows) and the two gradients (34 rows) are
    // computed into small buffers and vectorized. The products and box sums are inlined into the
    // output (each gradient value is read 9 times, from cache). The grey image is computed at
    // the strip loop of the output, which reads it only through the gradients computed there.
    const int lanes = target.natural_vector_size<float>();
    Var x = p.x, y = p.y, yo("yo"), yi("yi");
    p.output.split(y, yo, yi, 32).parallel(yo).vectorize(x, lanes);
    p.gray.compute_at(p.output, yo).vectorize(x, lanes);
    p.ix.compute_at(p.output, yo).vectorize(x, lanes);
    p.iy.compute_at(p.output, yo).vectorize(x, lanes);
}

Buffer<float> harris_reference(const Buffer<float> &input) {
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    const int x0 = input.dim(0).min(), y0 = input.dim(1).min(), c0 = input.dim(2).min();
    // Grey over the image; outside, that of the nearest pixel (the input's edges repeated).
    std::vector<float> grey(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            grey[static_cast<size_t>(y) * w + x] = kRed * input(x0 + x, y0 + y, c0) +
                                                   kGreen * input(x0 + x, y0 + y, c0 + 1) +
                                                   kBlue * input(x0 + x, y0 + y, c0 + 2);
        }
    }
    auto g = [&](int x, int y) {
        return grey[static_cast<size_t>(std::clamp(y, 0, h - 1)) * w + std::clamp(x, 0, w - 1)];
    };
    // The gradients over [-1, w] x [-1, h], the box sums' footprint.
    const int gw = w + 2;
    std::vector<float> ix(static_cast<size_t>(gw) * (h + 2)), iy(ix.size());
    for (int y = -1; y <= h; y++) {
        for (int x = -1; x <= w; x++) {
            size_t at = static_cast<size_t>(y + 1) * gw + (x + 1);
            iy[at] = (g(x - 1, y + 1) - g(x - 1, y - 1)) * kSobelSide +
                     (g(x, y + 1) - g(x, y - 1)) * kSobelCentre +
                     (g(x + 1, y + 1) - g(x + 1, y - 1)) * kSobelSide;
            ix[at] = (g(x + 1, y - 1) - g(x - 1, y - 1)) * kSobelSide +
                     (g(x + 1, y) - g(x - 1, y)) * kSobelCentre +
                     (g(x + 1, y + 1) - g(x - 1, y + 1)) * kSobelSide;
        }
    }
    Buffer<float> out(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float sxx = 0, syy = 0, sxy = 0;
            bool first = true;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    size_t at = static_cast<size_t>(y + dy + 1) * gw + (x + dx + 1);
                    float a = ix[at], b = iy[at];
                    if (first) {
                        sxx = a * a, syy = b * b, sxy = a * b;
                        first = false;
                    } else {
                        sxx += a * a, syy += b * b, sxy += a * b;
                    }
                }
            }
            float det = sxx * syy - sxy * sxy;
            float trace = sxx + syy;
            out(x, y) = det - kHarrisK * trace * trace;
        }
    }
    return out;
}

}  // namespace dsl_apps
