// Inverse and hyperbolic trigonometry, erf and infinity tests (dsl/Math.h), composed of the
// primitive math functions so that every back end that has those has these.
#include "dsl/Math.h"

#include <cmath>

#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl {

namespace {

/// `x` as a float (integers become float32), as the primitives convert their arguments.
Expr as_float(const Expr &x, const char *fn) {
    user_assert(x.defined()) << fn << "() of an undefined expression.";
    if (x.type().is_float()) return x;
    return cast(Float(32, x.type().lanes()), x);
}

Expr constant_like(const Expr &x, double v) {
    return make_const(x.type(), v);
}

/// `x` with the sign of `s` (for x >= 0).
Expr with_sign_of(const Expr &s, const Expr &x) {
    return select(s < constant_like(s, 0.0), -x, x);
}

}  // namespace

Expr asin(const Expr &x_in) {
    Expr x = as_float(x_in, "asin");
    return atan2(x, sqrt(constant_like(x, 1.0) - x * x));
}

Expr acos(const Expr &x_in) {
    Expr x = as_float(x_in, "acos");
    return atan2(sqrt(constant_like(x, 1.0) - x * x), x);
}

Expr atan(const Expr &x_in) {
    Expr x = as_float(x_in, "atan");
    return atan2(x, constant_like(x, 1.0));
}

Expr sinh(const Expr &x_in) {
    Expr x = as_float(x_in, "sinh");
    return (exp(x) - exp(-x)) * constant_like(x, 0.5);
}

Expr cosh(const Expr &x_in) {
    Expr x = as_float(x_in, "cosh");
    return (exp(x) + exp(-x)) * constant_like(x, 0.5);
}

Expr tanh(const Expr &x_in) {
    Expr x = as_float(x_in, "tanh");
    // e^(-2|x|) lies in (0, 1]: no overflow for any x.
    Expr e = exp(abs(x) * constant_like(x, -2.0));
    Expr one = constant_like(x, 1.0);
    return with_sign_of(x, (one - e) / (one + e));
}

Expr fast_exp(const Expr &x_in) {
    if (x_in.type().element_of() != Float(32)) return exp(x_in);
    const int lanes = x_in.type().lanes();
    const Type i32 = Int(32, lanes), f32 = Float(32, lanes);
    auto k_of = [&](double v) { return constant_like(x_in, v); };
    Expr x = clamp(x_in, k_of(-86.0), k_of(88.72));
    // x = k ln2 + r with |r| <= ln2 / 2; ln 2 in two parts (Cody and Waite) so that k ln2 is
    // exact in its high part.
    Expr k = floor(x * k_of(1.4426950408889634) + k_of(0.5));
    Expr r = x - k * k_of(0.693145751953125) - k * k_of(1.4286068203094172e-6);
    // e^r by its Taylor polynomial of degree 7 (error under r^8 / 40320 < 6e-9 relative).
    Expr p = k_of(1.0 / 5040);
    for (double c : {1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0})
        p = p * r + k_of(c);
    // Times 2^k: k added to the exponent bits (p's exponent is 126 or 127, k in [-124, 128]).
    Expr y = reinterpret(f32, reinterpret(i32, p) + (cast(i32, k) << 23));
    Expr inf = reinterpret(f32, make_const(i32, int64_t{0x7f800000}));
    y = select(x_in > k_of(88.72), inf, select(x_in < k_of(-86.0), k_of(0.0), y));
    return select(x_in != x_in, x_in, y);
}

