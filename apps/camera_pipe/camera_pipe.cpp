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
    Expr qx = clamp(x, 0, raw.width() / 2 - 1), qy = clamp(y, 0, raw.height() / 2 - 1);
    Expr rx = raw.min(0) + 2 * qx, ry = raw.min(1) + 2 * qy;
    p.g_gr(x, y) = cast<int32_t>(raw(rx, ry));
    p.r_r(x, y) = cast<int32_t>(raw(rx + 1, ry));
    p.b_b(x, y) = cast<int32_t>(raw(rx, ry + 1));
    p.g_gb(x, y) = cast<int32_t>(raw(rx + 1, ry + 1));

    // Bilinear demosaic; (qx, qy) is the quad of pixel (x, y), (ox, oy) its place in it.
    Expr ax = x / 2, ay = y / 2, ox = x % 2, oy = y % 2;
    const Func &gr = p.g_gr, &r = p.r_r, &b = p.b_b, &gb = p.g_gb;
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
    p.output(x, y, c) = p.curve(index);
    return p;
}

void schedule_camera_pipe(CameraPipePipeline &p, const Target &target) {
    // The tone curve (960 values) at root. The output in strips of 32 rows in parallel, the
    // three channels innermost-but-one and unrolled so that each strip demosaics once, the x loop
    // vectorized; the four planes (half resolution, 17 rows of the strip) computed per strip and
    // vectorized, so the demosaic reads them from cache.
    const int lanes = target.natural_vector_size<float>();
    Var x = p.x, y = p.y, c = p.c, yo("yo"), yi("yi");
    p.curve.compute_root().vectorize(p.i, lanes);
    p.output.reorder(c, x, y).bound(c, 0, 3).unroll(c);
    p.output.split(y, yo, yi, 32).parallel(yo).vectorize(x, lanes);
    for (Func *plane : {&p.g_gr, &p.r_r, &p.b_b, &p.g_gb})
        plane->compute_at(p.output, yo).vectorize(x, lanes);
}

Buffer<uint8_t> camera_pipe_reference(const Buffer<uint16_t> &raw) {
    const int w = raw.dim(0).extent(), h = raw.dim(1).extent();
    const int x0 = raw.dim(0).min(), y0 = raw.dim(1).min();
    const int qw = w / 2, qh = h / 2;
    auto plane = [&](int dx, int dy) {
        return [&, dx, dy](int qx, int qy) {
            qx = std::clamp(qx, 0, qw - 1);
            qy = std::clamp(qy, 0, qh - 1);
            return static_cast<int32_t>(raw(x0 + 2 * qx + dx, y0 + 2 * qy + dy));
        };
    };
    auto gr = plane(0, 0), r = plane(1, 0), b = plane(0, 1), gb = plane(1, 1);
    std::vector<uint8_t> curve(kRange + 1);
    for (int i = 0; i <= kRange; i++) {
        curve[i] = static_cast<uint8_t>(
            std::sqrt(static_cast<float>(i) / static_cast<float>(kRange)) * 255.0f + 0.5f);
    }
    Buffer<uint8_t> out(w, h, 3);
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
                out(x, y, c) = curve[index];
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
