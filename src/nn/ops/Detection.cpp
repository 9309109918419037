// Non-maximum suppression in the DSL. Per batch b and class c: each valid box's rank in order of
// descending score (the number of valid boxes before it, O(n^2)); the boxes scattered into that
// order; then a Func `suppressed(r, c, b)` over the ranks whose update runs over (p, r), p < r,
// r outer, so that a box is suppressed when a box before it that is not suppressed overlaps it
// too much (the greedy algorithm, each row final before the rows after read it); the kept boxes
// counted and capped; their positions scattered into the rows of the result.
#include "dsl/nn/Detection.h"

#include "dsl/InlineReductions.h"
#include "dsl/Math.h"
#include "dsl/RDom.h"
#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl::nn {

namespace {

struct Suppression {
    Expr batches, classes, boxes;
    Func order;   ///< order(r, c, b): the box of rank r
    Func kept;    ///< kept(r, c, b): whether the box of rank r is selected (cap included)
    Func before;  ///< before(r, c, b): how many of ranks < r are selected
    Func count;   ///< count(c, b): how many are selected
};

Suppression suppress(const Tensor &boxes, const Tensor &scores, const SuppressionParams &p) {
    user_assert(boxes.rank() == 3 && scores.rank() == 3)
        << "non_max_suppression: the boxes \"" << boxes.func().name() << "\" must be [batches, "
        << "boxes, 4] and the scores \"" << scores.func().name()
        << "\" [batches, classes, boxes]; their ranks are " << boxes.rank() << " and "
        << scores.rank() << ".";
    Suppression s;
    s.batches = boxes.dim(0);
    s.classes = scores.dim(1);
    s.boxes = boxes.dim(1);
    const Expr n = s.boxes;
    const Type f32 = Float(32);
    auto score = [&](const Expr &i, const Expr &c, const Expr &b) {
        return cast(f32, scores({b, c, i}));
    };
    auto valid = [&](const Expr &i, const Expr &c, const Expr &b) {
        if (!p.score_threshold.defined()) return const_true();
        return score(i, c, b) > cast(f32, p.score_threshold);
    };
    Var i("i"), r("r"), c("c"), b("b");
    // Rank among the valid boxes: those with a higher score, or the same and a lower index.
    Func rank(unique_name("nms_rank"));
    RDom j(0, n, unique_name("nms_j"));
    rank(i, c, b) = sum(select(valid(j, c, b) && (score(j, c, b) > score(i, c, b) ||
                                                  (score(j, c, b) == score(i, c, b) && j < i)),
                               1, 0));
    rank.compute_root();
    Func valid_count(unique_name("nms_valid"));
    valid_count(c, b) = sum(select(valid(j, c, b), 1, 0));
    valid_count.compute_root();
    s.order = Func(unique_name("nms_order"));
    s.order(r, c, b) = 0;
    RDom q(0, n, unique_name("nms_q"));
    q.where(valid(q, c, b));
    s.order(clamp(rank(q, c, b), 0, max(n - 1, 0)), c, b) = Expr(q);
    s.order.compute_root();
    // Corners of box i of batch b.
    struct Corners {
        Expr x1, y1, x2, y2;
    };
    auto corners = [&](const Expr &box, const Expr &bb) {
        Expr v[4];
        for (int e = 0; e < 4; e++)
            v[e] = cast(f32, boxes({bb, box, e}));
        if (p.center_point_box) {
            return Corners{v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2};
        }
        return Corners{min(v[1], v[3]), min(v[0], v[2]), max(v[1], v[3]), max(v[0], v[2])};
    };
    auto overlap = [&](const Expr &box_a, const Expr &box_b, const Expr &bb) {
        const Corners a = corners(box_a, bb), o = corners(box_b, bb);
        const Expr w = max(min(a.x2, o.x2) - max(a.x1, o.x1), 0.0f);
        const Expr h = max(min(a.y2, o.y2) - max(a.y1, o.y1), 0.0f);
        const Expr inter = w * h;
        const Expr uni = (a.x2 - a.x1) * (a.y2 - a.y1) + (o.x2 - o.x1) * (o.y2 - o.y1) - inter;
        const Expr threshold = p.iou_threshold.defined() ? cast(f32, p.iou_threshold) : Expr(0.0f);
        return inter > 0.0f && uni > 0.0f && inter / uni > threshold;
    };
    // The greedy pass over the ranks: rows r in order, each final before the rows after it.
    Func suppressed(unique_name("nms_suppressed"));
    suppressed(r, c, b) = cast(UInt(8), 0);
    RDom pr({{0, n}, {0, n}}, unique_name("nms_pairs"));
    pr.where(pr.x < pr.y);
    const Expr rr = pr.y, pp = pr.x;
    suppressed(rr, c, b) =
        select(suppressed(rr, c, b) != 0 || (rr < valid_count(c, b) && suppressed(pp, c, b) == 0 &&
                                             overlap(s.order(pp, c, b), s.order(rr, c, b), b)),
               cast(UInt(8), 1), cast(UInt(8), 0));
    suppressed.compute_root();
    const Expr cap = p.max_boxes_per_class.defined()
                         ? cast(Int(32), clamp(p.max_boxes_per_class, 0, Int(32).max()))
                         : Expr(0);
    // Selected before each rank, and whether each rank is selected (under the cap).
    s.before = Func(unique_name("nms_before"));
    s.before(r, c, b) = 0;
    RDom scan(1, max(n - 1, 0), unique_name("nms_scan"));
    const Expr last = clamp(scan - 1, 0, max(n - 1, 0));  // (bounds, as above)
    const Expr alive = last < valid_count(c, b) && suppressed(last, c, b) == 0;
    s.before(scan, c, b) = s.before(scan - 1, c, b) + select(alive, 1, 0);
    s.before.compute_root();
    s.kept = Func(unique_name("nms_kept"));
    s.kept(r, c, b) = r < valid_count(c, b) && suppressed(r, c, b) == 0 && s.before(r, c, b) < cap;
    s.count = Func(unique_name("nms_count"));
    RDom all(0, n, unique_name("nms_all"));
    s.count(c, b) = sum(select(s.kept(all, c, b), 1, 0));
    s.count.compute_root();
    return s;
}

}  // namespace

