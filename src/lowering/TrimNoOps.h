#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Shrinks scalar loops to the iterations that change something. A serial or parallel loop
/// whose body (under lets) is one store that leaves memory as it is where a condition fails,
///
///   f[i] = f[i] + select(c, v, 0)      (integers; also f[i] - select(c, v, 0), and the
///                                        select's arms the other way round with !c)
///   f[i] = select(c, v, f[i])          (any type; or select(c, f[i], v) with !c)
///
/// runs only over the range of its variable where each linear comparison among c's conjuncts
/// holds (`x > -t && x < t` with t invariant in the loop: from -t + 1 to t - 1, within the
/// loop's own bounds). The iterations left out stored what was there, so the results are the
/// same; what they would have read (a traced load, a costly value) is no longer computed.
/// Halide calls this trimming no-ops (its iterate_over_circle test: an update over a disk
/// written as a select over a square).
Stmt trim_no_ops(const Stmt &s);

}  // namespace dsl::lowering
