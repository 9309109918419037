// The OCR pipeline: detection, boxes, crops, recognition in batches, decoding (ocr.h).
#include "ocr.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "boxes.h"
#include "ctc.h"
#include "dsl/nn/Npy.h"
#include "image_ops.h"

namespace ocr {

using dsl::Buffer;

namespace {
dsl::nn::ModelOptions model_options(const OcrOptions &options) {
    dsl::nn::ModelOptions o;
    o.target = options.target;
    return o;
}
}  // namespace

Ocr::Ocr(const std::string &detector_path, const std::string &recogniser_path,
         const std::string &dictionary_path, const OcrOptions &options)
    : options_(options),
      ops_(std::make_unique<ImageOps>()),
      detector_(dsl::nn::Model::load(detector_path, model_options(options))),
      recogniser_(dsl::nn::Model::load(recogniser_path, model_options(options))),
      dictionary_(load_dictionary(dictionary_path)) {}

Ocr::~Ocr() = default;

void Ocr::dump(const std::string &name, const Buffer<float> &tensor) const {
    if (options_.dump_directory.empty()) return;
    dsl::nn::save_npy(options_.dump_directory + "/" + name + ".npy", tensor);
}

std::vector<TextLine> Ocr::read(const Buffer<uint8_t> &input) {
    // A grey image as one channel.
    Buffer<uint8_t> image = input;
    if (input.dimensions() == 2) {
        image = Buffer<uint8_t>(input.width(), input.height(), 1);
        image.for_each_element([&](int x, int y, int) { image(x, y, 0) = input(x, y); });
    }
    const int w = image.width(), h = image.height();

    // Detection at a size of multiples of 32, the longest side at most max_side.
    const float scale =
        std::min(1.0f, static_cast<float>(options_.max_side) / static_cast<float>(std::max(w, h)));
    auto round32 = [](float v) { return std::max(32, static_cast<int>(std::lround(v / 32)) * 32); };
    const int dw = round32(static_cast<float>(w) * scale),
              dh = round32(static_cast<float>(h) * scale);
    Buffer<float> x = ops_->detector_input(image, dw, dh);
    auto outputs = detector_.run({{detector_.inputs()[0].name, x}});
    probability_ = outputs.at(detector_.outputs()[0].name);
    dump("detector_input", x);
    dump("detector_output", probability_);
    Buffer<uint8_t> mask = ops_->threshold(probability_, options_.pixel_threshold);
    std::vector<ScoredBox> boxes = find_boxes(mask, probability_, options_);

    // Back to image coordinates.
    const float fx = static_cast<float>(w) / static_cast<float>(dw);
    const float fy = static_cast<float>(h) / static_cast<float>(dh);
    for (ScoredBox &b : boxes) {
        for (Point &p : b.box) {
            p.x = std::clamp(p.x * fx, 0.0f, static_cast<float>(w - 1));
            p.y = std::clamp(p.y * fy, 0.0f, static_cast<float>(h - 1));
        }
    }
    sort_reading_order(boxes);

    // Recognition in batches of lines of similar shape (sorted by aspect ratio), each line
    // resized to the line height and its width by its aspect ratio, padded to the batch's widest.
    const int lh = options_.line_height;
    std::vector<float> ratio(boxes.size());
    for (size_t i = 0; i < boxes.size(); i++) {
        const auto &b = boxes[i].box;
        const float bw = std::max(std::hypot(b[1].x - b[0].x, b[1].y - b[0].y),
                                  std::hypot(b[2].x - b[3].x, b[2].y - b[3].y));
        const float bh = std::max(std::hypot(b[3].x - b[0].x, b[3].y - b[0].y),
                                  std::hypot(b[2].x - b[1].x, b[2].y - b[1].y));
        ratio[i] = bw / std::max(bh, 1.0f);
    }
    std::vector<size_t> order(boxes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return ratio[a] < ratio[b]; });
    std::vector<TextLine> lines(boxes.size());
    for (size_t start = 0; start < order.size(); start += static_cast<size_t>(options_.batch)) {
        const size_t n = std::min(order.size() - start, static_cast<size_t>(options_.batch));
        float max_ratio = 320.0f / static_cast<float>(lh);
        for (size_t k = 0; k < n; k++)
            max_ratio = std::max(max_ratio, ratio[order[start + k]]);
        const int padded = static_cast<int>(static_cast<float>(lh) * max_ratio);
        Buffer<float> batch(padded, lh, 3, static_cast<int>(n));
        for (size_t k = 0; k < n; k++) {
            const size_t i = order[start + k];
            const int width = std::clamp(
                static_cast<int>(std::ceil(static_cast<float>(lh) * ratio[i])), 1, padded);
            ops_->line_input(image, boxes[i].box, width, batch, static_cast<int>(k));
        }
        auto out = recogniser_.run({{recogniser_.inputs()[0].name, batch}});
        Buffer<float> probs = out.at(recogniser_.outputs()[0].name);
        const std::string number = std::to_string(start / static_cast<size_t>(options_.batch));
        dump("recogniser_input_" + number, batch);
        dump("recogniser_output_" + number, probs);
        const int classes = probs.extent(0), steps = probs.extent(1);
        for (size_t k = 0; k < n; k++) {
            const size_t i = order[start + k];
            Buffer<float> row = probs.sliced(2, static_cast<int>(k));
            Decoded d = ctc_greedy_decode(row.data(), steps, classes, dictionary_);
            lines[i] = TextLine{boxes[i].box, boxes[i].score, d.text, d.score};
        }
    }
    return lines;
}

Buffer<uint8_t> draw_boxes(const Buffer<uint8_t> &image, const std::vector<TextLine> &lines) {
    const int w = image.width(), h = image.height();
    const int channels = image.dimensions() > 2 ? image.channels() : 1;
    Buffer<uint8_t> out(w, h, 3);
    out.for_each_element([&](int x, int y, int c) {
        out(x, y, c) =
            image.dimensions() == 2 ? image(x, y) : image(x, y, std::min(c, channels - 1));
    });
    // Each edge as a line two pixels wide, in red.
    for (const TextLine &l : lines) {
        for (size_t e = 0; e < 4; e++) {
            const Point a = l.box[e], b = l.box[(e + 1) % 4];
            const int steps = static_cast<int>(std::ceil(std::hypot(b.x - a.x, b.y - a.y))) + 1;
            for (int s = 0; s <= steps; s++) {
                const float t = static_cast<float>(s) / static_cast<float>(steps);
                const int px = static_cast<int>(std::lround(a.x + t * (b.x - a.x)));
                const int py = static_cast<int>(std::lround(a.y + t * (b.y - a.y)));
                for (int dy = 0; dy <= 1; dy++) {
                    for (int dx = 0; dx <= 1; dx++) {
                        const int qx = px + dx, qy = py + dy;
                        if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
                        out(qx, qy, 0) = 255;
                        out(qx, qy, 1) = 0;
                        out(qx, qy, 2) = 0;
                    }
                }
            }
        }
    }
    return out;
}

}  // namespace ocr
