#include "app_util.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

namespace dsl_apps {

bool parse_options(int argc, char **argv, const std::string &what, Options &options) {
    const std::string usage =
        std::string("usage: ") + (argc > 0 ? argv[0] : "app") +
        " <input image> <output.png> [--benchmark [runs]]\n  " + what +
        "\n  --benchmark times the AOT libraries of the default (naive) and the hand-written "
        "schedules, and realize() of the hand-written one (JIT): the best of `runs` (default "
        "10) runs each.\n";
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(usage.c_str(), stdout);
            std::exit(0);
        } else if (arg == "--benchmark") {
            options.benchmark = true;
            if (i + 1 < argc && argv[i + 1][0] != '-') {
                char *end = nullptr;
                long runs = std::strtol(argv[i + 1], &end, 10);
                if (*end == '\0' && end != argv[i + 1]) {
                    if (runs < 1 || runs > 100000) {
                        std::fprintf(stderr,
                                     "error: the number of runs must be in [1, 100000], "
                                     "not %ld\n%s",
                                     runs, usage.c_str());
                        return false;
                    }
                    options.runs = static_cast<int>(runs);
                    i++;
                }
            }
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "error: unknown option \"%s\"\n%s", arg.c_str(), usage.c_str());
            return false;
        } else if (positional == 0) {
            options.input = arg;
            positional++;
        } else if (positional == 1) {
            options.output = arg;
            positional++;
        } else {
            std::fprintf(stderr, "error: unexpected argument \"%s\"\n%s", arg.c_str(),
                         usage.c_str());
            return false;
        }
    }
    if (positional != 2) {
        std::fprintf(stderr, "error: give an input image and an output file\n%s", usage.c_str());
        return false;
    }
    return true;
}

int run_main(const std::string &app, const std::function<int()> &body) {
    try {
        return body();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: error: %s\n", app.c_str(), e.what());
        return 1;
    }
}

namespace {

void check_8bit(const dsl::Buffer<> &image, const std::string &file) {
    if (image.type() != dsl::UInt(8)) {
        throw std::runtime_error("\"" + file + "\" is not an 8-bit image (its elements are " +
                                 image.type().to_string() + "); give an 8-bit PNG or JPEG.");
    }
    if (image.dimensions() == 3 && image.dim(2).extent() != 3 && image.dim(2).extent() != 4) {
        throw std::runtime_error("\"" + file + "\" has " + std::to_string(image.dim(2).extent()) +
                                 " channels; give a grey or RGB image.");
    }
    if (image.dimensions() != 2 && image.dimensions() != 3) {
        throw std::runtime_error("\"" + file + "\" is not a 2-D image.");
    }
}

}  // namespace

dsl::Buffer<uint8_t> to_grey_u8(const dsl::Buffer<> &image, const std::string &file) {
    check_8bit(image, file);
    dsl::Buffer<uint8_t> in(image);
    const int w = in.dim(0).extent(), h = in.dim(1).extent();
    const int x0 = in.dim(0).min(), y0 = in.dim(1).min();
    dsl::Buffer<uint8_t> grey(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            if (in.dimensions() == 2) {
                grey(x, y) = in(x0 + x, y0 + y);
            } else {
                const int c0 = in.dim(2).min();
                int v = 77 * in(x0 + x, y0 + y, c0) + 150 * in(x0 + x, y0 + y, c0 + 1) +
                        29 * in(x0 + x, y0 + y, c0 + 2);
                grey(x, y) = static_cast<uint8_t>((v + 128) >> 8);
            }
        }
    }
    return grey;
}

dsl::Buffer<float> to_rgb_float(const dsl::Buffer<> &image, const std::string &file) {
    check_8bit(image, file);
    dsl::Buffer<uint8_t> in(image);
    const int w = in.dim(0).extent(), h = in.dim(1).extent();
    const int x0 = in.dim(0).min(), y0 = in.dim(1).min();
    dsl::Buffer<float> rgb(w, h, 3);
    for (int c = 0; c < 3; c++) {
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                uint8_t v = in.dimensions() == 2 ? in(x0 + x, y0 + y)
                                                 : in(x0 + x, y0 + y, in.dim(2).min() + c);
                rgb(x, y, c) = v / 255.0f;
            }
        }
    }
    return rgb;
}

int parse_size(const char *text, const char *what, int max) {
    char *end = nullptr;
    long v = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > max) {
        throw std::runtime_error(std::string("the size ") + what + " must be a whole number in " +
                                 "[1, " + std::to_string(max) + "], not \"" + text + "\"");
    }
    return static_cast<int>(v);
}

float float_from_env(const char *name, float value, float lo, float hi) {
    const char *text = std::getenv(name);
    if (!text) return value;
    char *end = nullptr;
    value = std::strtof(text, &end);
    if (*end != '\0' || end == text || !(value >= lo && value <= hi)) {
        char range[64];
        std::snprintf(range, sizeof range, "[%g, %g]", static_cast<double>(lo),
                      static_cast<double>(hi));
        throw std::runtime_error(std::string(name) + " must be a number in " + range + ", not \"" +
                                 text + "\"");
    }
    return value;
}

void print_benchmark(const std::string &app, int width, int height, int runs, double naive_ms,
                     double scheduled_ms, double jit_ms, const std::string &naive_label) {
    std::printf("%s, %dx%d, best of %d runs:\n", app.c_str(), width, height, runs);
    std::printf("  %-35s %9.3f ms\n", (naive_label + " (AOT)").c_str(), naive_ms);
    std::printf("  hand-written schedule (AOT)         %9.3f ms  (%.1fx faster)\n", scheduled_ms,
                naive_ms / scheduled_ms);
    std::printf("  hand-written schedule (JIT realize) %9.3f ms  (compiled once)\n", jit_ms);
    std::printf("result %s %dx%d %.3f %.3f %.3f\n", app.c_str(), width, height, naive_ms,
                scheduled_ms, jit_ms);
}

}  // namespace dsl_apps
