#pragma once
/// The range of one loop variable that a linear condition allows: `3 * v + a <= b` holds exactly
/// for `v <= (b - a) / 3`. Loop partitioning uses it to find where a clamp is exact; the loop
/// nest uses it to run a loop only where an RDom's where() condition holds.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/IR.h"

namespace dsl::lowering {

/// `coeff * var + rest`, with `rest` free of `var`.
struct LinearForm {
    int64_t coeff;
    Expr rest;
};

/// `k * e` or `e * k` with `k` a constant: (k, e). None for another product.
std::optional<std::pair<int64_t, Expr>> constant_factor(const ir::Mul *product);

/// `e` (an Int(32) expression made of +, - and multiplications by constants) as a linear form in
/// `var`. A subexpression without `var` is part of `rest` only where `invariant` accepts it; a
/// variable that `value_of` resolves (a Let's value; undefined for none) is read through.
std::optional<LinearForm> linear_form(
    const Expr &e, const std::string &var, const std::function<bool(const Expr &)> &invariant,
    const std::function<Expr(const std::string &)> &value_of = nullptr);

/// A bound on a variable: `var >= value` (lower) or `var <= value` (upper), an Int(32).
struct VarBound {
    bool lower;
    Expr value;
};

/// The values of v for which `form <= limit` (at_most) or `form >= limit` holds, where `form` is
/// `coeff * v + rest` with coeff nonzero. The arithmetic is in 64 bits, so that bounds anywhere
/// in int32 cannot wrap into a range that holds values where the condition fails; the result is
/// clamped into int32, which can only empty the range.
VarBound solve_linear(const LinearForm &form, const Expr &limit, bool at_most);

/// The parts of a conjunction, in order. A vector's test of scalars, `x8(a && b)`, is split
/// into `x8(a)` and `x8(b)`.
std::vector<Expr> conjuncts(const Expr &e);

/// A comparison `a < b`, `a <= b`, `a > b` or `a >= b` as `a <= b + slack` (at_most) or
/// `a >= b + slack`: `a < b` is `a <= b - 1`.
struct Comparison {
    Expr a, b;
    bool at_most;
    int64_t slack;
};
std::optional<Comparison> as_comparison(const Expr &condition);

/// The bound on `var` that a comparison of Int(32) values (<, <=, >, >=) states, where both sides
/// are linear in `var` with everything else accepted by `invariant`. None for another condition.
std::optional<VarBound> bound_from_condition(const Expr &condition, const std::string &var,
                                             const std::function<bool(const Expr &)> &invariant);

}  // namespace dsl::lowering
