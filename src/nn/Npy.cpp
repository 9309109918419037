// Reading and writing numpy's .npy format (version 1.0 to 3.0 headers: a magic string, a
// Python dict literal giving dtype, order and shape, then the raw elements).
#include "dsl/nn/Npy.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "dsl/Error.h"

namespace dsl::nn {

namespace {

[[noreturn]] void npy_error(const std::string &path, const std::string &message) {
    throw RuntimeError(path + ": " + message);
}

/// The dsl type of a numpy dtype string ('<f4', '|b1', ...).
Type type_of_descr(const std::string &path, const std::string &descr) {
    if (descr.size() < 3) npy_error(path, "unknown dtype '" + descr + "'.");
    char order = descr[0], kind = descr[1];
    int bytes = std::atoi(descr.c_str() + 2);
    if (order == '>' && bytes > 1)
        npy_error(path, "big-endian data ('" + descr + "') is not supported.");
    switch (kind) {
        case 'b':
            if (bytes == 1) return Bool();
            break;
        case 'i':
            if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) return Int(bytes * 8);
            break;
        case 'u':
            if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) return UInt(bytes * 8);
            break;
        case 'f':
            if (bytes == 2 || bytes == 4 || bytes == 8) return Float(bytes * 8);
            break;
        default:
            break;
    }
    npy_error(path, "dtype '" + descr + "' is not one dsl holds (bool, ints, uints, floats).");
}

std::string descr_of(Type t) {
    if (t.is_bool()) return "|b1";
    if (t.is_bfloat()) return "";
    char kind = t.is_float() ? 'f' : t.is_int() ? 'i' : 'u';
    return std::string(t.bytes() == 1 ? "|" : "<") + kind + std::to_string(t.bytes());
}

/// The text after `key` in the header dict, up to its value.
size_t find_value(const std::string &header, const std::string &key) {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) return std::string::npos;
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) return std::string::npos;
    size_t v = colon + 1;
    while (v < header.size() && header[v] == ' ')
        v++;
    return v;
}

}  // namespace

