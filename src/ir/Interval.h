#pragma once
/// Closed intervals whose ends are expressions: the vocabulary of bounds inference.

#include <iosfwd>

#include "ir/IR.h"

namespace dsl::ir {

/// The closed interval `[min, max]` of the values an expression can take. The ends are scalar
/// Exprs of the expression's element type, constant or symbolic. An undefined end means that
/// side is unbounded (−∞ for `min`, +∞ for `max`).
///
/// An interval of a vector expression bounds every lane. An interval of a bool expression has
/// bool ends (false < true). For floats, an interval bounds the values that are not NaN; see
/// `bounds_of_expr_in_scope` for when NaN is excluded.
///
/// The empty interval (`nothing()`) is marked by `empty`, not by its ends: symbolic ends can
/// rarely be ordered, so "min > max" cannot serve as the marker.
struct Interval {
    Expr min, max;
    /// The interval holds no value at all; `min` and `max` are then undefined and meaningless.
    bool empty = false;

    Interval() = default;
    Interval(Expr lo, Expr hi) : min(std::move(lo)), max(std::move(hi)) {}

    /// (−∞, +∞).
    static Interval everything() { return Interval(); }
    /// The empty interval, the identity of `make_union`.
    static Interval nothing();
    /// `[e, e]`; `e` must be a scalar.
    static Interval single_point(const Expr &e);

    bool is_empty() const { return empty; }
    bool is_everything() const { return !empty && !min.defined() && !max.defined(); }
    bool has_lower_bound() const { return !empty && min.defined(); }
    bool has_upper_bound() const { return !empty && max.defined(); }
    /// Both ends are defined (or the interval is empty).
    bool is_bounded() const { return empty || (min.defined() && max.defined()); }
    /// Both ends are defined and the same expression (compared structurally).
    bool is_single_point() const;
    /// Both ends are defined and are the same expression as `e`.
    bool is_single_point(const Expr &e) const;

    /// The smallest interval holding both (the hull: the gap between two disjoint intervals is
    /// included). Ends are combined with `min`/`max` expressions folded where constant.
    static Interval make_union(const Interval &a, const Interval &b);
    /// The values in both. Empty only when that is provable from constant ends.
    static Interval make_intersection(const Interval &a, const Interval &b);
};

/// Prints `[min, max]`, with `-inf`/`+inf` for missing ends and `[]` for the empty interval.
std::ostream &operator<<(std::ostream &os, const Interval &i);

/// The structural equality of the two intervals (ends compared with `equal`).
bool equal(const Interval &a, const Interval &b);

}  // namespace dsl::ir
