#include "local_laplacian.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace dsl_apps {

using namespace dsl;

namespace {

constexpr int J = kLaplacianPyramidLevels;

std::string level_name(const char *what, int j) {
    return std::string(what) + "_" + std::to_string(j);
}

// `args` with its first two entries (x and y) replaced.
std::vector<Expr> at(const std::vector<Expr> &args, const Expr &x, const Expr &y) {
    std::vector<Expr> r = args;
    r[0] = x;
    r[1] = y;
    return r;
}

// Defines `down_x` and `down` as the downsampling of `f` over `args` (x, y and any others).
void define_downsample(const Func &f, Func &down_x, Func &down, const std::vector<Var> &vars) {
    std::vector<Expr> args(vars.begin(), vars.end());
    Expr x = args[0], y = args[1];
    down_x(vars) = (f(at(args, 2 * x - 1, y)) + 3.0f * f(at(args, 2 * x, y)) +
                    3.0f * f(at(args, 2 * x + 1, y)) + f(at(args, 2 * x + 2, y))) /
                   8.0f;
    down(vars) = (down_x(at(args, x, 2 * y - 1)) + 3.0f * down_x(at(args, x, 2 * y)) +
                  3.0f * down_x(at(args, x, 2 * y + 1)) + down_x(at(args, x, 2 * y + 2))) /
                 8.0f;
}

// The upsampling of `f` as an expression at `args`, through `up_x` (its x pass, defined here).
Expr upsample(const Func &f, Func &up_x, const std::vector<Var> &vars) {
    std::vector<Expr> args(vars.begin(), vars.end());
    Expr x = args[0], y = args[1];
    up_x(vars) = 0.25f * f(at(args, x / 2 - 1 + 2 * (x % 2), y)) + 0.75f * f(at(args, x / 2, y));
    return 0.25f * up_x(at(args, x, y / 2 - 1 + 2 * (y % 2))) + 0.75f * up_x(at(args, x, y / 2));
}

}  // namespace

LocalLaplacianPipeline make_local_laplacian(const ImageParam &input, const Expr &levels,
                                            const Expr &alpha, const Expr &beta) {
    LocalLaplacianPipeline p;
    Var x = p.x, y = p.y, c = p.c, k = p.k;
    Func clamped = BoundaryConditions::repeat_edge(input);
    p.floating(x, y, c) = cast<float>(clamped(x, y, c)) / 65535.0f;
    p.gray(x, y) =
        0.299f * p.floating(x, y, 0) + 0.587f * p.floating(x, y, 1) + 0.114f * p.floating(x, y, 2);

    // The detail added at t intensity steps (of 1 / (levels - 1)) from a level, sampled every
    // 1/256 step: alpha * t * exp(-t^2 / 2) steps.
    Expr top = levels - 1;
    Expr t = cast<float>(x) / 256.0f;
    p.remap(x) = alpha / cast<float>(top) * t * exp(-t * t / 2.0f);

    // The grey image remapped around intensity k / (levels - 1).
    Expr intensity = cast<float>(k) / cast<float>(top);
    Expr index = clamp(cast<int>(p.gray(x, y) * cast<float>(top) * 256.0f), 0, top * 256);
    Expr remapped = beta * (p.gray(x, y) - intensity) + intensity + p.remap(index - 256 * k);
    Func finest("processed_0");
    finest(x, y, k) = remapped;
    // The same values for the finest Laplacian level, a Func of its own so that the pyramid's
    // copy can be computed per strip of the next level while this one stays inlined.
    p.remapped(x, y, k) = remapped;

    std::vector<Var> xyk = {x, y, k}, xy = {x, y};
    p.processed.push_back(finest);
    p.in_gaussian.push_back(p.gray);
    p.processed_down_x.push_back(Func());
    p.in_gaussian_down_x.push_back(Func());
    for (int j = 1; j < J; j++) {
        Func down_x(level_name("processed_down_x", j)), down(level_name("processed", j));
        define_downsample(p.processed[j - 1], down_x, down, xyk);
        p.processed.push_back(down);
        p.processed_down_x.push_back(down_x);
        Func in_down_x(level_name("in_gaussian_down_x", j)), in_down(level_name("in_gaussian", j));
        define_downsample(p.in_gaussian[j - 1], in_down_x, in_down, xy);
        p.in_gaussian.push_back(in_down);
        p.in_gaussian_down_x.push_back(in_down_x);
    }

    // Laplacian pyramids of the remapped images; the coarsest level is the Gaussian one.
    p.laplacian.resize(J);
    p.processed_up_x.resize(J);
    for (int j = 0; j < J - 1; j++) {
        p.processed_up_x[j] = Func(level_name("processed_up_x", j));
        p.laplacian[j] = Func(level_name("laplacian", j));
        const Func &fine = j == 0 ? p.remapped : p.processed[j];
        p.laplacian[j](x, y, k) =
            fine(x, y, k) - upsample(p.processed[j + 1], p.processed_up_x[j], xyk);
    }
    p.laplacian[J - 1] = p.processed[J - 1];

    // The output's Laplacian pyramid: at each point, the coefficients of the two remapped
    // images whose intensities bracket the grey pyramid's value, interpolated.
    for (int j = 0; j < J; j++) {
        Expr level = p.in_gaussian[j](x, y) * cast<float>(top);
        Expr li = clamp(cast<int>(level), 0, top - 1);
        Expr lf = level - cast<float>(li);
        Func out(level_name("out_laplacian", j));
        out(x, y) = (1.0f - lf) * p.laplacian[j](x, y, li) + lf * p.laplacian[j](x, y, li + 1);
        p.out_laplacian.push_back(out);
    }

    // Collapsed from the coarsest level.
    p.out_gaussian.resize(J);
    p.out_gaussian_up_x.resize(J);
    p.out_gaussian[J - 1] = p.out_laplacian[J - 1];
    for (int j = J - 2; j >= 0; j--) {
        p.out_gaussian_up_x[j] = Func(level_name("out_gaussian_up_x", j));
        p.out_gaussian[j] = Func(level_name("out_gaussian", j));
        p.out_gaussian[j](x, y) =
            upsample(p.out_gaussian[j + 1], p.out_gaussian_up_x[j], xy) + p.out_laplacian[j](x, y);
    }

    p.color(x, y, c) =
        p.out_gaussian[0](x, y) * (p.floating(x, y, c) + 0.01f) / (p.gray(x, y) + 0.01f);
    p.output(x, y, c) = cast<uint16_t>(clamp(p.color(x, y, c), 0.0f, 1.0f) * 65535.0f);
    return p;
}

