// The seven image apps of apps/ written for Halide 14, for the comparison with ours (apps.cpp):
// the same algorithm as each apps/<app>/<app>.cpp (the same arithmetic, in the same order, the
// same types and boundary conditions) with the same schedule as its schedule_<app> (the same
// splits, tiles, vector widths, compute_at levels and parallel loops; the vector widths are taken
// from our target, so both sides use the same number of lanes). Compiled in only when Halide 14
// is found (DSL_BENCH_HAVE_HALIDE).
//
//   <app>/halide/threads:N   realize() into a preallocated output after compile_jit(); the
//                            output is checked against ours (dsl_output) first.
//   <app>/halide_compile     each iteration builds the pipeline from scratch, schedules it and
//                            calls compile_jit().
//   <app>/halide_<name>/threads:N
//                            the algorithm scheduled by Halide's autoscheduler <name>
//                            (Mullapudi2016, Adams2019, Li2018), told the benchmark's sizes.
//
// Where the two languages differ (see bench/README.md, "Apps against Halide 14"):
// - Tails. A directive without a tail strategy is GuardWithIf in ours; Halide's default (Auto)
//   is ShiftInwards for outputs and RoundUp for the other Funcs where it is safe. At these
//   sizes every output loop divides evenly, so only the intermediate Funcs' loops (a few pixels
//   wider than the output) differ. Each side keeps its default: it is what the same directive
//   gives a user.
// - Floats. Halide generates float code with LLVM's fast-math flags (reassociation, fused
//   multiply-add contraction) unless the target has strict_float; ours keeps IEEE order. Float
//   outputs are compared within a tolerance (apps_common.cpp).
// - lerp. Halide's lerp of floats is a * (1 - t) + b * t; ours is a + (b - a) * t. The bilateral
//   grid spells ours out here, so the arithmetic is the same.
// - Threads. Halide's JIT thread pool takes its size once, when it starts (HL_NUM_THREADS, else
//   the number of cores), and halide_set_num_threads(1) once it runs does not keep the other
//   workers from taking tasks (measured: two threads still ran a parallel loop's tasks). So
//   threads:1 replaces the pipeline's do_par_for by a serial loop on the calling thread
//   (JITHandlers::custom_do_par_for, a documented JIT hook), and threads:2 uses Halide's own
//   pool, started at 2 threads (halide_set_num_threads(2) before any parallel work).

#include <benchmark/benchmark.h>

#include <Halide.h>

#include <cctype>
#include <cstdlib>
#include <exception>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps_common.h"
#include "dsl/AutoSchedule.h"
#include "dsl/Target.h"
#include "halide_peer.h"