Tensor non_max_suppression_count(const Tensor &boxes, const Tensor &scores,
                                 const SuppressionParams &params) {
    Suppression s = suppress(boxes, scores, params);
    RDom g({{0, s.classes}, {0, s.batches}}, unique_name("nms_groups"));
    Expr total = sum(cast(Int(64), s.count(g.x, g.y)));
    return compute(unique_name("nms_total"), {}, [&](const Index &) { return total; });
}

Tensor non_max_suppression(const Tensor &boxes, const Tensor &scores,
                           const SuppressionParams &params, const Expr &count_in) {
    Suppression s = suppress(boxes, scores, params);
    const Expr count = cast(Int(32), count_in);
    // The position (rank) of the k-th selected box of each batch and class.
    Var k("k"), c("c"), b("b"), g("g");
    Func position(unique_name("nms_positions"));
    position(k, c, b) = 0;
    RDom q(0, s.boxes, unique_name("nms_selected"));
    q.where(s.kept(q, c, b));
    position(clamp(s.before(q, c, b), 0, max(s.boxes - 1, 0)), c, b) = Expr(q);
    position.compute_root();
    // Groups (b, c) flattened as g = b * classes + c; the rows before each group.
    Func start(unique_name("nms_start"));
    start(g) = 0;
    RDom scan(1, max(s.batches * s.classes - 1, 0), unique_name("nms_group_scan"));
    // (Clamped: bounds inference takes the RDom as [1, 0] when it is empty.)
    const Expr previous = clamp(scan - 1, 0, max(s.batches * s.classes - 1, 0));
    start(scan) = start(scan - 1) + s.count(clamp(previous % s.classes, 0, s.classes - 1),
                                            clamp(previous / s.classes, 0, s.batches - 1));
    start.compute_root();
    RDom all({{0, s.batches * s.classes}}, unique_name("nms_groups"));
    return compute(unique_name("non_max_suppression"), {count, 3}, [&](const Index &o) {
        const Expr m = o[0];
        // The group holding row m: how many groups end at or before m.
        Expr group = sum(select(start(all) + s.count(all % s.classes, all / s.classes) <= m, 1, 0));
        group = clamp(group, 0, s.batches * s.classes - 1);
        // (Clamped for bounds inference, which cannot bound values read from Funcs.)
        const Expr bb = clamp(group / s.classes, 0, s.batches - 1);
        const Expr cc = clamp(group % s.classes, 0, s.classes - 1);
        const Expr slot = clamp(m - start(group), 0, max(s.boxes - 1, 0));
        const Expr box = s.order(clamp(position(slot, cc, bb), 0, max(s.boxes - 1, 0)), cc, bb);
        return cast(Int(64), select(o[1] == 0, bb, o[1] == 1, cc, box));
    });
}

