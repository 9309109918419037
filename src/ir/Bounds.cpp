#include "ir/Bounds.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "ir/Error.h"
#include "ir/Float16.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"

namespace dsl::ir {

namespace {

__extension__ typedef __int128 int128;

// ---------------------------------------------------------------------------------------------
// Constants. Integer ends are folded exactly in 128 bits (every 64-bit value and every sum or
// product of two fits, except uint64 * uint64, which is checked), so that wrapping can be
// decided afterwards from the exact result.

bool wraps(Type t) {
    return t.is_uint() || (t.is_int() && t.bits() < 32);
}

int128 lowest(Type t) {
    return t.is_int() ? int128(t.int_min()) : 0;
}
int128 highest(Type t) {
    return t.is_int() ? int128(t.int_max()) : int128(t.uint_max());
}

std::optional<int128> const_int(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    if (auto i = as_const_int(e)) return int128(*i);
    if (auto u = as_const_uint(e)) return int128(*u);
    return std::nullopt;
}

std::optional<double> const_float(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    return as_const_float(e);
}

Expr int_const(Type t, int128 v) {
    t = t.element_of();
    internal_assert(v >= lowest(t) && v <= highest(t)) << "constant out of range of " << t;
    if (t.is_int()) return IntImm::make(t, static_cast<int64_t>(v));
    return UIntImm::make(t, static_cast<uint64_t>(v));
}

double round_to(Type t, double v) {
    return round_to_float(v, t.bits(), t.is_bfloat());
}

/// A float end: rounded to the type; infinities and NaN become "unbounded".
Expr float_end(Type t, double v) {
    double r = round_to(t, v);
    if (!std::isfinite(r)) return Expr();
    return FloatImm::make(t.element_of(), r);
}

int128 wrap_to(Type t, int128 v) {
    int128 modulus = int128(1) << t.bits();
    int128 r = v % modulus;
    if (r < 0) r += modulus;
    if (t.is_int() && r > highest(t)) r -= modulus;
    return r;
}

/// An exact integer result squeezed into `t`: itself if it fits; wrapped if `t` wraps; clamped
/// otherwise (32/64-bit signed overflow is undefined, so values beyond the range don't exist).
Expr fold_int(Type t, int128 v) {
    t = t.element_of();
    if (v >= lowest(t) && v <= highest(t)) return int_const(t, v);
    if (wraps(t)) return int_const(t, wrap_to(t, v));
    return int_const(t, std::clamp(v, lowest(t), highest(t)));
}

int128 floor_div(int128 a, int128 b) {  // Euclidean, as the semantics define it
    if (b == 0) return 0;
    int128 q = a / b, r = a % b;
    if (r < 0) q = b > 0 ? q - 1 : q + 1;
    return q;
}

int128 euclid_mod(int128 a, int128 b) {
    if (b == 0) return 0;
    int128 r = a % b;
    if (r < 0) r += b > 0 ? b : -b;
    return r;
}

int128 abs128(int128 v) {
    return v < 0 ? -v : v;
}

/// The smallest 2^k - 1 that is >= v (v >= 0): every bit pattern up to v's highest bit.
int128 all_ones_above(int128 v) {
    int128 m = 0;
    while (m < v)
        m = m * 2 + 1;
    return m;
}

Interval type_range(Type t) {
    t = t.element_of();
    if (t.is_int_or_uint()) return Interval(int_const(t, lowest(t)), int_const(t, highest(t)));
    return Interval::everything();
}

/// The interval of an exact integer range [lo, hi] once the operation's result is stored in `t`.
/// `always_wraps` is for operations that wrap even in 32/64-bit signed types (shifts).
Interval from_exact(Type t, int128 lo, int128 hi, bool always_wraps = false) {
    t = t.element_of();
    if (lo >= lowest(t) && hi <= highest(t)) return Interval(int_const(t, lo), int_const(t, hi));
    if (!wraps(t) && !always_wraps) {
        return Interval(fold_int(t, lo), fold_int(t, hi));  // clamped; see fold_int
    }
    // Wrapping maps a range that crosses no multiple of 2^bits onto a range, in order.
    if (hi - lo < (int128(1) << t.bits())) {
        int128 wl = wrap_to(t, lo), wh = wrap_to(t, hi);
        if (wl <= wh) return Interval(int_const(t, wl), int_const(t, wh));
    }
    return type_range(t);
}

struct IntEnds {
    int128 lo, hi;
};
struct FloatEnds {
    double lo, hi;
};

std::optional<IntEnds> int_ends(const Interval &i) {
    if (i.empty) return std::nullopt;
    auto lo = const_int(i.min), hi = const_int(i.max);
    if (!lo || !hi) return std::nullopt;
    return IntEnds{*lo, *hi};
}

std::optional<FloatEnds> float_ends(const Interval &i) {
    if (i.empty) return std::nullopt;
    auto lo = const_float(i.min), hi = const_float(i.max);
    if (!lo || !hi) return std::nullopt;
    return FloatEnds{*lo, *hi};
}

/// A float interval from constant ends. A zero-width interval at zero is widened to
/// [-0.0, +0.0]: constant folding cannot always tell which zero a value is (corners of a product
/// give both), and a single point must be exact, since the sign of a zero divisor matters.
Interval float_interval(Type t, double lo, double hi) {
    if (lo == 0 && hi == 0) return Interval(float_end(t, -0.0), float_end(t, 0.0));
    return Interval(float_end(t, lo), float_end(t, hi));
}

// ---------------------------------------------------------------------------------------------
// Building interval ends. Every end goes through these helpers; they fold constants and a few
// obvious identities so that results read simply. When the simplifier lands, the lead can route
// them through `simplify` here. An undefined operand gives an undefined (unbounded) end. Float
// ends are only folded when constant: algebraic identities do not survive rounding.

Expr make_add(const Expr &a, const Expr &b);

Expr make_add(const Expr &a, const Expr &b) {
    if (!a.defined() || !b.defined()) return Expr();
    Type t = a.type();
    if (t.is_float()) {
        auto x = const_float(a), y = const_float(b);
        if (x && y) return float_end(t, *x + *y);
        return Add::make(a, b);
    }
    auto x = const_int(a), y = const_int(b);
    if (x && y) return fold_int(t, *x + *y);
    if (x) return make_add(b, a);
    if (y && *y == 0) return a;
    if (y) {
        if (const auto *add = a.as<Add>()) {
            if (auto c = const_int(add->b)) {
                int128 sum = *c + *y;
                if (wraps(t) || (sum >= lowest(t) && sum <= highest(t))) {
                    return make_add(add->a, fold_int(t, sum));
                }
            }
        }
    }
    return Add::make(a, b);
}

/// `e` as `x + c` (c may be 0).
std::pair<Expr, int128> split_offset(const Expr &e) {
    if (const auto *add = e.as<Add>()) {
        if (auto c = const_int(add->b)) return {add->a, *c};
    }
    return {e, 0};
}

Expr make_sub(const Expr &a, const Expr &b) {
    if (!a.defined() || !b.defined()) return Expr();
    Type t = a.type();
    if (t.is_float()) {
        auto x = const_float(a), y = const_float(b);
        if (x && y) return float_end(t, *x - *y);
        return Sub::make(a, b);
    }
    auto x = const_int(a), y = const_int(b);
    if (x && y) return fold_int(t, *x - *y);
    if (y && *y == 0) return a;
    auto [xa, ca] = split_offset(a);
    auto [xb, cb] = split_offset(b);
    if (!is_const(xa) && equal(xa, xb)) return fold_int(t, ca - cb);
    if (y && (ca != 0 || t.is_int())) {
        int128 sum = ca - *y;
        if (wraps(t) || (sum >= lowest(t) && sum <= highest(t))) {
            return make_add(xa, fold_int(t, sum));
        }
    }
    return Sub::make(a, b);
}

Expr make_mul(const Expr &a, const Expr &b) {
    if (!a.defined() || !b.defined()) return Expr();
    Type t = a.type();
    if (t.is_float()) {
        auto x = const_float(a), y = const_float(b);
        if (x && y) return float_end(t, *x * *y);
        return Mul::make(a, b);
    }
    auto x = const_int(a), y = const_int(b);
    if (x && y) {
        int128 p;
        if (__builtin_mul_overflow(*x, *y, &p)) return Mul::make(a, b);
        return fold_int(t, p);
    }
    if (x) return make_mul(b, a);
    if (y && *y == 0) return b;
    if (y && *y == 1) return a;
    return Mul::make(a, b);
}

Expr make_div(const Expr &a, const Expr &b) {
    if (!a.defined() || !b.defined()) return Expr();
    Type t = a.type();
    if (t.is_float()) {
        auto x = const_float(a), y = const_float(b);
        if (x && y && *y != 0) return float_end(t, *x / *y);
        return Div::make(a, b);
    }
    auto x = const_int(a), y = const_int(b);
    if (x && y) return fold_int(t, floor_div(*x, *y));
    if (y && *y == 1) return a;
    return Div::make(a, b);
}

Expr make_neg(const Expr &a) {
    return a.defined() ? make_sub(make_zero(a.type()), a) : Expr();
}

/// -1, 0 or 1 for two constants of one type.
std::optional<int> compare_constants(const Expr &a, const Expr &b) {
    if (auto x = const_int(a)) {
        if (auto y = const_int(b)) return *x < *y ? -1 : *x > *y ? 1 : 0;
    }
    if (auto x = const_float(a)) {
        if (auto y = const_float(b)) return *x < *y ? -1 : *x > *y ? 1 : 0;
    }
    return std::nullopt;
}

Expr make_min_or_max(bool is_min, const Expr &a, const Expr &b) {
    if (!a.defined() || !b.defined()) return Expr();
    if (auto c = compare_constants(a, b)) {
        // Equal constants (-0.0 and +0.0 included) give `b`, as the semantics' min/max do.
        if (*c == 0) return b;
        return (*c < 0) == is_min ? a : b;
    }
    if (equal(a, b)) return a;
    if (is_const(a)) return make_min_or_max(is_min, b, a);  // constants go on the right
    Type t = a.type();
    if (!t.is_float() && !wraps(t)) {
        auto [xa, ca] = split_offset(a);
        auto [xb, cb] = split_offset(b);
        if (equal(xa, xb)) return (ca <= cb) == is_min ? a : b;
    }
    return is_min ? Min::make(a, b) : Max::make(a, b);
}

Expr make_min(const Expr &a, const Expr &b) {
    return make_min_or_max(true, a, b);
}
Expr make_max(const Expr &a, const Expr &b) {
    return make_min_or_max(false, a, b);
}

/// The lowest of two lower ends (undefined, i.e. −∞, wins) and so on for the other three.
Expr min_of_lower(const Expr &a, const Expr &b) {
    return make_min(a, b);
}
Expr max_of_upper(const Expr &a, const Expr &b) {
    return make_max(a, b);
}
Expr max_of_lower(const Expr &a, const Expr &b) {
    return !a.defined() ? b : !b.defined() ? a : make_max(a, b);
}
Expr min_of_upper(const Expr &a, const Expr &b) {
    return !a.defined() ? b : !b.defined() ? a : make_min(a, b);
}

Expr make_cmp(IRNodeType kind, const Expr &a, const Expr &b) {
    internal_assert(a.defined() && b.defined()) << "comparison of unbounded ends";
    std::optional<int> c = compare_constants(a, b);
    if (!c && !a.type().is_float() && equal(a, b)) c = 0;
    if (c) {
        switch (kind) {
            case IRNodeType::EQ:
                return make_bool(*c == 0);
            case IRNodeType::NE:
                return make_bool(*c != 0);
            case IRNodeType::LT:
                return make_bool(*c < 0);
            case IRNodeType::LE:
                return make_bool(*c <= 0);
            case IRNodeType::GT:
                return make_bool(*c > 0);
            case IRNodeType::GE:
                return make_bool(*c >= 0);
            default:
                break;
        }
    }
    switch (kind) {
        case IRNodeType::EQ:
            return EQ::make(a, b);
        case IRNodeType::NE:
            return NE::make(a, b);
        case IRNodeType::LT:
            return LT::make(a, b);
        case IRNodeType::LE:
            return LE::make(a, b);
        case IRNodeType::GT:
            return GT::make(a, b);
        case IRNodeType::GE:
            return GE::make(a, b);
        default:
            internal_error << "not a comparison";
    }
    return Expr();
}

Expr make_and(const Expr &a, const Expr &b) {
    if (is_const_false(a) || is_const_true(b)) return a;
    if (is_const_false(b) || is_const_true(a)) return b;
    return And::make(a, b);
}

Expr make_or(const Expr &a, const Expr &b) {
    if (is_const_true(a) || is_const_false(b)) return a;
    if (is_const_true(b) || is_const_false(a)) return b;
    return Or::make(a, b);
}

Expr make_not(const Expr &a) {
    if (is_const_true(a)) return make_bool(false);
    if (is_const_false(a)) return make_bool(true);
    if (const auto *n = a.as<Not>()) return n->a;
    return Not::make(a);
}

Expr make_select(const Expr &c, const Expr &a, const Expr &b) {
    if (!a.defined() || !b.defined()) return Expr();
    if (is_const_true(c)) return a;
    if (is_const_false(c)) return b;
    if (equal(a, b)) return a;
    return Select::make(c, a, b);
}

double int_to_float(int128 v, Type to);

Expr make_cast(Type t, const Expr &e) {
    if (!e.defined()) return Expr();
    Type from = e.type();
    if (from == t) return e;
    if (auto c = const_int(e)) {
        if (t.is_bool()) return make_bool(*c != 0);
        if (t.is_float()) return float_end(t, int_to_float(*c, t));
        return int_const(t, wrap_to(t, *c));
    }
    if (auto c = const_float(e)) {
        if (t.is_float()) return float_end(t, *c);
        if (t.is_bool()) return make_bool(*c != 0);
        double v = std::trunc(*c);
        if (v >= static_cast<double>(lowest(t)) && v <= static_cast<double>(highest(t))) {
            return int_const(t, static_cast<int128>(v));
        }
    }
    return Cast::make(t, e);
}

/// Whether `e` is provably >= 0 (<= 0), from its type, its constant value or its shape.
bool is_nonneg(const Expr &e) {
    if (!e.defined()) return false;
    if (e.type().is_uint()) return true;
    if (auto c = const_int(e)) return *c >= 0;
    if (auto f = const_float(e)) return *f >= 0;
    if (const auto *m = e.as<Max>()) return is_nonneg(m->a) || is_nonneg(m->b);
    if (const auto *m = e.as<Min>()) return is_nonneg(m->a) && is_nonneg(m->b);
    return false;
}

bool is_nonpos(const Expr &e) {
    if (!e.defined()) return false;
    if (auto c = const_int(e)) return *c <= 0;
    if (auto f = const_float(e)) return *f <= 0;
    if (const auto *m = e.as<Min>()) return is_nonpos(m->a) || is_nonpos(m->b);
    if (const auto *m = e.as<Max>()) return is_nonpos(m->a) && is_nonpos(m->b);
    return false;
}

bool nonneg(const Interval &i) {
    return is_nonneg(i.min);
}
bool nonpos(const Interval &i) {
    return is_nonpos(i.max);
}

Interval point(const Expr &e) {
    return Interval::single_point(e);
}

bool both_points(const Interval &a, const Interval &b) {
    return a.is_single_point() && b.is_single_point();
}

/// A bool interval with missing ends filled in.
Interval bool_interval(Interval i) {
    if (i.empty) return i;
    if (!i.min.defined()) i.min = make_bool(false);
    if (!i.max.defined()) i.max = make_bool(true);
    return i;
}

Interval bool_range() {
    return Interval(make_bool(false), make_bool(true));
}

// ---------------------------------------------------------------------------------------------
// Interval arithmetic, one function per operation. Each tries, in order: constant ends (exact),
// two single points (the operation applied to the points, exact even where it wraps), and
// symbolic ends (only where the type cannot wrap or the operation cannot overflow).

Interval add_intervals(Type t, const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return Interval::nothing();
    if (t.is_float()) {
        auto x = float_ends(a), y = float_ends(b);
        if (x && y) return float_interval(t, x->lo + y->lo, x->hi + y->hi);
    } else if (auto x = int_ends(a)) {
        if (auto y = int_ends(b)) return from_exact(t, x->lo + y->lo, x->hi + y->hi);
    }
    if (both_points(a, b)) return point(make_add(a.min, b.min));
    if (wraps(t)) return type_range(t);
    return Interval(make_add(a.min, b.min), make_add(a.max, b.max));
}

Interval sub_intervals(Type t, const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return Interval::nothing();
    if (t.is_float()) {
        auto x = float_ends(a), y = float_ends(b);
        if (x && y) return float_interval(t, x->lo - y->hi, x->hi - y->lo);
    } else if (auto x = int_ends(a)) {
        if (auto y = int_ends(b)) return from_exact(t, x->lo - y->hi, x->hi - y->lo);
    }
    if (both_points(a, b)) return point(make_sub(a.min, b.min));
    if (wraps(t)) return type_range(t);
    return Interval(make_sub(a.min, b.max), make_sub(a.max, b.min));
}

/// The least and greatest of four candidate ends (for the corners of a product or quotient).
Interval hull_of(const Expr &p, const Expr &q, const Expr &r, const Expr &s) {
    return Interval(make_min(make_min(p, q), make_min(r, s)),
                    make_max(make_max(p, q), make_max(r, s)));
}

Interval mul_intervals(Type t, const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return Interval::nothing();
    if (t.is_float()) {
        auto x = float_ends(a), y = float_ends(b);
        if (x && y) {
            // Rounding is monotonic, so the rounded corners bound the rounded products.
            double c[4] = {x->lo * y->lo, x->lo * y->hi, x->hi * y->lo, x->hi * y->hi};
            return float_interval(t, *std::min_element(c, c + 4), *std::max_element(c, c + 4));
        }
    } else if (auto x = int_ends(a)) {
        if (auto y = int_ends(b)) {
            int128 c[4];
            bool overflow = __builtin_mul_overflow(x->lo, y->lo, &c[0]) ||
                            __builtin_mul_overflow(x->lo, y->hi, &c[1]) ||
                            __builtin_mul_overflow(x->hi, y->lo, &c[2]) ||
                            __builtin_mul_overflow(x->hi, y->hi, &c[3]);
            if (overflow) return type_range(t);  // only uint64 * uint64 gets here: it wraps
            return from_exact(t, *std::min_element(c, c + 4), *std::max_element(c, c + 4));
        }
    }
    if (both_points(a, b)) return point(make_mul(a.min, b.min));
    if (wraps(t)) return type_range(t);
    // Scaling by a constant keeps or swaps the ends.
    if (b.is_single_point() && is_const(b.min)) {
        if (t.is_float() && is_const_zero(b.min)) return Interval::everything();  // 0 * inf
        if (is_nonneg(b.min)) return Interval(make_mul(a.min, b.min), make_mul(a.max, b.min));
        return Interval(make_mul(a.max, b.min), make_mul(a.min, b.min));
    }
    if (a.is_single_point() && is_const(a.min)) return mul_intervals(t, b, a);
    // Known signs pick the corners; an unbounded end stays unbounded.
    if (nonneg(a) && nonneg(b)) return Interval(make_mul(a.min, b.min), make_mul(a.max, b.max));
    if (nonneg(a) && nonpos(b)) return Interval(make_mul(a.max, b.min), make_mul(a.min, b.max));
    if (nonpos(a) && nonneg(b)) return Interval(make_mul(a.min, b.max), make_mul(a.max, b.min));
    if (nonpos(a) && nonpos(b)) return Interval(make_mul(a.max, b.max), make_mul(a.min, b.min));
    if (!a.is_bounded() || !b.is_bounded()) return Interval::everything();
    return hull_of(make_mul(a.min, b.min), make_mul(a.min, b.max), make_mul(a.max, b.min),
                   make_mul(a.max, b.max));
}

/// Euclidean division of constant ranges. For a divisor of one sign, the quotient is monotonic
/// in each operand, so the corners bound it; a divisor range holding 0 adds 0 (x / 0 == 0).
IntEnds div_int_ends(IntEnds x, IntEnds y) {
    bool any = false;
    int128 lo = 0, hi = 0;
    auto take = [&](int128 v) {
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
    };
    if (y.lo <= 0 && y.hi >= 0) take(0);
    if (y.hi >= 1) {
        int128 ylo = std::max<int128>(y.lo, 1);
        for (int128 n : {x.lo, x.hi}) {
            for (int128 d : {ylo, y.hi})
                take(floor_div(n, d));
        }
    }
    if (y.lo <= -1) {
        int128 yhi = std::min<int128>(y.hi, -1);
        for (int128 n : {x.lo, x.hi}) {
            for (int128 d : {y.lo, yhi})
                take(floor_div(n, d));
        }
    }
    return IntEnds{lo, hi};
}

Interval div_intervals(Type t, const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return Interval::nothing();
    if (t.is_float()) {
        auto x = float_ends(a), y = float_ends(b);
        if (x && y) {
            if (y->lo > 0 || y->hi < 0) {
                double c[4] = {x->lo / y->lo, x->lo / y->hi, x->hi / y->lo, x->hi / y->hi};
                return float_interval(t, *std::min_element(c, c + 4), *std::max_element(c, c + 4));
            }
            return Interval::everything();
        }
        if (both_points(a, b)) return point(make_div(a.min, b.min));
        if (b.is_single_point()) {
            if (auto c = const_float(b.min)) {
                if (*c > 0) return Interval(make_div(a.min, b.min), make_div(a.max, b.min));
                if (*c < 0) return Interval(make_div(a.max, b.min), make_div(a.min, b.min));
            }
        }
        return Interval::everything();
    }
    if (auto x = int_ends(a)) {
        if (auto y = int_ends(b)) {
            IntEnds q = div_int_ends(*x, *y);
            return from_exact(t, q.lo, q.hi);
        }
    }
    if (both_points(a, b)) return point(make_div(a.min, b.min));
    if (b.is_single_point()) {
        if (auto c = const_int(b.min)) {
            if (*c == 0) return point(make_zero(t));
            if (*c > 0) return Interval(make_div(a.min, b.min), make_div(a.max, b.min));
            // Narrow int_min / -1 wraps back to int_min, breaking the order.
            if (!(wraps(t) && *c == -1)) {
                return Interval(make_div(a.max, b.min), make_div(a.min, b.min));
            }
        }
    }
    if (t.is_uint()) {
        // x / y <= x; y >= 1 gives the usual monotonic corners.
        Expr zero = make_zero(t);
        if (auto c = const_int(b.min); c && *c >= 1) {
            return Interval(b.max.defined() ? make_div(a.min, b.max) : zero,
                            make_div(a.max, b.min));
        }
        return Interval(zero, a.max);
    }
    if (wraps(t)) return type_range(t);
    if (auto c = const_int(b.min); c && *c >= 1) {
        if (nonneg(a)) {
            return Interval(b.max.defined() ? make_div(a.min, b.max) : make_zero(t),
                            make_div(a.max, b.min));
        }
        if (a.is_bounded() && b.is_bounded()) {
            return Interval(make_min(make_div(a.min, b.min), make_div(a.min, b.max)),
                            make_max(make_div(a.max, b.min), make_div(a.max, b.max)));
        }
    }
    // Any divisor: |x / y| <= |x|, and 0 when y == 0.
    if (!a.is_bounded()) return type_range(t);
    Expr zero = make_zero(t);
    return Interval(make_min(make_min(a.min, zero), make_neg(a.max)),
                    make_max(make_max(a.max, zero), make_neg(a.min)));
}

/// Euclidean remainder of constant ranges: in [0, |y| - 1], and x itself when 0 <= x < |y|.
IntEnds mod_int_ends(IntEnds x, IntEnds y) {
    if (y.lo == y.hi) {
        int128 m = abs128(y.lo);
        if (m <= 1) return IntEnds{0, 0};
        if (x.hi - x.lo < m) {
            int128 lo = euclid_mod(x.lo, m), hi = euclid_mod(x.hi, m);
            if (lo <= hi) return IntEnds{lo, hi};
        }
        return IntEnds{0, m - 1};
    }
    bool holds_zero = y.lo <= 0 && y.hi >= 0;
    int128 smallest = holds_zero ? 0 : std::min(abs128(y.lo), abs128(y.hi));
    if (x.lo >= 0 && x.hi < smallest) return x;
    int128 hi = std::max<int128>(std::max(abs128(y.lo), abs128(y.hi)) - 1, 0);
    if (x.lo >= 0) hi = std::min(hi, x.hi);
    return IntEnds{0, hi};
}

Interval mod_intervals(Type t, const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return Interval::nothing();
    if (t.is_float()) {
        // a - b * floor(a / b), each step rounded, is not bounded by b: it can be far off when
        // a / b is large, so only exact points are known.
        if (both_points(a, b) && !(is_const(a.min) && is_const(b.min))) {
            return point(Mod::make(a.min, b.min));
        }
        return Interval::everything();
    }
    if (auto x = int_ends(a)) {
        if (auto y = int_ends(b)) {
            IntEnds r = mod_int_ends(*x, *y);
            return from_exact(t, r.lo, r.hi);
        }
    }
    if (both_points(a, b)) return point(Mod::make(a.min, b.min));
    Expr zero = make_zero(t);
    Expr hi;
    if (b.is_single_point() && const_int(b.min)) {
        int128 m = abs128(*const_int(b.min));
        if (m <= 1) return point(zero);
        hi = int_const(t, m - 1);
    } else if (b.is_bounded() && t.is_uint()) {
        hi = make_sub(make_max(b.max, make_one(t)), make_one(t));
    } else if (auto y = int_ends(b)) {
        hi = int_const(t, std::max<int128>(std::max(abs128(y->lo), abs128(y->hi)) - 1, 0));
    } else if (b.is_bounded() && !wraps(t)) {
        // |y| - 1 written so that no step overflows: max(max(y, 1) - 1, -1 - y).
        Expr one = make_one(t);
        hi = make_max(make_sub(make_max(b.max, one), one), make_sub(int_const(t, -1), b.min));
    } else {
        hi = int_const(t, highest(t));
    }
    if (nonneg(a) && a.max.defined()) hi = make_min(hi, a.max);
    return Interval(zero, hi);
}

Interval min_max_intervals(bool is_min, const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return Interval::nothing();
    if (is_min) return Interval(min_of_lower(a.min, b.min), min_of_upper(a.max, b.max));
    return Interval(max_of_lower(a.min, b.min), max_of_upper(a.max, b.max));
}

/// The interval of a comparison: its lower end says "certainly true", its upper end "possibly
/// true". Float operands must have constant ends, which rules NaN out.
Interval compare_intervals(IRNodeType kind, Type operand, const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return Interval::nothing();
    if (both_points(a, b)) return point(make_cmp(kind, a.min, b.min));
    if (operand.is_float() && !(float_ends(a) && float_ends(b))) return bool_range();
    auto cmp_or = [&](IRNodeType k, const Expr &x, const Expr &y, bool otherwise) {
        return x.defined() && y.defined() ? make_cmp(k, x, y) : make_bool(otherwise);
    };
    switch (kind) {
        case IRNodeType::LT:
        case IRNodeType::LE:
            return Interval(cmp_or(kind, a.max, b.min, false), cmp_or(kind, a.min, b.max, true));
        case IRNodeType::GT:
            return compare_intervals(IRNodeType::LT, operand, b, a);
        case IRNodeType::GE:
            return compare_intervals(IRNodeType::LE, operand, b, a);
        default:
            break;
    }
    // Certainly equal: both are the same single value. Possibly equal: they overlap.
    Expr certain = make_and(cmp_or(IRNodeType::LE, a.max, b.min, false),
                            cmp_or(IRNodeType::LE, b.max, a.min, false));
    Expr possible = make_and(cmp_or(IRNodeType::LE, a.min, b.max, true),
                             cmp_or(IRNodeType::LE, b.min, a.max, true));
    if (kind == IRNodeType::EQ) return Interval(certain, possible);
    return Interval(make_not(possible), make_not(certain));
}

// ---------------------------------------------------------------------------------------------
// Bitwise operations and shifts of constant ranges.

IntEnds bitwise_int_ends(Call::Intrinsic op, IntEnds x, IntEnds y) {
    // Two's complement values in [-2^k, 2^k - 1] stay there under and, or and xor.
    int128 reach = std::max({x.hi, y.hi, -x.lo - 1, -y.lo - 1, int128(0)});
    int128 ones = all_ones_above(reach);
    bool x_nonneg = x.lo >= 0, y_nonneg = y.lo >= 0;
    switch (op) {
        case Call::Intrinsic::BitwiseAnd:
            // Clearing bits never raises a value of either sign; a non-negative operand bounds it.
            if (x_nonneg && y_nonneg) return IntEnds{0, std::min(x.hi, y.hi)};
            if (x_nonneg) return IntEnds{0, x.hi};
            if (y_nonneg) return IntEnds{0, y.hi};
            return IntEnds{-ones - 1, std::max(x.hi, y.hi)};
        case Call::Intrinsic::BitwiseOr:
            // Setting bits never lowers a value of either sign.
            if (x_nonneg && y_nonneg) return IntEnds{std::max(x.lo, y.lo), ones};
            return IntEnds{std::min(x.lo, y.lo), x.hi < 0 || y.hi < 0 ? int128(-1) : ones};
        default:
            if (x_nonneg && y_nonneg) return IntEnds{0, ones};
            return IntEnds{-ones - 1, ones};
    }
}

/// Shifting the range `x` of type `t` left (right) by each amount in [s.lo, s.hi].
Interval shift_int_ends(bool left, Type t, IntEnds x, IntEnds s) {
    int bits = t.bits();
    int128 lo_amount = std::clamp<int128>(s.lo, -bits, bits);
    int128 hi_amount = std::clamp<int128>(s.hi, -bits, bits);
    Interval r = Interval::nothing();
    for (int128 k = lo_amount; k <= hi_amount; k++) {
        bool l = k >= 0 ? left : !left;
        int n = static_cast<int>(k >= 0 ? k : -k);
        Interval part;
        if (l) {
            // A left shift is a multiplication by 2^n that wraps, in every type.
            int128 scale = int128(1) << std::min(n, bits);
            part =
                n >= bits ? point(make_zero(t)) : from_exact(t, x.lo * scale, x.hi * scale, true);
        } else {
            // Arithmetic (logical for unsigned) right shift: floor division, saturating at the
            // width (giving 0 or -1).
            int128 d = int128(1) << std::min(n, bits);
            part = from_exact(t, floor_div(x.lo, d), floor_div(x.hi, d));
        }
        r = Interval::make_union(r, part);
    }
    return r;
}

/// Applies a monotonic math function to constant float ends.
template <typename F>
Interval monotonic_float(Type t, FloatEnds x, F f) {
    return float_interval(t, f(x.lo), f(x.hi));
}

// ---------------------------------------------------------------------------------------------
// The walk.

/// Whether an expression mentions a variable of the scope, and whether it mentions free
/// variables or opaque values (loads, calls to Funcs); decides when a vector is its own bound.
class ScopeUse : public IRVisitor {
  public:
    explicit ScopeUse(const Scope<Interval> &s) : scope(s) {}
    const Scope<Interval> &scope;
    bool uses_scope = false, uses_free_var = false, opaque = false;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        (scope.contains(op->name) ? uses_scope : uses_free_var) = true;
    }
    void visit(const Let *op) override {
        if (scope.contains(op->name)) uses_scope = true;  // shadowing: stay conservative
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        opaque = true;
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->call_type != Call::CallType::Intrinsic) opaque = true;
        IRVisitor::visit(op);
    }
};

