#pragma once
/// The data behind `RDom`: a box of reduction variables and an optional predicate (`where`).

#include <memory>
#include <string>
#include <vector>

#include "dsl/Expr.h"

namespace dsl::ir {

struct ReductionVariable {
    std::string var;
    Expr min, extent;
};

class ReductionDomain {
  public:
    ReductionDomain() = default;
    explicit ReductionDomain(std::vector<ReductionVariable> domain);

    bool defined() const { return contents_ != nullptr; }
    /// The variables, innermost (fastest varying) first.
    const std::vector<ReductionVariable> &domain() const { return contents_->domain; }
    /// The conjunction of every `where` condition; const true when there is none.
    const Expr &predicate() const { return contents_->predicate; }
    void add_predicate(const Expr &condition);
    /// Set once the domain is used by a definition; `where` is refused after that.
    bool frozen() const { return contents_->frozen; }
    void freeze() const { contents_->frozen = true; }
    bool same_as(const ReductionDomain &o) const { return contents_ == o.contents_; }

  private:
    struct Contents {
        std::vector<ReductionVariable> domain;
        Expr predicate;
        bool frozen = false;
    };
    std::shared_ptr<Contents> contents_;
};

}  // namespace dsl::ir