void schedule_local_laplacian(LocalLaplacianPipeline &p, const Target &target) {
    // The grey image, the look-up table and every level of the three pyramids but the finest
    // remapped one are computed at root. The finest remapped level (`levels` float planes over
    // the image plus a margin of several hundred pixels: 245 MB for 1536x2560) is computed per
    // strip of 8 rows of the next level (18 rows of one intensity level, in cache), and inlined
    // where the finest Laplacian level reads it (two points per output point). The Laplacian
    // levels and the output's Laplacian levels are inlined (each output point reads two of the
    // `levels` remapped images, so computing them all would waste most of the work). The four
    // finest levels run strips of rows in parallel and every x loop in SIMD; the coarser ones are
    // at most 1/256 of the image. The output computes the three channels of a row together.
    const int lanes = target.natural_vector_size<float>();
    Var x = p.x, y = p.y, c = p.c, yo("yo"), yi("yi");
    p.remap.compute_root().vectorize(x, lanes);
    p.gray.compute_root().split(y, yo, yi, 16).parallel(yo).vectorize(x, lanes);
    for (int j = 0; j < J; j++) {
        std::vector<Func> roots;
        if (j > 0) roots = {p.processed[j], p.in_gaussian[j]};
        if (j < J - 1) roots.push_back(p.out_gaussian[j]);
        for (Func &f : roots) {
            f.compute_root();
            if (j < 4) f.split(y, yo, yi, 8).parallel(yo);
            f.vectorize(x, lanes);
        }
    }
    p.processed[0].compute_at(p.processed[1], yo).vectorize(x, lanes);
    p.output.reorder(x, c, y).split(y, yo, yi, 8).parallel(yo).vectorize(x, lanes);
}

