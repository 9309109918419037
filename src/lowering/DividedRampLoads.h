#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Rewrites vector loads at `ramp(b, 1, n) / k + c * (ramp(b, 1, n) % k) + d` (k = 2, 3 or 4,
/// |c| <= 4, d scalar: an upsampling's f(x / 2) has c = 0, its f(x / 2 - 1 + 2 * (x % 2)) has
/// c = 2) as one dense load of the elements the lanes can read, masked to exactly those they read,
/// and a shuffle; which mask and shuffle depends on b mod k, chosen at run time. Without this
/// every such load is a gather.
Stmt dense_loads_of_divided_ramps(const Stmt &s);

}  // namespace dsl::lowering