namespace dsl_bench {

namespace {

using Halide::Expr;
using Halide::Func;
using Halide::ImageParam;
using Halide::RDom;
using Halide::Var;
namespace BoundaryConditions = Halide::BoundaryConditions;

// Our target's vector widths: the lanes our schedules use, so that both sides vectorize alike.
template <typename T>
int lanes() {
    return dsl::Target::host().natural_vector_size<T>();
}

// The Halide input buffers: the benchmark inputs' memory, shared (dense, planar, minimums 0).
template <typename T>
Halide::Buffer<T> wrap(const dsl::Buffer<T> &b) {
    std::vector<int> sizes;
    for (int d = 0; d < b.dimensions(); d++)
        sizes.push_back(b.dim(d).extent());
    return Halide::Buffer<T>(b.data(), sizes);
}

// One of Halide 14's autoschedulers (its plugin loaded once) instead of the hand-written
// schedule: the output's estimates are the benchmark's size, the inputs' their buffers', for a
// machine of two threads with this machine's last-level cache (the same MachineParams ours gets).
Func auto_scheduled(Func output, const std::string &app, const std::string &autoscheduler,
                    std::vector<ImageParam> inputs) {
    static std::set<std::string> loaded;
    if (!loaded.count(autoscheduler)) {
        std::string lib = autoscheduler;
        for (char &ch : lib)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        Halide::load_plugin(std::string(DSL_HALIDE14_PLUGIN_DIR) + "/libautoschedule_" + lib +
                            ".so");
        loaded.insert(autoscheduler);
    }
    Halide::Region estimates;
    for (int size : app_spec(app).output_sizes)
        estimates.push_back({0, size});
    output.set_estimates(estimates);
    for (ImageParam &in : inputs) {
        Halide::Buffer<> b = in.get();
        Halide::Region r;
        for (int d = 0; d < b.dimensions(); d++)
            r.push_back({b.dim(d).min(), b.dim(d).extent()});
        in.set_estimates(r);
    }
    dsl::MachineParams ours = dsl::MachineParams::host();
    Halide::MachineParams params(2, ours.last_level_cache_size, 40);
    Halide::Pipeline(output).auto_schedule(autoscheduler, halide_target(), params);
    return output;
}

// ---- blur (apps/blur) ----

Func build_blur(const std::string &autoscheduler) {
    ImageParam input(Halide::UInt(16), 2, "input");
    input.set(wrap(blur_input()));
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func in = BoundaryConditions::repeat_edge(input);
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;

    if (!autoscheduler.empty()) return auto_scheduled(blur_y, "blur", autoscheduler, {input});

    const int n = 2 * lanes<uint16_t>();
    blur_y.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, n).parallel(yo);
    blur_x.compute_at(blur_y, xo).vectorize(x, n);
    return blur_y;
}

// ---- unsharp (apps/unsharp) ----

Func build_unsharp(const std::string &autoscheduler) {
    ImageParam input(Halide::Float(32), 3, "input");
    input.set(wrap(unsharp_input()));
    Halide::Param<float> amount("amount", kUnsharpAmount);
    const float outer = 1.0f / 16.0f, near = 4.0f / 16.0f, centre = 6.0f / 16.0f;
    Var x("x"), y("y"), c("c"), yo("yo"), yi("yi"), t("t");
    Func in = BoundaryConditions::repeat_edge(input);
    Func blur_x("blur_x"), blur_y("blur_y"), sharpened("sharpened"), output("unsharp");
    blur_x(x, y, c) = in(x - 2, y, c) * outer + in(x - 1, y, c) * near + in(x, y, c) * centre +
                      in(x + 1, y, c) * near + in(x + 2, y, c) * outer;
    blur_y(x, y, c) = blur_x(x, y - 2, c) * outer + blur_x(x, y - 1, c) * near +
                      blur_x(x, y, c) * centre + blur_x(x, y + 1, c) * near +
                      blur_x(x, y + 2, c) * outer;
    sharpened(x, y, c) = in(x, y, c) + amount * (in(x, y, c) - blur_y(x, y, c));
    output(x, y, c) =
        Halide::cast<uint8_t>(Halide::clamp(sharpened(x, y, c) * 255.0f + 0.5f, 0.0f, 255.0f));

    if (!autoscheduler.empty()) {
        amount.set_estimate(kUnsharpAmount);
        return auto_scheduled(output, "unsharp", autoscheduler, {input});
    }

    const int n = lanes<float>();
    output.split(y, yo, yi, 32).reorder(x, yi, yo, c).fuse(yo, c, t).parallel(t).vectorize(x, n);
    blur_x.compute_at(output, t).vectorize(x, n);
    return output;
}

// ---- histogram_equalize (apps/histogram_equalize) ----

Func build_histogram_equalize(const std::string &autoscheduler) {
    ImageParam input(Halide::UInt(8), 2, "input");
    input.set(wrap(histogram_input()));
    Var x("x"), y("y"), i("i"), yo("yo"), yi("yi");
    RDom r(input.dim(0).min(), input.dim(0).extent(), input.dim(1).min(), input.dim(1).extent(),
           "r");
    Func hist("hist"), cdf("cdf"), lut("lut"), output("equalized");
    hist(i) = 0;
    hist(Halide::cast<int32_t>(input(r.x, r.y))) += 1;
    RDom k(1, 255, "k");
    cdf(i) = hist(i);
    cdf(k) = cdf(k - 1) + cdf(k);
    Expr pixels = input.dim(0).extent() * input.dim(1).extent();
    lut(i) = Halide::cast<uint8_t>(cdf(i) * 255 / pixels);
    output(x, y) = lut(Halide::cast<int32_t>(input(x, y)));

    if (!autoscheduler.empty())
        return auto_scheduled(output, "histogram_equalize", autoscheduler, {input});

    hist.compute_root().vectorize(i, lanes<int32_t>());
    // As ours: a partial histogram per strip of 64 rows, in parallel, each strip's x loop
    // unrolled by four; the update sums them.
    Halide::RVar ryo("ryo"), ryi("ryi"), rxo("rxo"), rxi("rxi");
    Var strip("strip");
    hist.update(0).split(r.y, ryo, ryi, 64);
    Func partial = hist.update(0).rfactor(ryo, strip);
    partial.compute_root().vectorize(i, lanes<int32_t>());
    partial.update(0)
        .split(r.x, rxo, rxi, 4, Halide::TailStrategy::GuardWithIf)
        .unroll(rxi)
        .parallel(strip);
    cdf.compute_root();
    lut.compute_root().vectorize(i, lanes<int32_t>());
    output.split(y, yo, yi, 32).parallel(yo).vectorize(x, lanes<uint8_t>());
    return output;
}

// ---- harris (apps/harris) ----

// The 3x3 box sum of f at (x, y), in the order of apps/harris.
Expr box3(const Func &f, const Var &x, const Var &y) {
    return f(x - 1, y - 1) + f(x, y - 1) + f(x + 1, y - 1) + f(x - 1, y) + f(x, y) + f(x + 1, y) +
           f(x - 1, y + 1) + f(x, y + 1) + f(x + 1, y + 1);
}

Func build_harris(const std::string &autoscheduler) {
    ImageParam input(Halide::Float(32), 3, "input");
    input.set(wrap(harris_input()));
    const float red = 0.299f, green = 0.587f, blue = 0.114f;
    const float side = 1.0f / 12.0f, centre = 2.0f / 12.0f, k = 0.04f;
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func in = BoundaryConditions::repeat_edge(input);
    Func gray("gray"), ix("Ix"), iy("Iy"), ixx("Ixx"), iyy("Iyy"), ixy("Ixy");
    Func sxx("Sxx"), syy("Syy"), sxy("Sxy"), output("harris");
    gray(x, y) = red * in(x, y, 0) + green * in(x, y, 1) + blue * in(x, y, 2);
    iy(x, y) = (gray(x - 1, y + 1) - gray(x - 1, y - 1)) * side +
               (gray(x, y + 1) - gray(x, y - 1)) * centre +
               (gray(x + 1, y + 1) - gray(x + 1, y - 1)) * side;
    ix(x, y) = (gray(x + 1, y - 1) - gray(x - 1, y - 1)) * side +
               (gray(x + 1, y) - gray(x - 1, y)) * centre +
               (gray(x + 1, y + 1) - gray(x - 1, y + 1)) * side;
    ixx(x, y) = ix(x, y) * ix(x, y);
    iyy(x, y) = iy(x, y) * iy(x, y);
    ixy(x, y) = ix(x, y) * iy(x, y);
    sxx(x, y) = box3(ixx, x, y);
    syy(x, y) = box3(iyy, x, y);
    sxy(x, y) = box3(ixy, x, y);
    Expr det = sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y);
    Expr trace = sxx(x, y) + syy(x, y);
    output(x, y) = det - k * trace * trace;

