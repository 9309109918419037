#include "ir/Float16.h"

#include <cmath>
#include <cstring>

namespace dsl::ir {

namespace {

/// Rounds `v` once, to nearest with ties to even, onto the grid of a binary format with
/// `significant_bits` bits of precision (implicit bit included), smallest normal 2^`min_exponent`
/// and largest finite value `max_finite`. Rounding straight from double avoids the double
/// rounding that going through float32 would cause.
double round_to_format(double v, int significant_bits, int min_exponent, double max_finite) {
    if (std::isnan(v) || std::isinf(v) || v == 0) return v;
    double a = std::fabs(v);
    int exponent;  // a = frac * 2^exponent with frac in [0.5, 1)
    std::frexp(a, &exponent);
    int leading = exponent - 1;
    if (leading < min_exponent) leading = min_exponent;  // subnormal: fixed quantum
    double quantum = std::ldexp(1.0, leading - (significant_bits - 1));
    double r = std::nearbyint(a / quantum) * quantum;
    if (r > max_finite) r = INFINITY;
    return std::copysign(r, v);
}

constexpr double kFloat16Max = 65504.0;
const double kBFloat16Max = std::ldexp(255.0, 120);  // (2 - 2^-7) * 2^127

}  // namespace

double round_to_float16(double v) {
    return round_to_format(v, 11, -14, kFloat16Max);
}
double round_to_bfloat16(double v) {
    return round_to_format(v, 8, -126, kBFloat16Max);
}

double round_to_float(double v, int bits, bool bfloat) {
    if (bfloat) return round_to_bfloat16(v);
    switch (bits) {
        case 16:
            return round_to_float16(v);
        case 32:
            return static_cast<double>(static_cast<float>(v));
        default:
            return v;
    }
}

uint16_t float16_bits(double v) {
    double r = round_to_float16(v);
    uint16_t sign = std::signbit(r) ? 0x8000 : 0;
    if (std::isnan(r)) return sign | 0x7e00;
    if (std::isinf(r)) return sign | 0x7c00;
    double a = std::fabs(r);
    if (a < std::ldexp(1.0, -14)) {
        return sign | static_cast<uint16_t>(a * std::ldexp(1.0, 24));  // exact
    }
    int exponent;
    double frac = std::frexp(a, &exponent);
    int mantissa = static_cast<int>(frac * 2048.0) - 1024;  // exact: r is on the grid
    return sign | static_cast<uint16_t>(((exponent - 1 + 15) << 10) | mantissa);
}

double float16_from_bits(uint16_t bits) {
    int e = (bits >> 10) & 0x1f;
    int m = bits & 0x3ff;
    double v;
    if (e == 0) {
        v = std::ldexp(static_cast<double>(m), -24);
    } else if (e == 31) {
        v = m ? NAN : INFINITY;
    } else {
        v = std::ldexp(static_cast<double>(m + 1024), e - 25);
    }
    return (bits & 0x8000) ? -v : v;
}

uint16_t bfloat16_bits(double v) {
    float f = static_cast<float>(round_to_bfloat16(v));  // exact: bfloat16 values fit float32
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::isnan(f)) u |= 0x00400000;  // keep NaN quiet after truncation
    return static_cast<uint16_t>(u >> 16);
}

double bfloat16_from_bits(uint16_t bits) {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return static_cast<double>(f);
}

}  // namespace dsl::ir