class BoundsOfExpr : public IRVisitor {
  public:
    explicit BoundsOfExpr(const Scope<Interval> &outer) : scope(&outer) {}

    Interval get(const Expr &e) {
        if (e.type().is_vector() && wraps(e.type().element_of()) && !e.as<Broadcast>()) {
            // A vector of symbols alone is bounded by its own extreme lanes, exactly. Worth it
            // where the rules below would have to give up on wrapping.
            ScopeUse use(scope);
            use.include(e);
            if (!use.uses_scope && use.uses_free_var && !use.opaque) return lanes_extremes(e);
        }
        result = Interval();
        include(e);
        return result;
    }

  private:
    Scope<Interval> scope;
    Interval result;
    int name_counter = 0;

    static Interval lanes_extremes(const Expr &e) {
        bool b = e.type().is_bool();
        return Interval(VectorReduce::make(b ? VectorReduce::Op::And : VectorReduce::Op::Min, e, 1),
                        VectorReduce::make(b ? VectorReduce::Op::Or : VectorReduce::Op::Max, e, 1));
    }

    using IRVisitor::visit;

    void visit(const IntImm *op) override { result = point(op); }
    void visit(const UIntImm *op) override { result = point(op); }
    void visit(const FloatImm *op) override {
        result = std::isfinite(op->value) ? point(op) : Interval::everything();
    }
    void visit(const StringImm *) override { result = Interval::everything(); }

