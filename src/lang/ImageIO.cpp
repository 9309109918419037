// Image files. libpng and libjpeg report errors by longjmp from a callback; each use keeps the
// jump inside one C-style function and turns the failure into a RuntimeError afterwards, so no
// C++ object's destructor is skipped, and the library's structures are destroyed on both paths.
//
// Files are hostile input: every size a header declares is checked before anything of that size
// is allocated (see the limits in dsl/ImageIO.h), and a failed allocation is an error, not an
// exception escaping through C code.
#include "dsl/ImageIO.h"

#include <jpeglib.h>
// After jpeglib.h, which it needs.
#include <jerror.h>
#include <png.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <vector>

#include "dsl/Error.h"

namespace dsl {

namespace {

[[noreturn]] void fail(const std::string &path, const std::string &what) {
    throw RuntimeError("Error: image \"" + path + "\": " + what);
}

std::string extension_of(const std::string &path) {
    size_t dot = path.rfind('.');
    if (dot == std::string::npos) return "";
    std::string ext = path.substr(dot + 1);
    for (char &c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

/// What a loader reads: the bytes of a file or of memory, and a name for messages.
struct Source {
    const std::string &name;
    const uint8_t *data;
    size_t size;
};

std::vector<uint8_t> read_file(const std::string &path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) fail(path, "cannot open it (does the file exist?)");
    // A directory, a pipe or a device such as /dev/zero is not an image (and could be endless).
    if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, "cannot open it (is it readable?)");
    std::vector<uint8_t> bytes;
    try {
        bytes.resize(static_cast<size_t>(st.st_size));
    } catch (const std::bad_alloc &) {
        fail(path, "out of memory reading " + std::to_string(st.st_size) + " bytes");
    }
    in.read(reinterpret_cast<char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (in.gcount() != static_cast<std::streamsize>(bytes.size()))
        fail(path, "could not read the whole file");
    return bytes;
}

/// Refuses declared sizes a Buffer cannot hold, before anything of that size is allocated.
void check_declared_size(const Source &src, int64_t width, int64_t height, int channels) {
    if (width <= 0 || height <= 0) {
        fail(src.name, "the header declares an empty image (" + std::to_string(width) + "x" +
                           std::to_string(height) + ")");
    }
    // Each factor is below 2^31, so the product of the first two cannot overflow; check the
    // third against the quotient.
    int64_t pixels = width * height;
    if (pixels > INT32_MAX / channels) {
        fail(src.name, "the header declares " + std::to_string(width) + "x" +
                           std::to_string(height) + " pixels of " + std::to_string(channels) +
                           " channel(s), more than the 2^31 - 1 values a Buffer holds; the file "
                           "is corrupt or too large to load");
    }
}

/// Resizes `v` to `n` bytes; false when memory runs out (never throws: it is called between
/// setjmp and longjmp, where an exception must not pass through the C library).
bool try_resize(std::vector<uint8_t> &v, size_t n) {
    try {
        v.resize(n);
        return true;
    } catch (const std::bad_alloc &) {
        return false;
    } catch (const std::length_error &) {
        return false;
    }
}

/// A planar buffer for `channels` interleaved samples per pixel, 8 or 16 bits.
Buffer<> make_image(int width, int height, int channels, int bits) {
    Type t = bits == 16 ? UInt(16) : UInt(8);
    if (channels == 1) return Buffer<>(t, {width, height});
    return Buffer<>(t, {width, height, channels});
}

/// Copies interleaved rows (big-endian for 16 bits, as PNG and PPM store them) into `img`.
void deinterleave(const uint8_t *rows, size_t row_bytes, Buffer<> &img, int channels, int bits) {
    int w = img.width(), h = img.height();
    for (int y = 0; y < h; y++) {
        const uint8_t *row = rows + static_cast<size_t>(y) * row_bytes;
        for (int x = 0; x < w; x++) {
            for (int c = 0; c < channels; c++) {
                int pos[3] = {x, y, c};
                size_t i = static_cast<size_t>(x) * channels + c;
                if (bits == 16) {
                    uint16_t v = static_cast<uint16_t>((row[2 * i] << 8) | row[2 * i + 1]);
                    std::memcpy(img.byte_address(pos), &v, 2);
                } else {
                    *img.byte_address(pos) = row[i];
                }
            }
        }
    }
}

/// The opposite of `deinterleave`; 16-bit samples are written big-endian.
std::vector<uint8_t> interleave(const Buffer<> &img, int channels, int bits) {
    int w = img.width(), h = img.height();
    int x0 = img.dim(0).min(), y0 = img.dim(1).min(),
        c0 = img.dimensions() > 2 ? img.dim(2).min() : 0;
    std::vector<uint8_t> out(static_cast<size_t>(w) * h * channels * (bits / 8));
    size_t i = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            for (int c = 0; c < channels; c++) {
                int pos[3] = {x0 + x, y0 + y, c0 + c};
                if (bits == 16) {
                    uint16_t v;
                    std::memcpy(&v, img.byte_address(pos), 2);
                    out[i++] = static_cast<uint8_t>(v >> 8);
                    out[i++] = static_cast<uint8_t>(v & 0xff);
                } else {
                    out[i++] = *img.byte_address(pos);
                }
            }
        }
    }
    return out;
}

// --- PNG ---------------------------------------------------------------------------------------

struct PngReadState {
    const uint8_t *data = nullptr;
    size_t size = 0;
    size_t offset = 0;
    char error[256] = {0};
    jmp_buf jump;
};

void png_read_bytes(png_structp png, png_bytep out, png_size_t n) {
    auto *s = static_cast<PngReadState *>(png_get_io_ptr(png));
    if (n > s->size - s->offset) png_error(png, "the file is truncated");
    std::memcpy(out, s->data + s->offset, n);
    s->offset += n;
}

void png_on_error(png_structp png, png_const_charp message) {
    auto *s = static_cast<PngReadState *>(png_get_error_ptr(png));
    std::snprintf(s->error, sizeof(s->error), "%s", message);
    longjmp(s->jump, 1);
}

void png_on_warning(png_structp, png_const_charp) {}

struct PngInfo {
    int width = 0, height = 0, channels = 0, bits = 0;
    std::vector<uint8_t> pixels;  // interleaved rows
    std::vector<uint8_t *> rows;  // kept here, outside the frame that calls setjmp

