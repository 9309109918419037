#include "lang/FunctionReferences.h"

#include <memory>
#include <set>
#include <vector>

#include "ir/IRVisitor.h"

namespace dsl::lang {

using namespace ir;

namespace {

/// Calls `f` on every expression `d` holds, those of its specializations included.
template <typename F>
void for_each_expr(Definition &d, const F &f) {
    for (Expr &e : d.args)
        f(e);
    for (Expr &e : d.values)
        f(e);
    f(d.predicate);
    for (Specialization &s : d.specializations) {
        f(s.condition);
        for_each_expr(s.definition, f);
    }
}

/// Walks the Funcs and domains reachable from one Func through strong references.
class FindReachable : public IRVisitor {
  public:
    explicit FindReachable(const FunctionContents &self) : self_(self) { seen_.insert(&self); }

    std::vector<std::shared_ptr<FunctionContents>> funcs;
    std::vector<ReductionDomain> domains;
    /// Whether what was walked since it was last reset holds a strong reference to `self`.
    bool refers_to_self = false;

    void add(const ReductionDomain &d) {
        if (d.defined() && !d.is_weak() && seen_.insert(d.id()).second) domains.push_back(d);
    }

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type != Call::CallType::Func || op->func.is_weak()) return;
        std::shared_ptr<FunctionContents> f = op->func.lock();
        if (f.get() == &self_) {
            refers_to_self = true;
        } else if (seen_.insert(f.get()).second) {
            funcs.push_back(std::move(f));
        }
    }
    void visit(const Variable *op) override { add(op->reduction_domain); }

  private:
    const FunctionContents &self_;
    std::set<const void *> seen_;
};

class WeakenCallsTo : public IRMutator {
  public:
    explicit WeakenCallsTo(const FunctionContents &self) : self_(self) {}

  protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const auto *call = e.as<Call>();
        if (call->call_type != Call::CallType::Func || call->func.is_weak() ||
            call->func.lock().get() != &self_) {
            return e;
        }
        return Call::make(call->type, call->name, call->args, call->call_type, call->value_index,
                          call->func.weakened(), call->param, call->image);
    }

  private:
    const FunctionContents &self_;
};

}  // namespace

void weaken_references_back_to(FunctionContents &self) {
    FindReachable reachable(self);
    WeakenCallsTo weaken(self);
    auto walk_func = [&](FunctionContents &f) {
        std::vector<Definition *> stages = {&f.init};
        for (Definition &d : f.updates)
            stages.push_back(&d);
        reachable.refers_to_self = false;
        for (Definition *d : stages) {
            for_each_expr(*d, [&](const Expr &e) { reachable.include(e); });
            reachable.add(d->rdom);
        }
        if (!reachable.refers_to_self) return;
        for (Definition *d : stages)
            for_each_expr(*d, [&](Expr &e) { e = weaken.mutate(e); });
    };
    auto walk_domain = [&](const ReductionDomain &d) {
        reachable.refers_to_self = false;
        d.visit_contents(reachable);
        if (reachable.refers_to_self) d.rewrite_references(weaken);
    };
    // Each walk may append to the lists; copies, because appending moves their elements.
    walk_func(self);
    size_t funcs_walked = 0, domains_walked = 0;
    while (funcs_walked < reachable.funcs.size() || domains_walked < reachable.domains.size()) {
        if (funcs_walked < reachable.funcs.size()) {
            std::shared_ptr<FunctionContents> f = reachable.funcs[funcs_walked++];
            walk_func(*f);
        } else {
            ReductionDomain d = reachable.domains[domains_walked++];
            walk_domain(d);
        }
    }
}

}  // namespace dsl::lang
