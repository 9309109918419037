// Which parallel and vectorized loops over RVars are safe. Iterations of such a loop run at the
// same time; the update stays correct only if no two of them touch the same point of the Func.
// The check works on the definition as the user wrote it: a loop made by splits and fuses runs
// over the original variables it came from.
#include "schedule/RaceConditions.h"

#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include "ir/Associativity.h"
#include "ir/Bounds.h"
#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace dsl::schedule {

using namespace ir;

namespace {

/// `e` as `coefficient * var + rest` with `rest` free of `var`, if it has that form.
struct LinearForm {
    int64_t coefficient = 0;
    Expr rest;
};

std::optional<LinearForm> linear_in(const Expr &e, const std::string &var) {
    if (!expr_uses_var(e, var)) return LinearForm{0, e};
    if (const auto *v = e.as<Variable>()) {
        if (v->name == var) return LinearForm{1, make_zero(e.type())};
        return std::nullopt;
    }
    if (const auto *add = e.as<Add>()) {
        auto a = linear_in(add->a, var), b = linear_in(add->b, var);
        if (!a || !b) return std::nullopt;
        return LinearForm{a->coefficient + b->coefficient, Add::make(a->rest, b->rest)};
    }
    if (const auto *sub = e.as<Sub>()) {
        auto a = linear_in(sub->a, var), b = linear_in(sub->b, var);
        if (!a || !b) return std::nullopt;
        return LinearForm{a->coefficient - b->coefficient, Sub::make(a->rest, b->rest)};
    }
    if (const auto *mul = e.as<Mul>()) {
        for (const auto &[factor, other] : {std::pair(mul->a, mul->b), std::pair(mul->b, mul->a)}) {
            auto c = as_const_int(factor);
            if (!c) continue;
            auto form = linear_in(other, var);
            if (!form) return std::nullopt;
            return LinearForm{form->coefficient * *c, Mul::make(form->rest, factor)};
        }
    }
    return std::nullopt;
}

/// Every call to the Func `name` in an expression.
class FindSelfCalls : public IRVisitor {
  public:
    explicit FindSelfCalls(std::string name) : name_(std::move(name)) {}
    std::vector<const Call *> calls;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::CallType::Func && op->name == name_) calls.push_back(op);
    }

  private:
    std::string name_;
};