    void visit(const Variable *op) override {
        if (const Interval *i = scope.find(op->name)) {
            result = *i;
        } else if (op->type.is_scalar()) {
            result = point(op);
        } else {
            result = lanes_extremes(op);
        }
    }

    void visit(const Cast *op) override;

    void visit(const Add *op) override {
        result = add_intervals(op->type.element_of(), get(op->a), get(op->b));
    }
    void visit(const Sub *op) override {
        Type t = op->type.element_of();
        if (same_operand(op->a, op->b)) {
            Interval x = get(op->a);
            if (!t.is_float()) {
                result = point(make_zero(t));  // even where it wraps
                return;
            }
            if (float_ends(x)) {
                result = float_interval(t, 0, 0);  // finite, so never inf - inf
                return;
            }
        }
        result = sub_intervals(t, get(op->a), get(op->b));
    }
    void visit(const Mul *op) override {
        result = mul_intervals(op->type.element_of(), get(op->a), get(op->b));
    }
    void visit(const Div *op) override {
        Type t = op->type.element_of();
        if (same_operand(op->a, op->b)) {
            // x / x is 1, or 0 for x == 0 (integers) or NaN for 0 and inf (floats).
            Interval x = get(op->a);
            auto xi = int_ends(x);
            auto xf = float_ends(x);
            bool nonzero = (xi && (xi->lo > 0 || xi->hi < 0)) || (xf && (xf->lo > 0 || xf->hi < 0));
            if (nonzero) {
                result = point(make_one(t));
                return;
            }
            if (!t.is_float()) {
                result = xi && xi->lo == 0 && xi->hi == 0 ? point(make_zero(t))
                                                          : Interval(make_zero(t), make_one(t));
                return;
            }
        }
        result = div_intervals(t, get(op->a), get(op->b));
    }
    void visit(const Mod *op) override {
        Type t = op->type.element_of();
        if (!t.is_float() && same_operand(op->a, op->b)) {
            result = point(make_zero(t));
            return;
        }
        result = mod_intervals(t, get(op->a), get(op->b));
    }

