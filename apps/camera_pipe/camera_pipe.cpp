#include "camera_pipe.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dsl_apps {

using namespace dsl;

namespace {

constexpr int kBlack = 64, kWhite = 1023, kRange = kWhite - kBlack;  // 959
// Colour correction: rows sum to 1 (white stays white), with a little more saturation.
constexpr float kMatrix[3][3] = {
    {1.40f, -0.30f, -0.10f}, {-0.20f, 1.35f, -0.15f}, {-0.05f, -0.35f, 1.40f}};

}  // namespace

CameraPipePipeline make_camera_pipe(const ImageParam &raw) {
    CameraPipePipeline p;
    Var x = p.x, y = p.y, c = p.c, i = p.i;
    // The four planes, with quad coordinates clamped to the image (the edges repeated).
    Expr qw = raw.width() / 2, qh = raw.height() / 2;
    Expr qx = clamp(x, 0, qw - 1), qy = clamp(y, 0, qh - 1);
    Expr rx = raw.min(0) + 2 * qx, ry = raw.min(1) + 2 * qy;
    p.g_gr(x, y) = cast<int32_t>(raw(rx, ry));
    p.r_r(x, y) = cast<int32_t>(raw(rx + 1, ry));
    p.b_b(x, y) = cast<int32_t>(raw(rx, ry + 1));
    p.g_gb(x, y) = cast<int32_t>(raw(rx + 1, ry + 1));

    // Hot pixels: no sample may exceed the largest of its four neighbours of the same colour (one
    // quad away) in the image. Past the edges the neighbours are mirrored (quad -1 is quad 1), not
    // repeated: a repeated edge sample would be its own neighbour and never suppressed. Computed
    // for the quads of the image and repeated past its edges like the raw data, so that the
    // demosaic reads the suppressed image with its quads repeated.
    auto suppress = [&](Func &denoised, const Func &plane) {
        Expr nx = clamp(x, 0, qw - 1), ny = clamp(y, 0, qh - 1);
        Expr left = max(nx - 1, 1 - nx), right = min(nx + 1, 2 * qw - 3 - nx);
        Expr above = max(ny - 1, 1 - ny), below = min(ny + 1, 2 * qh - 3 - ny);
        Expr brightest =
            max(max(plane(left, ny), plane(right, ny)), max(plane(nx, above), plane(nx, below)));
        denoised(x, y) = min(plane(nx, ny), brightest);
    };
    suppress(p.d_gr, p.g_gr);
    suppress(p.d_r, p.r_r);
    suppress(p.d_b, p.b_b);
    suppress(p.d_gb, p.g_gb);

    // Bilinear demosaic; (ax, ay) is the quad of pixel (x, y), (ox, oy) its place in it.
    Expr ax = x / 2, ay = y / 2, ox = x % 2, oy = y % 2;
    const Func &gr = p.d_gr, &r = p.d_r, &b = p.d_b, &gb = p.d_gb;
    // At a green pixel of a red row (0, 0), a red pixel (1, 0), a blue pixel (0, 1), a green
    // pixel of a blue row (1, 1):
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
        return select(oy == 0, select(ox == 0, v[0], v[1]), select(ox == 0, v[2], v[3]));
    };
    p.red(x, y) = pick(red_at);
    p.green(x, y) = pick(green_at);
    p.blue(x, y) = pick(blue_at);

    Expr rf = cast<float>(p.red(x, y) - kBlack), gf = cast<float>(p.green(x, y) - kBlack),
         bf = cast<float>(p.blue(x, y) - kBlack);
    auto row = [&](int k) { return kMatrix[k][0] * rf + kMatrix[k][1] * gf + kMatrix[k][2] * bf; };
    p.corrected(x, y, c) = select(c == 0, row(0), c == 1, row(1), row(2));

    p.curve(i) = cast<uint8_t>(sqrt(cast<float>(i) / static_cast<float>(kRange)) * 255.0f + 0.5f);
    Expr index = clamp(cast<int32_t>(p.corrected(x, y, c) + 0.5f), 0, kRange);
    p.curved(x, y, c) = p.curve(index);

    // Unsharp mask on the curved values, in integers: v + (v - blur), clamped to [0, 255], with a
    // rounded 1 2 1 by 1 2 1 blur; the image's edges repeated.
    Expr w = raw.width(), h = raw.height();
    Expr up = clamp(y - 1, 0, h - 1), down = clamp(y + 1, 0, h - 1);
    p.blur_y(x, y, c) = cast<int32_t>(p.curved(x, up, c)) + 2 * cast<int32_t>(p.curved(x, y, c)) +
                        cast<int32_t>(p.curved(x, down, c));
    Expr left = clamp(x - 1, 0, w - 1), right = clamp(x + 1, 0, w - 1);
    Expr blur = (p.blur_y(left, y, c) + 2 * p.blur_y(x, y, c) + p.blur_y(right, y, c) + 8) / 16;
    Expr v = cast<int32_t>(p.curved(x, y, c));
    p.output(x, y, c) = cast<uint8_t>(clamp(2 * v - blur, 0, 255));
    return p;
}

