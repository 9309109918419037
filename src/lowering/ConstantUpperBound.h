#pragma once
/// Constant upper bounds of sizes that the simplifier alone cannot bound: the extent of a
/// region clamped at both ends, min(c + 17, m) - min(c, m) + 1, whose two sides have no bounds
/// though their difference does. Used for the storage and thread counts of GPU kernels, which
/// need constants.

#include <cstdint>
#include <functional>
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

/// Whether the host can evaluate an expression before a GPU launch (it names nothing bound
/// inside the kernel).
using HostKnown = std::function<bool(const Expr &)>;

/// An upper bound of `e` as constant_upper_bound finds one, where the parts that have no
/// constant bound may be expressions that `known` accepts: the extent of a tile of a size
/// given by a Param, clamped at the image's edges, min(c + t, m) - min(c, m) + 1, is at most
/// max(t, 0) + 1. Simplified; empty where there is no such bound.
std::optional<Expr> host_upper_bound(const Expr &e, const ir::Scope<ir::ConstantBounds> &loops,
                                     const HostKnown &known);

}  // namespace dsl::lowering
