// float16_t and bfloat16_t (dsl/Float16.h): rounding to and from 16-bit floats on the host.
#include "dsl/Float16.h"

#include <cmath>

#include "dsl/Expr.h"
#include "ir/IR.h"

namespace dsl {

namespace detail {

uint16_t small_float_bits(double value, int exponent_bits, int mantissa_bits) {
    const uint32_t sign = std::signbit(value) ? 0x8000u : 0u;
    const uint32_t exponent_all_ones = ((1u << exponent_bits) - 1) << mantissa_bits;
    if (std::isnan(value)) return uint16_t(sign | exponent_all_ones | (1u << (mantissa_bits - 1)));
    const double a = std::fabs(value);
    if (a == 0) return uint16_t(sign);
    const int bias = (1 << (exponent_bits - 1)) - 1;
    if (std::isinf(a)) return uint16_t(sign | exponent_all_ones);
    int e = std::ilogb(a);  // a = m * 2^e, m in [1, 2)
    if (e < 1 - bias) {
        // Subnormal: units of 2^(1 - bias - mantissa_bits). Scaling by a power of two is exact,
        // and nearbyint rounds ties to even (the default rounding mode). A result of
        // 2^mantissa_bits is the smallest normal number, whose bits it already is.
        const double units = std::nearbyint(std::ldexp(a, mantissa_bits + bias - 1));
        return uint16_t(sign | uint32_t(units));
    }
    double q = std::nearbyint(std::ldexp(a, mantissa_bits - e));  // in [2^M, 2^(M+1)]
    if (q == std::ldexp(1.0, mantissa_bits + 1)) {
        q /= 2;
        e++;
    }
    if (e > bias) return uint16_t(sign | exponent_all_ones);
    const uint32_t mantissa = uint32_t(q) - (1u << mantissa_bits);
    return uint16_t(sign | (uint32_t(e + bias) << mantissa_bits) | mantissa);
}

double small_float_value(uint16_t bits, int exponent_bits, int mantissa_bits) {
    const bool negative = bits & 0x8000u;
    const uint32_t exponent = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1);
    const uint32_t mantissa = bits & ((1u << mantissa_bits) - 1);
    const int bias = (1 << (exponent_bits - 1)) - 1;
    double v;
    if (exponent == (1u << exponent_bits) - 1) {
        v = mantissa ? std::nan("") : INFINITY;
    } else if (exponent == 0) {
        v = std::ldexp(double(mantissa), 1 - bias - mantissa_bits);
    } else {
        v = std::ldexp(double(mantissa + (1u << mantissa_bits)),
                       int(exponent) - bias - mantissa_bits);
    }
    return negative ? -v : v;
}

}  // namespace detail

Expr::Expr(float16_t v) : Expr(ir::FloatImm::make(Float(16), static_cast<double>(v))) {}
Expr::Expr(bfloat16_t v) : Expr(ir::FloatImm::make(BFloat(16), static_cast<double>(v))) {}

}  // namespace dsl