    if (!autoscheduler.empty()) return auto_scheduled(output, "harris", autoscheduler, {input});

    // gray per strip, read only through ix and iy (computed at the same loop).
    const int n = lanes<float>();
    output.split(y, yo, yi, 32).parallel(yo).vectorize(x, n);
    gray.compute_at(output, yo).vectorize(x, n);
    ix.compute_at(output, yo).vectorize(x, n);
    iy.compute_at(output, yo).vectorize(x, n);
    return output;
}

// ---- bilateral_grid (apps/bilateral_grid) ----

// Our lerp of floats: a + (b - a) * t (Halide's own is a * (1 - t) + b * t).
Expr lerp_as_ours(const Expr &a, const Expr &b, const Expr &t) {
    return a + (b - a) * t;
}

// The 5-tap blur 1 4 6 4 1 of f along argument `dim`, in the order of apps/bilateral_grid.
Expr blur5(const Func &f, const std::vector<Expr> &at, int dim) {
    auto tap = [&](int d) {
        std::vector<Expr> a = at;
        a[dim] = a[dim] + d;
        return f(a);
    };
    return tap(-2) + tap(-1) * 4.0f + tap(0) * 6.0f + tap(1) * 4.0f + tap(2);
}

Func build_bilateral_grid(const std::string &autoscheduler) {
    ImageParam input(Halide::Float(32), 2, "input");
    input.set(wrap(bilateral_input()));
    const int s = 8;            // pixels per grid cell in x and y
    const float inv_r = 10.0f;  // 1 / r_sigma
    Var x("x"), y("y"), z("z"), c("c"), yo("yo"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(input);

    Expr cells_x = (input.dim(0).extent() - 1) / s + 6;
    Expr cells_y = (input.dim(1).extent() - 1) / s + 6;
    RDom r(-2 * s - s / 2, cells_x * s, -2 * s - s / 2, cells_y * s, "r");
    Expr v = Halide::clamp(clamped(r.x, r.y), 0.0f, 1.0f);
    Expr zi = Halide::cast<int32_t>(v * inv_r + 0.5f);
    Func histogram("histogram"), blur_z("blur_z"), blur_x("blur_x"), blur_y("blur_y");
    Func interpolated("interpolated"), output("bilateral_grid");
    histogram(x, y, z, c) = 0.0f;
    histogram((r.x + s / 2) / s, (r.y + s / 2) / s, zi, c) += Halide::select(c == 0, v, 1.0f);

    blur_z(x, y, z, c) = blur5(histogram, {x, y, z, c}, 2);
    blur_x(x, y, z, c) = blur5(blur_z, {x, y, z, c}, 0);
    blur_y(x, y, z, c) = blur5(blur_x, {x, y, z, c}, 1);

    Expr val = Halide::clamp(input(x, y), 0.0f, 1.0f);
    Expr zv = val * inv_r;
    Expr zl = Halide::cast<int32_t>(zv);
    Expr zf = zv - Halide::cast<float>(zl);
    Expr xf = Halide::cast<float>(x % s) / static_cast<float>(s);
    Expr yf = Halide::cast<float>(y % s) / static_cast<float>(s);
    Expr xl = x / s, yl = y / s;
    auto plane = [&](const Expr &zz) {
        return lerp_as_ours(
            lerp_as_ours(blur_y(xl, yl, zz, c), blur_y(xl + 1, yl, zz, c), xf),
            lerp_as_ours(blur_y(xl, yl + 1, zz, c), blur_y(xl + 1, yl + 1, zz, c), xf), yf);
    };
    interpolated(x, y, c) = lerp_as_ours(plane(zl), plane(zl + 1), zf);
    output(x, y) = interpolated(x, y, 0) / interpolated(x, y, 1);

    if (!autoscheduler.empty())
        return auto_scheduled(output, "bilateral_grid", autoscheduler, {input});

    const int n = lanes<float>();
    histogram.compute_root().parallel(c);
    histogram.update().reorder(c, r.x, r.y);
    blur_z.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, n);
    blur_x.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, n);
    blur_y.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, n);
    output.split(y, yo, yi, 32).parallel(yo).vectorize(x, n);
    return output;
}

