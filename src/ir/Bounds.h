#pragma once
/// Interval analysis: the range of values an expression can take, given ranges for its free
/// variables. Bounds inference (DESIGN.md §3, step 3) uses it to find the region of each Func
/// that its consumers read.

#include <map>
#include <string>
#include <utility>

#include "ir/IR.h"
#include "ir/Interval.h"
#include "ir/Scope.h"

namespace dsl::ir {

/// The interval of every value of `e` (every lane, for a vector) when each variable named in
/// `scope` takes any value of its interval. Variables not in `scope` are symbols: a scalar one
/// is its own single point `[x, x]`, so the result may mention it; a vector one is bounded by
/// its smallest and largest lanes (`VectorReduce` Min/Max to one lane). Names bound by Lets
/// inside `e` never appear in the result: a cheap bound (constant or variable) is substituted,
/// any other is named `<let name>.min` / `.max` and the end is wrapped in a Let of it.
///
/// The result is sound under the semantics of include/dsl/Expr.h:
///  - Types that wrap (integers narrower than 32 bits, every unsigned type) get their full
///    range whenever wrapping cannot be ruled out; when the exact range crosses no wrap
///    boundary, the wrapped range is given instead (`uint8 x + 200` for x in [100, 150] is
///    [44, 94]). Shifts and integer casts wrap in every type, and are treated so.
///  - 32- and 64-bit signed arithmetic is assumed not to overflow: a constant end that would is
///    clamped to the type's range. (Symbolic ends are built from the operands' ends; in rare
///    cases, such as a Ramp with a symbolic stride, evaluating such an end could overflow where
///    the program itself does not.)
///  - Integer types are always bounded: where nothing better is known the result is the type's
///    range, as constants. Float intervals may be unbounded (undefined ends); an end that
///    would be infinite is left undefined.
///  - NaN: a float interval bounds the values that are not NaN. In addition, when every
///    variable in `scope` has a non-NaN value, a float interval whose two ends are constants
///    guarantees that the value is finite and not NaN (so comparisons of such values get exact
///    bounds). Comparisons of floats with other intervals are [false, true].
///  - A single point `[p, p]` is exact: the value is `p`, bit for bit (a float zero whose sign
///    is not known is [-0.0, +0.0], not a point).
///  - Loads, and calls other than the understood intrinsics, are their type's range.
///  - Select: each side is bounded knowing its condition, where a scalar condition compares an
///    integer variable of the scope and that narrows it to constant ends (`select(x < 0, 0, x)`
///    for x in [-5, 5] is [0, 5]); a side that cannot happen is left out.
///
/// Constant parts are folded, so a constant scope gives constant ends where possible. The same
/// pure expression on both sides of an operation is recognised (`x - x` is 0, `x / x` is in
/// [0, 1]); other correlations between operands are not (`(x + 1) - x` with x in [0, 10] is
/// [-9, 11]): that is the simplifier's job.
Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope);

/// `bounds_of_expr_in_scope` with an empty scope.
Interval bounds_of_expr(const Expr &e);

/// The values each Func can take, by name and value index: a call of a Func listed here is
/// bounded by its entry rather than by its type's range (`g(h(x))` with h = clamp(x, 0, 9)
/// computed at root reads g over [0, 9]). The ends must not mention the Func's own variables.
using FuncValueBounds = std::map<std::pair<std::string, int>, Interval>;

/// Makes `bounds` what every bounds_of_expr_in_scope call on this thread uses, until the
/// object is destroyed (lowering sets it while it lowers a pipeline).
class ScopedFuncValueBounds {
  public:
    explicit ScopedFuncValueBounds(const FuncValueBounds *bounds);
    ~ScopedFuncValueBounds();
    ScopedFuncValueBounds(const ScopedFuncValueBounds &) = delete;
    ScopedFuncValueBounds &operator=(const ScopedFuncValueBounds &) = delete;

  private:
    const FuncValueBounds *previous_;
};

}  // namespace dsl::ir
