#pragma once
/// random_float / random_int / random_uint (dsl/Random.h): a Random intrinsic stands for each
/// call until a definition replaces it by the hash of the point's coordinates.

#include <vector>

#include "dsl/Expr.h"

namespace dsl::lang {

/// `e` with each Random intrinsic replaced by the hash of `coordinates` (the left side's
/// arguments, then an update's RVars), the call's seed and its number.
Expr lower_random(const Expr &e, const std::vector<Expr> &coordinates);

}  // namespace dsl::lang