std::string join(const std::set<std::string> &names) {
    std::string s;
    for (const std::string &n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

/// The original variables (pure Vars and RVars) each loop of a stage runs over.
std::map<std::string, std::set<std::string>> loop_origins(const StageSchedule &schedule) {
    std::map<std::string, std::set<std::string>> origins;
    auto origin = [&](const std::string &var) {
        auto it = origins.find(var);
        return it == origins.end() ? std::set<std::string>{var} : it->second;
    };
    for (const Split &split : schedule.splits) {
        switch (split.kind) {
            case Split::Kind::SplitVar: {
                std::set<std::string> from = origin(split.old_var);
                origins[split.outer] = from;
                origins[split.inner] = from;
                break;
            }
            case Split::Kind::FuseVars: {
                std::set<std::string> from = origin(split.inner);
                for (const std::string &v : origin(split.outer))
                    from.insert(v);
                origins[split.old_var] = from;
                break;
            }
            case Split::Kind::RenameVar:
                origins[split.outer] = origin(split.old_var);
                break;
        }
    }
    for (const Dim &dim : schedule.dims)
        origins.emplace(dim.var, std::set<std::string>{dim.var});
    return origins;
}

/// Whether no point the update reads at `read` is ever one it writes at `write` in the
/// iterations that run at once: those of the loops over the variables `changing` (the others,
/// of the loops outside, are the same in all of them). In some coordinate the two take values
/// in ranges apart (`f(r + 20) += f(r)` with r in [0, 12)) or of different remainders
/// (`f(2 * r + 1) += f(2 * r)`).
bool never_overlap(const std::vector<Expr> &write, const std::vector<Expr> &read,
                   const ReductionDomain &rdom, const std::set<std::string> &changing) {
    if (write.size() != read.size()) return false;
    // The loops that change take any value (RVars: their RDom's range); the others stand for
    // one value, the same in the read and the write.
    Scope<Interval> ranges;
    for (const std::string &v : changing)
        ranges.push(v, Interval::everything());
    for (const ReductionVariable &rv : rdom.domain()) {
        if (changing.count(rv.var))
            ranges.push(rv.var, Interval(rv.min, simplify(rv.min + rv.extent - 1)));
    }
    for (size_t i = 0; i < write.size(); i++) {
        Interval w = bounds_of_expr_in_scope(write[i], ranges);
        Interval r = bounds_of_expr_in_scope(read[i], ranges);
        auto before = [](const Interval &a, const Interval &b) {
            return a.max.defined() && b.min.defined() && is_const_true(simplify(a.max < b.min));
        };
        if (!w.empty && !r.empty && (before(w, r) || before(r, w))) return true;
        ModulusRemainder mw = modulus_remainder(write[i]), mr = modulus_remainder(read[i]);
        // Modulus 0 is an exact value; gcd(0, m) is m, and gcd(0, 0) compares the values.
        const int64_t g = std::gcd(mw.modulus, mr.modulus);
        if (g != 1 &&
            (g == 0 ? mw.remainder != mr.remainder : (mw.remainder - mr.remainder) % g != 0))
            return true;
    }
    return false;
}

void check_stage(const lang::Function &f, int stage, const lang::Definition &d) {
    if (!d.rdom.defined() || d.schedule.allow_race_conditions) return;
    std::set<std::string> rvars;
    for (const ReductionVariable &rv : d.rdom.domain())
        rvars.insert(rv.var);
    auto origins = loop_origins(d.schedule);
    const std::vector<Dim> &dims = d.schedule.dims;
    std::string written = call_text(f.name(), d.args);

    for (size_t p = 0; p < dims.size(); p++) {
        const Dim &dim = dims[p];
        bool concurrent = dim.for_type == ForType::Parallel ||
                          dim.for_type == ForType::Vectorized ||
                          dim.for_type == ForType::GPUBlock || dim.for_type == ForType::GPUThread;
        if (!concurrent) continue;
        const std::set<std::string> &runs_over = origins.at(dim.var);
        std::set<std::string> over_rvars;
        for (const std::string &v : runs_over) {
            if (rvars.count(v)) over_rvars.insert(v);
        }
        if (over_rvars.empty()) continue;
        // atomic(): a vectorized loop folds its lanes' terms together before folding them in;
        // threads and GPU threads update each point with one indivisible read-modify-write.
        // A vectorized loop's lanes are folded together only where they update one point (no
        // coordinate depends on the loop); lanes that scatter (a histogram) must be provably
        // apart, as without atomic().
        bool scatters = false;
        for (const Expr &arg : d.args) {
            for (const std::string &v : over_rvars)
                scatters |= expr_uses_var(arg, v);
        }
        // A value that does not read the Func is a plain store: lanes that meet store one of
        // their values, as threads do.
        bool plain_store = true;
        for (const Expr &v : d.values)
            plain_store &= !ir::calls_func(v, f.name());
        if (d.schedule.atomic &&
            (!(dim.for_type == ForType::Vectorized && scatters) || plain_store)) {
            user_assert(dim.for_type == ForType::Vectorized || d.values.size() == 1)
                << "Func \"" << f.name() << "\" update " << stage - 1 << " is atomic() with the "
                << (dim.for_type == ForType::Parallel ? "parallel" : "GPU") << " loop \"" << dim.var
                << "\", but it updates a Tuple of " << d.values.size()
                << " values, which no single atomic instruction updates together. Keep that "
                   "loop serial, or split the reduction with rfactor.";
            continue;
        }
        // Everything that changes from one iteration to another: this loop's variables and
        // those of every loop inside it.
        std::set<std::string> changing;
        for (size_t q = 0; q <= p; q++) {
            for (const std::string &v : origins.at(dims[q].var))
                changing.insert(v);
        }

        std::ostringstream where;
        where << "Func \"" << f.name() << "\" update " << stage - 1 << ": the loop \"" << dim.var
              << "\"";
        if (dim.var != *over_rvars.begin() || over_rvars.size() > 1)
            where << " (over the RVar" << (over_rvars.size() > 1 ? "s " : " ") << join(over_rvars)
                  << ")";
        where << " is " << (dim.for_type == ForType::Vectorized ? "vectorized" : "parallel");
        std::ostringstream fix_text;
        fix_text << " Keep the loop serial; or, for an associative reduction (+, *, min, max, "
                    "...), compute partial results in a new Func whose loops can run in "
                    "parallel with rfactor, e.g. Func partial = "
                 << f.name() << ".update(" << stage - 1 << ").rfactor(" << *over_rvars.begin()
                 << ", v), then schedule partial.update() over v; or, if you know that the "
                    "iterations never touch the same point, call allow_race_conditions() on "
                    "this stage.";
        const std::string fix = fix_text.str();

        for (const std::string &v : runs_over) {
            bool injective = false;
            for (const Expr &arg : d.args) {
                auto form = linear_in(arg, v);
                if (!form || form->coefficient == 0) continue;
                bool rest_fixed = true;
                for (const std::string &c : changing)
                    rest_fixed &= !expr_uses_var(form->rest, c);
                if (rest_fixed) {
                    injective = true;
                    break;
                }
            }
            std::string coordinates =
                d.args.empty()
                    ? ", a single point"
                    : ", and none of its coordinates is " + v +
                          " (times a constant) plus a term that stays the same for "
                          "every iteration of the loop (" +
                          (changing.size() == 1 ? "the variable " + join(changing) + " changes"
                                                : "the variables " + join(changing) + " change") +
                          " inside it)";
            user_assert(injective) << where.str() << ", but different values of " << v
                                   << " may write the same point: the update writes " << written
                                   << coordinates << "." << fix;
        }

        FindSelfCalls reads(f.name());
        for (const Expr &e : d.args)
            reads.include(e);
        for (const Expr &e : d.values)
            reads.include(e);
        reads.include(d.predicate);
        for (const Call *read : reads.calls) {
            bool same_point = read->args.size() == d.args.size();
            for (size_t i = 0; same_point && i < d.args.size(); i++)
                same_point = equal(read->args[i], d.args[i]);
            user_assert(same_point || never_overlap(d.args, read->args, d.rdom, changing))
                << where.str() << ", but the update reads " << call_text(f.name(), read->args)
                << " while it writes " << written
                << ": one iteration may read a point that another writes at the same time." << fix;
        }
    }
}

/// serialize_grouped_vector_folds for `d` and its specializations.
void serialize_grouped_folds(const std::string &func, int stage, lang::Definition &d) {
    if (d.rdom.defined() && d.schedule.atomic && !d.schedule.allow_race_conditions) {
        std::set<std::string> rvars;
        for (const ReductionVariable &rv : d.rdom.domain())
            rvars.insert(rv.var);
        auto origins = loop_origins(d.schedule);
        for (Dim &dim : d.schedule.dims) {
            if (dim.for_type != ForType::Vectorized) continue;
            std::string rvar, var;
            for (const std::string &v : origins.at(dim.var)) {
                if (rvars.count(v)) {
                    rvar = v;
                    continue;
                }
                for (const Expr &arg : d.args) {
                    if (expr_uses_var(arg, v)) var = v;
                }
            }
            if (rvar.empty() || var.empty()) continue;
            // Through the warnings of lowering, which are kept with the code and reported
            // again when the disk cache supplies it.
            user_warning << "Func \"" << func << "\" update " << stage - 1
                         << ": the vectorized loop \"" << dim.var << "\" runs over the RVar "
                         << rvar << " and the Var " << var
                         << ", so its lanes fold into several points at once, which vectors do not "
                            "do here; it stays a serial loop. Vectorize a loop over the RVar alone "
                            "or the Var alone.";
            dim.for_type = ForType::Serial;
        }
    }
    for (lang::Specialization &s : d.specializations)
        serialize_grouped_folds(func, stage, s.definition);
}

/// Checks the schedule of `d` and of each of its specializations (same definition, other loops).
void check_schedules(const lang::Function &f, int stage, const lang::Definition &d) {
    check_stage(f, stage, d);
    for (const lang::Specialization &s : d.specializations)
        check_schedules(f, stage, s.definition);
}

}  // namespace

void serialize_grouped_vector_folds(lang::Function &f) {
    for (int stage = 1; stage < f.stages(); stage++)
        serialize_grouped_folds(f.name(), stage, f.contents().updates[stage - 1]);
}

void check_race_conditions(const lang::Function &f) {
    for (int stage = 1; stage < f.stages(); stage++)
        check_schedules(f, stage, f.stage(stage));
}

}  // namespace dsl::schedule