// ---- camera_pipe (apps/camera_pipe) ----

Func build_camera_pipe(const std::string &autoscheduler) {
    ImageParam raw(Halide::UInt(16), 2, "raw");
    raw.set(wrap(camera_pipe_input()));
    const int black = 64, range = 1023 - black;  // 959
    const float matrix[3][3] = {
        {1.40f, -0.30f, -0.10f}, {-0.20f, 1.35f, -0.15f}, {-0.05f, -0.35f, 1.40f}};
    Var x("x"), y("y"), c("c"), i("i"), yo("yo"), yi("yi");
    Func g_gr("g_gr"), r_r("r_r"), b_b("b_b"), g_gb("g_gb");
    Func d_gr("d_gr"), d_r("d_r"), d_b("d_b"), d_gb("d_gb");
    Func red("red"), green("green"), blue("blue"), corrected("corrected"), curve("curve");
    Func curved("curved"), blur_y("blur_y"), output("camera_pipe");

    Expr qw = raw.dim(0).extent() / 2, qh = raw.dim(1).extent() / 2;
    Expr qx = Halide::clamp(x, 0, qw - 1), qy = Halide::clamp(y, 0, qh - 1);
    Expr rx = raw.dim(0).min() + 2 * qx, ry = raw.dim(1).min() + 2 * qy;
    g_gr(x, y) = Halide::cast<int32_t>(raw(rx, ry));
    r_r(x, y) = Halide::cast<int32_t>(raw(rx + 1, ry));
    b_b(x, y) = Halide::cast<int32_t>(raw(rx, ry + 1));
    g_gb(x, y) = Halide::cast<int32_t>(raw(rx + 1, ry + 1));

    // Hot pixels: at most the largest same-colour neighbour, mirrored past the edges.
    auto suppress = [&](Func &denoised, const Func &plane) {
        Expr nx = Halide::clamp(x, 0, qw - 1), ny = Halide::clamp(y, 0, qh - 1);
        Expr left = Halide::max(nx - 1, 1 - nx), right = Halide::min(nx + 1, 2 * qw - 3 - nx);
        Expr above = Halide::max(ny - 1, 1 - ny), below = Halide::min(ny + 1, 2 * qh - 3 - ny);
        Expr brightest = Halide::max(Halide::max(plane(left, ny), plane(right, ny)),
                                     Halide::max(plane(nx, above), plane(nx, below)));
        denoised(x, y) = Halide::min(plane(nx, ny), brightest);
    };
    suppress(d_gr, g_gr);
    suppress(d_r, r_r);
    suppress(d_b, b_b);
    suppress(d_gb, g_gb);

    Expr ax = x / 2, ay = y / 2, ox = x % 2, oy = y % 2;
    const Func &gr = d_gr, &r = d_r, &b = d_b, &gb = d_gb;
    Expr red_at[4] = {(r(ax - 1, ay) + r(ax, ay)) / 2, r(ax, ay),
                      (r(ax - 1, ay) + r(ax, ay) + r(ax - 1, ay + 1) + r(ax, ay + 1)) / 4,
                      (r(ax, ay) + r(ax, ay + 1)) / 2};
    Expr green_at[4] = {gr(ax, ay), (gr(ax, ay) + gr(ax + 1, ay) + gb(ax, ay - 1) + gb(ax, ay)) / 4,
                        (gb(ax - 1, ay) + gb(ax, ay) + gr(ax, ay) + gr(ax, ay + 1)) / 4,
                        gb(ax, ay)};
    Expr blue_at[4] = {(b(ax, ay - 1) + b(ax, ay)) / 2,
                       (b(ax, ay - 1) + b(ax + 1, ay - 1) + b(ax, ay) + b(ax + 1, ay)) / 4,
                       b(ax, ay), (b(ax, ay) + b(ax + 1, ay)) / 2};
    auto pick = [&](const Expr *v) {
        return Halide::select(oy == 0, Halide::select(ox == 0, v[0], v[1]),
                              Halide::select(ox == 0, v[2], v[3]));
    };
    red(x, y) = pick(red_at);
    green(x, y) = pick(green_at);
    blue(x, y) = pick(blue_at);

    Expr rf = Halide::cast<float>(red(x, y) - black), gf = Halide::cast<float>(green(x, y) - black),
         bf = Halide::cast<float>(blue(x, y) - black);
    auto row = [&](int k) { return matrix[k][0] * rf + matrix[k][1] * gf + matrix[k][2] * bf; };
    corrected(x, y, c) = Halide::select(c == 0, row(0), c == 1, row(1), row(2));

    curve(i) = Halide::cast<uint8_t>(
        Halide::sqrt(Halide::cast<float>(i) / static_cast<float>(range)) * 255.0f + 0.5f);
    Expr index = Halide::clamp(Halide::cast<int32_t>(corrected(x, y, c) + 0.5f), 0, range);
    curved(x, y, c) = curve(index);

    // The integer unsharp mask, edges repeated.
    Expr w = raw.dim(0).extent(), h = raw.dim(1).extent();
    Expr up = Halide::clamp(y - 1, 0, h - 1), down = Halide::clamp(y + 1, 0, h - 1);
    blur_y(x, y, c) = Halide::cast<int32_t>(curved(x, up, c)) +
                      2 * Halide::cast<int32_t>(curved(x, y, c)) +
                      Halide::cast<int32_t>(curved(x, down, c));
    Expr left = Halide::clamp(x - 1, 0, w - 1), right = Halide::clamp(x + 1, 0, w - 1);
    Expr blur = (blur_y(left, y, c) + 2 * blur_y(x, y, c) + blur_y(right, y, c) + 8) / 16;
    Expr v = Halide::cast<int32_t>(curved(x, y, c));
    output(x, y, c) = Halide::cast<uint8_t>(Halide::clamp(2 * v - blur, 0, 255));

    if (!autoscheduler.empty()) return auto_scheduled(output, "camera_pipe", autoscheduler, {raw});

    const int n = lanes<float>();
    curve.compute_root().vectorize(i, n);
    curved.compute_root().reorder(c, x, y).bound(c, 0, 3).unroll(c);
    curved.split(y, yo, yi, 32).parallel(yo).vectorize(x, n);
    for (Func *f : {&d_gr, &d_r, &d_b, &d_gb})
        f->compute_at(curved, yo).vectorize(x, n);
    output.reorder(c, x, y).bound(c, 0, 3).unroll(c);
    output.split(y, yo, yi, 32).parallel(yo).vectorize(x, n);
    return output;
}

