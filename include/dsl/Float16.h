#pragma once
/// C++ types for 16-bit floats, to hold dsl's Float(16) and BFloat(16) values on the host:
/// `Buffer<float16_t>`, `Param<bfloat16_t>`, `evaluate<float16_t>(e)`, `cast<float16_t>(e)`.
///
///   float16_t  IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits (largest finite 65504)
///   bfloat16_t the upper half of a float32: 1 sign, 8 exponent, 7 mantissa bits
///
/// Conversions from float, double and int round to the nearest value, ties to even, and give
/// infinity past the largest finite value; conversions to float and double are exact.
/// Arithmetic converts both sides to float, computes there and rounds the result back (as
/// dsl's generated code does for these types). Comparisons follow IEEE (NaN is unordered).

#include <cstdint>

#include "dsl/Type.h"

namespace dsl {

namespace detail {
/// The bits of `value` rounded to a float16 (or a bfloat16): nearest, ties to even; NaN stays
/// NaN (quiet), overflow becomes infinity.
uint16_t small_float_bits(double value, bool bfloat);
/// The value of such bits, exactly.
double small_float_value(uint16_t bits, bool bfloat);
}  // namespace detail

/// A 16-bit float of `E` exponent and `M` mantissa bits (float16_t, bfloat16_t below).
template <int E, int M>
class SmallFloat {
    static_assert((E == 5 && M == 10) || (E == 8 && M == 7),
                  "SmallFloat is float16_t (5, 10) or bfloat16_t (8, 7)");

    static constexpr bool is_bfloat = E == 8;

  public:
    SmallFloat() = default;
    explicit SmallFloat(float v) : bits_(detail::small_float_bits(v, is_bfloat)) {}
    explicit SmallFloat(double v) : bits_(detail::small_float_bits(v, is_bfloat)) {}
    explicit SmallFloat(int v) : bits_(detail::small_float_bits(v, is_bfloat)) {}

    static SmallFloat make_from_bits(uint16_t bits) {
        SmallFloat f;
        f.bits_ = bits;
        return f;
    }
    static SmallFloat make_zero() { return make_from_bits(0); }
    static SmallFloat make_negative_zero() { return make_from_bits(sign_mask); }
    static SmallFloat make_infinity() { return make_from_bits(exponent_mask); }
    static SmallFloat make_negative_infinity() { return make_from_bits(sign_mask | exponent_mask); }
    /// A quiet NaN.
    static SmallFloat make_nan() { return make_from_bits(exponent_mask | (1u << (M - 1))); }

    uint16_t to_bits() const { return bits_; }
    explicit operator float() const {
        return static_cast<float>(detail::small_float_value(bits_, is_bfloat));
    }
    explicit operator double() const { return detail::small_float_value(bits_, is_bfloat); }
    explicit operator int() const { return static_cast<int>(static_cast<float>(*this)); }

    bool is_nan() const {
        return (bits_ & exponent_mask) == exponent_mask && (bits_ & mantissa_mask);
    }
    bool is_infinity() const { return (bits_ & ~sign_mask) == exponent_mask; }
    bool is_negative() const { return bits_ & sign_mask; }
    bool is_zero() const { return (bits_ & ~sign_mask) == 0; }

    SmallFloat operator-() const { return make_from_bits(bits_ ^ sign_mask); }
    SmallFloat operator+(SmallFloat o) const { return SmallFloat(float(*this) + float(o)); }
    SmallFloat operator-(SmallFloat o) const { return SmallFloat(float(*this) - float(o)); }
    SmallFloat operator*(SmallFloat o) const { return SmallFloat(float(*this) * float(o)); }
    SmallFloat operator/(SmallFloat o) const { return SmallFloat(float(*this) / float(o)); }
    SmallFloat &operator+=(SmallFloat o) { return *this = *this + o; }
    SmallFloat &operator-=(SmallFloat o) { return *this = *this - o; }
    SmallFloat &operator*=(SmallFloat o) { return *this = *this * o; }
    SmallFloat &operator/=(SmallFloat o) { return *this = *this / o; }
    bool operator==(SmallFloat o) const { return float(*this) == float(o); }
    bool operator!=(SmallFloat o) const { return float(*this) != float(o); }
    bool operator<(SmallFloat o) const { return float(*this) < float(o); }
    bool operator>(SmallFloat o) const { return float(*this) > float(o); }
    bool operator<=(SmallFloat o) const { return float(*this) <= float(o); }
    bool operator>=(SmallFloat o) const { return float(*this) >= float(o); }

    /// The layout of the bits.
    static constexpr int exponent_bits = E, mantissa_bits = M;
    static constexpr uint16_t sign_mask = 0x8000;
    static constexpr uint16_t exponent_mask = uint16_t(((1u << E) - 1) << M);
    static constexpr uint16_t mantissa_mask = uint16_t((1u << M) - 1);

  private:
    uint16_t bits_ = 0;
};

/// IEEE half precision (dsl's Float(16)).
using float16_t = SmallFloat<5, 10>;
/// Brain float (dsl's BFloat(16)).
using bfloat16_t = SmallFloat<8, 7>;

}  // namespace dsl
