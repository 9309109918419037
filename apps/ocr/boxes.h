#pragma once
// DB post-processing (Liao et al., "Real-time Scene Text Detection with Differentiable
// Binarization"), as PaddleOCR does it: connected text regions of the detector's thresholded
// map, the smallest rotated rectangle around each, a score, and the rectangle grown back
// ("unclipped") to the text's size. Plain C++ geometry.

#include <array>
#include <vector>

#include "dsl/Buffer.h"
#include "ocr.h"

namespace ocr {

struct ScoredBox {
    std::array<Point, 4> box;  ///< clockwise from the top left
    float score = 0;
};

/// The boxes of the regions of `mask` (1 = text; W x H) with the detector's `probability`
/// (1, 1, H, W), in detector coordinates.
std::vector<ScoredBox> find_boxes(const dsl::Buffer<uint8_t> &mask,
                                  const dsl::Buffer<float> &probability, const OcrOptions &options);

/// The smallest rectangle (of any rotation) holding `points`, as four corners clockwise from
/// the top left (PaddleOCR's order: of the two leftmost corners the upper one first).
std::array<Point, 4> min_area_rectangle(const std::vector<Point> &points);

/// Sorts boxes top to bottom, and left to right within a line (tops within 10 pixels).
void sort_reading_order(std::vector<ScoredBox> &boxes);

}  // namespace ocr