    /// Sizes `rows`; false when memory runs out (never throws, as try_resize).
    bool rows_storage(size_t n) {
        try {
            rows.resize(n);
            return true;
        } catch (const std::bad_alloc &) {
            return false;
        }
    }
};

/// The most a deflate stream expands: 258 bytes from about 2 bits (zlib's documented 1032:1),
/// rounded up. A PNG whose pixels cannot fit in its file even at this ratio is truncated or
/// lies about its size.
constexpr uint64_t kMaxDeflateRatio = 1100;

/// Decodes a PNG; returns false with `state.error` set on failure. No C++ objects with
/// destructors are created between setjmp and the return, and nothing throws there.
bool decode_png(PngReadState &state, PngInfo &info) {
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, png_on_error, png_on_warning);
    png_infop pinfo = png ? png_create_info_struct(png) : nullptr;
    if (!png || !pinfo) {
        std::snprintf(state.error, sizeof(state.error), "out of memory");
        png_destroy_read_struct(&png, &pinfo, nullptr);
        return false;
    }
    if (setjmp(state.jump)) {
        png_destroy_read_struct(&png, &pinfo, nullptr);
        return false;
    }
    png_set_read_fn(png, &state, png_read_bytes);
    png_read_info(png, pinfo);
    // The size of the filtered rows the compressed stream must produce, before any expansion.
    uint64_t width = png_get_image_width(png, pinfo), height = png_get_image_height(png, pinfo);
    uint64_t raw_bytes = (static_cast<uint64_t>(png_get_rowbytes(png, pinfo)) + 1) * height;
    if (raw_bytes / kMaxDeflateRatio > state.size) {
        std::snprintf(state.error, sizeof(state.error),
                      "the header declares %llux%llu pixels, but the file's %zu bytes cannot hold "
                      "them even compressed; it is truncated or its header is corrupt",
                      static_cast<unsigned long long>(width),
                      static_cast<unsigned long long>(height), state.size);
        png_destroy_read_struct(&png, &pinfo, nullptr);
        return false;
    }
    int color = png_get_color_type(png, pinfo);
    int depth = png_get_bit_depth(png, pinfo);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, pinfo, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, pinfo);
    info.width = static_cast<int>(width);
    info.height = static_cast<int>(height);
    info.channels = png_get_channels(png, pinfo);
    info.bits = png_get_bit_depth(png, pinfo);
    if (static_cast<int64_t>(width) * static_cast<int64_t>(height) >
        INT32_MAX / std::max(info.channels, 1)) {
        std::snprintf(state.error, sizeof(state.error),
                      "the header declares %llux%llu pixels of %d channel(s), more than the "
                      "2^31 - 1 values a Buffer holds",
                      static_cast<unsigned long long>(width),
                      static_cast<unsigned long long>(height), info.channels);
        png_destroy_read_struct(&png, &pinfo, nullptr);
        return false;
    }
    size_t row_bytes = png_get_rowbytes(png, pinfo);
    if (!try_resize(info.pixels, row_bytes * info.height) ||
        !info.rows_storage(static_cast<size_t>(info.height))) {
        std::snprintf(state.error, sizeof(state.error), "out of memory for %llux%llu pixels",
                      static_cast<unsigned long long>(width),
                      static_cast<unsigned long long>(height));
        png_destroy_read_struct(&png, &pinfo, nullptr);
        return false;
    }
    for (int y = 0; y < info.height; y++)
        info.rows[y] = info.pixels.data() + row_bytes * y;
    png_read_image(png, info.rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &pinfo, nullptr);
    return true;
}

