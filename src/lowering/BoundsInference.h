#pragma once
#include "ir/IR.h"
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

}  // namespace dsl::lowering
