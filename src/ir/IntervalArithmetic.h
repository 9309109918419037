#pragma once
/// The rules of the interval analysis for one operation at a time, and the helpers that build
/// interval ends. `bounds_of_expr_in_scope` (Bounds.cpp) walks the IR and applies these; they
/// are internal to that analysis. The guarantees (wrapping, overflow, NaN) are those stated in
/// Bounds.h.
///
/// Each rule takes the intervals of the operands and the element type of the result and tries,
/// in order: constant ends (computed exactly in 128 bits, then wrapped or clamped into the
/// type), two single points (the operation applied to the points: exact, even where the type
/// wraps), and symbolic ends (only where the type cannot wrap or the operation cannot overflow).

#include <optional>
#include <utility>

#include "ir/IR.h"
#include "ir/Interval.h"

namespace dsl::ir::interval_rules {

__extension__ typedef __int128 int128;

// ---------------------------------------------------------------------------------------------
// Types and constants

/// Integers narrower than 32 bits and all unsigned integers wrap on overflow.
bool wraps(Type t);
/// The range of an integer type, exactly.
int128 lowest(Type t);
int128 highest(Type t);
/// The value of an integer constant (scalar or broadcast).
std::optional<int128> const_int(const Expr &e);
std::optional<double> const_float(const Expr &e);
/// The constant `v` of the integer type `t`; `v` must fit.
Expr int_const(Type t, int128 v);
/// `v` rounded to the float type `t`, as the semantics round every float operation.
double round_to(Type t, double v);
/// A float end: rounded to `t`; infinities and NaN give an undefined (unbounded) end.
Expr float_end(Type t, double v);
int128 floor_div(int128 a, int128 b);  ///< Euclidean; 0 for b == 0
int128 abs128(int128 v);
/// An integer converted to a float type exactly as the semantics round it.
double int_to_float(int128 v, Type to);

/// Integer types: the type's range as constants. Bool: [false, true]. Others: everything.
Interval type_range(Type t);
/// The interval of an exact integer result [lo, hi] stored in `t`: itself if it fits; for a
/// wrapping type (or every type with `always_wraps`, for shifts and casts) the wrapped range if
/// it crosses no wrap boundary, else the type's range; clamped for 32/64-bit signed types,
/// whose overflow is undefined.
Interval from_exact(Type t, int128 lo, int128 hi, bool always_wraps = false);

struct IntEnds {
    int128 lo, hi;
};
struct FloatEnds {
    double lo, hi;
};
/// The ends of an interval when both are constants.
std::optional<IntEnds> int_ends(const Interval &i);
std::optional<FloatEnds> float_ends(const Interval &i);
/// A float interval from constant ends; a zero-width interval at zero becomes [-0.0, +0.0].
Interval float_interval(Type t, double lo, double hi);

/// Applies a monotonic (non-decreasing) math function to constant float ends.
template <typename F>
Interval monotonic_float(Type t, FloatEnds x, F f) {
    return float_interval(t, f(x.lo), f(x.hi));
}

// ---------------------------------------------------------------------------------------------
// Building ends. Every end goes through these: they fold constants and a few obvious
// identities, so results read simply; the lead can route them through `simplify` here later.
// An undefined operand gives an undefined (unbounded) end.

Expr make_add(const Expr &a, const Expr &b);
Expr make_sub(const Expr &a, const Expr &b);
Expr make_mul(const Expr &a, const Expr &b);
Expr make_div(const Expr &a, const Expr &b);
Expr make_neg(const Expr &a);
Expr make_min(const Expr &a, const Expr &b);
Expr make_max(const Expr &a, const Expr &b);
/// Min/max of two lower (upper) ends, where undefined means −∞ (+∞).
Expr min_of_lower(const Expr &a, const Expr &b);
Expr max_of_upper(const Expr &a, const Expr &b);
Expr max_of_lower(const Expr &a, const Expr &b);
Expr min_of_upper(const Expr &a, const Expr &b);
Expr make_cmp(IRNodeType kind, const Expr &a, const Expr &b);
Expr make_and(const Expr &a, const Expr &b);
Expr make_or(const Expr &a, const Expr &b);
Expr make_not(const Expr &a);
Expr make_select(const Expr &c, const Expr &a, const Expr &b);
Expr make_cast(Type t, const Expr &e);

/// Whether an end is provably >= 0 (<= 0); for an interval, its lower (upper) end.
bool is_nonneg(const Expr &e);
bool is_nonpos(const Expr &e);
bool nonneg(const Interval &i);
bool nonpos(const Interval &i);

Interval point(const Expr &e);
bool both_points(const Interval &a, const Interval &b);
/// A bool interval with missing ends filled in with false / true.
Interval bool_interval(Interval i);
Interval bool_range();

// ---------------------------------------------------------------------------------------------
// Rules. `t` is the element type of the result.

Interval add_intervals(Type t, const Interval &a, const Interval &b);
Interval sub_intervals(Type t, const Interval &a, const Interval &b);
Interval mul_intervals(Type t, const Interval &a, const Interval &b);
/// Euclidean division; x / 0 == 0.
Interval div_intervals(Type t, const Interval &a, const Interval &b);
/// Euclidean remainder; x % 0 == 0.
Interval mod_intervals(Type t, const Interval &a, const Interval &b);
Interval min_max_intervals(bool is_min, const Interval &a, const Interval &b);
/// A bool interval: the lower end says "certainly true", the upper "possibly true". `operand`
/// is the operands' element type.
Interval compare_intervals(IRNodeType kind, Type operand, const Interval &a, const Interval &b);
/// And, or, xor of constant integer ranges, exactly representable results.
IntEnds bitwise_int_ends(Call::Intrinsic op, IntEnds x, IntEnds y);
/// Shifting `x` left (or right) by every amount in `s` (negative amounts shift the other way).
Interval shift_int_ends(bool left, Type t, IntEnds x, IntEnds s);

}  // namespace dsl::ir::interval_rules