Tensor roi_align(const Tensor &x, const Tensor &rois, const Tensor &batch_indices,
                 const RoiAlignParams &p) {
    user_assert(x.rank() == 4 && rois.rank() == 2 && batch_indices.rank() == 1)
        << "roi_align: \"" << x.func().name() << "\" must be [N, C, H, W], the ROIs \""
        << rois.func().name() << "\" [rois, 4] and the batch indices \""
        << batch_indices.func().name() << "\" [rois]; their ranks are " << x.rank() << ", "
        << rois.rank() << " and " << batch_indices.rank() << ".";
    user_assert(p.output_height > 0 && p.output_width > 0 && p.sampling_ratio >= 0)
        << "roi_align of \"" << x.func().name() << "\": the output extents (" << p.output_height
        << " x " << p.output_width << ") must be positive and the "
        << "sampling ratio (" << p.sampling_ratio << ") at least 0.";
    const Type f32 = Float(32);
    const Expr H = x.dim(2), W = x.dim(3);
    const int oh = p.output_height, ow = p.output_width;
    // Samples per bin: the ratio, or up to a bound that covers every ROI inside the input.
    const Expr most_h = p.sampling_ratio > 0 ? Expr(p.sampling_ratio) : (H + oh - 1) / oh + 1;
    const Expr most_w = p.sampling_ratio > 0 ? Expr(p.sampling_ratio) : (W + ow - 1) / ow + 1;
    RDom s({{0, most_h}, {0, most_w}}, unique_name("roi_samples"));
    return compute(unique_name("roi_align"), {rois.dim(0), x.dim(1), oh, ow}, [&](const Index &o) {
        const Expr r = o[0], c = o[1], ph = o[2], pw = o[3];
        const Expr n = clamp(cast(Int(32), batch_indices({r})), 0, x.dim(0) - 1);
        const Expr offset = p.half_pixel ? 0.5f : 0.0f;
        auto corner = [&](int e) { return cast(f32, rois({r, e})) * p.spatial_scale - offset; };
        const Expr x0 = corner(0), y0 = corner(1);
        Expr rw = corner(2) - x0, rh = corner(3) - y0;
        if (!p.half_pixel) rw = max(rw, 1.0f), rh = max(rh, 1.0f);
        const Expr bh = rh / oh, bw = rw / ow;
        Expr gh = Expr(p.sampling_ratio), gw = Expr(p.sampling_ratio);
        if (p.sampling_ratio == 0) {
            gh = clamp(cast(Int(32), ceil(rh / oh)), 0, most_h);
            gw = clamp(cast(Int(32), ceil(rw / ow)), 0, most_w);
        }
        const Expr y = y0 + cast(f32, ph) * bh + (cast(f32, s.x) + 0.5f) * bh / cast(f32, gh);
        const Expr xx = x0 + cast(f32, pw) * bw + (cast(f32, s.y) + 0.5f) * bw / cast(f32, gw);
        // Bilinear interpolation as ONNX Runtime does it: 0 outside [-1, extent], the edge
        // row or column repeated past the last.
        const Expr outside = y < -1.0f || y > cast(f32, H) || xx < -1.0f || xx > cast(f32, W);
        Expr yc = max(y, 0.0f), xc = max(xx, 0.0f);
        const Expr y_low0 = cast(Int(32), yc), x_low0 = cast(Int(32), xc);
        const Expr y_edge = y_low0 >= H - 1, x_edge = x_low0 >= W - 1;
        const Expr y_low = select(y_edge, H - 1, y_low0), x_low = select(x_edge, W - 1, x_low0);
        const Expr y_high = select(y_edge, H - 1, y_low0 + 1);
        const Expr x_high = select(x_edge, W - 1, x_low0 + 1);
        yc = select(y_edge, cast(f32, y_low), yc);
        xc = select(x_edge, cast(f32, x_low), xc);
        const Expr ly = yc - cast(f32, y_low), lx = xc - cast(f32, x_low);
        const Expr hy = 1.0f - ly, hx = 1.0f - lx;
        auto at = [&](const Expr &yy, const Expr &xv) {
            return cast(f32, x({n, c, clamp(yy, 0, H - 1), clamp(xv, 0, W - 1)}));
        };
        const Expr v1 = hy * hx * at(y_low, x_low), v2 = hy * lx * at(y_low, x_high);
        const Expr v3 = ly * hx * at(y_high, x_low), v4 = ly * lx * at(y_high, x_high);
        Expr sample = p.max_mode ? max(max(v1, v2), max(v3, v4)) : v1 + v2 + v3 + v4;
        sample = select(outside, 0.0f, sample);
        // Only the ROI's own grid counts (it is smaller than the bound when adaptive).
        const Expr in_grid = s.x < gh && s.y < gw;
        Expr v;
        if (p.max_mode) {
            v = maximum(select(in_grid, sample, f32.min()));
            v = select(gh * gw > 0, v, 0.0f);
        } else {
            v = sum(select(in_grid, sample, 0.0f)) / cast(f32, max(gh * gw, 1));
        }
        return cast(x.type(), v);
    });
}

}  // namespace dsl::nn
