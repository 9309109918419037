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

std::string read_bytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string &path, const std::string &bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

/// The message of the RuntimeError that loading `bytes` throws ("" and a failure if none).
std::string load_error(const std::string &bytes) {
    try {
        load_image_from_memory(bytes.data(), bytes.size(), "hostile");
    } catch (const RuntimeError &e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a RuntimeError";
    return "";
}

/// One valid file of each kind the loaders read: PNG (8 and 16 bits, grey and colour), JPEG
/// (grey and colour), PPM and PGM (8 and 16 bits).
std::vector<std::pair<std::string, std::string>> valid_files() {
    std::vector<std::pair<std::string, std::string>> files;
    auto add = [&](const std::string &name, const Buffer<> &img) {
        save_image(img, temp_path(name));
        files.emplace_back(name, read_bytes(temp_path(name)));
    };
    add("rgb8.png", pattern<uint8_t>(24, 16, 3));
    add("grey16.png", pattern<uint16_t>(13, 9, 1));
    add("rgba8.png", pattern<uint8_t>(9, 7, 4));
    add("rgb.jpg", pattern<uint8_t>(24, 16, 3));
    add("grey.jpg", pattern<uint8_t>(17, 11, 1));
    add("rgb8.ppm", pattern<uint8_t>(24, 16, 3));
    add("grey8.pgm", pattern<uint8_t>(11, 5, 1));
    add("grey16.pgm", pattern<uint16_t>(7, 6, 1));
    return files;
}

// Seeded mutation loop over every kind of file: truncations, overwritten bytes, inserted and
// deleted runs. Each mutant loads or fails with a RuntimeError naming it, never crashes (the
// sanitizer build checks that the error paths of libpng and libjpeg free everything).
TEST(ImageIO, TruncatedAndCorruptFilesNeverCrash) {
    std::mt19937 rng(99);
    for (const auto &[name, bytes] : valid_files()) {
        // The valid file loads, from disk and from memory alike.
        Buffer<> from_disk = load_image(temp_path(name));
        Buffer<> from_memory = load_image_from_memory(bytes.data(), bytes.size(), name);
        ASSERT_EQ(from_disk.number_of_elements(), from_memory.number_of_elements()) << name;
        int loaded = 0, refused = 0;
        const int trials = 160;
        for (int trial = 0; trial < trials; trial++) {
            std::string mutated = bytes;
            auto at = [&](size_t n) {
                return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
            };
            switch (trial % 4) {
                case 0:
                    mutated.resize(at(bytes.size()));
                    break;
                case 1:
                    for (int k = 0; k < 4; k++)
                        mutated[at(mutated.size())] = static_cast<char>(rng());
                    break;
                case 2:
                    mutated.insert(at(mutated.size()), std::string(1 + at(64), char(rng())));
                    break;
                default: {
                    size_t from = at(mutated.size());
                    mutated.erase(from, 1 + at(64));
                    break;
                }
            }
            std::string mutant_name = "mutant " + std::to_string(trial) + " of " + name;
            try {
                Buffer<> img = trial % 8 < 4 ? load_image_from_memory(mutated.data(),
                                                                      mutated.size(), mutant_name)
                                             : (write_bytes(temp_path("mutant"), mutated),
                                                load_image(temp_path("mutant")));
                EXPECT_GT(img.number_of_elements(), 0);
                loaded++;
            } catch (const RuntimeError &e) {
                std::string expected = trial % 8 < 4 ? mutant_name : temp_path("mutant");
                EXPECT_NE(std::string(e.what()).find("image \"" + expected + "\""),
                          std::string::npos)
                    << e.what();
                refused++;
            }
        }
        EXPECT_EQ(loaded + refused, trials);
        EXPECT_GT(refused, 0) << name;
    }
}

/// The standard CRC-32 of PNG chunks (ISO 3309), bit by bit.
uint32_t png_crc(const std::string &bytes, size_t from, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = from; i < from + n; i++) {
        c ^= static_cast<uint8_t>(bytes[i]);
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

void put_be32(std::string &bytes, size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++)
        bytes[at + i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}

/// A PNG whose IHDR (the first chunk, at byte 8) says width x height, with a correct CRC, and
/// optionally another bit depth and colour type.
std::string png_claiming(const std::string &png, uint32_t width, uint32_t height, int depth = -1,
                         int color = -1) {
    std::string bytes = png;
    put_be32(bytes, 16, width);
    put_be32(bytes, 20, height);
    if (depth >= 0) bytes[24] = static_cast<char>(depth);
    if (color >= 0) bytes[25] = static_cast<char>(color);
    put_be32(bytes, 29, png_crc(bytes, 12, 17));  // type and data of the 13-byte IHDR
    return bytes;
}

/// A JPEG whose frame header (SOF0) says width x height.
std::string jpeg_claiming(const std::string &jpeg, int width, int height) {
    std::string bytes = jpeg;
    size_t sof = bytes.find("\xff\xc0");
    EXPECT_NE(sof, std::string::npos);
    bytes[sof + 5] = static_cast<char>(height >> 8);
    bytes[sof + 6] = static_cast<char>(height & 0xff);
    bytes[sof + 7] = static_cast<char>(width >> 8);
    bytes[sof + 8] = static_cast<char>(width & 0xff);
    return bytes;
}

// A header that declares an enormous image is refused before anything of that size is
// allocated (100000 x 100000 RGBA would be 40 GB), with a message that says so.
TEST(ImageIO, HugeDeclaredSizesAreRefusedWithoutAllocating) {
    save_image(pattern<uint8_t>(8, 8, 4), temp_path("small.png"));
    std::string png = read_bytes(temp_path("small.png"));
    ASSERT_EQ(png.substr(12, 4), "IHDR");
    std::string msg = load_error(png_claiming(png, 100000, 100000));
    EXPECT_NE(msg.find("image \"hostile\": not a valid PNG file"), std::string::npos) << msg;
    EXPECT_NE(msg.find("declares 100000x100000 pixels"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cannot hold them even compressed"), std::string::npos) << msg;
    // A header within deflate's ratio of the file's size but beyond what a Buffer holds: one-bit
    // grey, 60000 x 60000 (3.6e9 values once expanded to bytes), in a file padded to 410 KB.
    std::string padded = png_claiming(png, 60000, 60000, 1, 0);
    padded.resize(410 * 1024, '\0');
    msg = load_error(padded);
    EXPECT_NE(msg.find("declares 60000x60000 pixels of 1 channel(s), more than the 2^31 - 1 "
                       "values a Buffer holds"),
              std::string::npos)
        << msg;
    // Sizes libpng itself rejects.
    EXPECT_NE(load_error(png_claiming(png, 0, 5)).find("not a valid PNG file"), std::string::npos);
    EXPECT_NE(load_error(png_claiming(png, 0x7fffffff, 0x7fffffff)).find("not a valid PNG file"),
              std::string::npos);
    // A plausible size whose pixel data is missing: a clean truncation error.
    msg = load_error(png_claiming(png, 300, 200));
    EXPECT_NE(msg.find("not a valid PNG file"), std::string::npos) << msg;

    save_image(pattern<uint8_t>(16, 16, 3), temp_path("small.jpg"));
    std::string jpeg = read_bytes(temp_path("small.jpg"));
    msg = load_error(jpeg_claiming(jpeg, 65000, 65000));
    EXPECT_NE(msg.find("image \"hostile\": not a valid JPEG file: the header declares "
                       "65000x65000 pixels of 3 channel(s), more than the 2^31 - 1 values"),
              std::string::npos)
        << msg;
    // 20000 x 20000 RGB fits a Buffer, but the data ends after a few rows: refused as truncated
    // after decoding those rows, not after allocating 1.2 GB.
    msg = load_error(jpeg_claiming(jpeg, 20000, 20000));
    EXPECT_NE(msg.find("not a valid JPEG file: the image data ends before its last row"),
              std::string::npos)
        << msg;

    msg = load_error("P6\n100000 100000\n255\n\x01\x02\x03");
    EXPECT_NE(msg.find("more than the 2^31 - 1 values a Buffer holds"), std::string::npos) << msg;
    msg = load_error("P5\n30000 30000\n255\n\x01\x02\x03");
    EXPECT_NE(msg.find("the file is truncated"), std::string::npos) << msg;
    msg = load_error("P5\n99999999999 2\n255\n");
    EXPECT_NE(msg.find("width is too large"), std::string::npos) << msg;
    msg = load_error("P5\n0 2\n255\n");
    EXPECT_NE(msg.find("empty image"), std::string::npos) << msg;
    msg = load_error("P5\n2 2\n70000\n1234");
    EXPECT_NE(msg.find("maximum value out of range"), std::string::npos) << msg;
    msg = load_error("P5\n2 2\n255");
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST(ImageIO, OnlyRegularFilesAreRead) {
    // /dev/zero never ends; a directory has no bytes. Both are refused before any read.
    for (const std::string &path : {std::string("/dev/zero"), ::testing::TempDir()}) {
        try {
            load_image(path);
            ADD_FAILURE() << path;
        } catch (const RuntimeError &e) {
            EXPECT_NE(std::string(e.what()).find("is not a regular file"), std::string::npos)
                << e.what();
        }
    }
    std::string msg = "";
    try {
        load_image_from_memory(nullptr, 10, "nothing");
    } catch (const RuntimeError &e) {
        msg = e.what();
    }
    EXPECT_NE(msg.find("image \"nothing\": the data pointer is null"), std::string::npos) << msg;
    msg = load_error("");
    EXPECT_NE(msg.find("unknown format"), std::string::npos) << msg;
}

}  // namespace
}  // namespace dsl
