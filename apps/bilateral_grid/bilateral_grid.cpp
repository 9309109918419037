#include "bilateral_grid.h"

#include <algorithm>
#include <vector>

namespace dsl_apps {

using namespace dsl;

namespace {

constexpr int kS = 8;           // s_sigma: pixels per grid cell in x and y
constexpr float kInvR = 10.0f;  // 1 / r_sigma
constexpr int kCells = 11;      // intensity cells: round(v * 10) for v in [0, 1]

// The 5-tap blur 1 4 6 4 1 of f along one of its arguments, in the reference's order.
Expr blur5(const Func &f, const std::vector<Expr> &at, int dim) {
    auto tap = [&](int d) {
        std::vector<Expr> a = at;
        a[dim] = a[dim] + d;
        return f(a);
    };
    return tap(-2) + tap(-1) * 4.0f + tap(0) * 6.0f + tap(1) * 4.0f + tap(2);
}

}  // namespace

BilateralGridPipeline make_bilateral_grid(const ImageParam &input) {
    BilateralGridPipeline p;
    Var x = p.x, y = p.y, z = p.z, c = p.c;
    Func clamped = BoundaryConditions::repeat_edge(input);

    // Every pixel of the cells the output reads, x and y in [-2, (extent - 1) / 8 + 3], goes
    // into the cell ((px + 4) / 8, (py + 4) / 8) (Euclidean division). (Halide's app sums
    // each cell's 8x8 pixels instead, `histogram(x, y, zi(x, y, r), c)`, which the language
    // allows too, and splats a row of cells where the z blur reads it: measured on 2026-12-01,
    // both sides ran slower that way at one thread, 26-28 ms against 22-25, and the same at
    // two. The sums are in the same order either way.)
    Expr cells_x = (input.width() - 1) / kS + 6, cells_y = (input.height() - 1) / kS + 6;
    p.r = RDom(-2 * kS - kS / 2, cells_x * kS, -2 * kS - kS / 2, cells_y * kS, "r");
    RDom r = p.r;
    Expr v = clamp(clamped(r.x, r.y), 0.0f, 1.0f);
    Expr zi = cast<int32_t>(v * kInvR + 0.5f);
    p.histogram(x, y, z, c) = 0.0f;
    p.histogram((r.x + kS / 2) / kS, (r.y + kS / 2) / kS, zi, c) += select(c == 0, v, 1.0f);

    p.blur_z(x, y, z, c) = blur5(p.histogram, {x, y, z, c}, 2);
    p.blur_x(x, y, z, c) = blur5(p.blur_z, {x, y, z, c}, 0);
    p.blur_y(x, y, z, c) = blur5(p.blur_x, {x, y, z, c}, 1);

    Expr val = clamp(input(x, y), 0.0f, 1.0f);
    Expr zv = val * kInvR;
    Expr zl = cast<int32_t>(zv);
    Expr zf = zv - cast<float>(zl);
    Expr xf = cast<float>(x % kS) / static_cast<float>(kS);
    Expr yf = cast<float>(y % kS) / static_cast<float>(kS);
    Expr xl = x / kS, yl = y / kS;
    const Func &g = p.blur_y;
    auto plane = [&](const Expr &zz) {
        return lerp(lerp(g(xl, yl, zz, c), g(xl + 1, yl, zz, c), xf),
                    lerp(g(xl, yl + 1, zz, c), g(xl + 1, yl + 1, zz, c), xf), yf);
    };
    p.interpolated(x, y, c) = lerp(plane(zl), plane(zl + 1), zf);
    p.output(x, y) = p.interpolated(x, y, 0) / p.interpolated(x, y, 1);
    return p;
}

void schedule_bilateral_grid(BilateralGridPipeline &p, const Target &target) {
    // Halide's apps/bilateral_grid CPU schedule: the grid (1/64 of the pixels, 11 cells deep) is
    // splatted and blurred at root, each stage in parallel over its rows (y), the blurs
    // vectorized in x; the slicing (interpolation) of the output is vectorized and runs in strips
    // of rows in parallel. The z blur is computed per row of the x blur's input.
    const int lanes = target.natural_vector_size<float>();
    Var x = p.x, y = p.y, z = p.z, c = p.c, yo("yo"), yi("yi");
    p.histogram.compute_root().parallel(c);
    p.histogram.update().reorder(c, p.r.x, p.r.y);
    p.blur_z.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, lanes);
    p.blur_x.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, lanes);
    p.blur_y.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, lanes);
    p.output.split(y, yo, yi, 32).parallel(yo).vectorize(x, lanes);
}

