// Stage::rfactor: splits an associative update into partial results, computed by a new Func
// with some RVars turned into pure Vars, and the update that folds them together. The
// transformation is shown in include/dsl/Func.h.
#include <map>
#include <sstream>

#include "dsl/Func.h"
#include "ir/Associativity.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lang/Function.h"

namespace dsl {

using namespace ir;

namespace {

struct LoopRange {
    Expr min, extent;
};

/// An update with the splits, fuses and renames of its RVars applied: it reads as an update
/// over one RVar per RVar loop of the stage (innermost first), with the tails of splits as
/// conditions. Splits of pure Vars are left out: rfactor's results get default schedules.
struct BakedUpdate {
    std::vector<Expr> args, values;
    Expr predicate;
    std::vector<std::pair<std::string, LoopRange>> rvars;
    /// Loops of the stage whose directives do not carry over to rfactor's results.
    std::vector<std::string> dropped_directives;
};

std::string stage_text(const lang::Function &f, int stage) {
    return "Func \"" + f.name() + "\" update " + std::to_string(stage - 1);
}

std::string update_text(const std::string &func, const lang::Definition &d) {
    std::ostringstream s;
    s << call_text(func, d.args) << " = ";
    if (d.values.size() == 1) {
        s << d.values[0];
    } else {
        s << "Tuple(";
        for (size_t i = 0; i < d.values.size(); i++)
            s << (i ? ", " : "") << d.values[i];
        s << ")";
    }
    return s.str();
}

Expr var_expr(const std::string &name) {
    return Variable::make(Int(32), name);
}

BakedUpdate bake_rvar_loops(const lang::Function &f, int stage) {
    const lang::Definition &d = f.stage(stage);
    BakedUpdate b{d.args, d.values, d.predicate, {}, {}};
    std::map<std::string, LoopRange> ranges;
    for (const ReductionVariable &rv : d.rdom.domain())
        ranges[rv.var] = {rv.min, rv.extent};
    std::vector<Expr> guards;
    auto rewrite = [&](const std::map<std::string, Expr> &values) {
        for (Expr &e : b.args)
            e = substitute(values, e);
        for (Expr &e : b.values)
            e = substitute(values, e);
        b.predicate = substitute(values, b.predicate);
        for (Expr &g : guards)
            g = substitute(values, g);
    };
    for (const schedule::Split &split : d.schedule.splits) {
        switch (split.kind) {
            case schedule::Split::Kind::SplitVar: {
                auto it = ranges.find(split.old_var);
                if (it == ranges.end()) {  // a pure Var
                    b.dropped_directives.push_back(split.old_var);
                    break;
                }
                LoopRange old = it->second;
                Expr value = old.min + var_expr(split.outer) * split.factor + var_expr(split.inner);
                // The last outer iteration may pass the end, unless the factor divides the extent.
                // The guard skips those points; the clamp keeps the coordinates they would read
                // inside the domain, where bounds inference (which does not look at guards)
                // expects them.
                if (!is_const_true(simplify(old.extent % split.factor == 0))) {
                    Expr last = old.min + old.extent - 1;
                    guards.push_back(value <= last);
                    value = min(value, last);
                }
                rewrite({{split.old_var, value}});
                ranges.erase(it);
                ranges[split.outer] = {Expr(0), (old.extent + split.factor - 1) / split.factor};
                ranges[split.inner] = {Expr(0), split.factor};
                break;
            }
            case schedule::Split::Kind::FuseVars: {
                bool inner = ranges.count(split.inner), outer = ranges.count(split.outer);
                if (!inner && !outer) break;
                user_assert(inner && outer)
                    << stage_text(f, stage) << ": rfactor cannot follow the fuse of \""
                    << split.inner << "\" and \"" << split.outer << "\" into \"" << split.old_var
                    << "\", which mixes a pure Var with an RVar. Fuse RVars only with RVars, or "
                       "fuse after rfactor.";
                LoopRange in = ranges.at(split.inner), out = ranges.at(split.outer);
                Expr fused = var_expr(split.old_var);
                rewrite({{split.inner, in.min + fused % in.extent},
                         {split.outer, out.min + fused / in.extent}});
                ranges.erase(split.inner);
                ranges.erase(split.outer);
                ranges[split.old_var] = {Expr(0), in.extent * out.extent};
                break;
            }
            case schedule::Split::Kind::RenameVar: {
                auto it = ranges.find(split.old_var);
                if (it == ranges.end()) break;
                LoopRange range = it->second;
                ranges.erase(it);
                rewrite({{split.old_var, var_expr(split.outer)}});
                ranges[split.outer] = range;
                break;
            }
        }
    }
    for (const Expr &g : guards)
        b.predicate = is_const_true(b.predicate) ? g : (b.predicate && g);
    for (const schedule::Dim &dim : d.schedule.dims) {
        auto it = ranges.find(dim.var);
        if (it != ranges.end()) b.rvars.push_back({dim.var, it->second});
        if (dim.for_type != ForType::Serial) b.dropped_directives.push_back(dim.var);
    }
    return b;
}

}  // namespace

Func Stage::rfactor(const RVar &r, const Var &v) {
    return rfactor(std::vector<std::pair<RVar, Var>>{{r, v}});
}

Func Stage::rfactor(std::vector<std::pair<RVar, Var>> preserved) {
    lang::Function f(func_);
    user_assert(stage_ > 0 && stage_ < f.stages())
        << "Func \"" << f.name() << "\": rfactor applies to an update, e.g. " << f.name()
        << ".update(0).rfactor(r.y, u); "
        << (stage_ == 0  ? "the pure definition has no RVars."
            : stage_ < 0 ? "not to a specialization (rfactor the update first, then specialize)."
                         : "there is no such update.");
    const std::string where = stage_text(f, stage_);
    const lang::Definition &d = f.stage(stage_);
    const std::string written = call_text(f.name(), d.args);
    user_assert(d.rdom.defined()) << where << " (" << update_text(f.name(), d)
                                  << ") has no RVars, so rfactor has nothing to split.";

    BakedUpdate b = bake_rvar_loops(f, stage_);
    std::string rvar_list;
    for (const auto &rv : b.rvars)
        rvar_list += (rvar_list.empty() ? "" : ", ") + rv.first;

    // The listed RVars, each with the Var that replaces it in the partial results.
    std::map<std::string, std::string> kept_as;
    std::vector<std::string> new_vars, kept_rvars;
    for (const auto &[rvar, var] : preserved) {
        const std::string &r = rvar.name(), &u = var.name();
        bool is_pure = false, is_rvar = false, u_taken = false;
        for (const std::string &a : f.args()) {
            is_pure |= a == r;
            u_taken |= a == u;
        }
        for (const auto &rv : b.rvars) {
            is_rvar |= rv.first == r;
            u_taken |= rv.first == u;
        }
        for (const std::string &n : new_vars)
            u_taken |= n == u;
        user_assert(!is_pure) << where << ": rfactor(" << r << ", " << u << ") names \"" << r
                              << "\", a pure Var of " << f.name()
                              << "; rfactor keeps RVars. The RVar loops of this update, innermost "
                                 "first, are: "
                              << rvar_list << ".";
        user_assert(is_rvar) << where << " has no RVar loop \"" << r << "\" (in rfactor(" << r
                             << ", " << u
                             << ")). Its RVar loops, innermost first, are: " << rvar_list << ".";
        user_assert(!kept_as.count(r)) << where << ": rfactor lists the RVar " << r << " twice.";
        user_assert(!u_taken) << where << ": rfactor(" << r << ", " << u
                              << ") would give the new Func a dimension \"" << u
                              << "\", but that name is already a dimension of " << f.name()
                              << ", an RVar loop of the update or listed twice; choose another "
                                 "name.";
        kept_as[r] = u;
        new_vars.push_back(u);
        kept_rvars.push_back(r);
    }

    std::string why;
    std::optional<AssociativeUpdate> op = find_associative_update(f.name(), b.args, b.values, &why);
    user_assert(op) << where << " is " << update_text(f.name(), d)
                    << ", which rfactor cannot split: " << why
                    << ". rfactor needs an associative update such as " << written << " = "
                    << written << " + e or " << written << " = min(" << written << ", e).";
    user_assert(!calls_func(b.predicate, f.name()))
        << where << ": the where() condition of its RDom reads " << f.name()
        << ", so its partial results would depend on the order of the whole reduction; rfactor "
           "cannot split it.";
    for (size_t i = 0; i < b.args.size(); i++) {
        const auto *v = b.args[i].as<Variable>();
        if (v && v->name == f.args()[i]) continue;  // a pure Var at its own place
        user_assert(!calls_func(b.args[i], f.name()))
            << where << " writes " << written << ", whose coordinates read " << f.name()
            << " itself; rfactor cannot split it.";
        // A kept RVar in a computed coordinate (a histogram's bin, read from the pixel) is
        // fine: it becomes a pure Var of the partial results, which also stands alone at its
        // own position there, so each of its values writes its own partial results.
    }
    if (!op->commutative) {
        // Folding partial results keeps the order of the reduction only if the kept RVars are
        // all outside the others.
        size_t first_kept = b.rvars.size(), last_other = 0;
        bool any_other = false;
        for (size_t i = 0; i < b.rvars.size(); i++) {
            if (kept_as.count(b.rvars[i].first)) {
                first_kept = std::min(first_kept, i);
            } else {
                last_other = i;
                any_other = true;
            }
        }
        std::string outermost;
        for (size_t i = b.rvars.size() - kept_rvars.size(); i < b.rvars.size(); i++)
            outermost += (outermost.empty() ? "" : ", ") + b.rvars[i].first;
        user_assert(!any_other || first_kept > last_other)
            << where << " is an argmin / argmax (" << update_text(f.name(), d)
            << "), which keeps the first of equal values; rfactor keeps that order only when the "
               "RVars it keeps are the outermost loops of the update. Keep "
            << outermost << " instead (the loops, innermost first, are " << rvar_list << ").";
    }

    // The partial results: f_intm(pure Vars..., new Vars...) = identity, then the update over
    // the other RVars, with each kept RVar replaced by its Var.
    int count = func_->rfactor_intermediates++;
    Func intm(f.name() + "_intm" + (count ? std::to_string(count) : ""));
    std::vector<Expr> intm_pure;
    for (const std::string &a : f.args())
        intm_pure.push_back(var_expr(a));
    for (const std::string &u : new_vars)
        intm_pure.push_back(var_expr(u));
    intm(intm_pure) = Tuple(op->identities);

    std::vector<ReductionVariable> others, kept;
    for (const auto &[name, range] : b.rvars)
        (kept_as.count(name) ? kept : others).push_back({name, range.min, range.extent});
    ReductionDomain other_domain;
    std::map<std::string, Expr> to_intm;
    if (!others.empty()) {
        other_domain = ReductionDomain(others);
        for (const ReductionVariable &rv : others)
            to_intm[rv.var] = Variable::make(Int(32), rv.var, {}, other_domain);
    }
    for (const auto &[r, u] : kept_as)
        to_intm[r] = var_expr(u);
    Expr predicate = substitute(to_intm, b.predicate);
    if (other_domain.defined() && !is_const_true(predicate)) other_domain.add_predicate(predicate);
    std::vector<Expr> lhs;
    for (const Expr &a : b.args)
        lhs.push_back(substitute(to_intm, a));
    for (const std::string &u : new_vars)
        lhs.push_back(var_expr(u));
    std::vector<Expr> running, terms;
    for (size_t i = 0; i < b.values.size(); i++) {
        running.push_back(intm(lhs)[static_cast<int>(i)]);
        terms.push_back(substitute(to_intm, op->terms[i]));
    }
    std::vector<Expr> values = op->combine(running, terms);
    if (!other_domain.defined() && !is_const_true(predicate)) {
        for (size_t i = 0; i < values.size(); i++)
            values[i] = select(predicate, values[i], running[i]);
    }
    lang::Function(intm.contents()).define_update(lhs, values, other_domain);

    // This update becomes the fold of the partial results over the kept RVars, at every point
    // of f (the partial results hold the identity where the update wrote nothing). Keeping no
    // RVar (rfactor({})) moves the whole reduction into the new Func, and this update adds its
    // one result at each point.
    ReductionDomain kept_domain;
    if (!kept.empty()) kept_domain = ReductionDomain(kept);
    std::vector<Expr> f_args, partial_args;
    for (const std::string &a : f.args())
        f_args.push_back(var_expr(a));
    partial_args = f_args;
    for (const std::string &r : kept_rvars)
        partial_args.push_back(Variable::make(Int(32), r, {}, kept_domain));
    std::vector<Expr> current, partial;
    for (int i = 0; i < f.outputs(); i++) {
        current.push_back(Call::make(f.output_types()[i], f.name(), f_args, Call::CallType::Func, i,
                                     FunctionPtr(func_)));
        partial.push_back(intm(partial_args)[i]);
    }
    // The update as it was, so that resetting the schedule (the autoscheduler does) can undo it.
    func_->updates_before_rfactor.emplace(stage_ - 1, f.updates()[stage_ - 1]);
    f.replace_update(stage_ - 1, f_args, op->combine(current, partial), kept_domain);
    if (!b.dropped_directives.empty()) {
        std::string loops;
        for (const std::string &l : b.dropped_directives)
            loops += (loops.empty() ? "" : ", ") + l;
        user_warning << where << ": rfactor gives this update and " << intm.name()
                     << " default loops, so the directives on " << loops
                     << " no longer apply; schedule " << f.name() << ".update(" << stage_ - 1
                     << ") and " << intm.name() << " after rfactor.";
    }
    return intm;
}

}  // namespace dsl