void schedule_camera_pipe(CameraPipePipeline &p, const Target &target) {
    // Two passes over strips of 32 rows in parallel, each vectorized in x. The tone curve (960
    // values) at root. First the curved image, its three channels innermost-but-one and unrolled
    // (each pixel is demosaicked once), with the hot-pixel suppression of the four planes computed
    // per strip (half resolution, 18 rows) and the planes inlined into it (a sample is a load).
    // Then the sharpened output, its channels unrolled, reading the curved image from cache. A
    // compute_at names a loop of a Func's direct consumer, so the suppressed planes cannot be
    // computed at the output's strips while the curved image is (it alone uses them).
    const int lanes = target.natural_vector_size<float>();
    Var x = p.x, y = p.y, c = p.c, yo("yo"), yi("yi");
    p.curve.compute_root().vectorize(p.i, lanes);
    p.curved.compute_root().reorder(c, x, y).bound(c, 0, 3).unroll(c);
    p.curved.split(y, yo, yi, 32).parallel(yo).vectorize(x, lanes);
    // The planes' last vector of a row shifts inwards (Halide's default for a pure definition).
    for (Func *plane : {&p.d_gr, &p.d_r, &p.d_b, &p.d_gb})
        plane->compute_at(p.curved, yo).vectorize(x, lanes, TailStrategy::ShiftInwards);
    p.output.reorder(c, x, y).bound(c, 0, 3).unroll(c);
    p.output.split(y, yo, yi, 32).parallel(yo).vectorize(x, lanes);
}

void schedule_camera_pipe_gpu(CameraPipePipeline &p) {
    // Each stage at root in its own kernel, a thread per pixel (per entry of the tone curve),
    // the colour channels unrolled in each thread: the hot-pixel suppression of the four
    // half-resolution planes, the curved image (demosaic, colour correction and curve), and the
    // sharpened output.
    Var x = p.x, y = p.y, c = p.c, bx("bx"), by("by"), tx("tx"), ty("ty"), bi("bi"), ti("ti");
    p.curve.compute_root().gpu_tile(p.i, bi, ti, 64);
    for (Func *plane : {&p.d_gr, &p.d_r, &p.d_b, &p.d_gb})
        plane->compute_root().gpu_tile(x, y, bx, by, tx, ty, 32, 8);
    p.curved.compute_root().reorder(c, x, y).bound(c, 0, 3).unroll(c);
    p.curved.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
    p.output.reorder(c, x, y).bound(c, 0, 3).unroll(c).gpu_tile(x, y, bx, by, tx, ty, 32, 8);
}

