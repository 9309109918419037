#pragma once
/// `Var`: a named int32 dimension variable of a Func (`x`, `y`, `c`, ...).

#include <string>
#include <vector>

#include "dsl/Expr.h"

namespace dsl {

class Var {
  public:
    /// A variable with a fresh unique name ("v0", "v1", ...).
    Var();
    explicit Var(const std::string &name);

    /// The loop outside all the loops of a stage: `g.compute_at(f, Var::outermost())` computes
    /// g once per production of f, wherever f is computed (at root, or per iteration of the
    /// loop f is computed at), before f's loops.
    static Var outermost();
    /// The implicit variable number n, named "_n" (what `_` stands for; see below).
    static Var implicit(int n);
    /// Whether `name` is an implicit variable "_0", "_1", ...
    static bool is_implicit(const std::string &name);

    const std::string &name() const { return name_; }
    /// The variable as an int32 expression.
    operator Expr() const;  // NOLINT: implicit by design, so that `x + 1` works
    bool same_as(const Var &o) const { return name_ == o.name_; }

  private:
    std::string name_;
};

/// `_` stands for "the remaining dimensions": in a call, `g(x, _)` is `g(x, _0, _1)` for a
/// Func (or input) of three dimensions; on the left of a definition, `_` stands for the implicit
/// variables the right side uses, in order: `f(_) = g(_) * 2` defines f over as many dimensions
/// as g has. `_0`, `_1`, ... are the implicit variables themselves.
extern const Var _;
extern const Var _0, _1, _2, _3, _4, _5, _6, _7, _8, _9;

namespace detail {
/// `args` with `_` replaced by the implicit variables needed to reach
/// `dimensions` arguments (`what` names the callee in errors); unchanged without a `_`.
std::vector<Expr> expand_remaining_dims(const std::vector<Expr> &args, int dimensions,
                                        const std::string &what);
/// Whether `args` holds `_`.
bool has_remaining_dims(const std::vector<Expr> &args);
}  // namespace detail

}  // namespace dsl