void schedule_bilateral_grid_gpu(BilateralGridPipeline &p) {
    // Each stage at root in its own kernels. The splat runs one thread per grid cell: the pixel
    // loops split by the cell size, the cells' columns across threads and their rows across
    // blocks, so that each thread sums its own 8 x 8 pixels in the reference's order. The
    // checker cannot see that the cells are disjoint, so the update is atomic() (uncontended).
    // The blurs and the slicing run a thread per cell column or pixel, z and c in each thread.
    Var x = p.x, y = p.y, z = p.z, c = p.c, bx("bx"), by("by"), tx("tx"), ty("ty");
    RVar rxo("rxo"), rxi("rxi"), ryo("ryo"), ryi("ryi"), rxb("rxb"), rxt("rxt");
    p.histogram.compute_root().reorder(c, z, x, y).gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    p.histogram.update()
        .split(p.r.x, rxo, rxi, kS)
        .split(p.r.y, ryo, ryi, kS)
        .split(rxo, rxb, rxt, 64)
        .reorder(c, rxi, ryi, rxt, rxb, ryo)
        .atomic()
        .gpu_blocks(rxb, ryo)
        .gpu_threads(rxt);
    for (Func f : {p.blur_z, p.blur_x, p.blur_y})
        f.compute_root().reorder(c, z, x, y).gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    p.output.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
}

Buffer<float> bilateral_grid_reference(const Buffer<float> &input) {
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    const int x0 = input.dim(0).min(), y0 = input.dim(1).min();
    auto in = [&](int x, int y) {
        return input(x0 + std::clamp(x, 0, w - 1), y0 + std::clamp(y, 0, h - 1));
    };
    // The grid over x in [-2, (w - 1) / 8 + 3], y likewise, z in [-2, 13], c in {0, 1}.
    const int gx0 = -2, gx1 = (w - 1) / kS + 3, gy0 = -2, gy1 = (h - 1) / kS + 3;
    const int gz0 = -2, gz1 = kCells + 2;
    const int nx = gx1 - gx0 + 1, ny = gy1 - gy0 + 1, nz = gz1 - gz0 + 1;
    auto index = [&](int x, int y, int z, int c) {
        return ((static_cast<size_t>(c) * nz + (z - gz0)) * ny + (y - gy0)) * nx + (x - gx0);
    };
    std::vector<float> hist(static_cast<size_t>(nx) * ny * nz * 2, 0.0f);
    for (int gy = gy0; gy <= gy1; gy++) {
        for (int gx = gx0; gx <= gx1; gx++) {
            for (int ry = 0; ry < kS; ry++) {
                for (int rx = 0; rx < kS; rx++) {
                    float v =
                        std::clamp(in(gx * kS + rx - kS / 2, gy * kS + ry - kS / 2), 0.0f, 1.0f);
                    int zi = static_cast<int>(v * kInvR + 0.5f);
                    hist[index(gx, gy, zi, 0)] += v;
                    hist[index(gx, gy, zi, 1)] += 1.0f;
                }
            }
        }
    }
    // Each blur where its inputs are defined: z in [0, 11]; x, then y, two cells in.
    auto blur = [&](const std::vector<float> &from, int dx, int dy, int dz, int xa, int xb, int ya,
                    int yb, int za, int zb) {
        std::vector<float> to(from.size(), 0.0f);
        for (int c = 0; c < 2; c++) {
            for (int z = za; z <= zb; z++) {
                for (int y = ya; y <= yb; y++) {
                    for (int x = xa; x <= xb; x++) {
                        auto tap = [&](int d) {
                            return from[index(x + d * dx, y + d * dy, z + d * dz, c)];
                        };
                        to[index(x, y, z, c)] =
                            tap(-2) + tap(-1) * 4.0f + tap(0) * 6.0f + tap(1) * 4.0f + tap(2);
                    }
                }
            }
        }
        return to;
    };
    std::vector<float> bz = blur(hist, 0, 0, 1, gx0, gx1, gy0, gy1, 0, kCells);
    std::vector<float> bx = blur(bz, 1, 0, 0, gx0 + 2, gx1 - 2, gy0, gy1, 0, kCells);
    std::vector<float> by = blur(bx, 0, 1, 0, gx0 + 2, gx1 - 2, gy0 + 2, gy1 - 2, 0, kCells);

    auto lerp = [](float a, float b, float t) { return a + (b - a) * t; };
    Buffer<float> out(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float val = std::clamp(input(x0 + x, y0 + y), 0.0f, 1.0f);
            float zv = val * kInvR;
            int zl = static_cast<int>(zv);
            float zf = zv - static_cast<float>(zl);
            float xf = static_cast<float>(x % kS) / static_cast<float>(kS);
            float yf = static_cast<float>(y % kS) / static_cast<float>(kS);
            int xl = x / kS, yl = y / kS;
            float result[2];
            for (int c = 0; c < 2; c++) {
                auto g = [&](int gx, int gy, int gz) { return by[index(gx, gy, gz, c)]; };
                auto plane = [&](int zz) {
                    return lerp(lerp(g(xl, yl, zz), g(xl + 1, yl, zz), xf),
                                lerp(g(xl, yl + 1, zz), g(xl + 1, yl + 1, zz), xf), yf);
                };
                result[c] = lerp(plane(zl), plane(zl + 1), zf);
            }
            out(x, y) = result[0] / result[1];
        }
    }
    return out;
}

}  // namespace dsl_apps
