#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Replaces every loop marked `Vectorized` (its extent must be a constant by now) by its body
/// with the loop variable turned into a ramp of that many lanes: loads and stores become vector
/// loads and stores (dense, strided or gathers, as the index says), arithmetic becomes vector
/// arithmetic, and conditions that differ between lanes (a split's tail) predicate the stores and
/// loads under them. A body this pass cannot widen (an extern call, an allocation, a loop whose
/// bounds depend on the vectorized variable, ...) keeps a serial loop, with a warning that says
/// why.
Stmt vectorize_loops(const Stmt &s);

}  // namespace dsl::lowering
