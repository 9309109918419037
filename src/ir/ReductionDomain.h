#pragma once
/// The data behind `RDom`: a box of reduction variables and an optional predicate (`where`).
///
/// A `ReductionDomain` is a handle, usually strong. Each reduction variable (`Variable` with
/// `reduction_domain` set) holds one, and so does every update that iterates over the domain. The
/// predicate is an expression of the domain's own variables, so the copy the domain stores refers
/// to the domain weakly (a strong reference would be a cycle that is never freed); `predicate()`
/// hands out a copy whose references are all strong again.

#include <memory>
#include <string>
#include <vector>

#include "dsl/Expr.h"

namespace dsl::ir {

class IRVisitor;
class IRMutator;

struct ReductionVariable {
    std::string var;
    Expr min, extent;
};

class ReductionDomain {
  public:
    ReductionDomain() = default;
    explicit ReductionDomain(std::vector<ReductionVariable> domain);

    /// Whether it refers to a domain (true for a weak reference whose domain is gone, too).
    bool defined() const { return strong_ != nullptr || is_weak_; }
    /// The variables, innermost (fastest varying) first.
    const std::vector<ReductionVariable> &domain() const { return contents().domain; }
    /// The conjunction of every `where` condition; const true when there is none. It refers to
    /// Funcs and domains (this one included) strongly.
    Expr predicate() const;
    void add_predicate(const Expr &condition);
    /// Set once the domain is used by a definition; `where` is refused after that.
    bool frozen() const { return contents().frozen; }
    void freeze() const { contents().frozen = true; }
    /// Whether both refer to the same domain (weak or strong, even once it is gone).
    bool same_as(const ReductionDomain &o) const;
    /// The domain's identity, for maps; null when undefined or gone.
    const void *id() const;

    bool is_weak() const { return is_weak_; }
    /// A weak reference to the domain whose contents are gone.
    bool expired() const { return is_weak_ && weak_.expired(); }
    /// The same reference, weak.
    ReductionDomain weakened() const;
    /// The same reference, strong (undefined if a weak one has expired).
    ReductionDomain strengthened() const;

    /// Walks the bounds and the predicate as the domain stores them, so that the visitor sees
    /// the references the domain itself holds.
    void visit_contents(IRVisitor &visitor) const;
    /// Replaces the bounds and the stored predicate by what `mutator` makes of them. The mutator
    /// must keep their meaning; it may only change how they refer to Funcs and domains.
    void rewrite_references(IRMutator &mutator) const;

  private:
    struct Contents {
        std::vector<ReductionVariable> domain;
        /// Refers to this domain weakly; see the comment at the top.
        Expr predicate;
        bool frozen = false;
    };
    Contents &contents() const;
    std::weak_ptr<Contents> as_weak() const { return strong_ ? strong_ : weak_; }

    std::shared_ptr<Contents> strong_;
    std::weak_ptr<Contents> weak_;
    bool is_weak_ = false;
};

}  // namespace dsl::ir
