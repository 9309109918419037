// DB post-processing: regions, rotated rectangles, scores, unclipping (boxes.h).
#include "boxes.h"

#include <algorithm>
#include <cmath>

namespace ocr {

namespace {

float cross(const Point &o, const Point &a, const Point &b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/// The convex hull of `points` (Andrew's monotone chain), counter-clockwise in y-up terms.
std::vector<Point> convex_hull(std::vector<Point> points) {
    std::sort(points.begin(), points.end(), [](const Point &a, const Point &b) {
        return a.x < b.x || (a.x == b.x && a.y < b.y);
    });
    if (points.size() < 3) return points;
    std::vector<Point> hull(2 * points.size());
    size_t k = 0;
    for (size_t i = 0; i < points.size(); i++) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], points[i]) <= 0)
            k--;
        hull[k++] = points[i];
    }
    for (size_t i = points.size() - 1, t = k + 1; i-- > 0;) {
        while (k >= t && cross(hull[k - 2], hull[k - 1], points[i]) <= 0)
            k--;
        hull[k++] = points[i];
    }
    hull.resize(k - 1);
    return hull;
}

/// The four corners in PaddleOCR's order: sorted by x, the left pair gives top-left and
/// bottom-left (by y), the right pair top-right and bottom-right.
std::array<Point, 4> order_corners(std::array<Point, 4> c) {
    std::sort(c.begin(), c.end(), [](const Point &a, const Point &b) { return a.x < b.x; });
    Point tl = c[0], bl = c[1], tr = c[2], br = c[3];
    if (tl.y > bl.y) std::swap(tl, bl);
    if (tr.y > br.y) std::swap(tr, br);
    return {tl, tr, br, bl};
}

float distance(const Point &a, const Point &b) {
    return std::hypot(a.x - b.x, a.y - b.y);
}

/// The mean probability over the pixels inside the quadrilateral `box`.
float box_score(const dsl::Buffer<float> &probability, const std::array<Point, 4> &box) {
    const int w = probability.width(), h = probability.height();
    float x0 = box[0].x, x1 = box[0].x, y0 = box[0].y, y1 = box[0].y;
    for (const Point &p : box) {
        x0 = std::min(x0, p.x);
        x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y);
        y1 = std::max(y1, p.y);
    }
    const int xa = std::clamp(static_cast<int>(std::floor(x0)), 0, w - 1);
    const int xb = std::clamp(static_cast<int>(std::ceil(x1)), 0, w - 1);
    const int ya = std::clamp(static_cast<int>(std::floor(y0)), 0, h - 1);
    const int yb = std::clamp(static_cast<int>(std::ceil(y1)), 0, h - 1);
    // Inside a convex quadrilateral: on the same side of every edge.
    auto inside = [&](float px, float py) {
        bool pos = false, neg = false;
        for (int i = 0; i < 4; i++) {
            const Point &a = box[static_cast<size_t>(i)],
                        &b = box[static_cast<size_t>((i + 1) % 4)];
            const float c = (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x);
            pos |= c > 1e-3f;
            neg |= c < -1e-3f;
        }
        return !(pos && neg);
    };
    double sum = 0;
    int count = 0;
    for (int y = ya; y <= yb; y++) {
        for (int x = xa; x <= xb; x++) {
            if (!inside(static_cast<float>(x), static_cast<float>(y))) continue;
            sum += probability(x, y, 0, 0);
            count++;
        }
    }
    return count ? static_cast<float>(sum / count) : 0.0f;
}

}  // namespace

std::array<Point, 4> min_area_rectangle(const std::vector<Point> &points) {
    std::vector<Point> hull = convex_hull(points);
    if (hull.empty()) return {};
    if (hull.size() < 3) {
        // A dot or a segment: a degenerate rectangle along it.
        Point a = hull.front(), b = hull.back();
        return order_corners({a, b, b, a});
    }
    float best_area = -1;
    std::array<Point, 4> best{};
    for (size_t i = 0; i < hull.size(); i++) {
        const Point &a = hull[i], &b = hull[(i + 1) % hull.size()];
        const float len = distance(a, b);
        if (len <= 0) continue;
        // The edge's direction and its normal; the extents of the hull along both.
        const float ux = (b.x - a.x) / len, uy = (b.y - a.y) / len;
        float umin = 0, umax = 0, vmin = 0, vmax = 0;
        for (const Point &p : hull) {
            const float u = (p.x - a.x) * ux + (p.y - a.y) * uy;
            const float v = -(p.x - a.x) * uy + (p.y - a.y) * ux;
            umin = std::min(umin, u);
            umax = std::max(umax, u);
            vmin = std::min(vmin, v);
            vmax = std::max(vmax, v);
        }
        const float area = (umax - umin) * (vmax - vmin);
        if (best_area >= 0 && area >= best_area) continue;
        best_area = area;
        auto corner = [&](float u, float v) {
            return Point{a.x + u * ux - v * uy, a.y + u * uy + v * ux};
        };
        best = {corner(umin, vmin), corner(umax, vmin), corner(umax, vmax), corner(umin, vmax)};
    }
    return order_corners(best);
}

