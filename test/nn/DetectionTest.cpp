// Non-maximum suppression against a plain C++ greedy loop: several batches and classes, equal
// scores, a score threshold, the cap, both box formats; an empty selection.
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

}  // namespace
}  // namespace dsl::test