void schedule_local_laplacian_gpu(LocalLaplacianPipeline &p) {
    // What the CPU schedule computes at root, each in its own kernel of 16 x 8 threads; the
    // pyramids of the remapped image in three dimensions (x, y and the intensity level, one
    // level per block), the finest one included (on a GPU the whole of it fits), the output's
    // three channels likewise. The rest is inlined, as on the CPU.
    Var x = p.x, y = p.y, c = p.c, k = p.k, bx("bx"), by("by"), bz("bz"), tx("tx"), ty("ty"),
        tz("tz");
    p.remap.compute_root().gpu_tile(x, bx, tx, 64);
    p.gray.compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    for (int j = 0; j < J; j++) {
        p.processed[j].compute_root().gpu_tile(x, y, k, bx, by, bz, tx, ty, tz, 16, 8, 1);
        if (j > 0) p.in_gaussian[j].compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 8);
        if (j < J - 1) p.out_gaussian[j].compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    }
    p.output.gpu_tile(x, y, c, bx, by, bz, tx, ty, tz, 16, 8, 1);
}

void schedule_local_laplacian_naive(LocalLaplacianPipeline &p) {
    p.remap.compute_root();
    for (int j = 0; j < J; j++) {
        p.processed[j].compute_root();
        p.in_gaussian[j].compute_root();
        if (j < J - 1) p.out_gaussian[j].compute_root();
    }
}

namespace {

// A plane of floats over [x0, x0 + w) x [y0, y0 + h), `count` planes deep.
struct Plane {
    int x0 = 0, y0 = 0, w = 0, h = 0, count = 1;
    std::vector<float> v;
    Plane() = default;
    Plane(int x0_, int x1, int y0_, int y1, int count_)
        : x0(x0_),
          y0(y0_),
          w(x1 - x0_ + 1),
          h(y1 - y0_ + 1),
          count(count_),
          v(static_cast<size_t>(w) * h * count_) {}
    float &operator()(int x, int y, int k = 0) {
        return v[(static_cast<size_t>(k) * h + (y - y0)) * w + (x - x0)];
    }
};

struct Range {
    int lo, hi;
};
struct Region {
    Range x, y;
};

int floor_div2(int v) {
    return v >= 0 ? v / 2 : -((1 - v) / 2);
}

Region hull(const Region &a, const Region &b) {
    return {{std::min(a.x.lo, b.x.lo), std::max(a.x.hi, b.x.hi)},
            {std::min(a.y.lo, b.y.lo), std::max(a.y.hi, b.y.hi)}};
}
// What upsampling a region reads of the coarser level, and downsampling of the finer one.
Range up_range(Range r) {
    return {floor_div2(r.lo) - 1, floor_div2(r.hi) + 1};
}
Region up_region(const Region &r) {
    return {up_range(r.x), up_range(r.y)};
}
Region down_region(const Region &r) {
    return {{2 * r.x.lo - 1, 2 * r.x.hi + 2}, {2 * r.y.lo - 1, 2 * r.y.hi + 2}};
}

// Downsamples `f` (planes 0 .. count-1) over `r`.
Plane downsample(Plane &f, const Region &r) {
    Plane dx(r.x.lo, r.x.hi, 2 * r.y.lo - 1, 2 * r.y.hi + 2, f.count);
    Plane out(r.x.lo, r.x.hi, r.y.lo, r.y.hi, f.count);
    for (int k = 0; k < f.count; k++) {
        for (int y = dx.y0; y < dx.y0 + dx.h; y++) {
            for (int x = r.x.lo; x <= r.x.hi; x++) {
                dx(x, y, k) = (f(2 * x - 1, y, k) + 3.0f * f(2 * x, y, k) +
                               3.0f * f(2 * x + 1, y, k) + f(2 * x + 2, y, k)) /
                              8.0f;
            }
        }
        for (int y = r.y.lo; y <= r.y.hi; y++) {
            for (int x = r.x.lo; x <= r.x.hi; x++) {
                out(x, y, k) = (dx(x, 2 * y - 1, k) + 3.0f * dx(x, 2 * y, k) +
                                3.0f * dx(x, 2 * y + 1, k) + dx(x, 2 * y + 2, k)) /
                               8.0f;
            }
        }
    }
    return out;
}

// The upsampling of plane k of `f` at (x, y).
float upsample_at(Plane &f, int x, int y, int k) {
    auto ux = [&](int yy) {
        int xh = floor_div2(x), xo = xh - 1 + 2 * (x - 2 * xh);
        return 0.25f * f(xo, yy, k) + 0.75f * f(xh, yy, k);
    };
    int yh = floor_div2(y), yo = yh - 1 + 2 * (y - 2 * yh);
    return 0.25f * ux(yo) + 0.75f * ux(yh);
}

}  // namespace