// ---- local_laplacian (apps/local_laplacian) ----

// `args` with x and y (the first two) replaced.
std::vector<Expr> at_xy(std::vector<Expr> args, const Expr &x, const Expr &y) {
    args[0] = x;
    args[1] = y;
    return args;
}

// The downsampling of `f` over `vars` (x, y and any others): 1 3 3 1 / 8 in x, then in y.
Func downsample(const Func &f, const std::vector<Var> &vars, const std::string &name) {
    std::vector<Expr> a(vars.begin(), vars.end());
    Expr x = a[0], y = a[1];
    Func down_x(name + "_down_x"), down(name);
    down_x(vars) = (f(at_xy(a, 2 * x - 1, y)) + 3.0f * f(at_xy(a, 2 * x, y)) +
                    3.0f * f(at_xy(a, 2 * x + 1, y)) + f(at_xy(a, 2 * x + 2, y))) /
                   8.0f;
    down(vars) = (down_x(at_xy(a, x, 2 * y - 1)) + 3.0f * down_x(at_xy(a, x, 2 * y)) +
                  3.0f * down_x(at_xy(a, x, 2 * y + 1)) + down_x(at_xy(a, x, 2 * y + 2))) /
                 8.0f;
    return down;
}

// The upsampling of `f` at `vars`: 3/4 of the nearest coarse sample, 1/4 of the next.
Expr upsample(const Func &f, const std::vector<Var> &vars, const std::string &name) {
    std::vector<Expr> a(vars.begin(), vars.end());
    Expr x = a[0], y = a[1];
    Func up_x(name + "_up_x");
    up_x(vars) = 0.25f * f(at_xy(a, x / 2 - 1 + 2 * (x % 2), y)) + 0.75f * f(at_xy(a, x / 2, y));
    return 0.25f * up_x(at_xy(a, x, y / 2 - 1 + 2 * (y % 2))) + 0.75f * up_x(at_xy(a, x, y / 2));
}