std::vector<ScoredBox> find_boxes(const dsl::Buffer<uint8_t> &mask,
                                  const dsl::Buffer<float> &probability,
                                  const OcrOptions &options) {
    const int w = mask.width(), h = mask.height();
    std::vector<int> label(static_cast<size_t>(w) * static_cast<size_t>(h), 0);
    std::vector<ScoredBox> boxes;
    std::vector<std::pair<int, int>> stack;
    int next_label = 0;
    for (int sy = 0; sy < h; sy++) {
        for (int sx = 0; sx < w; sx++) {
            if (!mask(sx, sy) || label[static_cast<size_t>(sy) * w + sx]) continue;
            // One region (8-connected): its boundary pixels' centres.
            next_label++;
            std::vector<Point> boundary;
            stack.push_back({sx, sy});
            label[static_cast<size_t>(sy) * w + sx] = next_label;
            while (!stack.empty()) {
                auto [x, y] = stack.back();
                stack.pop_back();
                bool edge = false;
                for (int dy = -1; dy <= 1; dy++) {
                    for (int dx = -1; dx <= 1; dx++) {
                        const int nx = x + dx, ny = y + dy;
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h || !mask(nx, ny)) {
                            edge = true;
                            continue;
                        }
                        int &l = label[static_cast<size_t>(ny) * w + nx];
                        if (!l) {
                            l = next_label;
                            stack.push_back({nx, ny});
                        }
                    }
                }
                if (edge) boundary.push_back({static_cast<float>(x), static_cast<float>(y)});
            }
            std::array<Point, 4> box = min_area_rectangle(boundary);
            const float width = distance(box[0], box[1]), height = distance(box[0], box[3]);
            if (std::min(width, height) < options.min_box_side) continue;
            const float score = box_score(probability, box);
            if (score < options.box_threshold) continue;
            // Unclip: the region is the text shrunk by d = area * ratio / perimeter; grow the
            // rectangle by d on every side.
            const float d = width * height * options.unclip_ratio / (2 * (width + height));
            const float ux = (box[1].x - box[0].x) / width, uy = (box[1].y - box[0].y) / width;
            const float vx = (box[3].x - box[0].x) / height, vy = (box[3].y - box[0].y) / height;
            const float su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
            std::array<Point, 4> grown;
            for (size_t i = 0; i < 4; i++) {
                grown[i] = {box[i].x + d * (su[i] * ux + sv[i] * vx),
                            box[i].y + d * (su[i] * uy + sv[i] * vy)};
            }
            grown = order_corners(grown);
            if (std::min(distance(grown[0], grown[1]), distance(grown[0], grown[3])) <
                options.min_box_side + 2) {
                continue;
            }
            boxes.push_back({grown, score});
        }
    }
    return boxes;
}

void sort_reading_order(std::vector<ScoredBox> &boxes) {
    std::sort(boxes.begin(), boxes.end(), [](const ScoredBox &a, const ScoredBox &b) {
        return a.box[0].y < b.box[0].y || (a.box[0].y == b.box[0].y && a.box[0].x < b.box[0].x);
    });
    // Boxes whose tops are within 10 pixels are one line: left to right.
    for (size_t i = 0; i + 1 < boxes.size(); i++) {
        for (size_t j = i + 1; j-- > 0;) {
            if (std::abs(boxes[j + 1].box[0].y - boxes[j].box[0].y) < 10 &&
                boxes[j + 1].box[0].x < boxes[j].box[0].x) {
                std::swap(boxes[j], boxes[j + 1]);
            } else {
                break;
            }
        }
    }
}

}  // namespace ocr
