#pragma once
/// The arithmetic of splits, shared by the loop nest builder and bounds inference: how each
/// split maps its new loops back to the variable it splits, the ranges of the new loops, and
/// which values the original variables take when a tail is rounded up or shifted inwards.

#include <map>
#include <string>

#include "ir/Interval.h"
#include "lang/Function.h"

namespace dsl::lowering {

using dsl::Expr;

/// The range of a loop variable: its first value and its number of iterations.
struct LoopRange {
    Expr min, extent;
};

/// The value of the split variable given its range before the split and the new loops:
///   GuardWithIf, RoundUp: min + outer * factor + inner
///   ShiftInwards:         min + min(outer * factor, extent - factor) + inner
Expr split_value(const schedule::Split &split, const LoopRange &old, const Expr &outer,
                 const Expr &inner);

/// Updates `ranges` (by the stage's short loop names) for one split, fuse or rename.
void apply_split_to_ranges(const schedule::Split &split, std::map<std::string, LoopRange> &ranges);

/// Which regions `<loop>.min` / `<loop>.max` stand for in split_footprints: `Any` (bounds taken
/// over the union of the regions of many iterations of a consumer's loop, where one iteration's
/// region may be smaller than a split's factor) or `One` (the region of the iteration at hand).
enum class Regions { Any, One };

/// The intervals of values that a stage's original variables (pure Vars and RVars, by short
/// name) take over its loops, in terms of their `<loop>.min` / `<loop>.max` bounds, for the
/// variables whose splits round up or shift inwards; the others take exactly [min, max] and are
/// not listed. For a Func computed inside a consumer's loop, `Regions::Any` widens each by how
/// far a rounding split reaches past a region smaller than its factor (rounding_overshoot).
std::map<std::string, ir::Interval> split_footprints(const lang::Function &f, int stage,
                                                     Regions regions = Regions::Any);

/// How far a stage's loops reach before (ShiftInwards) and after (RoundUp) the region they are
/// asked for in the variable `var`, whatever its size: a rounding split of an outer loop moves
/// by whole factors of the splits inside it. Zero without such splits.
struct Overshoot {
    Expr before, after;
};
Overshoot rounding_overshoot(const schedule::StageSchedule &schedule, const std::string &var);

/// Whether a stage of `f` (or a specialization of one) has a split that rounds up or shifts
/// inwards.
bool has_rounding_split(const lang::Function &f);

}  // namespace dsl::lowering
