#pragma once
/// The values each Func of a pipeline can take (ir/Bounds.h, FuncValueBounds), from its
/// definitions, so that bounds inference bounds a coordinate read from a Func (a lookup table
/// indexed by a clamped Func) by what that Func computes rather than by its type's range.

#include "ir/Bounds.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

/// For each Func that gets its own storage: the union of the bounds of its values over every
/// definition, with its pure Vars unbounded and the RVars of an update over their domain (an
/// update's read of the Func itself counts as its type's range). A Func whose bounds depend on
/// anything but constants and Params is left out (its type's range applies).
ir::FuncValueBounds func_value_bounds(const Environment &env);

}  // namespace dsl::lowering