Buffer<> load_png(const Source &src) {
    PngReadState state;
    state.data = src.data;
    state.size = src.size;
    PngInfo info;
    if (!decode_png(state, info))
        fail(src.name, std::string("not a valid PNG file: ") + state.error);
    Buffer<> img = make_image(info.width, info.height, info.channels, info.bits);
    deinterleave(info.pixels.data(), info.pixels.size() / info.height, img, info.channels,
                 info.bits);
    return img;
}

struct PngWriteState {
    std::vector<uint8_t> out;
    char error[256] = {0};
    jmp_buf jump;
};

void png_write_bytes(png_structp png, png_bytep data, png_size_t n) {
    auto *s = static_cast<PngWriteState *>(png_get_io_ptr(png));
    bool ok = true;
    try {
        s->out.insert(s->out.end(), data, data + n);
    } catch (const std::bad_alloc &) {
        ok = false;  // report it outside the handler: png_error does not return
    }
    if (!ok) png_error(png, "out of memory");
}

void png_flush(png_structp) {}

void png_on_write_error(png_structp png, png_const_charp message) {
    auto *s = static_cast<PngWriteState *>(png_get_error_ptr(png));
    std::snprintf(s->error, sizeof(s->error), "%s", message);
    longjmp(s->jump, 1);
}

