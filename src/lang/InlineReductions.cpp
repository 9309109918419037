#include "dsl/InlineReductions.h"

#include <atomic>
#include <functional>
#include <map>
#include <set>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lang/Function.h"

namespace dsl {

using namespace ir;

namespace {

/// The pure Vars and the reduction domain of an expression.
class FindVars : public IRVisitor {
  public:
    FindVars() = default;
    /// Reduces over `explicit_domain`: the RVars of other domains are free variables.
    explicit FindVars(ReductionDomain explicit_domain)
        : rdom(std::move(explicit_domain)), explicit_(true) {}
    std::vector<std::string> pure_vars;
    ReductionDomain rdom;
    bool several_rdoms = false;
    /// With an explicit domain: the other RVars, by first use.
    std::vector<Expr> other_rvars;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->param.defined() || bound_.count(op->name)) return;
        if (op->reduction_domain.defined()) {
            if (explicit_) {
                if (op->reduction_domain.same_as(rdom)) return;
                for (const Expr &v : other_rvars) {
                    if (v.as<Variable>()->name == op->name) return;
                }
                other_rvars.push_back(op);
                return;
            }
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
    bool explicit_ = false;
};

std::string unique(const std::string &name) {
    static std::atomic<int> counter{0};
    return name + "_" + std::to_string(counter.fetch_add(1));
}

/// The anonymous Func of an inline reduction. As in Halide, it is computed in the innermost loop
/// of the Func that reads it (schedule::LoopLevel::innermost()): per point, with no storage
/// outside that loop.
/// With `given`, the user's own Func (which must be undefined) takes its place, so that it can be
/// scheduled; its placement is innermost unless the user chose one already.
Func anonymous(const std::string &name, const Func *given = nullptr) {
    Func f = given ? *given : Func(unique(name));
    if (given) {
        user_assert(!given->defined())
            << name << ": the Func \"" << given->name() << "\" given to hold the reduction is "
            << "already defined. Pass a new, undefined Func; the reduction defines it.";
    }
    schedule::LoopLevel &level = lang::Function(f.contents()).schedule().compute_level;
    if (!given || level.is_default() || level.is_inlined())
        level = schedule::LoopLevel::innermost();
    return f;
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
            const std::function<Expr(const Expr &, const Expr &)> &combine,
            const Func *given = nullptr) {
    FindVars v = analyse(e, name);
    Func f = anonymous(name, given);
    std::vector<Expr> args = var_exprs(v.pure_vars);
    f(args) = identity;
    f(args) = combine(f(args), e);
    return f(args);
}

ReductionDomain domain_of(const RDom &r, const std::string &what) {
    user_assert(r.defined()) << what << ": the RDom is undefined.";
    Expr v = r[0];
    return v.as<Variable>()->reduction_domain;
}

/// The anonymous Func's arguments for `v`: its pure Vars, then a fresh Var per RVar of
/// another domain (`call_args` gets those RVars instead), and `e` with the fresh Vars in.
Expr free_arguments(const FindVars &v, const std::string &func, const Expr &e,
                    std::vector<Expr> *args, std::vector<Expr> *call_args) {
    *args = var_exprs(v.pure_vars);
    *call_args = *args;
    std::map<std::string, Expr> renamed;
    for (size_t i = 0; i < v.other_rvars.size(); i++) {
        Expr fresh = Variable::make(Int(32), func + ".v" + std::to_string(i));
        renamed[v.other_rvars[i].as<Variable>()->name] = fresh;
        args->push_back(fresh);
        call_args->push_back(v.other_rvars[i]);
    }
    return substitute(renamed, e);
}

FindVars explicit_vars(const RDom &r, const Expr &e, const std::string &what) {
    user_assert(e.defined()) << what << " of an undefined Expr.";
    FindVars v(domain_of(r, what));
    v.include(e);
    return v;
}

/// A reduction over an explicit RDom: the anonymous Func's arguments are the pure Vars of `e`
/// and, as fresh Vars, the RVars of other domains; the call passes those RVars.
Expr reduce_over(const RDom &r, const Expr &e_in, const std::string &name, const Expr &identity,
                 const std::function<Expr(const Expr &, const Expr &)> &combine) {
    FindVars v = explicit_vars(r, e_in, name);
    Func f = anonymous(name);
    std::vector<Expr> args, call_args;
    Expr e = free_arguments(v, f.name(), e_in, &args, &call_args);
    f(args) = identity;
    lang::Function(f.contents()).define_update(args, {combine(f(args), e)}, v.rdom);
    return f(call_args);
}

Tuple arg_reduce(const FindVars &v, const Expr &e_in, const std::string &name, bool is_max) {
    Func f = anonymous(name);
    std::vector<Expr> args, call_args;
    Expr e = free_arguments(v, f.name(), e_in, &args, &call_args);
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
    lang::Function(f.contents()).define_update(args, update, v.rdom);
    std::vector<Expr> results;
    for (size_t i = 0; i <= domain.size(); i++)
        results.push_back(f(call_args)[static_cast<int>(i)]);
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
Expr sum(const Expr &e, const Func &f) {
    return reduce(
        e, "sum", make_zero(e.type()), [](const Expr &a, const Expr &b) { return a + b; }, &f);
}
Expr product(const Expr &e, const Func &f) {
    return reduce(
        e, "product", make_one(e.type()), [](const Expr &a, const Expr &b) { return a * b; }, &f);
}
Expr maximum(const Expr &e, const Func &f) {
    return reduce(
        e, "maximum", type_min(e.type()), [](const Expr &a, const Expr &b) { return max(a, b); },
        &f);
}
Expr minimum(const Expr &e, const Func &f) {
    return reduce(
        e, "minimum", type_max(e.type()), [](const Expr &a, const Expr &b) { return min(a, b); },
        &f);
}
Tuple argmax(const Expr &e, const std::string &name) {
    return arg_reduce(analyse(e, name), e, name, true);
}
Tuple argmin(const Expr &e, const std::string &name) {
    return arg_reduce(analyse(e, name), e, name, false);
}
Tuple argmax(const RDom &r, const Expr &e, const std::string &name) {
    return arg_reduce(explicit_vars(r, e, name), e, name, true);
}
Tuple argmin(const RDom &r, const Expr &e, const std::string &name) {
    return arg_reduce(explicit_vars(r, e, name), e, name, false);
}

Expr sum(const RDom &r, const Expr &e, const std::string &name) {
    return reduce_over(r, e, name, make_zero(e.type()),
                       [](const Expr &a, const Expr &b) { return a + b; });
}
Expr product(const RDom &r, const Expr &e, const std::string &name) {
    return reduce_over(r, e, name, make_one(e.type()),
                       [](const Expr &a, const Expr &b) { return a * b; });
}
Expr maximum(const RDom &r, const Expr &e, const std::string &name) {
    return reduce_over(r, e, name, type_min(e.type()),
                       [](const Expr &a, const Expr &b) { return max(a, b); });
}
Expr minimum(const RDom &r, const Expr &e, const std::string &name) {
    return reduce_over(r, e, name, type_max(e.type()),
                       [](const Expr &a, const Expr &b) { return min(a, b); });
}

}  // namespace dsl