    /// Whether `a` and `b` are one pure expression, so that `a op b` sees the same value twice;
    /// interval arithmetic alone treats the operands as independent and cannot see it.
    static bool same_operand(const Expr &a, const Expr &b) {
        if (!equal(a, b)) return false;
        class Impure : public IRVisitor {
          public:
            bool found = false;

          protected:
            using IRVisitor::visit;
            void visit(const Call *op) override {
                found = found || !op->is_pure();
                IRVisitor::visit(op);
            }
        } impure;
        impure.include(a);
        return !impure.found;
    }

    /// `x op x` for a comparison: known unless x may be NaN.
    bool compare_same(IRNodeType kind, const Expr &a, const Expr &b) {
        if (!same_operand(a, b)) return false;
        if (a.type().is_float() && !float_ends(get(a))) return false;
        bool reflexive = kind == IRNodeType::EQ || kind == IRNodeType::LE || kind == IRNodeType::GE;
        result = point(make_bool(reflexive));
        return true;
    }
    void visit(const Min *op) override { result = min_max_intervals(true, get(op->a), get(op->b)); }
    void visit(const Max *op) override {
        result = min_max_intervals(false, get(op->a), get(op->b));
    }

#define DSL_BOUNDS_COMPARE(T)                                                                    \
    void visit(const T *op) override {                                                           \
        if (compare_same(IRNodeType::T, op->a, op->b)) return;                                   \
        result =                                                                                 \
            compare_intervals(IRNodeType::T, op->a.type().element_of(), get(op->a), get(op->b)); \
    }
    DSL_BOUNDS_COMPARE(EQ)
    DSL_BOUNDS_COMPARE(NE)
    DSL_BOUNDS_COMPARE(LT)
    DSL_BOUNDS_COMPARE(LE)
    DSL_BOUNDS_COMPARE(GT)
    DSL_BOUNDS_COMPARE(GE)
#undef DSL_BOUNDS_COMPARE

