#include "dsl/InlineReductions.h"

#include <atomic>
#include <functional>
#include <set>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"

namespace dsl {

using namespace ir;

namespace {

/// The pure Vars and the reduction domain of an expression.
class FindVars : public IRVisitor {
  public:
    std::vector<std::string> pure_vars;
    ReductionDomain rdom;
    bool several_rdoms = false;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->param.defined() || bound_.count(op->name)) return;
        if (op->reduction_domain.defined()) {
            if (rdom.defined() && !rdom.same_as(op->reduction_domain)) several_rdoms = true;
            rdom = op->reduction_domain;
            return;
        }
        for (const std::string &v : pure_vars) {
            if (v == op->name) return;
        }
        pure_vars.push_back(op->name);
    }
    void visit(const Let *op) override {
        include(op->value);
        bound_.insert(op->name);
        include(op->body);
        bound_.erase(op->name);
    }

  private:
    std::multiset<std::string> bound_;
};

std::string unique(const std::string &name) {
    static std::atomic<int> counter{0};
    return name + "_" + std::to_string(counter.fetch_add(1));
}

FindVars analyse(const Expr &e, const std::string &what) {
    user_assert(e.defined()) << what << " of an undefined Expr.";
    FindVars v;
    v.include(e);
    user_assert(v.rdom.defined()) << what << "(" << e
                                  << ") uses no RDom, so there is nothing to reduce over.";
    user_assert(!v.several_rdoms) << what << "(" << e
                                  << ") uses more than one RDom; combine them into one.";
    return v;
}

std::vector<Expr> var_exprs(const std::vector<std::string> &names) {
    std::vector<Expr> args;
    for (const std::string &n : names)
        args.push_back(Variable::make(Int(32), n));
    return args;
}

Expr reduce(const Expr &e, const std::string &name, const Expr &identity,
            const std::function<Expr(const Expr &, const Expr &)> &combine) {
    FindVars v = analyse(e, name);
    Func f(unique(name));
    std::vector<Expr> args = var_exprs(v.pure_vars);
    f(args) = identity;
    f(args) = combine(f(args), e);
    return f(args);
}

Tuple arg_reduce(const Expr &e, const std::string &name, bool is_max) {
    FindVars v = analyse(e, name);
    Func f(unique(name));
    std::vector<Expr> args = var_exprs(v.pure_vars);
    const auto &domain = v.rdom.domain();
    std::vector<Expr> init, update;
    for (size_t i = 0; i < domain.size(); i++)
        init.push_back(Expr(0));
    init.push_back(is_max ? type_min(e.type()) : type_max(e.type()));
    f(args) = Tuple(init);
    // Strictly better only, so that ties keep the first point.
    Expr better = is_max ? e > f(args)[static_cast<int>(domain.size())]
                         : e < f(args)[static_cast<int>(domain.size())];
    for (size_t i = 0; i < domain.size(); i++) {
        Expr rvar = Variable::make(Int(32), domain[i].var, {}, v.rdom);
        update.push_back(select(better, rvar, f(args)[static_cast<int>(i)]));
    }
    update.push_back(select(better, e, f(args)[static_cast<int>(domain.size())]));
    f(args) = Tuple(update);
    std::vector<Expr> results;
    for (size_t i = 0; i <= domain.size(); i++)
        results.push_back(f(args)[static_cast<int>(i)]);
    return Tuple(results);
}

}  // namespace

Expr sum(const Expr &e, const std::string &name) {
    return reduce(e, name, make_zero(e.type()), [](const Expr &a, const Expr &b) { return a + b; });
}
Expr product(const Expr &e, const std::string &name) {
    return reduce(e, name, make_one(e.type()), [](const Expr &a, const Expr &b) { return a * b; });
}
Expr maximum(const Expr &e, const std::string &name) {
    return reduce(e, name, type_min(e.type()),
                  [](const Expr &a, const Expr &b) { return max(a, b); });
}
Expr minimum(const Expr &e, const std::string &name) {
    return reduce(e, name, type_max(e.type()),
                  [](const Expr &a, const Expr &b) { return min(a, b); });
}
Tuple argmax(const Expr &e, const std::string &name) {
    return arg_reduce(e, name, true);
}
Tuple argmin(const Expr &e, const std::string &name) {
    return arg_reduce(e, name, false);
}

}  // namespace dsl
