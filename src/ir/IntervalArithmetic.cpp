#include "ir/IntervalArithmetic.h"

#include <algorithm>
#include <cmath>

#include "ir/Error.h"
#include "ir/Float16.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"

namespace dsl::ir::interval_rules {

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

static int128 wrap_to(Type t, int128 v) {
    int128 modulus = int128(1) << t.bits();
    int128 r = v % modulus;
    if (r < 0) r += modulus;
    if (t.is_int() && r > highest(t)) r -= modulus;
    return r;
}

/// An exact integer result squeezed into `t`: itself if it fits; wrapped if `t` wraps; clamped
/// otherwise (32/64-bit signed overflow is undefined, so values beyond the range don't exist).
static Expr fold_int(Type t, int128 v) {
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

static int128 euclid_mod(int128 a, int128 b) {
    if (b == 0) return 0;
    int128 r = a % b;
    if (r < 0) r += b > 0 ? b : -b;
    return r;
}

int128 abs128(int128 v) {
    return v < 0 ? -v : v;
}

/// The smallest 2^k - 1 that is >= v (v >= 0): every bit pattern up to v's highest bit.
static int128 all_ones_above(int128 v) {
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
Interval from_exact(Type t, int128 lo, int128 hi, bool always_wraps) {
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
    if (is_const_zero(b)) return a;  // see make_sub
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
static std::pair<Expr, int128> split_offset(const Expr &e) {
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
    // Not `y && *y == 0`: GCC tests the value before the flag there, which valgrind reports
    // as a branch on uninitialised memory when y is empty.
    if (is_const_zero(b)) return a;
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
static std::optional<int> compare_constants(const Expr &a, const Expr &b) {
    if (auto x = const_int(a)) {
        if (auto y = const_int(b)) return *x < *y ? -1 : *x > *y ? 1 : 0;
    }
    if (auto x = const_float(a)) {
        if (auto y = const_float(b)) return *x < *y ? -1 : *x > *y ? 1 : 0;
    }
    return std::nullopt;
}

static Expr make_min_or_max(bool is_min, const Expr &a, const Expr &b) {
    if (!a.defined() || !b.defined()) return Expr();
    if (auto c = compare_constants(a, b)) {
        // Equal constants (-0.0 and +0.0 included) give `b`, as the semantics' min/max do.
        if (*c == 0) return b;
        return (*c < 0) == is_min ? a : b;
    }
    if (equal(a, b)) return a;
    // Constants go on the right; not for floats, where min(-0.0, +0.0) and min(+0.0, -0.0)
    // differ (the semantics return the second operand of equal ones).
    if (is_const(a) && !a.type().is_float()) return make_min_or_max(is_min, b, a);
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
    return make_binary(kind, a, b);
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

namespace {

/// Whether `e` is provably >= v (v >= 0), from its type, its constant value or its shape.
bool is_at_least(const Expr &e, int64_t v) {
    if (!e.defined()) return false;
    if (e.type().is_uint() && v == 0) return true;
    if (auto c = const_int(e)) return *c >= v;
    if (auto f = const_float(e)) return *f >= static_cast<double>(v);
    if (const auto *m = e.as<Max>()) return is_at_least(m->a, v) || is_at_least(m->b, v);
    if (const auto *m = e.as<Min>()) return is_at_least(m->a, v) && is_at_least(m->b, v);
    return false;
}

}  // namespace

/// Whether `e` is provably >= 0 (<= 0), from its type, its constant value or its shape.
bool is_nonneg(const Expr &e) {
    return is_at_least(e, 0);
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

/// Whether `e` is the constant at the low or high end of the signed type `t` (32 or 64 bits):
/// the bound of a value nothing is known of, such as a call of a Func without value bounds.
static bool at_type_end(Type t, const Expr &e, bool high) {
    if (!t.is_int()) return false;
    auto c = const_int(e);
    return c && *c == (high ? highest(t) : lowest(t));
}

/// A sum or difference of signed 32- or 64-bit values cannot pass the type's ends (lowering
/// assumes they do not overflow): an end at the type's end stays there, rather than becoming a
/// sum that overflows when the bound is evaluated (`clamp(f(x) + x, 0, 7)`, f unknown, is
/// [0, 7], not [min(max(int_max + x, 0), 7), ...]).
static Expr saturated_end(Type t, bool high, bool at_end, const Expr &sum) {
    return at_end ? int_const(t, high ? highest(t) : lowest(t)) : sum;
}

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
    return Interval(
        saturated_end(t, false, at_type_end(t, a.min, false) || at_type_end(t, b.min, false),
                      make_add(a.min, b.min)),
        saturated_end(t, true, at_type_end(t, a.max, true) || at_type_end(t, b.max, true),
                      make_add(a.max, b.max)));
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
    return Interval(
        saturated_end(t, false, at_type_end(t, a.min, false) || at_type_end(t, b.max, true),
                      make_sub(a.min, b.max)),
        saturated_end(t, true, at_type_end(t, a.max, true) || at_type_end(t, b.min, false),
                      make_sub(a.max, b.min)));
}

/// The least and greatest of four candidate ends (for the corners of a product or quotient).
static Interval hull_of(const Expr &p, const Expr &q, const Expr &r, const Expr &s) {
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
    // A product with a value known only to be of its type may be any value of the type.
    for (const Interval *i : {&a, &b}) {
        if (at_type_end(t, i->min, false) || at_type_end(t, i->max, true)) return type_range(t);
    }
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
static IntEnds div_int_ends(IntEnds x, IntEnds y) {
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

namespace {

/// [min(a.min / y, a.max / y), max(...)]: the quotients of a's ends by one divisor, for a
/// quotient monotonic in its dividend whatever the divisor's sign.
Interval ends_of_quotients(const Interval &a, const Expr &y) {
    Expr lo = make_div(a.min, y), hi = make_div(a.max, y);
    return Interval(make_min(lo, hi), make_max(lo, hi));
}

}  // namespace

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
            // One divisor of unknown sign (x / p, Halide's parameter_constraints): the quotient
            // is monotonic in x either way, so its ends are the two ends' quotients.
            if (a.is_bounded()) return ends_of_quotients(a, b.min);
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
    if (b.is_single_point() && !wraps(t) && is_at_least(b.min, 1)) {
        // One divisor, known to be at least 1 though not a constant (max(w, 1): the length of
        // a row, by which a loop over the rows joined divides): x / y grows with x.
        return Interval(make_div(a.min, b.min), make_div(a.max, b.min));
    }
    if (b.is_single_point() && a.is_bounded() && (t.is_uint() || !wraps(t))) {
        // One divisor of unknown sign: x / y grows with x for y > 0, shrinks for y < 0 and is
        // 0 for y == 0 (an unsigned y is never negative).
        if (t.is_uint()) return Interval(make_div(a.min, b.min), make_div(a.max, b.min));
        return ends_of_quotients(a, b.min);
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
static IntEnds mod_int_ends(IntEnds x, IntEnds y) {
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
    } else if (b.is_single_point() && !wraps(t) && is_at_least(b.min, 1)) {
        hi = make_sub(b.min, make_one(t));
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

}  // namespace dsl::ir::interval_rules