namespace {

/// sin(x - h pi) for float32 x, with |x - h pi| <= pi / 2 (h a whole or half multiple), and
/// whether k = floor(h) is odd: pi is taken in three parts so that h pi is exact in the first,
/// and sin of the remainder r is its Taylor polynomial of degree 11 (error under
/// r^13 / 13! < 6e-8).
Expr sin_of_remainder(const Expr &x, const Expr &h, const Expr &k, Expr *k_is_odd) {
    auto k_of = [&](double v) { return constant_like(x, v); };
    Expr r = x - h * k_of(3.140625) - h * k_of(9.67502593994140625e-4) -
             h * k_of(1.509957990978376432e-7);
    Expr r2 = r * r;
    Expr p = k_of(-1.0 / 39916800);
    for (double c : {1.0 / 362880, -1.0 / 5040, 1.0 / 120, -1.0 / 6})
        p = p * r2 + k_of(c);
    *k_is_odd = (cast(Int(32, x.type().lanes()), k) & 1) == 1;
    return r + r * r2 * p;
}

}  // namespace

Expr fast_sin(const Expr &x) {
    if (x.type().element_of() != Float(32)) return sin(x);
    // x = k pi + r: sin(x) = (-1)^k sin(r).
    Expr k = round(x * constant_like(x, 0.31830988618379067)), odd;
    Expr s = sin_of_remainder(x, k, k, &odd);
    return select(odd, -s, s);
}

Expr fast_cos(const Expr &x) {
    if (x.type().element_of() != Float(32)) return cos(x);
    // Reduced about the odd multiples of pi/2, so that the result near the zeros of cos keeps
    // its accuracy: x = (k + 1/2) pi + r, and cos(x) = (-1)^(k + 1) sin(r).
    Expr k = floor(x * constant_like(x, 0.31830988618379067)), odd;
    Expr s = sin_of_remainder(x, k + constant_like(x, 0.5), k, &odd);
    return select(odd, s, -s);
}

Expr hypot(const Expr &x_in, const Expr &y_in) {
    Expr x = as_float(x_in, "hypot"), y = as_float(y_in, "hypot");
    return sqrt(x * x + y * y);
}

Expr div_round_to_zero(const Expr &a, const Expr &b) {
    user_assert(a.defined() && b.defined()) << "div_round_to_zero() of an undefined expression.";
    Expr q = a / b;
    if (q.type().is_float()) return trunc(q);
    if (q.type().is_uint()) return q;
    // Euclidean q is one past toward zero when a < 0 leaves a remainder.
    Expr zero = make_const(q.type(), 0), one = make_const(q.type(), 1);
    Expr r = a - q * b;
    return select(a < zero && r != zero, q + select(b > zero, one, -one), q);
}

namespace {
Expr bit_count(const Expr &x, ir::Call::Intrinsic op, const char *fn) {
    user_assert(x.defined()) << fn << "() of an undefined expression.";
    user_assert(x.type().is_int_or_uint() && !x.type().is_bool())
        << fn << "(" << x << "): the argument must be an integer, not " << x.type() << ".";
    return ir::Call::make(x.type(), op, {x});
}
}  // namespace

Expr popcount(const Expr &x) {
    return bit_count(x, ir::Call::Intrinsic::Popcount, "popcount");
}
Expr count_leading_zeros(const Expr &x) {
    return bit_count(x, ir::Call::Intrinsic::CountLeadingZeros, "count_leading_zeros");
}
Expr count_trailing_zeros(const Expr &x) {
    return bit_count(x, ir::Call::Intrinsic::CountTrailingZeros, "count_trailing_zeros");
}

Expr unsafe_promise_clamped(const Expr &value, const Expr &min, const Expr &max) {
    user_assert(value.defined()) << "unsafe_promise_clamped() of an undefined expression.";
    Type t = value.type();
    auto bound = [&](const Expr &b, bool high) {
        if (!b.defined()) return high ? t.max() : t.min();
        user_assert(b.type() == t || ir::is_const(b))
            << "unsafe_promise_clamped(" << value << ", ...): the " << (high ? "max " : "min ") << b
            << " has type " << b.type() << " but the value has type " << t << "; cast it to " << t
            << ".";
        return b.type() == t ? b : cast(t, b);
    };
    return ir::Call::make(t, ir::Call::Intrinsic::PromiseClamped,
                          {value, bound(min, false), bound(max, true)});
}

