#pragma once
/// Constant upper bounds of sizes that the simplifier alone cannot bound: the extent of a
/// region clamped at both ends, min(c + 17, m) - min(c, m) + 1, whose two sides have no bounds
/// though their difference does. Used for the storage and thread counts of GPU kernels, which
/// need constants.

#include <cstdint>
#include <optional>

#include "ir/IR.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

/// Bounds of this size or more say nothing (they come from the type's own range; no GPU block
/// or thread holds that much).
constexpr int64_t kLooseBound = int64_t(1) << 24;

/// A constant upper bound of the integer expression `e` (below kLooseBound), where the loop
/// variables in `loops` lie within their bounds: the smaller of the simplifier's and one found
/// by taking sums and differences apart at their mins and maxes (min(h, m) - min(l, m) is at
/// most max(h - l, 0) whatever m is). Empty when neither finds one.
std::optional<int64_t> constant_upper_bound(const Expr &e,
                                            const ir::Scope<ir::ConstantBounds> &loops);

}  // namespace dsl::lowering
