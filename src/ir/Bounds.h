#pragma once
/// Interval analysis: the range of values an expression can take, given ranges for its free
/// variables. Bounds inference (DESIGN.md §3, step 3) uses it to find the region of each Func
/// that its consumers read.

#include "ir/IR.h"
#include "ir/Interval.h"
#include "ir/Scope.h"

namespace dsl::ir {

/// The interval of every value of `e` (every lane, for a vector) when each variable named in
/// `scope` takes any value of its interval. Variables not in `scope` are symbols: a scalar one
/// is its own single point `[x, x]`, so the result may mention it.
///
/// The result is sound under the semantics of include/dsl/Expr.h:
///  - Types that wrap (integers narrower than 32 bits, every unsigned type) get their full
///    range whenever wrapping cannot be ruled out; when the exact range crosses no wrap
///    boundary, the wrapped range is given instead (`uint8 x + 200` for x in [100, 150] is
///    [44, 94]).
///  - 32- and 64-bit signed arithmetic is assumed not to overflow; a constant end that would is
///    clamped to the type's range.
///  - Integer types are always bounded: where nothing better is known the result is the type's
///    range, as constants. Float intervals may be unbounded (undefined ends); an end that
///    would be infinite is left undefined.
///  - NaN: a float interval bounds the values that are not NaN. In addition, when every
///    variable in `scope` has a non-NaN value, a float interval whose two ends are constants
///    guarantees that the value is not NaN (so comparisons of such values have exact bounds).
///    Comparisons of floats with symbolic, one-sided or unbounded intervals are [false, true].
///  - Loads, and calls other than the understood intrinsics, are their type's range.
///
/// Constant parts are folded, so a constant scope gives constant ends where possible.
Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope);

/// `bounds_of_expr_in_scope` with an empty scope.
Interval bounds_of_expr(const Expr &e);

}  // namespace dsl::ir