Func build_local_laplacian(const std::string &autoscheduler) {
    constexpr int J = 8;
    ImageParam input(Halide::UInt(16), 3, "input");
    input.set(wrap(local_laplacian_input()));
    Halide::Param<int> levels("levels");
    Halide::Param<float> alpha("alpha"), beta("beta");
    levels.set(kLaplacianLevels);
    alpha.set(kLaplacianAlpha);
    beta.set(kLaplacianBeta);
    Var x("x"), y("y"), c("c"), k("k"), yo("yo"), yi("yi");
    const std::vector<Var> xyk = {x, y, k}, xy = {x, y};

    Func clamped = BoundaryConditions::repeat_edge(input);
    Func floating("floating"), gray("gray"), remap("remap");
    floating(x, y, c) = Halide::cast<float>(clamped(x, y, c)) / 65535.0f;
    gray(x, y) =
        0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);
    Expr top = levels - 1;
    Expr t = Halide::cast<float>(x) / 256.0f;
    remap(x) = alpha / Halide::cast<float>(top) * t * Halide::exp(-t * t / 2.0f);
    Expr intensity = Halide::cast<float>(k) / Halide::cast<float>(top);
    Expr index = Halide::clamp(Halide::cast<int>(gray(x, y) * Halide::cast<float>(top) * 256.0f), 0,
                               top * 256);
    Expr remapped_value = beta * (gray(x, y) - intensity) + intensity + remap(index - 256 * k);

    std::vector<Func> processed(J), in_gaussian(J), laplacian(J), out_gaussian(J);
    processed[0] = Func("processed_0");
    processed[0](x, y, k) = remapped_value;
    Func remapped("remapped");
    remapped(x, y, k) = remapped_value;
    in_gaussian[0] = gray;
    for (int j = 1; j < J; j++) {
        processed[j] = downsample(processed[j - 1], xyk, "processed_" + std::to_string(j));
        in_gaussian[j] = downsample(in_gaussian[j - 1], xy, "in_gaussian_" + std::to_string(j));
    }
    for (int j = 0; j < J - 1; j++) {
        laplacian[j] = Func("laplacian_" + std::to_string(j));
        const Func &fine = j == 0 ? remapped : processed[j];
        laplacian[j](x, y, k) =
            fine(x, y, k) - upsample(processed[j + 1], xyk, "processed_" + std::to_string(j));
    }
    laplacian[J - 1] = processed[J - 1];
    std::vector<Func> out_laplacian(J);
    for (int j = 0; j < J; j++) {
        Expr level = in_gaussian[j](x, y) * Halide::cast<float>(top);
        Expr li = Halide::clamp(Halide::cast<int>(level), 0, top - 1);
        Expr lf = level - Halide::cast<float>(li);
        out_laplacian[j] = Func("out_laplacian_" + std::to_string(j));
        out_laplacian[j](x, y) =
            (1.0f - lf) * laplacian[j](x, y, li) + lf * laplacian[j](x, y, li + 1);
    }
    out_gaussian[J - 1] = out_laplacian[J - 1];
    for (int j = J - 2; j >= 0; j--) {
        out_gaussian[j] = Func("out_gaussian_" + std::to_string(j));
        out_gaussian[j](x, y) =
            upsample(out_gaussian[j + 1], xy, "out_gaussian_" + std::to_string(j)) +
            out_laplacian[j](x, y);
    }
    Func output("local_laplacian");
    Expr color = out_gaussian[0](x, y) * (floating(x, y, c) + 0.01f) / (gray(x, y) + 0.01f);
    output(x, y, c) = Halide::cast<uint16_t>(Halide::clamp(color, 0.0f, 1.0f) * 65535.0f);

    if (!autoscheduler.empty()) {
        levels.set_estimate(kLaplacianLevels);
        alpha.set_estimate(kLaplacianAlpha);
        beta.set_estimate(kLaplacianBeta);
        return auto_scheduled(output, "local_laplacian", autoscheduler, {input});
    }

    const int n = lanes<float>();
    remap.compute_root().vectorize(x, n);
    gray.compute_root().split(y, yo, yi, 16).parallel(yo).vectorize(x, n);
    for (int j = 0; j < J; j++) {
        std::vector<Func> roots;
        if (j > 0) roots = {processed[j], in_gaussian[j]};
        if (j < J - 1) roots.push_back(out_gaussian[j]);
        for (Func &f : roots) {
            f.compute_root();
            if (j < 4) f.split(y, yo, yi, 8).parallel(yo);
            f.vectorize(x, n);
        }
    }
    processed[0].compute_at(processed[1], yo).vectorize(x, n);
    output.reorder(x, c, y).split(y, yo, yi, 8).parallel(yo).vectorize(x, n);
    return output;
}

