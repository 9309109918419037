// Non-maximum suppression against a plain C++ greedy loop (several batches and classes, equal
// scores, a score threshold, the cap, both box formats; an empty selection), and RoiAlign
// against ONNX Runtime's sampling loop (adaptive and fixed sampling, mean and maximum).
#include <algorithm>
#include <random>

#include "NNTestUtil.h"
#include "dsl/nn/Detection.h"

namespace dsl::test {
namespace {

struct Row {
    int b, c, box;
    bool operator==(const Row &o) const { return b == o.b && c == o.c && box == o.box; }
};

/// boxes (4, n, batches), scores (n, classes, batches).
std::vector<Row> greedy(const Buffer<float> &boxes, const Buffer<float> &scores, int cap, float iou,
                        float score_threshold, bool center) {
    const int n = boxes.extent(1), batches = boxes.extent(2), classes = scores.extent(1);
    auto corners = [&](int i, int b, float *x1, float *y1, float *x2, float *y2) {
        const float v0 = boxes(0, i, b), v1 = boxes(1, i, b), v2 = boxes(2, i, b),
                    v3 = boxes(3, i, b);
        if (center) {
            *x1 = v0 - v2 / 2, *x2 = v0 + v2 / 2, *y1 = v1 - v3 / 2, *y2 = v1 + v3 / 2;
        } else {
            *x1 = std::min(v1, v3), *x2 = std::max(v1, v3);
            *y1 = std::min(v0, v2), *y2 = std::max(v0, v2);
        }
    };
    auto overlaps = [&](int a, int o, int b) {
        float ax1, ay1, ax2, ay2, ox1, oy1, ox2, oy2;
        corners(a, b, &ax1, &ay1, &ax2, &ay2);
        corners(o, b, &ox1, &oy1, &ox2, &oy2);
        const float w = std::max(std::min(ax2, ox2) - std::max(ax1, ox1), 0.0f);
        const float h = std::max(std::min(ay2, oy2) - std::max(ay1, oy1), 0.0f);
        const float inter = w * h;
        const float uni = (ax2 - ax1) * (ay2 - ay1) + (ox2 - ox1) * (oy2 - oy1) - inter;
        return inter > 0 && uni > 0 && inter / uni > iou;
    };
    std::vector<Row> rows;
    for (int b = 0; b < batches; b++) {
        for (int c = 0; c < classes; c++) {
            std::vector<int> order;
            for (int i = 0; i < n; i++)
                if (scores(i, c, b) > score_threshold) order.push_back(i);
            std::stable_sort(order.begin(), order.end(),
                             [&](int x, int y) { return scores(x, c, b) > scores(y, c, b); });
            std::vector<int> kept;
            for (int i : order) {
                if (int(kept.size()) >= cap) break;
                bool keep = true;
                for (int k : kept)
                    keep = keep && !overlaps(k, i, b);
                if (keep) kept.push_back(i);
            }
            for (int k : kept)
                rows.push_back({b, c, k});
        }
    }
    return rows;
}

void check(int batches, int classes, int n, int cap, float iou, float score_threshold, bool center,
           unsigned seed) {
    Buffer<float> boxes(4, n, batches), scores(n, classes, batches);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0, 1);
    boxes.for_each_element([&](int e, int i, int b) {
        // Centres on a 4 x 4 grid with sizes up to 0.5: neighbours overlap by varying amounts.
        const float centre = float(rng() % 4) * 0.25f + 0.1f, size = 0.1f + 0.4f * u(rng);
        boxes(e, i, b) = center ? (e < 2 ? centre : size) : centre + (e >= 2 ? size : 0.0f);
    });
    // Scores in tenths, so that some are equal.
    scores.for_each_value([&](float &v) { v = float(rng() % 10) / 10.0f; });
    nn::SuppressionParams p;
    p.max_boxes_per_class = Expr(cap);
    p.iou_threshold = Expr(iou);
    p.score_threshold = Expr(score_threshold);
    p.center_point_box = center;
    nn::Tensor bt(boxes, "boxes"), st(scores, "scores");
    Buffer<int64_t> count = Func(nn::non_max_suppression_count(bt, st, p).func()).realize({});
    const std::vector<Row> want = greedy(boxes, scores, cap, iou, score_threshold, center);
    ASSERT_EQ(count(), int64_t(want.size()));
    if (want.empty()) return;
    Buffer<int64_t> got = realize<int64_t>(nn::non_max_suppression(bt, st, p, Expr(count())));
    for (size_t m = 0; m < want.size(); m++) {
        const Row r{int(got(0, int(m))), int(got(1, int(m))), int(got(2, int(m)))};
        ASSERT_TRUE(r == want[m]) << "row " << m << ": got (" << r.b << ", " << r.c << ", " << r.box
                                  << "), want (" << want[m].b << ", " << want[m].c << ", "
                                  << want[m].box << ")";
    }
}

TEST(NNDetection, NonMaxSuppressionMatchesTheGreedyLoop) {
    check(2, 3, 17, 5, 0.3f, 0.25f, false, 1);
    check(1, 2, 23, 100, 0.5f, -1.0f, false, 2);
    check(3, 1, 9, 2, 0.0f, 0.0f, true, 3);
    check(1, 1, 1, 3, 0.5f, 0.0f, false, 6);  // one group of one box
}

TEST(NNDetection, NothingAboveTheThresholdSelectsNothing) {
    check(1, 2, 8, 5, 0.5f, 2.0f, false, 4);
    check(1, 1, 8, 0, 0.5f, 0.0f, false, 5);
}

/// RoiAlign as ONNX Runtime computes it. x (W, H, C, N), rois (4, R), batch (R).
float roi_align_at(const Buffer<float> &x, const Buffer<float> &rois, const Buffer<int64_t> &batch,
                   const nn::RoiAlignParams &p, int r, int c, int ph, int pw) {
    const int H = x.extent(1), W = x.extent(0);
    const float offset = p.half_pixel ? 0.5f : 0.0f;
    const float x0 = rois(0, r) * p.spatial_scale - offset,
                y0 = rois(1, r) * p.spatial_scale - offset;
    float rw = rois(2, r) * p.spatial_scale - offset - x0;
    float rh = rois(3, r) * p.spatial_scale - offset - y0;
    if (!p.half_pixel) rw = std::max(rw, 1.0f), rh = std::max(rh, 1.0f);
    const float bh = rh / p.output_height, bw = rw / p.output_width;
    const int gh = p.sampling_ratio > 0 ? p.sampling_ratio : int(std::ceil(rh / p.output_height));
    const int gw = p.sampling_ratio > 0 ? p.sampling_ratio : int(std::ceil(rw / p.output_width));
    const int n = int(batch(r));
    float total = 0, best = -1e30f;
    for (int iy = 0; iy < gh; iy++) {
        for (int ix = 0; ix < gw; ix++) {
            float y = y0 + ph * bh + (iy + 0.5f) * bh / gh;
            float xx = x0 + pw * bw + (ix + 0.5f) * bw / gw;
            float v = 0;
            if (!(y < -1.0f || y > H || xx < -1.0f || xx > W)) {
                y = std::max(y, 0.0f), xx = std::max(xx, 0.0f);
                int yl = int(y), xl = int(xx), yh, xh;
                if (yl >= H - 1)
                    yh = yl = H - 1, y = float(yl);
                else
                    yh = yl + 1;
                if (xl >= W - 1)
                    xh = xl = W - 1, xx = float(xl);
                else
                    xh = xl + 1;
                const float ly = y - yl, lx = xx - xl, hy = 1 - ly, hx = 1 - lx;
                const float v1 = hy * hx * x(xl, yl, c, n), v2 = hy * lx * x(xh, yl, c, n);
                const float v3 = ly * hx * x(xl, yh, c, n), v4 = ly * lx * x(xh, yh, c, n);
                v = p.max_mode ? std::max(std::max(v1, v2), std::max(v3, v4)) : v1 + v2 + v3 + v4;
            }
            total += v;
            best = std::max(best, v);
        }
    }
    if (p.max_mode) return gh * gw > 0 ? best : 0.0f;
    return total / float(std::max(gh * gw, 1));
}

TEST(NNDetection, RoiAlignMatchesTheSamplingLoop) {
    Buffer<float> x = random_buffer({12, 9, 3, 2}, 8);  // N 2, C 3, H 9, W 12
    Buffer<float> rois(4, 5);
    const float boxes[5][4] = {{0, 0, 11, 8},
                               {2.5f, 1.2f, 7.9f, 6.3f},
                               {-1, -2, 4, 3},
                               {10.2f, 7.1f, 11.9f, 8.9f},
                               {3, 3, 3.4f, 3.2f}};
    for (int r = 0; r < 5; r++)
        for (int e = 0; e < 4; e++)
            rois(e, r) = boxes[r][e];
    Buffer<int64_t> batch(5);
    for (int r = 0; r < 5; r++)
        batch(r) = r % 2;
    for (int variant = 0; variant < 4; variant++) {
        nn::RoiAlignParams p;
        p.output_height = 3, p.output_width = 4;
        p.sampling_ratio = variant % 2 == 0 ? 0 : 2;
        p.max_mode = variant >= 2;
        p.half_pixel = variant != 1;
        p.spatial_scale = variant == 3 ? 0.5f : 1.0f;
        Buffer<float> got = realize(nn::roi_align(nn::Tensor(x, "x"), nn::Tensor(rois, "rois"),
                                                  nn::Tensor(batch, "batch"), p));
        got.for_each_element([&](int pw, int ph, int c, int r) {
            ASSERT_NEAR(got(pw, ph, c, r), roi_align_at(x, rois, batch, p, r, c, ph, pw), 1e-5)
                << "variant " << variant << " at roi " << r << ", channel " << c << ", bin (" << ph
                << ", " << pw << ")";
        });
    }
}

}  // namespace
}  // namespace dsl::test
