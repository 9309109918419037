#pragma once
/// Non-maximum suppression (ONNX's NonMaxSuppression), whose result's size depends on the
/// scores and boxes: `non_max_suppression_count` is computed first and sizes the result (in an
/// ONNX model the graph layer adds the node that counts, graph/DataDependentShapes.h).

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// What selects the boxes. Scalars may be constants or read when the pipeline runs.
struct SuppressionParams {
    Expr max_boxes_per_class;  ///< int; undefined: 0 (nothing is selected, as ONNX says)
    Expr iou_threshold;        ///< float; undefined: 0
    Expr score_threshold;      ///< float; undefined: no threshold
    /// Boxes as [x_center, y_center, width, height] rather than two corners [y1, x1, y2, x2]
    /// (in either order).
    bool center_point_box = false;
};

/// How many boxes non_max_suppression selects, as an int64 scalar tensor. `boxes` is
/// [batches, boxes, 4], `scores` [batches, classes, boxes].
Tensor non_max_suppression_count(const Tensor &boxes, const Tensor &scores,
                                 const SuppressionParams &params);

/// ONNX's NonMaxSuppression: for each batch and class, the boxes in order of descending score
/// (ties: the lower index first), those with a score above the threshold, each kept unless its
/// IoU with a box kept before exceeds the IoU threshold, at most max_boxes_per_class of them.
/// The result is int64 [count, 3]: (batch, class, box) by batch, then class, then order kept.
/// O(boxes^2) per batch and class.
Tensor non_max_suppression(const Tensor &boxes, const Tensor &scores,
                           const SuppressionParams &params, const Expr &count);

}  // namespace dsl::nn