Buffer<uint16_t> local_laplacian_reference(const Buffer<uint16_t> &input, int levels, float alpha,
                                           float beta) {
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    const int ix0 = input.dim(0).min(), iy0 = input.dim(1).min(), ic0 = input.dim(2).min();
    const int top = levels - 1;
    auto floating = [&](int x, int y, int c) {
        return static_cast<float>(
                   input(ix0 + std::clamp(x, 0, w - 1), iy0 + std::clamp(y, 0, h - 1), ic0 + c)) /
               65535.0f;
    };
    auto gray = [&](int x, int y) {
        return 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);
    };

    // The regions each level is needed over, as bounds inference finds them: the output's
    // pyramid from the finest level down, then the inputs' pyramids from the coarsest up.
    std::vector<Region> out_g(J), need_g(J), need_in(J);
    out_g[0] = {{0, w - 1}, {0, h - 1}};
    for (int j = 1; j < J; j++)
        out_g[j] = up_region(out_g[j - 1]);
    for (int j = 0; j < J; j++) {
        need_g[j] = out_g[j];
        need_in[j] = out_g[j];
    }
    for (int j = 1; j < J; j++)
        need_g[j] = hull(need_g[j], up_region(out_g[j - 1]));
    for (int j = J - 1; j >= 1; j--) {
        need_g[j - 1] = hull(need_g[j - 1], down_region(need_g[j]));
        need_in[j - 1] = hull(need_in[j - 1], down_region(need_in[j]));
    }

    std::vector<Plane> processed(J), in_gaussian(J);
    {
        const Region &r = need_g[0];
        processed[0] = Plane(r.x.lo, r.x.hi, r.y.lo, r.y.hi, levels);
        for (int k = 0; k < levels; k++) {
            float intensity = static_cast<float>(k) / static_cast<float>(top);
            for (int y = r.y.lo; y <= r.y.hi; y++) {
                for (int x = r.x.lo; x <= r.x.hi; x++) {
                    float g = gray(x, y);
                    int index = std::clamp(static_cast<int>(g * static_cast<float>(top) * 256.0f),
                                           0, top * 256);
                    float t = static_cast<float>(index - 256 * k) / 256.0f;
                    float remap = alpha / static_cast<float>(top) * t * std::exp(-t * t / 2.0f);
                    processed[0](x, y, k) = beta * (g - intensity) + intensity + remap;
                }
            }
        }
        const Region &q = need_in[0];
        in_gaussian[0] = Plane(q.x.lo, q.x.hi, q.y.lo, q.y.hi, 1);
        for (int y = q.y.lo; y <= q.y.hi; y++) {
            for (int x = q.x.lo; x <= q.x.hi; x++)
                in_gaussian[0](x, y) = gray(x, y);
        }
    }
    for (int j = 1; j < J; j++) {
        processed[j] = downsample(processed[j - 1], need_g[j]);
        in_gaussian[j] = downsample(in_gaussian[j - 1], need_in[j]);
    }

    // The output's Laplacian pyramid, collapsed from the coarsest level.
    auto out_laplacian = [&](int j, int x, int y) {
        float level = in_gaussian[j](x, y) * static_cast<float>(top);
        int li = std::clamp(static_cast<int>(level), 0, top - 1);
        float lf = level - static_cast<float>(li);
        auto lap = [&](int kk) {
            if (j == J - 1) return processed[j](x, y, kk);
            return processed[j](x, y, kk) - upsample_at(processed[j + 1], x, y, kk);
        };
        return (1.0f - lf) * lap(li) + lf * lap(li + 1);
    };
    Plane collapsed;
    for (int j = J - 1; j >= 0; j--) {
        const Region &r = out_g[j];
        Plane level(r.x.lo, r.x.hi, r.y.lo, r.y.hi, 1);
        for (int y = r.y.lo; y <= r.y.hi; y++) {
            for (int x = r.x.lo; x <= r.x.hi; x++) {
                level(x, y) = j == J - 1 ? out_laplacian(j, x, y)
                                         : upsample_at(collapsed, x, y, 0) + out_laplacian(j, x, y);
            }
        }
        collapsed = std::move(level);
    }

    Buffer<uint16_t> out(w, h, 3);
    for (int c = 0; c < 3; c++) {
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                float color = collapsed(x, y) * (floating(x, y, c) + 0.01f) / (gray(x, y) + 0.01f);
                out(x, y, c) = static_cast<uint16_t>(std::clamp(color, 0.0f, 1.0f) * 65535.0f);
            }
        }
    }
    return out;
}

}  // namespace dsl_apps
