#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "dsl/Buffer.h"
#include "dsl/ImageIO.h"

namespace dsl {
namespace {

std::string temp_path(const std::string &name) {
    return ::testing::TempDir() + "dsl_imageio_" + name;
}

template <typename T>
Buffer<T> pattern(int w, int h, int c) {
    Buffer<T> b = c == 1 ? Buffer<T>(w, h) : Buffer<T>(w, h, c);
    b.for_each_element([&](const int *p) {
        int v = p[0] * 37 + p[1] * 11 + (c == 1 ? 0 : p[2] * 101);
        b(std::vector<int>(p, p + b.dimensions())) =
            static_cast<T>(sizeof(T) == 1 ? v % 256 : v * 97 % 65536);
    });
    return b;
}

template <typename T>
void expect_equal(const Buffer<T> &a, const Buffer<T> &b, int tolerance = 0) {
    ASSERT_EQ(a.dimensions(), b.dimensions());
    for (int d = 0; d < a.dimensions(); d++)
        ASSERT_EQ(a.dim(d).extent(), b.dim(d).extent());
    int bad = 0;
    a.for_each_element([&](const int *p) {
        std::vector<int> pos(p, p + a.dimensions());
        if (std::abs(int(a(pos)) - int(b(pos))) > tolerance) bad++;
    });
    EXPECT_EQ(bad, 0);
}

TEST(ImageIO, PngRoundTripsEveryLayout) {
    for (int c : {1, 2, 3, 4}) {
        Buffer<uint8_t> img8 = pattern<uint8_t>(17, 9, c);
        save_image(img8, temp_path("8.png"));
        Buffer<uint8_t> back8 = load_image(temp_path("8.png"));
        expect_equal(img8, back8);
        Buffer<uint16_t> img16 = pattern<uint16_t>(17, 9, c);
        save_image(img16, temp_path("16.png"));
        Buffer<uint16_t> back16 = load_image(temp_path("16.png"));
        expect_equal(img16, back16);
    }
}

TEST(ImageIO, PpmPgmAndJpeg) {
    Buffer<uint8_t> rgb = pattern<uint8_t>(12, 7, 3);
    save_image(rgb, temp_path("a.ppm"));
    expect_equal(rgb, Buffer<uint8_t>(load_image(temp_path("a.ppm"))));
    Buffer<uint16_t> grey = pattern<uint16_t>(12, 7, 1);
    save_image(grey, temp_path("a.pgm"));
    expect_equal(grey, Buffer<uint16_t>(load_image(temp_path("a.pgm"))));
    // JPEG is lossy: a smooth image comes back close.
    Buffer<uint8_t> smooth(32, 32, 3);
    smooth.for_each_element([&](int x, int y, int c) {
        smooth(x, y, c) = static_cast<uint8_t>(x * 4 + y * 2 + c * 10);
    });
    save_image(smooth, temp_path("a.jpg"));
    expect_equal(smooth, Buffer<uint8_t>(load_image(temp_path("a.jpg"))), 12);
}

TEST(ImageIO, SavesViewsWithMinsAndStrides) {
    Buffer<uint8_t> img = pattern<uint8_t>(20, 10, 3);
    Buffer<uint8_t> roi = img.cropped(0, 5, 8).translated(1, 100);
    save_image(roi, temp_path("roi.png"));
    Buffer<uint8_t> back = load_image(temp_path("roi.png"));
    EXPECT_EQ(back.width(), 8);
    EXPECT_EQ(back(0, 0, 1), img(5, 0, 1));
}

TEST(ImageIO, ClearErrorsForBadFiles) {
    try {
        load_image(temp_path("does_not_exist.png"));
        FAIL();
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("cannot open it"), std::string::npos) << e.what();
    }
    std::ofstream(temp_path("junk.png")) << "hello";
    EXPECT_THROW(load_image(temp_path("junk.png")), RuntimeError);
    EXPECT_THROW(save_image(Buffer<float>(4, 4), temp_path("f.png")), RuntimeError);
    EXPECT_THROW(save_image(Buffer<uint8_t>(4, 4), temp_path("f.bmp")), RuntimeError);
}

// Seeded mutation loop: truncated and corrupted files load or fail with a RuntimeError, never
// crash.
TEST(ImageIO, TruncatedAndCorruptFilesNeverCrash) {
    std::mt19937 rng(99);
    for (const char *ext : {"png", "jpg", "ppm"}) {
        std::string path = temp_path(std::string("valid.") + ext);
        save_image(pattern<uint8_t>(24, 16, 3), path);
        std::ifstream in(path, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        int loaded = 0, refused = 0;
        for (int trial = 0; trial < 150; trial++) {
            std::string mutated = bytes;
            if (trial % 2 == 0) {
                mutated.resize(std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng));
            } else {
                for (int k = 0; k < 4; k++) {
                    mutated[std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng)] =
                        static_cast<char>(rng());
                }
            }
            std::string bad = temp_path(std::string("mutated.") + ext);
            std::ofstream(bad, std::ios::binary) << mutated;
            try {
                load_image(bad);
                loaded++;
            } catch (const RuntimeError &) {
                refused++;
            }
        }
        EXPECT_EQ(loaded + refused, 150);
        EXPECT_GT(refused, 0) << ext;
    }
}

}  // namespace
}  // namespace dsl
