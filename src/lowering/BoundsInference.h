#pragma once
#include <map>
#include <string>

#include "ir/IR.h"
#include "ir/Interval.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Defines the bounds of every loop and every allocation that `schedule_functions` left as
/// variables, as lets around the pipeline:
///  - an output's stages cover the region of its output buffer;
///  - any other Func's last stage covers the union of what its consumers read; each earlier
///    stage also covers what the later stages read of the Func itself;
///  - a Func's allocation (`f.x.min_realized`, `f.x.extent_realized`) covers its first stage's
///    region and every point its updates write.
/// Consumers' bounds are defined outside their producers', so producers can refer to them.
Stmt bounds_inference(const Environment &env, const Stmt &s);

/// Where the bounds that `func_bounds` defines apply.
enum class BoundsFor {
    Root,       ///< the whole pipeline's region of a Func that is not an output
    Output,     ///< an output's stages, over its buffer
    Iteration,  ///< one iteration of the consumer's loop the Func is computed in
    /// One iteration, as Iteration, whose `required` region is known to lie inside the whole
    /// pipeline's region of the Func (the consumer's loops inside that iteration run only
    /// points of the consumer's own region): not clamped into it, so that a region of
    /// constant size stays visibly so.
    ExactIteration,
    Storage,  ///< the storage of a Func computed further in: every iteration inside it
    /// The storage, as Storage, whose `required` region is known to lie inside the whole
    /// pipeline's region of the Func (as for ExactIteration): not clamped into it.
    ExactStorage,
};

/// The lets (outermost first) that define the loop bounds of every stage of `f` and its
/// allocation, given the `required` region of its last stage. For Iteration and Storage, the
/// region is first clamped to the one that enclosing lets of the same names define (the
/// whole-pipeline bounds, defined at the top). Runtime checks that the Func's bound_extent()s
/// hold what it needs go to `checks` (Root and Iteration). `extents` replaces the extents of
/// bound_extent()s by Var name (an Iteration that computes fewer points: exact_window_realization).
std::vector<std::pair<std::string, Expr>> func_bounds(
    const lang::Function &f, const std::vector<ir::Interval> &required, BoundsFor mode,
    std::vector<Stmt> *checks = nullptr, const std::map<std::string, int> &extents = {});

/// Whether `name` is a let that func_bounds binds to a bound_extent() window of `f`
/// (`<f>.<var>.window_min` or `.window_max`).
bool is_window_let(const lang::Function &f, const std::string &name);

}  // namespace dsl::lowering