Expr memoize_tag(const Expr &result, const std::vector<Expr> &keys) {
    user_assert(result.defined()) << "memoize_tag: the result is undefined.";
    std::vector<Expr> args{result};
    for (const Expr &k : keys) {
        user_assert(k.defined()) << "memoize_tag(" << result << ", ...): a key is undefined.";
        user_assert(k.type().is_scalar())
            << "memoize_tag(" << result << ", ...): the key " << k << " is a vector; keys are "
            << "scalars.";
        args.push_back(k);
    }
    return ir::Call::make(result.type(), ir::Call::Intrinsic::MemoizeTag, args);
}

Expr asinh(const Expr &x_in) {
    Expr x = as_float(x_in, "asinh");
    Expr a = abs(x);
    return with_sign_of(x, log(a + sqrt(a * a + constant_like(x, 1.0))));
}

Expr acosh(const Expr &x_in) {
    Expr x = as_float(x_in, "acosh");
    return log(x + sqrt(x * x - constant_like(x, 1.0)));
}

Expr atanh(const Expr &x_in) {
    Expr x = as_float(x_in, "atanh");
    Expr one = constant_like(x, 1.0);
    return log((one + x) / (one - x)) * constant_like(x, 0.5);
}

Expr erf(const Expr &x_in) {
    Expr x = as_float(x_in, "erf");
    auto c = [&](double v) { return constant_like(x, v); };
    Expr a = abs(x);
    // Near 0, the Maclaurin series (2/sqrt(pi)) * sum (-1)^n x^(2n+1) / (n! (2n+1)), to x^15:
    // its first omitted term is below 1e-10 of the sum for |x| < 0.5.
    Expr x2 = x * x;
    // Horner's scheme on the coefficients (-1)^n / (n! (2n+1)), n from 7 down to 0.
    const double coefficients[8] = {1.0,         -1.0 / 3.0,    1.0 / 10.0,   -1.0 / 42.0,
                                    1.0 / 216.0, -1.0 / 1320.0, 1.0 / 9360.0, -1.0 / 75600.0};
    Expr series = c(coefficients[7]);
    for (int n = 6; n >= 0; n--)
        series = c(coefficients[n]) + x2 * series;
    Expr small = x * series * c(2.0 / std::sqrt(M_PI));
    // Elsewhere, erfc(|x|) = t exp(-x^2 + P(t)) with t = 1 / (1 + |x|/2), P a polynomial of
    // degree 9 fitted to it (fractional error below 1.2e-7 for every x).
    const double p[10] = {-1.26551223, 1.00002368,  0.37409196, 0.09678418,  -0.18628806,
                          0.27886807,  -1.13520398, 1.48851587, -0.82215223, 0.17087277};
    Expr t = c(1.0) / (c(1.0) + c(0.5) * a);
    Expr poly = c(p[9]);
    for (int i = 8; i >= 0; i--)
        poly = c(p[i]) + t * poly;
    Expr erfc = t * exp(-a * a + poly);
    Expr large = with_sign_of(x, c(1.0) - erfc);
    return select(a < c(0.5), small, large);
}

Expr is_inf(const Expr &x) {
    user_assert(x.defined()) << "is_inf() of an undefined expression.";
    if (!x.type().is_float()) return ir::make_bool(false, x.type().lanes());
    return abs(x) == x.type().max();
}

Expr is_finite(const Expr &x) {
    user_assert(x.defined()) << "is_finite() of an undefined expression.";
    if (!x.type().is_float()) return ir::make_bool(true, x.type().lanes());
    return !is_nan(x) && !is_inf(x);
}

