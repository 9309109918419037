#pragma once
/// Detection operators: RoiAlign, and non-maximum suppression (ONNX's NonMaxSuppression), whose
/// result's size depends on the scores and boxes: `non_max_suppression_count` is computed first and
/// sizes the result (in an ONNX model the graph layer adds the node that counts,
/// graph/DataDependentShapes.h).

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

/// How roi_align samples.
struct RoiAlignParams {
    bool max_mode = false;  ///< the bins' maximum (as ONNX Runtime takes it) rather than mean
    int output_height = 1, output_width = 1;
    /// Samples per bin along each axis; 0: ceil(roi extent / output extent) per ROI (at most
    /// ceil(input extent / output extent) + 1, which covers every ROI inside the input).
    int sampling_ratio = 0;
    float spatial_scale = 1.0f;
    /// ONNX's coordinate_transformation_mode: "half_pixel" (true: pixel centres at +0.5, opset
    /// 16's default) or "output_half_pixel" (false: opset 10's, ROIs at least 1 wide).
    bool half_pixel = true;
};

/// ONNX's RoiAlign: for each ROI (x1, y1, x2, y2 of `rois` [rois, 4], on the image
/// `batch_indices` [rois] of `x` [N, C, H, W]), an output_height x output_width grid of bins,
/// each the mean (or maximum) of bilinear samples. The result is [rois, C, oh, ow].
Tensor roi_align(const Tensor &x, const Tensor &rois, const Tensor &batch_indices,
                 const RoiAlignParams &params);

}  // namespace dsl::nn