    void visit(const And *op) override {
        Interval a = bool_interval(get(op->a)), b = bool_interval(get(op->b));
        if (a.empty || b.empty) {
            result = Interval::nothing();
            return;
        }
        result = Interval(make_and(a.min, b.min), make_and(a.max, b.max));
    }
    void visit(const Or *op) override {
        Interval a = bool_interval(get(op->a)), b = bool_interval(get(op->b));
        if (a.empty || b.empty) {
            result = Interval::nothing();
            return;
        }
        result = Interval(make_or(a.min, b.min), make_or(a.max, b.max));
    }
    void visit(const Not *op) override {
        Interval a = bool_interval(get(op->a));
        result = a.empty ? a : Interval(make_not(a.max), make_not(a.min));
    }

    void visit(const Select *op) override {
        Interval c = bool_interval(get(op->condition));
        Interval t = get(op->true_value), f = get(op->false_value);
        if (c.empty) {
            result = Interval::nothing();
        } else if (is_const_true(c.min)) {
            result = t;
        } else if (is_const_false(c.max)) {
            result = f;
        } else if (c.is_single_point() && !t.empty && !f.empty) {
            // One condition for every lane: choose the ends with it.
            result = Interval(make_select(c.min, t.min, f.min), make_select(c.min, t.max, f.max));
        } else {
            result = Interval::make_union(t, f);
        }
    }

