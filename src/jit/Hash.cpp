// Two 64-bit lanes fed one 8-byte word at a time. Each lane's step is a bijection of its state
// for a fixed word and of the word for a fixed state (odd multipliers, xor, rotation), so inputs
// that differ in one word never meet inside a lane; the lanes use different constants and
// rotations, and the second also absorbs the first, so that the halves are not copies of one
// another. The length enters the final mix, and a final avalanche spreads every bit of both.
#include "jit/Hash.h"

#include <cstring>

namespace dsl::jit {

namespace {

constexpr uint64_t kMultiplier1 = 0x9e3779b97f4a7c15ull;
constexpr uint64_t kMultiplier2 = 0xc2b2ae3d27d4eb4full;
constexpr uint64_t kMultiplier3 = 0x165667b19e3779f9ull;
constexpr uint64_t kMultiplier4 = 0xd6e8feb86659fd93ull;

uint64_t rotate_left(uint64_t x, int bits) {
    return (x << bits) | (x >> (64 - bits));
}

/// Every input bit affects every output bit with probability near 1/2.
uint64_t avalanche(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}

uint64_t load_word(const char *p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

}  // namespace

std::string Hash128::hex() const {
    static const char kDigits[] = "0123456789abcdef";
    std::string s(32, '0');
    for (int i = 0; i < 16; i++) {
        s[15 - i] = kDigits[(high >> (4 * i)) & 15];
        s[31 - i] = kDigits[(low >> (4 * i)) & 15];
    }
    return s;
}

Hash128 hash128(std::string_view bytes, uint64_t seed) {
    uint64_t a = 0x243f6a8885a308d3ull ^ avalanche(seed);
    uint64_t b = 0x13198a2e03707344ull + seed * kMultiplier4;
    auto absorb = [&](uint64_t word) {
        a = rotate_left(a ^ (word * kMultiplier1), 31) * kMultiplier2;
        b = rotate_left(b + (word * kMultiplier3), 27) * kMultiplier4 + a;
    };
    const char *p = bytes.data();
    size_t size = bytes.size();
    size_t whole_words = size / 8;
    for (size_t i = 0; i < whole_words; i++)
        absorb(load_word(p + 8 * i));
    size_t tail = size % 8;
    if (tail) {
        // The bytes left over, zero-padded; the length below tells "ab" from "ab\0".
        char last[8] = {};
        std::memcpy(last, p + 8 * whole_words, tail);
        absorb(load_word(last));
    }
    uint64_t length = static_cast<uint64_t>(size);
    a = avalanche(a ^ (length * kMultiplier3));
    b = avalanche(b ^ rotate_left(a, 23) ^ length);
    return {b, avalanche(a + b)};
}

}  // namespace dsl::jit
