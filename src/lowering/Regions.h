#pragma once
/// The regions a stage touches: boxes (one interval per dimension) of the coordinates at which
/// it calls a Func or an input, or at which it writes its own Func. Shared by bounds inference
/// and the buffer checks.

#include <string>
#include <vector>

#include "ir/Interval.h"
#include "ir/Scope.h"
#include "lowering/Environment.h"
#include "lowering/SplitRanges.h"

namespace dsl::lowering {

using ir::Stmt;

using Box = std::vector<ir::Interval>;

/// Unions `b` into `a` dimension by dimension (`a` may be empty: it then becomes `b`).
void merge_boxes(Box &a, const Box &b);

/// The box of coordinates at which stage `stage` of `consumer` calls `callee` (a Func or an
/// input, by name), with the stage's loops ranging over their (symbolic) bounds
/// `<loop>.min`..`<loop>.max` and RVars over their RDom. Empty if it never calls it. With
/// `through_selects`, a call in a branch of a select counts only where the branch is taken
/// (`select(x < 100, f(x), g(x))` reads f at x < 100): what must be computed, not what is
/// loaded (both branches are loaded, and the storage must hold the whole box).
Box box_of_calls(const lang::Function &consumer, int stage, const std::string &callee,
                 bool through_selects = false);

/// Whether stage `stage` of `consumer` calls the Func `callee` (in its arguments, values or
/// conditions). Not the same as a non-empty box_of_calls: a Func of no dimensions has an empty
/// box wherever it is called.
bool stage_calls(const lang::Function &consumer, int stage, const std::string &callee);
/// Whether some stage of `consumer` calls the Func `callee` (stage_calls).
bool func_calls(const lang::Function &consumer, const std::string &callee);

/// The box of coordinates at which `exprs` call `callee`, with the variables of `scope` ranging
/// over their intervals.
Box box_of_calls_in(const std::vector<Expr> &exprs, const std::string &callee,
                    const ir::Scope<ir::Interval> &scope);

/// The box of coordinates stage `stage` of `f` writes, its loops' bounds standing for the
/// `regions` given (see split_footprints).
Box box_of_writes(const lang::Function &f, int stage, Regions regions = Regions::Any);

/// Throws a CompileError if some dimension of `box` is unbounded.
void require_bounded(const Box &box, const std::string &callee, const std::string &consumer);

}  // namespace dsl::lowering