    void visit(const Load *op) override {
        result = type_range(op->type);
    }

    void visit(const Ramp *op) override {
        // Lane i is base + i * stride (wrapping as the type does).
        Type t = op->type.element_of();
        Interval base = get(op->base), stride = get(op->stride);
        if (t.is_float()) {
            // Each lane adds the stride to the rounded previous lane; only a zero stride is easy.
            result = stride.is_single_point() && is_const_zero(stride.min) ? base
                                                                           : Interval::everything();
            return;
        }
        int128 last = op->lanes - 1;
        auto b = int_ends(base), s = int_ends(stride);
        if (b && s) {
            result = from_exact(t, std::min(b->lo, b->lo + last * s->lo),
                                std::max(b->hi, b->hi + last * s->hi));
            return;
        }
        if (wraps(t)) {
            result = type_range(t);
            return;
        }
        // (lanes - 1) * stride is no value of the program, so it must not be clamped like one.
        Expr zero = make_zero(t), n = int_const(t, last);
        Interval steps;
        if (s) {
            int128 lo = std::min<int128>(0, last * s->lo), hi = std::max<int128>(0, last * s->hi);
            if (lo < lowest(t) || hi > highest(t)) {
                result = type_range(t);
                return;
            }
            steps = Interval(int_const(t, lo), int_const(t, hi));
        } else {
            steps = mul_intervals(t, stride, Interval(zero, n));
            steps = Interval(min_of_lower(steps.min, zero), max_of_upper(steps.max, zero));
        }
        result = add_intervals(t, base, steps);
    }

    void visit(const Broadcast *op) override {
        result = get(op->value);
    }

    void visit(const Call *op) override;
    void visit(const Let *op) override;

    void visit(const Shuffle *op) override {
        // Follow each lane through nested shuffles to the vector it is read from; only those
        // vectors count.
        std::vector<Expr> sources;
        std::function<void(const Shuffle *, int)> trace = [&](const Shuffle *s, int lane) {
            for (const Expr &v : s->vectors) {
                if (lane >= v.type().lanes()) {
                    lane -= v.type().lanes();
                    continue;
                }
                if (const auto *inner = v.as<Shuffle>()) {
                    trace(inner, inner->indices[lane]);
                } else if (std::none_of(sources.begin(), sources.end(),
                                        [&](const Expr &e) { return e.same_as(v); })) {
                    sources.push_back(v);
                }
                return;
            }
        };
        for (int index : op->indices)
            trace(op, index);
        Interval hull = Interval::nothing();
        for (const Expr &v : sources)
            hull = Interval::make_union(hull, get(v));
        result = hull;
    }

    void visit(const VectorReduce *op) override;
};

/// An integer converted to a float type exactly as the semantics round it: to nearest, once.
/// Rounding to odd first keeps the sticky bit for the final rounding.
double int_to_float(int128 v, Type to) {
    uint64_t magnitude = static_cast<uint64_t>(v < 0 ? -v : v);
    double d;
    if (to.bits() == 64 && !to.is_bfloat()) {
        d = static_cast<double>(magnitude);
    } else if (magnitude < (uint64_t(1) << 53)) {
        d = static_cast<double>(magnitude);
    } else {
        int shift = 64 - __builtin_clzll(magnitude) - 53;
        uint64_t kept = magnitude >> shift;
        if ((kept << shift) != magnitude) kept |= 1;
        d = std::ldexp(static_cast<double>(kept), shift);
    }
    return round_to(to, v < 0 ? -d : d);
}

