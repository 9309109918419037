// The OCR app's image pipelines (image_ops.h).
#include "image_ops.h"

#include <cmath>

#include "dsl/dsl.h"

namespace ocr {

using namespace dsl;

namespace {

/// Bilinear sampling of `image` (x, y, channel; clamped at the edges) at real coordinates
/// (pixel centres at integers), channel `c`.
Expr bilinear(const ImageParam &image, const Expr &fx, const Expr &fy, const Expr &c) {
    Expr x0 = cast<int>(floor(fx)), y0 = cast<int>(floor(fy));
    Expr ax = fx - cast<float>(x0), ay = fy - cast<float>(y0);
    Expr w = image.width() - 1, h = image.height() - 1;
    auto at = [&](const Expr &x, const Expr &y) {
        return cast<float>(image(clamp(x, 0, w), clamp(y, 0, h), c));
    };
    Expr top = lerp(at(x0, y0), at(x0 + 1, y0), ax);
    Expr bottom = lerp(at(x0, y0 + 1), at(x0 + 1, y0 + 1), ax);
    return lerp(top, bottom, ay);
}

/// The image channel a BGR tensor channel reads (grey images have one).
Expr source_channel(const ImageParam &image, const Expr &c) {
    return select(image.channels() == 1, 0, 2 - c);
}

}  // namespace

ImageOps::ImageOps()
    : image_(UInt(8), 3, "ocr_image"),
      probability_(Float(32), 4, "ocr_probability"),
      scale_x_("ocr_scale_x"),
      scale_y_("ocr_scale_y"),
      threshold_("ocr_threshold"),
      origin_x_("ocr_origin_x"),
      origin_y_("ocr_origin_y"),
      across_x_("ocr_across_x"),
      across_y_("ocr_across_y"),
      down_x_("ocr_down_x"),
      down_y_("ocr_down_y"),
      content_width_("ocr_content_width"),
      line_height_("ocr_line_height"),
      detector_input_("detector_input"),
      threshold_map_("threshold_map"),
      line_input_("line_input") {
    Var x("x"), y("y"), c("c"), n("n");

    // The detector's input: resized with pixel centres aligned, then (v / 255 - mean) / std
    // with ImageNet's statistics, which PaddleOCR applies to BGR images.
    {
        Expr fx = (cast<float>(x) + 0.5f) * scale_x_ - 0.5f;
        Expr fy = (cast<float>(y) + 0.5f) * scale_y_ - 0.5f;
        Expr v = bilinear(image_, fx, fy, source_channel(image_, c)) / 255.0f;
        Expr mean = select(c == 0, 0.485f, c == 1, 0.456f, 0.406f);
        Expr std_dev = select(c == 0, 0.229f, c == 1, 0.224f, 0.225f);
        detector_input_(x, y, c, n) = (v - mean) / std_dev;
        Var yc("yc");
        detector_input_.vectorize(x, 16).fuse(y, c, yc).parallel(yc);
    }
    // The text mask.
    {
        threshold_map_(x, y) =
            select(probability_(x, y, 0, 0) > threshold_, cast<uint8_t>(1), cast<uint8_t>(0));
        threshold_map_.vectorize(x, 16).parallel(y);
    }
    // One line for the recogniser: the box maps the line's unit square (u across the text,
    // v down it) to the image; sampled at pixel centres, normalised to [-1, 1], zero beyond the
    // line's own width.
    {
        Expr u = (cast<float>(x) + 0.5f) / cast<float>(content_width_);
        Expr vv = (cast<float>(y) + 0.5f) / cast<float>(line_height_);
        Expr fx = origin_x_ + u * across_x_ + vv * down_x_ - 0.5f;
        Expr fy = origin_y_ + u * across_y_ + vv * down_y_ - 0.5f;
        Expr v = bilinear(image_, fx, fy, source_channel(image_, c)) / 255.0f;
        line_input_(x, y, c) = select(x < content_width_, (v - 0.5f) / 0.5f, 0.0f);
        line_input_.vectorize(x, 16);
    }
}

Buffer<float> ImageOps::detector_input(const Buffer<uint8_t> &image, int width, int height) {
    image_.set(image);
    scale_x_.set(static_cast<float>(image.width()) / static_cast<float>(width));
    scale_y_.set(static_cast<float>(image.height()) / static_cast<float>(height));
    Buffer<float> out(width, height, 3, 1);
    detector_input_.realize(out);
    return out;
}

Buffer<uint8_t> ImageOps::threshold(const Buffer<float> &probability, float threshold) {
    probability_.set(probability);
    threshold_.set(threshold);
    Buffer<uint8_t> mask(probability.width(), probability.height());
    threshold_map_.realize(mask);
    return mask;
}

void ImageOps::line_input(const Buffer<uint8_t> &image, const std::array<Point, 4> &box, int width,
                          Buffer<float> &batch, int index) {
    image_.set(image);
    origin_x_.set(box[0].x);
    origin_y_.set(box[0].y);
    across_x_.set(box[1].x - box[0].x);
    across_y_.set(box[1].y - box[0].y);
    down_x_.set(box[3].x - box[0].x);
    down_y_.set(box[3].y - box[0].y);
    content_width_.set(width);
    line_height_.set(batch.height());
    Buffer<float> line = batch.sliced(3, index);
    line_input_.realize(line);
}

}  // namespace ocr