bool encode_png(PngWriteState &state, const uint8_t *pixels, int w, int h, int channels, int bits) {
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, png_on_write_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    if (setjmp(state.jump)) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    int color = channels == 1   ? PNG_COLOR_TYPE_GRAY
                : channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                : channels == 3 ? PNG_COLOR_TYPE_RGB
                                : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_write_fn(png, &state, png_write_bytes, png_flush);
    png_set_IHDR(png, info, w, h, bits, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    size_t row_bytes = static_cast<size_t>(w) * channels * (bits / 8);
    for (int y = 0; y < h; y++)
        png_write_row(png, const_cast<png_bytep>(pixels + row_bytes * y));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

// --- JPEG --------------------------------------------------------------------------------------

struct JpegError {
    jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 128] = {0};
};

void jpeg_on_error(j_common_ptr cinfo) {
    auto *err = reinterpret_cast<JpegError *>(cinfo->err);
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    const char *why = "";
    if (err->manager.msg_code == JERR_NO_BACKING_STORE)
        why = " (decoding it needs more working memory than dsl allows a JPEG, 1 GiB)";
    std::snprintf(err->message, sizeof(err->message), "%s%s", text, why);
    longjmp(err->jump, 1);
}

/// Warnings: ignored, except that the data ends before the image does (the file ends, or a
/// marker interrupts the compressed data), where libjpeg would go on making up grey rows, as many
/// as the header declares.
void jpeg_on_message(j_common_ptr cinfo, int level) {
    int code = cinfo->err->msg_code;
    if (level < 0 && (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER)) {
        auto *err = reinterpret_cast<JpegError *>(cinfo->err);
        std::snprintf(err->message, sizeof(err->message),
                      "the image data ends before its last row (the file is truncated or "
                      "corrupt)");
        longjmp(err->jump, 1);
    }
}

void jpeg_silent(j_common_ptr, int) {}

/// The working memory (the coefficients of a progressive image) libjpeg may use for one image.
constexpr long kMaxJpegWorkingMemory = 1L << 30;

/// Decodes a JPEG; returns false with `err.message` set on failure. As decode_png: nothing
/// between setjmp and the return throws or has a destructor. The rows are allocated as they are
/// decoded, so a truncated file never costs the memory its header declares.
bool decode_jpeg(const Source &src, JpegError &err, PngInfo &info) {
    jpeg_decompress_struct cinfo{};
    cinfo.err = jpeg_std_error(&err.manager);
    err.manager.error_exit = jpeg_on_error;
    err.manager.emit_message = jpeg_on_message;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = kMaxJpegWorkingMemory;
    jpeg_mem_src(&cinfo, src.data, static_cast<unsigned long>(src.size));
    jpeg_read_header(&cinfo, TRUE);
    jpeg_calc_output_dimensions(&cinfo);
    int64_t width = cinfo.output_width, height = cinfo.output_height;
    int channels = cinfo.output_components;
    if (width <= 0 || height <= 0 || channels <= 0 || width * height > INT32_MAX / channels) {
        std::snprintf(err.message, sizeof(err.message),
                      "the header declares %lldx%lld pixels of %d channel(s), more than the "
                      "2^31 - 1 values a Buffer holds",
                      static_cast<long long>(width), static_cast<long long>(height), channels);
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    jpeg_start_decompress(&cinfo);
    info.width = static_cast<int>(cinfo.output_width);
    info.height = static_cast<int>(cinfo.output_height);
    info.channels = cinfo.output_components;
    info.bits = 8;
    size_t row_bytes = static_cast<size_t>(info.width) * info.channels;
    size_t rows_allocated = 0;
    while (cinfo.output_scanline < cinfo.output_height) {
        if (cinfo.output_scanline == rows_allocated) {
            rows_allocated =
                std::min<size_t>(info.height, std::max<size_t>(64, 2 * rows_allocated));
            if (!try_resize(info.pixels, row_bytes * rows_allocated)) {
                std::snprintf(err.message, sizeof(err.message), "out of memory for %dx%d pixels",
                              info.width, info.height);
                jpeg_destroy_decompress(&cinfo);
                return false;
            }
        }
        JSAMPROW row = info.pixels.data() + row_bytes * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return true;
}

bool encode_jpeg(const uint8_t *pixels, int w, int h, int channels, JpegError &err,
                 unsigned char **out, unsigned long *size) {
    jpeg_compress_struct cinfo{};
    cinfo.err = jpeg_std_error(&err.manager);
    err.manager.error_exit = jpeg_on_error;
    err.manager.emit_message = jpeg_silent;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        return false;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, out, size);
    cinfo.image_width = static_cast<JDIMENSION>(w);
    cinfo.image_height = static_cast<JDIMENSION>(h);
    cinfo.input_components = channels;
    cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 92, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    size_t row_bytes = static_cast<size_t>(w) * channels;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = const_cast<JSAMPROW>(pixels + row_bytes * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return true;
}

// --- PPM / PGM ---------------------------------------------------------------------------------

Buffer<> load_pnm(const Source &src) {
    const uint8_t *data = src.data;
    size_t size = src.size, pos = 2;
    auto next_number = [&](const char *what) {
        while (pos < size) {
            if (data[pos] == '#') {
                while (pos < size && data[pos] != '\n')
                    pos++;
            } else if (std::isspace(data[pos])) {
                pos++;
            } else {
                break;
            }
        }
        if (pos >= size || !std::isdigit(data[pos]))
            fail(src.name, std::string("bad PPM/PGM header: no ") + what);
        long v = 0;
        while (pos < size && std::isdigit(data[pos])) {
            v = v * 10 + (data[pos++] - '0');
            if (v > (1 << 24))
                fail(src.name, std::string("bad PPM/PGM header: ") + what + " is too large");
        }
        return static_cast<int>(v);
    };
    int channels = data[1] == '6' ? 3 : 1;
    int w = next_number("width"), h = next_number("height"), maxval = next_number("maximum value");
    if (maxval <= 0 || maxval > 65535)
        fail(src.name, "bad PPM/PGM header: maximum value out of range");
    check_declared_size(src, w, h, channels);
    if (pos >= size || !std::isspace(data[pos])) fail(src.name, "the file is truncated");
    pos++;  // the single whitespace after maxval
    int bits = maxval > 255 ? 16 : 8;
    size_t row_bytes = static_cast<size_t>(w) * channels * (bits / 8);
    if (size - pos < row_bytes * h) fail(src.name, "the file is truncated");
    Buffer<> img = make_image(w, h, channels, bits);
    deinterleave(data + pos, row_bytes, img, channels, bits);
    return img;
}

void write_file(const std::string &path, const uint8_t *data, size_t n) {
    std::ofstream out(path, std::ios::binary);
    if (!out) fail(path, "cannot create the file");
    out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(n));
    if (!out) fail(path, "could not write the whole file");
}

}  // namespace

namespace {

Buffer<> decode(const Source &src) {
    const uint8_t *data = src.data;
    size_t size = src.size;
    if (size >= 8 && png_sig_cmp(data, 0, 8) == 0) return load_png(src);
    if (size >= 3 && data[0] == 0xff && data[1] == 0xd8) {
        JpegError err;
        PngInfo info;
        if (!decode_jpeg(src, err, info))
            fail(src.name, std::string("not a valid JPEG file: ") + err.message);
        Buffer<> img = make_image(info.width, info.height, info.channels, 8);
        deinterleave(info.pixels.data(), static_cast<size_t>(info.width) * info.channels, img,
                     info.channels, 8);
        return img;
    }
    if (size >= 2 && data[0] == 'P' && (data[1] == '5' || data[1] == '6')) return load_pnm(src);
    fail(src.name, "unknown format (dsl reads PNG, JPEG, and binary PPM/PGM)");
}

}  // namespace

Buffer<> load_image(const std::string &path) {
    std::vector<uint8_t> data = read_file(path);
    return decode(Source{path, data.data(), data.size()});
}

Buffer<> load_image_from_memory(const void *data, size_t size, const std::string &name) {
    if (!data && size > 0) fail(name, "the data pointer is null");
    return decode(Source{name, static_cast<const uint8_t *>(data), data ? size : 0});
}

void save_image(const Buffer<> &img, const std::string &path) {
    if (!img.defined()) fail(path, "the buffer to save is undefined");
    Type t = img.type();
    if (t != UInt(8) && t != UInt(16))
        fail(path, "only uint8 and uint16 buffers can be saved, not " + t.to_string());
    if (img.dimensions() != 2 && img.dimensions() != 3) {
        fail(path, "an image has 2 or 3 dimensions (x, y[, c]), this buffer has " +
                       std::to_string(img.dimensions()));
    }
    int channels = img.dimensions() == 3 ? img.channels() : 1;
    if (channels < 1 || channels > 4)
        fail(path, "an image has 1 to 4 channels, not " + std::to_string(channels));
    int bits = t.bits();
    std::vector<uint8_t> pixels = interleave(img, channels, bits);
    std::string ext = extension_of(path);
    if (ext == "png") {
        PngWriteState state;
        if (!encode_png(state, pixels.data(), img.width(), img.height(), channels, bits)) {
            fail(path, std::string("PNG encoding failed: ") + state.error);
        }
        write_file(path, state.out.data(), state.out.size());
    } else if (ext == "jpg" || ext == "jpeg") {
        if (bits != 8 || (channels != 1 && channels != 3))
            fail(path, "JPEG needs uint8 grey or RGB images");
        JpegError err;
        unsigned char *out = nullptr;
        unsigned long size = 0;
        bool ok = encode_jpeg(pixels.data(), img.width(), img.height(), channels, err, &out, &size);
        std::unique_ptr<unsigned char, void (*)(void *)> owned(out, std::free);
        if (!ok) fail(path, std::string("JPEG encoding failed: ") + err.message);
        write_file(path, out, size);
    } else if (ext == "ppm" || ext == "pgm") {
        int want = ext == "ppm" ? 3 : 1;
        if (channels != want)
            fail(path, "." + ext + " needs " + std::to_string(want) + " channel(s)");
        std::string header = std::string(ext == "ppm" ? "P6" : "P5") + "\n" +
                             std::to_string(img.width()) + " " + std::to_string(img.height()) +
                             "\n" + (bits == 16 ? "65535" : "255") + "\n";
        std::vector<uint8_t> file(header.begin(), header.end());
        file.insert(file.end(), pixels.begin(), pixels.end());
        write_file(path, file.data(), file.size());
    } else {
        fail(path, "unknown extension \"." + ext + "\" (use .png, .jpg, .ppm or .pgm)");
    }
}

}  // namespace dsl
