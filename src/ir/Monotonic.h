#pragma once
/// How an integer expression changes as one variable grows: the test sliding windows and
/// storage folding use to know that a producer's region only moves forward.

#include <string>

#include "ir/IR.h"

namespace dsl::ir {

enum class Monotonic : uint8_t {
    Constant,    ///< does not depend on the variable
    Increasing,  ///< never decreases when the variable grows
    Decreasing,  ///< never increases when the variable grows
    Unknown,
};

/// The direction of `e` in the variable `var` (with every other variable fixed). Exact for sums,
/// products and quotients by constants, min, max, selects on conditions that do not depend on
/// `var`, lets and widening casts; anything else that uses `var` is Unknown.
Monotonic is_monotonic(const Expr &e, const std::string &var);

const char *to_string(Monotonic m);

}  // namespace dsl::ir
