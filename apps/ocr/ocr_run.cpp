// Reads the text in a photograph with PP-OCRv4 and draws the boxes it found.
//   ocr_run <image> <boxes.png> [--models DIR] [--dump DIR] [--target T] [--benchmark [runs]]
// Prints one line per text line: its box (four corners, clockwise from the top left), the
// detector's score, the recogniser's score, and the text. The models are the files
// scripts/fetch_models.sh puts into build/models/ocr (or DIR). --dump writes each network's
// inputs and outputs as .npy files (OcrOptions::dump_directory). --target runs the networks on
// another target (host-opencl: on the GPU through OpenCL).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "app_util.h"
#include "dsl/ImageIO.h"
#include "ocr.h"

#ifndef DSL_OCR_MODELS_DIR
#define DSL_OCR_MODELS_DIR "models/ocr"
#endif

int main(int argc, char **argv) {
    std::string models = DSL_OCR_MODELS_DIR;
    ocr::OcrOptions ocr_options;
    std::vector<char *> rest{argv[0]};
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--models") == 0 && i + 1 < argc) {
            models = argv[++i];
        } else if (std::strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
            ocr_options.dump_directory = argv[++i];
        } else if (std::strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
            ocr_options.target = dsl::Target(argv[++i]);
        } else {
            rest.push_back(argv[i]);
        }
    }
    dsl_apps::Options options;
    if (!dsl_apps::parse_options(static_cast<int>(rest.size()), rest.data(),
                                 "Text lines in a photograph (PP-OCRv4).", options)) {
        return 1;
    }
    return dsl_apps::run_main("ocr_run", [&] {
        auto start = std::chrono::steady_clock::now();
        ocr::Ocr reader(models + "/ch_PP-OCRv4_det_infer.onnx",
                        models + "/ch_PP-OCRv4_rec_infer.onnx", models + "/ppocr_keys_v1.txt",
                        ocr_options);
        const double load =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        dsl::Buffer<> file = dsl::load_image(options.input);
        if (file.type() != dsl::UInt(8)) {
            throw std::runtime_error(options.input + ": an 8-bit image is needed");
        }
        dsl::Buffer<uint8_t> image(file);
        start = std::chrono::steady_clock::now();
        std::vector<ocr::TextLine> lines = reader.read(image);
        const double first =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (const ocr::TextLine &l : lines) {
            for (const ocr::Point &p : l.box)
                std::printf("%.0f,%.0f ", static_cast<double>(p.x), static_cast<double>(p.y));
            std::printf("\t%.3f\t%.3f\t%s\n", static_cast<double>(l.box_score),
                        static_cast<double>(l.text_score), l.text.c_str());
        }
        dsl::save_image(ocr::draw_boxes(image, lines), options.output);
        std::fprintf(stderr,
                     "ocr_run: %zu lines; models loaded in %.2f s, first read %.1f ms; wrote %s\n",
                     lines.size(), load, first * 1e3, options.output.c_str());
        if (options.benchmark) {
            const double best = dsl_apps::best_time_ms(options.runs, [&] { reader.read(image); });
            std::fprintf(stderr, "ocr_run: best of %d reads: %.1f ms\n", options.runs, best);
        }
        return 0;
    });
}
