#pragma once
/// `Var`: a named int32 dimension variable of a Func (`x`, `y`, `c`, ...).

#include <string>

#include "dsl/Expr.h"

namespace dsl {

class Var {
  public:
    /// A variable with a fresh unique name ("v0", "v1", ...).
    Var();
    explicit Var(const std::string &name);

    const std::string &name() const { return name_; }
    /// The variable as an int32 expression.
    operator Expr() const;  // NOLINT: implicit by design, so that `x + 1` works
    bool same_as(const Var &o) const { return name_ == o.name_; }

  private:
    std::string name_;
};

}  // namespace dsl
