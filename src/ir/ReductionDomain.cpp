#include "ir/ReductionDomain.h"

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/References.h"

namespace dsl::ir {

namespace {

/// Makes the reduction variables of `domain` refer to it weakly.
class WeakenSelfReferences : public IRMutator {
  public:
    explicit WeakenSelfReferences(const ReductionDomain &domain)
        : domain_(domain), weak_(domain.weakened()) {}

  protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        const ReductionDomain &d = op->reduction_domain;
        if (!d.defined() || d.is_weak() || !d.same_as(domain_)) return op;
        return Variable::make(op->type, op->name, op->param, weak_);
    }

  private:
    const ReductionDomain &domain_;
    ReductionDomain weak_;
};

}  // namespace

ReductionDomain::ReductionDomain(std::vector<ReductionVariable> domain)
    : strong_(std::make_shared<Contents>()) {
    strong_->domain = std::move(domain);
    strong_->predicate = make_bool(true);
}

ReductionDomain::Contents &ReductionDomain::contents() const {
    if (strong_) return *strong_;
    internal_assert(is_weak_) << "use of an undefined reduction domain";
    std::shared_ptr<Contents> c = weak_.lock();
    internal_assert(c) << "use of a reduction domain that no longer exists";
    // Whoever holds the domain strongly keeps it alive past this function.
    return *c;
}

Expr ReductionDomain::predicate() const {
    std::string vars;
    for (const ReductionVariable &rv : domain())
        vars += (vars.empty() ? "" : ", ") + rv.var;
    return with_strong_references(contents().predicate,
                                  "the where() condition of the RDom of " + vars);
}

void ReductionDomain::add_predicate(const Expr &condition) {
    internal_assert(!frozen()) << "where() on a frozen reduction domain";
    WeakenSelfReferences weaken(*this);
    Expr weak = weaken.mutate(condition);
    Contents &c = contents();
    c.predicate = is_const_true(c.predicate) ? weak : (c.predicate && weak);
}

bool ReductionDomain::same_as(const ReductionDomain &o) const {
    std::weak_ptr<Contents> a = as_weak(), b = o.as_weak();
    return !a.owner_before(b) && !b.owner_before(a);
}

const void *ReductionDomain::id() const {
    return strong_ ? strong_.get() : weak_.lock().get();
}

ReductionDomain ReductionDomain::weakened() const {
    internal_assert(defined()) << "weak reference to an undefined reduction domain";
    ReductionDomain d;
    d.weak_ = as_weak();
    d.is_weak_ = true;
    return d;
}

ReductionDomain ReductionDomain::strengthened() const {
    ReductionDomain d;
    d.strong_ = strong_ ? strong_ : weak_.lock();
    return d;
}

void ReductionDomain::visit_contents(IRVisitor &visitor) const {
    const Contents &c = contents();
    for (const ReductionVariable &rv : c.domain) {
        visitor.include(rv.min);
        visitor.include(rv.extent);
    }
    visitor.include(c.predicate);
}

void ReductionDomain::rewrite_references(IRMutator &mutator) const {
    Contents &c = contents();
    for (ReductionVariable &rv : c.domain) {
        rv.min = mutator.mutate(rv.min);
        rv.extent = mutator.mutate(rv.extent);
    }
    c.predicate = mutator.mutate(c.predicate);
}

}  // namespace dsl::ir
