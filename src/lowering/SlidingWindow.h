#pragma once
/// Sliding windows and storage folding (DESIGN.md §3): when a producer is stored outside the
/// loop it is computed in, each iteration of that loop need only compute the points earlier
/// iterations have not, and, when its region only moves forward along one dimension, its
/// storage need only hold the last few rows (a circular buffer).

#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Interval.h"
#include "lang/Function.h"

namespace dsl::lowering {

using dsl::Expr;
using ir::Stmt;

/// A loop of the consumer between a producer's store level (excluded) and its compute level
/// (included), innermost first.
struct EnclosingLoop {
    std::string var;  ///< the loop variable's full name, e.g. "f.s0.y"
    Expr min;         ///< its first value (of the whole loop, also when it is partitioned)
    ir::ForType for_type;
};

/// A producer dimension kept in a circular buffer of `factor` (a power of two) values.
struct Fold {
    int dimension = -1;
    int factor = 0;
};

/// What sliding did for one producer, for the loop nest printout and the storage.
struct SlideResult {
    bool slid = false;
    std::string over;  ///< the loops slid over, outermost first ("a and b")
    Fold fold;         ///< dimension -1 when the storage is not folded
};

/// Rewrites the bounds `lets` (as func_bounds made them for `producer`, computed per iteration
/// of the innermost of `loops` over the `required` box) so that each iteration computes only
/// what previous iterations did not. It slides over the outermost loop where that is safe
/// (exactly one dimension of the box depends on that loop; every stage of the producer covers
/// the same region along it; both of its ends never decrease as the loop advances, or both never
/// increase, a region moving backward, which is not folded; and the loop runs in order: serial or
/// unrolled), then over loops further in that move another dimension the same way (a new row, a
/// column at a time: each point once). Then picks a fold factor for the outermost slid dimension
/// of a producer without updates when its extent per iteration has a constant bound.
SlideResult slide_window(const lang::Function &producer, const std::vector<ir::Interval> &required,
                         const std::vector<EnclosingLoop> &loops,
                         std::vector<std::pair<std::string, Expr>> &lets);

/// The points of dimension `a` that one computation of `producer` over `required` writes: the
/// region, widened to a bound_extent() window and by what rounding splits write past it. A
/// circular buffer along `a` must hold that many.
Expr fold_footprint(const lang::Function &producer, const std::vector<ir::Interval> &required,
                    int a);

/// Folds the storage of `func` in `realize` (bounds and every access in its body) by `fold`.
Stmt fold_storage(const Stmt &realize, const Fold &fold);

}  // namespace dsl::lowering
