#include "ir/References.h"

#include "ir/Error.h"
#include "ir/IRVisitor.h"

namespace dsl::ir {

namespace {

class StrengthenReferences : public IRMutator {
  public:
    explicit StrengthenReferences(const std::string &what) : what_(what) {}

  protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        if (!op->reduction_domain.is_weak()) return op;
        ReductionDomain strong = op->reduction_domain.strengthened();
        user_assert(strong.defined())
            << what_ << " uses the RVar " << op->name << ", whose RDom no longer exists.";
        return Variable::make(op->type, op->name, op->param, strong);
    }
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const auto *call = e.as<Call>();
        if (call->call_type != Call::CallType::Func || !call->func.is_weak()) return e;
        FunctionPtr strong = call->func.strengthened();
        user_assert(strong.defined())
            << what_ << " calls the Func \"" << call->name
            << "\", which no longer exists. The call closes a cycle (\"" << call->name
            << "\" depends on what calls it), so it does not keep \"" << call->name
            << "\" alive. Keep a handle to \"" << call->name
            << "\" while it is used, or remove the cycle.";
        return Call::make(call->type, call->name, call->args, call->call_type, call->value_index,
                          strong, call->param, call->image);
    }

  private:
    const std::string &what_;
};

}  // namespace

Expr with_strong_references(const Expr &e, const std::string &what) {
    StrengthenReferences strengthen(what);
    return strengthen.mutate(e);
}

}  // namespace dsl::ir
