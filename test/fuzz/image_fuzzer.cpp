// libFuzzer target for the image loaders (PNG, JPEG, PPM/PGM): any bytes must load or fail with
// a RuntimeError, without a crash, a leak, an out-of-bounds access (AddressSanitizer) or an
// allocation larger than the limits of dsl/ImageIO.h. Built with -DDSL_BUILD_FUZZERS=ON and
// clang; docs/testing.md ("Fuzzing") shows how to run it.
//
// `image_fuzzer -seeds=DIR` (before any libFuzzer flag) writes a small valid file of each kind
// into DIR, a starting corpus, and exits.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "dsl/Buffer.h"
#include "dsl/ImageIO.h"

namespace {

template <typename T>
dsl::Buffer<T> seed_pattern(int w, int h, int c) {
    dsl::Buffer<T> b = c == 1 ? dsl::Buffer<T>(w, h) : dsl::Buffer<T>(w, h, c);
    b.for_each_element([&](const int *p) {
        int v = p[0] * 29 + p[1] * 7 + (c == 1 ? 0 : p[2] * 50);
        b(std::vector<int>(p, p + b.dimensions())) = static_cast<T>(v);
    });
    return b;
}

void write_seeds(const std::string &dir) {
    using dsl::save_image;
    save_image(seed_pattern<uint8_t>(13, 7, 3), dir + "/rgb8.png");
    save_image(seed_pattern<uint8_t>(5, 9, 2), dir + "/grey_alpha8.png");
    save_image(seed_pattern<uint16_t>(6, 4, 4), dir + "/rgba16.png");
    save_image(seed_pattern<uint8_t>(16, 16, 3), dir + "/rgb.jpg");
    save_image(seed_pattern<uint8_t>(9, 17, 1), dir + "/grey.jpg");
    save_image(seed_pattern<uint8_t>(7, 5, 3), dir + "/rgb8.ppm");
    save_image(seed_pattern<uint16_t>(4, 3, 1), dir + "/grey16.pgm");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    if (*argc > 1 && std::strncmp((*argv)[1], "-seeds=", 7) == 0) {
        write_seeds((*argv)[1] + 7);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    try {
        dsl::Buffer<> img = dsl::load_image_from_memory(data, size, "fuzz");
        // Touch every element, so that a buffer smaller than it claims is found.
        uint64_t sum = 0;
        const int bytes = img.type().bytes();
        img.for_each_element([&](const int *pos) { sum += img.byte_address(pos)[bytes - 1]; });
        if (sum == 0xfffffffffffffffull) std::abort();  // keeps the loop from being optimised out
    } catch (const dsl::RuntimeError &) {
        // A clean refusal. Any other exception escapes and libFuzzer reports it.
    }
    return 0;
}
