#include "ir/Interval.h"

#include <cmath>
#include <optional>
#include <ostream>

#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IntervalArithmetic.h"

namespace dsl::ir {

namespace {

/// -1, 0 or 1 when both are constants of one type, else nothing.
std::optional<int> compare_constants(const Expr &a, const Expr &b) {
    if (auto x = as_const_int(a)) {
        if (auto y = as_const_int(b)) return *x < *y ? -1 : *x > *y ? 1 : 0;
    }
    if (auto x = as_const_uint(a)) {
        if (auto y = as_const_uint(b)) return *x < *y ? -1 : *x > *y ? 1 : 0;
    }
    if (auto x = as_const_float(a)) {
        if (auto y = as_const_float(b)) {
            if (*x < *y) return -1;
            if (*x > *y) return 1;
            if (*x == *y) return 0;
        }
    }
    return std::nullopt;
}

/// Of two equal constants, the one with the sign bit set when `negative` (so that the hull of
/// -0.0 and +0.0 is [-0.0, +0.0], not a single point).
const Expr &pick_zero(const Expr &a, const Expr &b, bool negative) {
    auto f = as_const_float(a);
    return f && std::signbit(*f) == negative ? a : b;
}

// Constants are compared here, so that the hull of -0.0 and +0.0 is not a single point; the
// rest (folding x + 1 against x, and so on) is shared with the interval rules.
Expr fold_min(const Expr &a, const Expr &b) {
    if (auto c = compare_constants(a, b)) return *c < 0 ? a : *c > 0 ? b : pick_zero(a, b, true);
    return interval_rules::make_min(a, b);
}

Expr fold_max(const Expr &a, const Expr &b) {
    if (auto c = compare_constants(a, b)) return *c > 0 ? a : *c < 0 ? b : pick_zero(a, b, false);
    return interval_rules::make_max(a, b);
}

}  // namespace

Interval Interval::nothing() {
    Interval i;
    i.empty = true;
    return i;
}

Interval Interval::single_point(const Expr &e) {
    internal_assert(e.defined() && e.type().is_scalar()) << "single_point of " << e;
    return Interval(e, e);
}

bool Interval::is_single_point() const {
    return !empty && min.defined() && max.defined() && (min.same_as(max) || equal(min, max));
}

bool Interval::is_single_point(const Expr &e) const {
    return is_single_point() && (min.same_as(e) || equal(min, e));
}

Interval Interval::make_union(const Interval &a, const Interval &b) {
    if (a.empty) return b;
    if (b.empty) return a;
    Interval r;
    if (a.min.defined() && b.min.defined()) r.min = fold_min(a.min, b.min);
    if (a.max.defined() && b.max.defined()) r.max = fold_max(a.max, b.max);
    return r;
}

Interval Interval::make_intersection(const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return nothing();
    Interval r;
    r.min = !a.min.defined() ? b.min : !b.min.defined() ? a.min : fold_max(a.min, b.min);
    r.max = !a.max.defined() ? b.max : !b.max.defined() ? a.max : fold_min(a.max, b.max);
    if (r.min.defined() && r.max.defined()) {
        auto c = compare_constants(r.min, r.max);
        if (c && *c > 0) return nothing();
    }
    return r;
}

std::ostream &operator<<(std::ostream &os, const Interval &i) {
    if (i.empty) return os << "[]";
    os << '[';
    if (i.min.defined()) {
        os << i.min;
    } else {
        os << "-inf";
    }
    os << ", ";
    if (i.max.defined()) {
        os << i.max;
    } else {
        os << "+inf";
    }
    return os << ']';
}

bool equal(const Interval &a, const Interval &b) {
    if (a.empty || b.empty) return a.empty == b.empty;
    auto same = [](const Expr &x, const Expr &y) {
        return x.defined() == y.defined() && (!x.defined() || equal(x, y));
    };
    return same(a.min, b.min) && same(a.max, b.max);
}

}  // namespace dsl::ir
