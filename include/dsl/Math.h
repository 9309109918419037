#pragma once
/// More math on floats, written with the primitives of dsl/Expr.h (exp, log, sqrt, atan2):
/// inverse and hyperbolic trigonometry, the error function, and tests for infinities. Integers
/// are converted to float32 first, as by the primitives.

#include "dsl/Expr.h"

namespace dsl {

Expr asin(const Expr &x);
Expr acos(const Expr &x);
Expr atan(const Expr &x);
Expr sinh(const Expr &x);
Expr cosh(const Expr &x);
/// Accurate for every float: saturates at +-1 without overflowing.
Expr tanh(const Expr &x);
Expr asinh(const Expr &x);
Expr acosh(const Expr &x);
Expr atanh(const Expr &x);
/// The error function, to within 2e-7 of the true value (a rational approximation of erfc on
/// |x| with the exponential factored out).
Expr erf(const Expr &x);
/// e^x for float32 with operations that vectorize (a range reduction by ln 2, a polynomial, and
/// the exponent added to the bits), where exp() calls the C library once per lane: within 2 ulp
/// of exp for x in [-86, 88.72]; 0 below -86 (where exp is under 4.5e-38), infinity above,
/// NaN for NaN. Other types get exp(). The NN operators use it.
Expr fast_exp(const Expr &x);
/// sin and cos of float32 with operations that vectorize (a reduction by multiples of pi and
/// a polynomial of degree 11), where sin() and cos() call the C library once per lane: within
/// 2e-7 of the true value for |x| up to about 1e4 (the reduction loses accuracy beyond). Other
/// types get sin() / cos().
Expr fast_sin(const Expr &x);
Expr fast_cos(const Expr &x);
/// sqrt(x * x + y * y) (it overflows where x * x does).
Expr hypot(const Expr &x, const Expr &y);
/// Integer division rounded toward zero, as C rounds it (`/` rounds down, Euclidean): -7 / 2
/// is -3 here. Division by zero gives zero. Floats give trunc(a / b).
Expr div_round_to_zero(const Expr &a, const Expr &b);
/// The number of set bits of an integer, in its type.
Expr popcount(const Expr &x);
/// The number of zero bits above the highest set bit (the width for 0).
Expr count_leading_zeros(const Expr &x);
/// The number of zero bits below the lowest set bit (the width for 0).
Expr count_trailing_zeros(const Expr &x);

/// min and max of three or more values: max(a, b, c) is max(max(a, b), c).
template <typename A, typename B, typename C, typename... Rest>
Expr max(const A &a, const B &b, const C &c, const Rest &...rest) {
    return max(max(a, b), c, rest...);
}
template <typename A, typename B, typename C, typename... Rest>
Expr min(const A &a, const B &b, const C &c, const Rest &...rest) {
    return min(min(a, b), c, rest...);
}

/// `value`, with the user's promise that it lies in [min, max] (either may be undefined: no
/// promise on that side). Bounds inference takes that range, so a lookup table indexed by
/// 10-bit data in a uint16 is read over [0, 1023] only; nothing checks the promise, and a value
/// outside reads or writes outside the region computed or allocated. Prefer clamp(), which
/// costs a min and a max, unless those matter.
Expr unsafe_promise_clamped(const Expr &value, const Expr &min, const Expr &max);

/// Whether `x` is +infinity or -infinity (false for integers).
Expr is_inf(const Expr &x);
/// Whether `x` is neither infinite nor NaN (true for integers).
Expr is_finite(const Expr &x);

/// TFLite's fixed-point rescaling of an int32 `x` by a real factor M * 2^shift, M = multiplier /
/// 2^31 in [0.5, 1): MultiplyByQuantizedMultiplier, i.e. x shifted left by max(shift, 0)
/// (wrapping), then SaturatingRoundingDoublingHighMul by `multiplier` (round half up of x * m /
/// 2^31), then RoundingDivideByPOT by max(-shift, 0) (halves away from zero). int32. The NPU's
/// ALU runs it (SHR, MULH, SHR) where an update requantizes what the NPU accumulated.
Expr multiply_by_quantized_multiplier(const Expr &x, const Expr &multiplier, const Expr &shift);
/// The int32 multiplier and shift of multiply_by_quantized_multiplier for a real factor `real`
/// (finite, >= 0), as TFLite's QuantizeMultiplier chooses them: real = q * 2^shift with q in
/// [0.5, 1), multiplier = round(q * 2^31) (2^30 at least). Factors below 2^-32 give multiplier
/// 0, and those of 2^30 or more the largest multiplier with shift 30 (the NPU's ALU shifts by at
/// most 31 either way). A user error for a negative, infinite or NaN factor.
void quantize_multiplier(double real, int32_t *multiplier, int32_t *shift);

/// `e` converted to `t`, with values outside t's range clamped to its ends instead of wrapping:
/// int32 300 becomes uint8 255, -5 becomes 0; float 1e10 becomes int32 2147483647 (NaN gives
/// an unspecified value). Conversions to a float type are plain casts (a float32 too large
/// for a float16 becomes infinity, as with cast). Vectors convert lane by lane (t's lanes are
/// e's).
Expr saturating_cast(Type t, const Expr &e);
template <typename T>
Expr saturating_cast(const Expr &e) {
    return saturating_cast(type_of<T>(), e);
}

/// 1 / x and 1 / sqrt(x) for floats (Halide's names; dsl computes them exactly).
Expr fast_inverse(const Expr &x);
Expr fast_inverse_sqrt(const Expr &x);

/// Short names for casts, as Halide's ConciseCasts: `u8(e)` is cast(UInt(8), e), `u8_sat(e)`
/// saturating_cast(UInt(8), e). With `using namespace dsl::ConciseCasts;`. (cast to a scalar type
/// keeps a vector's lanes.)
namespace ConciseCasts {
inline Expr f64(const Expr &e) {
    return cast(Float(64), e);
}
inline Expr f32(const Expr &e) {
    return cast(Float(32), e);
}
inline Expr f16(const Expr &e) {
    return cast(Float(16), e);
}
inline Expr bf16(const Expr &e) {
    return cast(BFloat(16), e);
}
inline Expr i64(const Expr &e) {
    return cast(Int(64), e);
}
inline Expr i32(const Expr &e) {
    return cast(Int(32), e);
}
inline Expr i16(const Expr &e) {
    return cast(Int(16), e);
}
inline Expr i8(const Expr &e) {
    return cast(Int(8), e);
}
inline Expr u64(const Expr &e) {
    return cast(UInt(64), e);
}
inline Expr u32(const Expr &e) {
    return cast(UInt(32), e);
}
inline Expr u16(const Expr &e) {
    return cast(UInt(16), e);
}
inline Expr u8(const Expr &e) {
    return cast(UInt(8), e);
}
inline Expr i64_sat(const Expr &e) {
    return saturating_cast(Int(64), e);
}
inline Expr i32_sat(const Expr &e) {
    return saturating_cast(Int(32), e);
}
inline Expr i16_sat(const Expr &e) {
    return saturating_cast(Int(16), e);
}
inline Expr i8_sat(const Expr &e) {
    return saturating_cast(Int(8), e);
}
inline Expr u64_sat(const Expr &e) {
    return saturating_cast(UInt(64), e);
}
inline Expr u32_sat(const Expr &e) {
    return saturating_cast(UInt(32), e);
}
inline Expr u16_sat(const Expr &e) {
    return saturating_cast(UInt(16), e);
}
inline Expr u8_sat(const Expr &e) {
    return saturating_cast(UInt(8), e);
}
}  // namespace ConciseCasts

}  // namespace dsl