Buffer<> load_npy(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in.good()) npy_error(path, "cannot open it (does the file exist?).");
    char magic[8];
    in.read(magic, 8);
    if (in.gcount() != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        npy_error(path, "not a .npy file (no \\x93NUMPY magic).");
    uint32_t header_len = 0;
    if (magic[6] == 1) {
        unsigned char l[2];
        in.read(reinterpret_cast<char *>(l), 2);
        header_len = l[0] | (l[1] << 8);
    } else if (magic[6] == 2 || magic[6] == 3) {
        unsigned char l[4];
        in.read(reinterpret_cast<char *>(l), 4);
        header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (uint32_t(l[3]) << 24);
    } else {
        npy_error(path, "unknown .npy version " + std::to_string(int(magic[6])) + ".");
    }
    if (header_len > (1u << 20)) npy_error(path, "the header is too long; the file is damaged.");
    std::string header(header_len, ' ');
    in.read(&header[0], header_len);
    if (static_cast<uint32_t>(in.gcount()) != header_len)
        npy_error(path, "the header is truncated.");

    size_t d = find_value(header, "descr");
    if (d == std::string::npos || header[d] != '\'') npy_error(path, "the header has no 'descr'.");
    std::string descr = header.substr(d + 1, header.find('\'', d + 1) - d - 1);
    Type t = type_of_descr(path, descr);
    size_t f = find_value(header, "fortran_order");
    if (f == std::string::npos) npy_error(path, "the header has no 'fortran_order'.");
    bool fortran = header.compare(f, 4, "True") == 0;
    size_t s = find_value(header, "shape");
    if (s == std::string::npos || header[s] != '(') npy_error(path, "the header has no 'shape'.");
    std::vector<int64_t> shape;
    {
        size_t close = header.find(')', s);
        std::istringstream dims(header.substr(s + 1, close - s - 1));
        std::string item;
        while (std::getline(dims, item, ',')) {
            if (item.find_first_not_of(" ") == std::string::npos) continue;
            long long v = std::atoll(item.c_str());
            if (v < 0 || v > std::numeric_limits<int32_t>::max())
                npy_error(path, "an extent of " + item + " is out of dsl's range.");
            shape.push_back(v);
        }
    }
    std::vector<int> sizes(shape.rbegin(), shape.rend());
    int64_t n = 1;
    for (int64_t e : shape) {
        n *= e;
        if (n > std::numeric_limits<int32_t>::max())
            npy_error(path, "more than 2^31 - 1 elements, more than a dsl buffer holds.");
    }
    Buffer<> b(t, sizes, path);
    const int64_t bytes = n * t.bytes();
    std::vector<char> raw(static_cast<size_t>(bytes));
    in.read(raw.data(), bytes);
    if (in.gcount() != bytes)
        npy_error(path, "the data is truncated: " + std::to_string(in.gcount()) + " of " +
                            std::to_string(bytes) + " bytes.");
    auto *dst = static_cast<char *>(b.data());
    const size_t r = shape.size();
    if (!fortran || r <= 1) {
        if (bytes > 0) std::memcpy(dst, raw.data(), static_cast<size_t>(bytes));
        return b;
    }
    // Fortran order: axis 0 varies fastest in the file; reorder to C order.
    std::vector<int64_t> index(r, 0);
    for (int64_t i = 0; i < n; i++) {
        // i is the C-order position of `index`; find its Fortran-order position.
        int64_t fpos = 0, stride = 1;
        for (size_t a = 0; a < r; a++) {
            fpos += index[a] * stride;
            stride *= shape[a];
        }
        std::memcpy(dst + i * t.bytes(), raw.data() + fpos * t.bytes(),
                    static_cast<size_t>(t.bytes()));
        for (size_t a = r; a-- > 0;) {
            if (++index[a] < shape[a]) break;
            index[a] = 0;
        }
    }
    return b;
}

void save_npy(const std::string &path, const Buffer<> &b) {
    if (!b.defined()) throw RuntimeError(path + ": save_npy of an undefined buffer.");
    std::string descr = descr_of(b.type());
    if (descr.empty())
        throw RuntimeError(path + ": numpy has no bfloat16; cast the tensor to float32 first.");
    std::string shape = "(";
    for (int d = b.dimensions() - 1; d >= 0; d--)
        shape += std::to_string(b.extent(d)) + (b.dimensions() == 1 ? "," : d ? ", " : "");
    shape += ")";
    std::string header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad with spaces so that the data starts at a multiple of 64 bytes, ending in a newline.
    size_t total = 10 + header.size() + 1;
    header += std::string((64 - total % 64) % 64, ' ') + "\n";
    std::ofstream out(path, std::ios::binary);
    if (!out.good()) throw RuntimeError(path + ": cannot write it.");
    out.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = static_cast<uint16_t>(header.size());
    char l[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
    out.write(l, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    // Element by element in C order (the buffer may have any strides).
    const int r = b.dimensions();
    const int bytes = b.type().bytes();
    std::vector<int> index(static_cast<size_t>(r), 0);
    const int64_t n = b.number_of_elements();
    const auto *base = static_cast<const char *>(b.data());
    for (int64_t i = 0; i < n; i++) {
        int64_t offset = 0;
        for (int d = 0; d < r; d++)
            offset += int64_t(index[static_cast<size_t>(d)]) * b.stride(d);
        out.write(base + offset * bytes, bytes);
        for (int d = 0; d < r; d++) {
            if (++index[static_cast<size_t>(d)] < b.extent(d)) break;
            index[static_cast<size_t>(d)] = 0;
        }
    }
    if (!out.good()) throw RuntimeError(path + ": writing failed.");
}

}  // namespace dsl::nn