void BoundsOfExpr::visit(const Cast *op) {
    Type to = op->type.element_of(), from = op->value.type().element_of();
    Interval a = get(op->value);
    if (a.empty) {
        result = a;
        return;
    }
    if (a.is_single_point() && !is_const(a.min)) {
        result = point(make_cast(to, a.min));
        return;
    }
    if (to.is_bool()) {
        // x != 0: known only when the interval holds nothing but zero, or no zero at all.
        result = bool_range();
        if (auto x = float_ends(a)) {
            if (x->lo > 0 || x->hi < 0) result = point(make_bool(true));
            if (x->lo == 0 && x->hi == 0) result = point(make_bool(false));
        } else if (auto y = int_ends(a)) {
            if (y->lo > 0 || y->hi < 0) result = point(make_bool(true));
            if (y->lo == 0 && y->hi == 0) result = point(make_bool(false));
        }
        return;
    }
    if (from.is_float()) {
        if (to.is_float()) {
            // Rounding is monotonic.
            if (auto x = float_ends(a)) {
                result = float_interval(to, x->lo, x->hi);
            } else {
                result = Interval(make_cast(to, a.min), make_cast(to, a.max));
            }
            return;
        }
        // Truncation is monotonic; values out of range are undefined, so clamping is sound.
        auto end = [&](const Expr &e, int128 otherwise) {
            if (!e.defined()) return int_const(to, otherwise);
            auto c = const_float(e);
            if (!c) return make_cast(to, e);
            double v = std::trunc(*c);
            if (v <= static_cast<double>(lowest(to))) return int_const(to, lowest(to));
            if (v >= static_cast<double>(highest(to))) return int_const(to, highest(to));
            return int_const(to, static_cast<int128>(v));
        };
        result = Interval(end(a.min, lowest(to)), end(a.max, highest(to)));
        return;
    }
    // From an integer (or bool): an unbounded end is the type's limit.
    if (!a.min.defined()) a.min = int_const(from, lowest(from));
    if (!a.max.defined()) a.max = int_const(from, highest(from));
    auto x = int_ends(a);
    if (to.is_float()) {
        // Conversion to float rounds monotonically.
        if (x) {
            result = float_interval(to, int_to_float(x->lo, to), int_to_float(x->hi, to));
        } else {
            result = Interval(make_cast(to, a.min), make_cast(to, a.max));
        }
        return;
    }
    if (x) {
        result = from_exact(to, x->lo, x->hi, true);  // integer casts wrap, in every type
    } else if (to.can_represent(from)) {
        result = Interval(make_cast(to, a.min), make_cast(to, a.max));
    } else {
        result = type_range(to);
    }
}

void BoundsOfExpr::visit(const Call *op) {
    using I = Call::Intrinsic;
    Type t = op->type.element_of();
    if (op->call_type != Call::CallType::Intrinsic || op->intrinsic == I::Reinterpret ||
        op->intrinsic == I::None) {
        result = type_range(t);
        return;
    }
    if (op->intrinsic == I::Likely) {
        result = get(op->args[0]);
        return;
    }
    std::vector<Interval> args;
    bool points = true, constant = true;
    for (const Expr &arg : op->args) {
        args.push_back(get(arg));
        if (args.back().empty) {
            result = Interval::nothing();
            return;
        }
        points = points && args.back().is_single_point();
        constant = constant && points && is_const(args.back().min);
    }
    if (points && !constant) {
        // The same intrinsic of the same single values.
        std::vector<Expr> values;
        for (const Interval &i : args)
            values.push_back(i.min);
        result = point(Call::make(t, op->intrinsic, values));
        return;
    }
    const Interval &a = args[0];
    Type at = op->args[0].type().element_of();
    if (op->args.size() == 2 && same_operand(op->args[0], op->args[1]) && !at.is_float()) {
        // x & x and x | x are x; x ^ x and absd(x, x) are 0.
        if (op->intrinsic == I::BitwiseAnd || op->intrinsic == I::BitwiseOr) {
            result = a;
            return;
        }
        if (op->intrinsic == I::BitwiseXor || op->intrinsic == I::Absd) {
            result = point(make_zero(t));
            return;
        }
    }
    std::optional<FloatEnds> fa = float_ends(a);
    std::optional<IntEnds> ia = int_ends(a);
    Expr zero = make_zero(t);
    auto apply = [&](const Expr &e) { return e.defined() ? Call::make(t, op->intrinsic, {e}) : e; };
    switch (op->intrinsic) {
        case I::Abs:
            if (fa || ia) {
                double lo = fa ? fa->lo : 0, hi = fa ? fa->hi : 0;
                if (ia) {
                    int128 mlo = ia->lo >= 0 ? ia->lo : ia->hi <= 0 ? -ia->hi : 0;
                    result = from_exact(t, mlo, std::max(abs128(ia->lo), abs128(ia->hi)));
                } else {
                    double mlo = lo >= 0 ? std::fabs(lo) : hi <= 0 ? std::fabs(hi) : 0;
                    result = float_interval(t, mlo, std::max(std::fabs(lo), std::fabs(hi)));
                }
            } else if (nonneg(a)) {
                result = Interval(make_cast(t, a.min), make_cast(t, a.max));
            } else if (at.is_float()) {
                result = nonpos(a) ? Interval(make_neg(a.max), make_neg(a.min))
                                   : Interval(zero, max_of_upper(make_neg(a.min), a.max));
            } else if (a.is_bounded()) {
                // In the unsigned result type, 0 - x is |x| for x <= 0, and too big otherwise.
                result = Interval(
                    zero, make_max(make_sub(zero, make_cast(t, a.min)), make_cast(t, a.max)));
            } else {
                result = type_range(t);
            }
            return;
        case I::Absd: {
            const Interval &b = args[1];
            if (auto ib = int_ends(b); ia && ib) {
                int128 gap = ia->lo > ib->hi   ? ia->lo - ib->hi
                             : ib->lo > ia->hi ? ib->lo - ia->hi
                                               : 0;
                result = from_exact(t, gap, std::max(ia->hi - ib->lo, ib->hi - ia->lo));
            } else if (auto fb = float_ends(b); fa && fb) {
                double gap = fa->lo > fb->hi   ? fa->lo - fb->hi
                             : fb->lo > fa->hi ? fb->lo - fa->hi
                                               : 0;
                result = float_interval(t, gap, std::max(fa->hi - fb->lo, fb->hi - fa->lo));
            } else if (at.is_float()) {
                result =
                    Interval(zero, max_of_upper(make_sub(a.max, b.min), make_sub(b.max, a.min)));
            } else {
                result = type_range(t);
            }
            return;
        }
        case I::BitwiseAnd:
        case I::BitwiseOr:
        case I::BitwiseXor: {
            const Interval &b = args[1];
            if (auto ib = int_ends(b); ia && ib) {
                if (constant) {
                    int128 v = op->intrinsic == I::BitwiseAnd  ? (ia->lo & ib->lo)
                               : op->intrinsic == I::BitwiseOr ? (ia->lo | ib->lo)
                                                               : (ia->lo ^ ib->lo);
                    result = from_exact(t, v, v);
                } else {
                    IntEnds r = bitwise_int_ends(op->intrinsic, *ia, *ib);
                    result = from_exact(t, r.lo, r.hi);
                }
            } else if (op->intrinsic == I::BitwiseAnd && (nonneg(a) || nonneg(b))) {
                // x & y lies between 0 and any non-negative operand.
                Expr hi = nonneg(a) && nonneg(b) ? min_of_upper(a.max, b.max)
                          : nonneg(a)            ? a.max
                                                 : b.max;
                result = Interval(zero, hi.defined() ? hi : int_const(t, highest(t)));
            } else {
                result = type_range(t);
            }
            return;
        }
        case I::BitwiseNot:
            // ~x is -1 - x: decreasing, and never out of range.
            if (ia) {
                int128 top = t.is_int() ? -1 : highest(t);
                result = from_exact(t, top - ia->hi, top - ia->lo);
            } else {
                Expr top = int_const(t, t.is_int() ? -1 : highest(t));
                result = Interval(make_sub(top, a.max), make_sub(top, a.min));
            }
            return;
        case I::ShiftLeft:
        case I::ShiftRight: {
            const Interval &s = args[1];
            bool left = op->intrinsic == I::ShiftLeft;
            auto is = int_ends(s);
            if (ia && is) {
                result = shift_int_ends(left, t, *ia, *is);
            } else if (is && is->lo == is->hi && (is->lo >= 0) != left) {
                // A right shift by a fixed amount is monotonic and cannot overflow.
                Expr lo = a.min.defined() ? a.min : int_const(t, lowest(t));
                Expr hi = a.max.defined() ? a.max : int_const(t, highest(t));
                result = Interval(Call::make(t, op->intrinsic, {lo, s.min}),
                                  Call::make(t, op->intrinsic, {hi, s.min}));
            } else {
                result = type_range(t);
            }
            return;
        }
        case I::Floor:
        case I::Ceil:
        case I::Round:
        case I::Trunc:
            if (fa) {
                double (*f)(double) =
                    op->intrinsic == I::Floor   ? static_cast<double (*)(double)>(std::floor)
                    : op->intrinsic == I::Ceil  ? static_cast<double (*)(double)>(std::ceil)
                    : op->intrinsic == I::Round ? static_cast<double (*)(double)>(std::nearbyint)
                                                : static_cast<double (*)(double)>(std::trunc);
                result = monotonic_float(t, *fa, f);
            } else {
                result = Interval(apply(a.min), apply(a.max));
            }
            return;
        case I::Sqrt:
            if (fa && fa->lo >= 0) {
                result = monotonic_float(t, *fa, [](double v) { return std::sqrt(v); });
            } else if (!fa && nonneg(a)) {
                result = Interval(apply(a.min), apply(a.max));
            } else {
                result = Interval::everything();  // sqrt of a negative is NaN
            }
            return;
        case I::Exp:
            if (fa) {
                result = monotonic_float(t, *fa, [](double v) { return std::exp(v); });
            } else {
                result = Interval(a.min.defined() ? apply(a.min) : zero, apply(a.max));
            }
            return;
        case I::Log:
            if (fa && fa->lo >= 0) {
                result = monotonic_float(t, *fa, [](double v) { return std::log(v); });
            } else {
                result = Interval::everything();
            }
            return;
        case I::Sin:
        case I::Cos:
            result = fa ? float_interval(t, -1, 1) : Interval::everything();
            return;
        case I::Atan2:
            result =
                fa && float_ends(args[1]) ? float_interval(t, -M_PI, M_PI) : Interval::everything();
            return;
        case I::IsNan:
            // Constant float ends exclude NaN (see Bounds.h).
            result = fa ? point(make_bool(false)) : bool_range();
            return;
        default:
            result = type_range(t);
            return;
    }
}