using Builder = Func (*)(const std::string &);

Builder builder_of(const std::string &app) {
    static const std::map<std::string, Builder> builders = {
        {"blur", build_blur},
        {"unsharp", build_unsharp},
        {"histogram_equalize", build_histogram_equalize},
        {"harris", build_harris},
        {"bilateral_grid", build_bilateral_grid},
        {"camera_pipe", build_camera_pipe},
        {"local_laplacian", build_local_laplacian},
    };
    return builders.at(app);
}

Halide::Buffer<> new_output(const AppSpec &spec, const dsl::Buffer<> &like) {
    const dsl::Type t = like.type();
    Halide::Type ht = t.is_float()  ? Halide::Float(t.bits())
                      : t.is_uint() ? Halide::UInt(t.bits())
                                    : Halide::Int(t.bits());
    return Halide::Buffer<>(ht, spec.output_sizes);
}

void run_app(benchmark::State &state, const std::string &app, const std::string &autoscheduler) {
    const AppSpec &spec = app_spec(app);
    const int threads = static_cast<int>(state.range(0));
    try {
        ensure_pool_of_two();
        const dsl::Buffer<> &expected = dsl_output(app);
        Halide::Buffer<> out = new_output(spec, expected);
        Func f = builder_of(app)(autoscheduler);
        f.jit_handlers().custom_do_par_for = threads == 1 ? serial_do_par_for : nullptr;
        f.compile_jit(halide_target());
        if (const char *dir = std::getenv("DSL_BENCH_DUMP")) {
            const std::string prefix = std::string(dir) + "/" + app + "_halide" +
                                       (autoscheduler.empty() ? "" : "_" + autoscheduler);
            f.compile_to_lowered_stmt(prefix + ".stmt", f.infer_arguments(), Halide::Text,
                                      halide_target());
            f.compile_to_assembly(prefix + ".s", f.infer_arguments(), halide_target());
        }
        f.realize(out);
        const std::string mismatch = compare_outputs(expected, out.data(), spec.halide_vs_dsl);
        if (!mismatch.empty()) {
            state.SkipWithError(("Halide's output differs from ours: " + mismatch).c_str());
        } else {
            for (auto _ : state) {
                f.realize(out);
                benchmark::DoNotOptimize(out.data());
                benchmark::ClobberMemory();
            }
        }
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
    state.SetLabel(size_label(spec));
}

void compile_app(benchmark::State &state, const std::string &app) {
    try {
        builder_of(app)("").compile_jit(halide_target());  // the JIT runtime's first build, untimed
        for (auto _ : state) {
            Func f = builder_of(app)("");
            f.compile_jit(halide_target());
            benchmark::DoNotOptimize(f);
        }
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
    state.SetLabel(size_label(app_spec(app)));
}

}  // namespace

void register_halide_benchmarks(const AppSpec &spec) {
    static const bool context_added =
        (benchmark::AddCustomContext("halide_target", halide_target().to_string()), true);
    (void)context_added;
    const std::string app = spec.name;
    benchmark::RegisterBenchmark((app + "/halide").c_str(),
                                 [app](benchmark::State &s) { run_app(s, app, ""); })
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    // Halide's three autoschedulers (Adams2019 with the weights its plugin ships).
    for (const char *autoscheduler : {"Mullapudi2016", "Adams2019", "Li2018"}) {
        std::string name = autoscheduler;
        benchmark::RegisterBenchmark((app + "/halide_" + name).c_str(),
                                     [app, name](benchmark::State &s) { run_app(s, app, name); })
            ->ArgName("threads")
            ->Arg(1)
            ->Arg(2)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
}

void register_halide_compile_benchmark(const AppSpec &spec) {
    const std::string app = spec.name;
    benchmark::RegisterBenchmark((app + "/halide_compile").c_str(),
                                 [app](benchmark::State &s) { compile_app(s, app); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

}  // namespace dsl_bench
