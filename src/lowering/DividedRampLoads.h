#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Rewrites vector loads at `ramp(b, 1, n) / k + c` (k = 2, 3 or 4: an upsampling's f(x / 2))
/// as one dense load of the elements the lanes read, masked to exactly those, and a shuffle that
/// repeats each element k times; which shuffle depends on b mod k, chosen at run time. Without
/// this every such load is a gather.
Stmt dense_loads_of_divided_ramps(const Stmt &s);

}  // namespace dsl::lowering