Buffer<uint8_t> camera_pipe_reference(const Buffer<uint16_t> &raw) {
    const int w = raw.dim(0).extent(), h = raw.dim(1).extent();
    const int x0 = raw.dim(0).min(), y0 = raw.dim(1).min();
    const int qw = w / 2, qh = h / 2;
    // The sample of colour (dx, dy) of quad (qx, qy) of `image`, the quads repeated past the
    // edges.
    auto sample = [&](const auto &image, int dx, int dy, int qx, int qy) {
        return static_cast<int32_t>(
            image(2 * std::clamp(qx, 0, qw - 1) + dx, 2 * std::clamp(qy, 0, qh - 1) + dy));
    };
    auto raw_at = [&](int x, int y) { return raw(x0 + x, y0 + y); };

    // Hot-pixel suppression of the whole raw image.
    Buffer<int32_t> denoised(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const int dx = x % 2, dy = y % 2, qx = x / 2, qy = y / 2;
            auto at = [&](int nx, int ny) { return sample(raw_at, dx, dy, nx, ny); };
            // The neighbours, mirrored past the edges (for a width or height of one quad, the
            // sample itself).
            const int left = qx > 0 ? qx - 1 : 1, right = qx < qw - 1 ? qx + 1 : qw - 2;
            const int above = qy > 0 ? qy - 1 : 1, below = qy < qh - 1 ? qy + 1 : qh - 2;
            const int32_t brightest = std::max(std::max(at(left, qy), at(right, qy)),
                                               std::max(at(qx, above), at(qx, below)));
            denoised(x, y) = std::min(at(qx, qy), brightest);
        }
    }
    auto plane = [&](int dx, int dy) {
        return [&, dx, dy](int qx, int qy) {
            return sample([&](int x, int y) { return denoised(x, y); }, dx, dy, qx, qy);
        };
    };
    auto gr = plane(0, 0), r = plane(1, 0), b = plane(0, 1), gb = plane(1, 1);
    std::vector<uint8_t> curve(kRange + 1);
    for (int i = 0; i <= kRange; i++) {
        curve[i] = static_cast<uint8_t>(
            std::sqrt(static_cast<float>(i) / static_cast<float>(kRange)) * 255.0f + 0.5f);
    }
    Buffer<uint8_t> curved(w, h, 3);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const int ax = x / 2, ay = y / 2, k = (y % 2) * 2 + x % 2;
            int32_t red, green, blue;
            switch (k) {
                case 0:
                    red = (r(ax - 1, ay) + r(ax, ay)) / 2;
                    green = gr(ax, ay);
                    blue = (b(ax, ay - 1) + b(ax, ay)) / 2;
                    break;
                case 1:
                    red = r(ax, ay);
                    green = (gr(ax, ay) + gr(ax + 1, ay) + gb(ax, ay - 1) + gb(ax, ay)) / 4;
                    blue = (b(ax, ay - 1) + b(ax + 1, ay - 1) + b(ax, ay) + b(ax + 1, ay)) / 4;
                    break;
                case 2:
                    red = (r(ax - 1, ay) + r(ax, ay) + r(ax - 1, ay + 1) + r(ax, ay + 1)) / 4;
                    green = (gb(ax - 1, ay) + gb(ax, ay) + gr(ax, ay) + gr(ax, ay + 1)) / 4;
                    blue = b(ax, ay);
                    break;
                default:
                    red = (r(ax, ay) + r(ax, ay + 1)) / 2;
                    green = gb(ax, ay);
                    blue = (b(ax, ay) + b(ax + 1, ay)) / 2;
                    break;
            }
            const float rf = static_cast<float>(red - kBlack),
                        gf = static_cast<float>(green - kBlack),
                        bf = static_cast<float>(blue - kBlack);
            for (int c = 0; c < 3; c++) {
                float v = kMatrix[c][0] * rf + kMatrix[c][1] * gf + kMatrix[c][2] * bf;
                int index = std::clamp(static_cast<int32_t>(v + 0.5f), 0, kRange);
                curved(x, y, c) = curve[index];
            }
        }
    }

    // The unsharp mask, the edges repeated.
    auto at = [&](int x, int y, int c) {
        return static_cast<int32_t>(curved(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1), c));
    };
    Buffer<uint8_t> out(w, h, 3);
    for (int c = 0; c < 3; c++) {
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                auto column = [&](int cx) {
                    return at(cx, y - 1, c) + 2 * at(cx, y, c) + at(cx, y + 1, c);
                };
                const int32_t blur = (column(x - 1) + 2 * column(x) + column(x + 1) + 8) / 16;
                out(x, y, c) = static_cast<uint8_t>(std::clamp(2 * at(x, y, c) - blur, 0, 255));
            }
        }
    }
    return out;
}

Buffer<uint16_t> mosaic(const Buffer<uint8_t> &rgb) {
    const int w = rgb.dim(0).extent() & ~1, h = rgb.dim(1).extent() & ~1;
    const int x0 = rgb.dim(0).min(), y0 = rgb.dim(1).min(), c0 = rgb.dim(2).min();
    Buffer<uint16_t> raw(w, h);
    raw.for_each_element([&](int x, int y) {
        // GRBG: green where x + y is even, red on even rows, blue on odd rows.
        int channel = (x + y) % 2 == 0 ? 1 : (y % 2 == 0 ? 0 : 2);
        // Linear light, as a sensor measures it: the 8-bit value is gamma-encoded (about 2), so
        // square it; the tone curve's square root undoes that.
        const int v = rgb(x0 + x, y0 + y, c0 + channel);
        raw(x, y) = static_cast<uint16_t>(kBlack + v * v * kRange / (255 * 255));
    });
    return raw;
}

}  // namespace dsl_apps