Expr multiply_by_quantized_multiplier(const Expr &x, const Expr &multiplier, const Expr &shift) {
    const Expr left = max(shift, 0), right = min(max(-shift, 0), 31);
    const Expr shifted = cast<int32_t>(cast<uint32_t>(x) << cast<uint32_t>(left));
    // SaturatingRoundingDoublingHighMul: floor((2 a b + 2^31) / 2^32), INT32_MAX for the one
    // product that overflows.
    const Expr twice = cast<int64_t>(shifted) * cast<int64_t>(multiplier) * 2;
    const Expr high = select(shifted == INT32_MIN && multiplier == INT32_MIN, Expr(INT32_MAX),
                             cast<int32_t>((twice + (int64_t(1) << 31)) >> 32));
    // RoundingDivideByPOT: the quotient, plus one where the remainder is past half (halves of
    // negative values stay, so they round away from zero).
    const Expr mask = (cast<int64_t>(1) << cast<int64_t>(right)) - 1;
    const Expr remainder = cast<int64_t>(high) & mask;
    const Expr threshold = (mask >> 1) + select(high < 0, cast<int64_t>(1), cast<int64_t>(0));
    return (high >> right) + select(remainder > threshold, 1, 0);
}

void quantize_multiplier(double real, int32_t *multiplier, int32_t *shift) {
    user_assert(std::isfinite(real) && real >= 0)
        << "quantize_multiplier(" << real << "): the factor must be finite and not negative.";
    *multiplier = 0;
    *shift = 0;
    if (real == 0) return;
    int exponent = 0;
    const double q = std::frexp(real, &exponent);
    int64_t fixed = std::llround(q * 2147483648.0);
    if (fixed == (int64_t(1) << 31)) {  // q rounded up to 1
        fixed /= 2;
        exponent++;
    }
    if (exponent < -31) return;  // below the smallest factor a right shift of 31 gives
    if (exponent > 30) {
        exponent = 30;
        fixed = INT32_MAX;
    }
    *multiplier = static_cast<int32_t>(fixed);
    *shift = exponent;
}

Expr saturating_cast(Type t, const Expr &e) {
    user_assert(e.defined()) << "saturating_cast to " << t << " of an undefined expression.";
    user_assert(!t.is_handle() && !e.type().is_handle())
        << "saturating_cast to " << t << " of " << e << ": handles have no range.";
    const Type from = e.type();
    t = t.with_lanes(from.lanes());
    if (t == from) return e;
    if (t.is_float()) return cast(t, e);
    const Type to_element = t.element_of();
    if (from.is_float()) {
        // t's minimum (0 or -2^(bits-1)) and max + 1 (a power of two) are exact in any float
        // type wide enough to hold them; a float16 holds neither end of int32, so go through
        // float32.
        Expr v = from.bits() < 32 ? cast(Float(32, from.lanes()), e) : e;
        const double lo = t.is_uint() ? 0.0 : std::ldexp(-1.0, t.bits() - 1);
        const double hi = std::ldexp(1.0, t.is_uint() ? t.bits() : t.bits() - 1);
        Expr clamped = max(v, make_const(v.type(), lo));
        return select(v >= make_const(v.type(), hi), cast(t, to_element.max()), cast(t, clamped));
    }
    // Integer to integer: clamp in the source type, where t's ends are representable when
    // the source reaches past them.
    Expr v = e;
    const bool below = from.is_int() && (t.is_uint() || t.bits() < from.bits());
    if (below) v = max(v, cast(from, to_element.min()));
    const bool above = t.is_uint()
                           ? (from.is_uint() ? from.bits() > t.bits() : from.bits() - 1 > t.bits())
                           : (from.is_uint() ? from.bits() >= t.bits() : from.bits() > t.bits());
    if (above) v = min(v, cast(from, to_element.max()));
    return cast(t, v);
}

Expr fast_inverse(const Expr &x) {
    Expr f = as_float(x, "fast_inverse");
    return constant_like(f, 1.0) / f;
}

Expr fast_inverse_sqrt(const Expr &x) {
    Expr f = as_float(x, "fast_inverse_sqrt");
    return constant_like(f, 1.0) / sqrt(f);
}

}  // namespace dsl
