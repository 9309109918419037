#pragma once
/// Reductions written inline: the RDom they reduce over is the one `e` uses.
///
///   blurred(x) = sum(input(x + r)) / 5;           // with RDom r(-2, 5)
///   Tuple best = argmax(score(r.x, r.y));          // {r.x, r.y, score} at the maximum
///
/// Each makes an anonymous Func over the pure Vars `e` uses, with one update over the RDom. As
/// in Halide, that Func is computed inside the innermost loop of the Func that reads it (the
/// outer loop of a vectorized one): each point's reduction runs where the point is used, and
/// Funcs computed at the reader's loops (`clamped.compute_at(spread, yi)` where spread reads
/// clamped through maximum()) are computed outside it. Unlike Halide, loops inside that the
/// reduction does not depend on are skipped: `out(c, x) = in(c, x) / sum(in(r, x))` computes
/// the sum once per x, not once per c. Read by several Funcs, or of no dimension, it is
/// computed at root.

#include <string>

#include "dsl/Expr.h"
#include "dsl/Func.h"
#include "dsl/RDom.h"

namespace dsl {

Expr sum(const Expr &e, const std::string &name = "sum");
Expr product(const Expr &e, const std::string &name = "product");
Expr maximum(const Expr &e, const std::string &name = "maximum");
Expr minimum(const Expr &e, const std::string &name = "minimum");
/// The coordinates of the first point (in iteration order) where `e` is largest, then the value:
/// a Tuple of the RDom's dimensions + 1 elements.
Tuple argmax(const Expr &e, const std::string &name = "argmax");
Tuple argmin(const Expr &e, const std::string &name = "argmin");

/// The same, with the reduction held in the user's Func `f` (undefined until this call), so
/// that it can be scheduled: `min_y(x, y) = minimum(g(x, y + r), inner); inner.update().unroll(r);`
/// It is computed innermost, like the anonymous one, unless `f` was given a placement.
Expr sum(const Expr &e, const Func &f);
Expr product(const Expr &e, const Func &f);
Expr maximum(const Expr &e, const Func &f);
Expr minimum(const Expr &e, const Func &f);

/// The same over an explicit RDom `r`, which `e` need not use: every other variable of `e`
/// (pure Vars, and the RVars of other RDoms, such as an enclosing reduction's) becomes an
/// argument of the anonymous Func, so reductions nest:
///   f(x) = sum(r1, g(r1, r2) * x);        // over r1, for each x and each r2 of an outer loop
Expr sum(const RDom &r, const Expr &e, const std::string &name = "sum");
Expr product(const RDom &r, const Expr &e, const std::string &name = "product");
Expr maximum(const RDom &r, const Expr &e, const std::string &name = "maximum");
Expr minimum(const RDom &r, const Expr &e, const std::string &name = "minimum");
Tuple argmax(const RDom &r, const Expr &e, const std::string &name = "argmax");
Tuple argmin(const RDom &r, const Expr &e, const std::string &name = "argmin");

}  // namespace dsl