void BoundsOfExpr::visit(const Let *op) {
    Interval value = get(op->value);
    if (value.empty) {
        result = value;
        return;
    }
    // A cheap end is bound as it is; any other is named, and results that use the name get
    // wrapped in a Let of it, so that nothing is computed twice and no name escapes.
    auto cheap = [](const Expr &e) { return !e.defined() || is_const(e) || e.as<Variable>(); };
    Type elem = op->value.type().element_of();
    std::string min_name = op->name + ".min", max_name = op->name + ".max";
    bool one_name = value.is_single_point();
    if (one_name) max_name = min_name;
    Interval binding(cheap(value.min) ? value.min : Variable::make(elem, min_name),
                     cheap(value.max) ? value.max : Variable::make(elem, max_name));
    Interval body;
    {
        ScopedBinding<Interval> bind(scope, op->name, binding);
        body = get(op->body);
    }
    auto close = [&](Expr e) {
        if (!e.defined()) return e;
        if (!cheap(value.max) && !one_name && expr_uses_var(e, max_name)) {
            e = Let::make(max_name, value.max, e);
        }
        if (!cheap(value.min) && expr_uses_var(e, min_name)) e = Let::make(min_name, value.min, e);
        return e;
    };
    if (!body.empty) body = Interval(close(body.min), close(body.max));
    result = body;
}

void BoundsOfExpr::visit(const VectorReduce *op) {
    Type t = op->type.element_of();
    Interval v = get(op->value);
    int group = op->value.type().lanes() / op->type.lanes();
    if (v.empty || op->op == VectorReduce::Op::Min || op->op == VectorReduce::Op::Max ||
        op->op == VectorReduce::Op::And || op->op == VectorReduce::Op::Or) {
        result = v;
        return;
    }
    bool is_add = op->op == VectorReduce::Op::Add;
    auto fv = float_ends(v);
    auto iv = int_ends(v);
    if (t.is_float() && fv) {
        // The lanes are combined one after another, each step rounded, as the evaluator does;
        // rounding is monotonic, so doing the same to the ends (or corners) bounds the result.
        double lo = fv->lo, hi = fv->hi;
        for (int k = 1; k < group; k++) {
            if (is_add) {
                lo = round_to(t, lo + fv->lo);
                hi = round_to(t, hi + fv->hi);
            } else {
                double c[4] = {lo * fv->lo, lo * fv->hi, hi * fv->lo, hi * fv->hi};
                lo = round_to(t, *std::min_element(c, c + 4));
                hi = round_to(t, *std::max_element(c, c + 4));
            }
            if (std::isnan(lo) || std::isnan(hi)) break;
        }
        result = float_interval(t, lo, hi);
        return;
    }
    if (iv) {
        int128 lo = iv->lo, hi = iv->hi;
        for (int k = 1; k < group; k++) {
            if (is_add) {
                lo += iv->lo;
                hi += iv->hi;
                continue;
            }
            int128 c[4];
            if (__builtin_mul_overflow(lo, iv->lo, &c[0]) ||
                __builtin_mul_overflow(lo, iv->hi, &c[1]) ||
                __builtin_mul_overflow(hi, iv->lo, &c[2]) ||
                __builtin_mul_overflow(hi, iv->hi, &c[3])) {
                result = type_range(t);
                return;
            }
            lo = *std::min_element(c, c + 4);
            hi = *std::max_element(c, c + 4);
        }
        result = from_exact(t, lo, hi);
        return;
    }
    if (v.is_single_point()) {
        // Every lane is the same value p: p + p + ... or p * p * ..., in the evaluator's order.
        Expr acc = v.min;
        for (int k = 1; k < group; k++)
            acc = is_add ? make_add(acc, v.min) : make_mul(acc, v.min);
        result = point(acc);
        return;
    }
    if (is_add && !t.is_float() && !wraps(t)) {
        Expr n = int_const(t, group);
        result = Interval(make_mul(v.min, n), make_mul(v.max, n));
        return;
    }
    result = type_range(t);
}

}  // namespace

Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope) {
    internal_assert(e.defined()) << "bounds of an undefined Expr";
    BoundsOfExpr walker(scope);
    Interval r = walker.get(e);
    Type t = e.type().element_of();
    if (!r.empty && t.is_int_or_uint()) {
        if (!r.min.defined()) r.min = int_const(t, lowest(t));
        if (!r.max.defined()) r.max = int_const(t, highest(t));
    }
    return r;
}

Interval bounds_of_expr(const Expr &e) {
    Scope<Interval> empty;
    return bounds_of_expr_in_scope(e, empty);
}

}  // namespace dsl::ir
