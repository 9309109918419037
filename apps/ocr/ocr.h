#pragma once
// Reading text in photographs with PaddleOCR's PP-OCRv4 networks (README.md): the detector finds
// text regions, each region is cut out and straightened, and the recogniser reads it.
//
// The image work around the networks is written in the dsl (image_ops.cpp): resizing and
// normalising the photograph for the detector, thresholding its probability map, and cutting out,
// straightening, resizing and normalising each region for the recogniser. The box geometry
// (boxes.cpp: connected regions, rotated rectangles, unclipping) and the CTC decoder (ctc.cpp)
// are plain C++.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/nn/Model.h"

namespace ocr {

class ImageOps;

/// A point in image coordinates (pixels; x to the right, y down).
struct Point {
    float x = 0, y = 0;
};

/// A text line found in the image: its box (four corners, clockwise from the top left of the
/// text), the detector's score for the box, the text, and the recogniser's score for it.
struct TextLine {
    std::array<Point, 4> box;
    float box_score = 0;
    std::string text;
    float text_score = 0;
};

/// PaddleOCR's defaults for PP-OCRv4.
struct OcrOptions {
    /// The longest side of the image the detector sees (the image is scaled down if larger, and
    /// its sides rounded to multiples of 32).
    int max_side = 960;
    /// A pixel is text where the detector's probability exceeds this.
    float pixel_threshold = 0.3f;
    /// A region is kept where its mean probability exceeds this.
    float box_threshold = 0.6f;
    /// How far a region's box grows: by area * ratio / perimeter on each side (the detector
    /// marks shrunk text).
    float unclip_ratio = 1.5f;
    /// Regions whose box is thinner than this (in detector pixels) are dropped.
    float min_box_side = 3;
    /// The recogniser's input height; widths follow each line's aspect ratio.
    int line_height = 48;
    /// Lines read by one call of the recogniser.
    int batch = 8;
    /// When set, each network's input and output are written there as .npy files
    /// (detector_input.npy, detector_output.npy, recogniser_input_<k>.npy,
    /// recogniser_output_<k>.npy for the k-th batch), to check them against another runtime.
    std::string dump_directory;
    /// Where the two networks run (nn::ModelOptions::target): the host's CPU, or a target with
    /// a GPU API (`host-opencl`, `host-cuda`). The image work around them runs on the CPU.
    dsl::Target target = dsl::Target::host();
};

class Ocr {
  public:
    /// Loads the detector, the recogniser and the dictionary (one character per line) and
    /// compiles them (through the JIT's caches). Errors name the file.
    Ocr(const std::string &detector_path, const std::string &recogniser_path,
        const std::string &dictionary_path, const OcrOptions &options = {});
    ~Ocr();

    /// The text lines of an 8-bit RGB (3 channels, planar) or grey image, top to bottom.
    std::vector<TextLine> read(const dsl::Buffer<uint8_t> &image);

    /// The detector's probability map (1, 1, H, W) of the last read(), at the detector's size.
    const dsl::Buffer<float> &probability_map() const { return probability_; }

  private:
    void dump(const std::string &name, const dsl::Buffer<float> &tensor) const;

    OcrOptions options_;
    std::unique_ptr<ImageOps> ops_;
    dsl::nn::Model detector_, recogniser_;
    std::vector<std::string> dictionary_;
    dsl::Buffer<float> probability_;
};

/// The image with the boxes of `lines` drawn on it (RGB, uint8).
dsl::Buffer<uint8_t> draw_boxes(const dsl::Buffer<uint8_t> &image,
                                const std::vector<TextLine> &lines);

}  // namespace ocr
