#pragma once
// The OCR app's image work, written in the dsl: each a pipeline compiled once (through the JIT)
// and run on every image or text line.

#include "dsl/Buffer.h"
#include "dsl/Func.h"
#include "dsl/Param.h"
#include "ocr.h"

namespace ocr {

class ImageOps {
  public:
    ImageOps();

    /// The detector's input: `image` (8-bit, x, y, channel; 1 or 3 channels) resized to
    /// width x height (bilinear, pixel centres aligned) and normalised as PaddleOCR does
    /// ((v / 255 - mean) / std per channel, in BGR order): a tensor (1, 3, height, width).
    dsl::Buffer<float> detector_input(const dsl::Buffer<uint8_t> &image, int width, int height);

    /// 1 where the detector's probability map (1, 1, H, W) exceeds `threshold`, else 0: (W, H).
    dsl::Buffer<uint8_t> threshold(const dsl::Buffer<float> &probability, float threshold);

    /// Writes text line `index` of a recogniser batch (N, 3, line height, padded width): the
    /// part of `image` inside `box` (corners clockwise from the top left of the text),
    /// straightened and resized to `width` x line height (bilinear), normalised to [-1, 1] in
    /// BGR order, and zeros to the right of `width`.
    void line_input(const dsl::Buffer<uint8_t> &image, const std::array<Point, 4> &box, int width,
                    dsl::Buffer<float> &batch, int index);

  private:
    dsl::ImageParam image_, probability_;
    dsl::Param<float> scale_x_, scale_y_, threshold_;
    dsl::Param<float> origin_x_, origin_y_, across_x_, across_y_, down_x_, down_y_;
    dsl::Param<int> content_width_, line_height_;
    dsl::Func detector_input_, threshold_map_, line_input_;
};

}  // namespace ocr
