#include "lowering/Regions.h"

#include <map>
#include <set>
#include <unordered_set>

#include "ir/Associativity.h"
#include "ir/Bounds.h"
#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/LinearBounds.h"
#include "lowering/ScheduleFunctions.h"
#include "lowering/SplitRanges.h"

namespace dsl::lowering {

using namespace ir;
using lang::Definition;
using lang::Function;

void merge_boxes(Box &a, const Box &b) {
    if (b.empty()) return;
    if (a.empty()) {
        a = b;
        return;
    }
    internal_assert(a.size() == b.size()) << "merging boxes of different dimensions";
    for (size_t i = 0; i < a.size(); i++) {
        Interval u = Interval::make_union(a[i], b[i]);
        if (u.min.defined()) u.min = simplify(u.min);
        if (u.max.defined()) u.max = simplify(u.max);
        a[i] = u;
    }
}

namespace {

/// Parts of a condition that read no Func, input or impure call: what bounds inference can use.
bool invariant_part(const Expr &e) {
    return !any_call(e, [](const Call *c) {
        return c->call_type == Call::CallType::Func || c->call_type == Call::CallType::Image ||
               !c->is_pure();
    });
}

/// Narrows `now`, the interval of `v` in `scope`, by the linear comparisons among `parts` that
/// bound `v`; returns whether it changed. Each bound is taken over the other variables'
/// intervals, and each end moves only inwards. With `keep_a_point`, it stays inside the range
/// it had (a where() condition no point meets, as where(r.x >= p) for a huge p, would otherwise
/// name coordinates no buffer covers); without, the range may empty (max = min - 1: a select's
/// branch never taken). Ends that cross make an empty range, never a negative extent.
bool narrow_interval(Interval &now, const std::string &v, const std::vector<Expr> &parts,
                     const Scope<Interval> &scope, bool keep_a_point) {
    bool changed = false;
    const int slack = keep_a_point ? 0 : 1;
    for (const Expr &part : parts) {
        if (!part.type().is_scalar()) continue;
        std::optional<VarBound> b = bound_from_condition(part, v, invariant_part);
        if (!b) continue;
        Interval range = bounds_of_expr_in_scope(b->value, scope);
        if (b->lower && range.min.defined()) {
            now.min = simplify(Max::make(now.min, Min::make(range.min, now.max + slack)));
            changed = true;
        } else if (!b->lower && range.max.defined()) {
            now.max = simplify(Min::make(now.max, Max::make(range.max, now.min - slack)));
            changed = true;
        }
    }
    if (changed) now.max = simplify(Max::make(now.max, now.min - 1));
    return changed;
}

/// Narrows the intervals of a stage's RVars (bound in `scope` under the names `rvars`) by the
/// linear comparisons of its where() predicate (`predicate`, in those names): with r.y in
/// [0, 99], `2 * r.x + 30 < r.y` keeps r.x in [0, 34]. A second round lets a bound found on one
/// RVar narrow another. Halide bounds its producers the same way.
void narrow_by_predicate(Scope<Interval> &scope, const std::vector<std::string> &rvars,
                         const Expr &predicate) {
    if (!predicate.defined() || is_const_true(predicate)) return;
    const std::vector<Expr> parts = conjuncts(predicate);
    for (int round = 0; round < 2; round++) {
        for (const std::string &v : rvars) {
            Interval now = scope.get(v);
            if (!narrow_interval(now, v, parts, scope, true)) continue;
            scope.pop(v);
            scope.push(v, now);
        }
    }
}

/// Whether some loop of a definition (or of one of its specializations) is vectorized: a
/// where() condition tested there is a mask, under which the update's values may be loaded in
/// every lane.
bool any_vectorized(const Definition &d) {
    for (const schedule::Dim &dim : d.schedule.dims) {
        if (dim.for_type == ForType::Vectorized) return true;
    }
    for (const lang::Specialization &s : d.specializations) {
        if (any_vectorized(s.definition)) return true;
    }
    return false;
}

/// Intervals of a stage's loop variables: their symbolic bounds, widened where a split rounds up
/// or shifts inwards. RVars get their RDom's bounds directly, since the names of their loop
/// bounds only exist inside the stage, narrowed by the stage's where() conditions when
/// `predicate` (the stage's, renamed as rename_stage_vars does) is given. The narrowing holds
/// for the update's arguments and values, which are computed only where the conditions hold:
/// each condition starts or ends its loop, or is tested by an `if` around what is inside it.
/// Not in a vectorized stage (see any_vectorized), nor for the calls in the conditions
/// themselves, which an outer loop evaluates whatever the inner conditions say.
Scope<Interval> stage_scope(const Function &f, int stage, Regions regions = Regions::Any,
                            const Expr &predicate = Expr()) {
    Scope<Interval> scope;
    const Definition &d = f.stage(stage);
    std::map<std::string, Interval> footprints = split_footprints(f, stage, regions);
    for (const std::string &v : stage_pure_vars(f, stage)) {
        std::string loop = names::stage_var(f.name(), stage, v);
        auto rounded = footprints.find(v);
        scope.push(loop, rounded != footprints.end()
                             ? rounded->second
                             : Interval(Variable::make(Int(32), names::min_of(loop)),
                                        Variable::make(Int(32), names::max_of(loop))));
    }
    if (d.rdom.defined()) {
        std::vector<std::string> rvars;
        for (const ReductionVariable &rv : d.rdom.domain()) {
            rvars.push_back(names::stage_var(f.name(), stage, rv.var));
            scope.push(rvars.back(), Interval(simplify(rv.min), simplify(rv.min + rv.extent - 1)));
        }
        if (!any_vectorized(d)) narrow_by_predicate(scope, rvars, predicate);
    }
    return scope;
}

/// The region of all calls to `callee` in some expressions. Inlined stencils make trees with
/// thousands of calls that share subexpressions and often repeat the same coordinates, so each
/// node is visited once, each distinct argument list bounded once, and each dimension's union
/// built once from its distinct ends (a balanced min/max tree, simplified once) rather than
/// merged call by call, which simplified ever longer unions (minutes for 5 chained stencils).
class CallBoxes : public IRVisitor {
  public:
    /// With `select_budget`, the calls in a select's branches are bounded where the branch is
    /// taken (select_budget says how many more branches may be so narrowed; see
    /// box_of_calls).
    CallBoxes(const std::string &callee, const Scope<Interval> &scope, int *select_budget = nullptr)
        : callee_(callee), scope_(scope), select_budget_(select_budget) {}

    void include(const Expr &e) override {
        if (e.defined() && seen_.insert(e.get()).second) IRVisitor::include(e);
    }

    /// The union; empty when there is no call.
    Box box() const {
        Box b;
        for (const Ends &d : dims_) {
            if (d.mins.empty() && d.maxs.empty() && !d.unbounded_min && !d.unbounded_max) {
                b.push_back(Interval::nothing());
                continue;
            }
            Interval i;
            if (!d.unbounded_min) i.min = simplify(balanced(d.mins, true));
            if (!d.unbounded_max) i.max = simplify(balanced(d.maxs, false));
            b.push_back(i);
        }
        return b;
    }

  protected:
    using IRVisitor::include;
    using IRVisitor::visit;
    /// A call under a Let (a value far larger as a tree than in memory keeps its shared parts
    /// in lets, ir/CSE.h) is bounded with the let's value in place of its name, as it would be
    /// written out.
    void visit(const Let *op) override {
        include(op->value);
        Expr value = let_values_.empty() ? op->value : substitute(let_values_, op->value);
        // A let of a name an outer one binds too hides it only in its body.
        auto outer = let_values_.find(op->name);
        Expr hidden = outer == let_values_.end() ? Expr() : outer->second;
        let_values_[op->name] = value;
        include(op->body);
        if (hidden.defined()) {
            let_values_[op->name] = hidden;
        } else {
            let_values_.erase(op->name);
        }
    }
    /// `select(x < 100, f(x), g(x))` reads f at x < 100 only, and g at x >= 100: each branch's
    /// calls are bounded with the variables its condition bounds narrowed (a condition that
    /// bounds none is no narrowing, and neither is what an exhausted budget leaves).
    void visit(const Select *op) override {
        if (!select_budget_ || !op->condition.type().is_scalar()) {
            IRVisitor::visit(op);
            return;
        }
        include(op->condition);
        Expr c = let_values_.empty() ? op->condition : substitute(let_values_, op->condition);
        if (const auto *l = c.as<Call>(); l && l->is_intrinsic(Call::Intrinsic::Likely))
            c = l->args[0];
        branch(op->true_value, conjuncts(c));
        branch(op->false_value, conjuncts(simplify(!c)));
    }
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        bool match =
            (op->call_type == Call::CallType::Func || op->call_type == Call::CallType::Image) &&
            op->name == callee_;
        if (!match) return;
        std::vector<Expr> args;
        for (const Expr &a : op->args)
            args.push_back(let_values_.empty() ? a : substitute(let_values_, a));
        record(args);
    }

  private:
    void branch(const Expr &value, const std::vector<Expr> &parts) {
        Scope<Interval> narrowed(&scope_);
        bool any = false;
        if (*select_budget_ > 0) {
            std::set<std::string> vars;
            for (const Expr &part : parts) {
                for (const std::string &n : free_names(part, false))
                    vars.insert(n);
            }
            for (const std::string &v : vars) {
                const Interval *now = scope_.find(v);
                if (!now || !now->is_bounded()) continue;
                Interval i = *now;
                if (!narrow_interval(i, v, parts, scope_, false)) continue;
                narrowed.push(v, i);
                any = true;
            }
        }
        if (!any) {
            include(value);
            return;
        }
        (*select_budget_)--;
        // A visitor of its own: a node it reaches under the narrowed scope may be reached
        // elsewhere too, where it needs its whole bounds.
        CallBoxes inside(callee_, narrowed, select_budget_);
        inside.let_values_ = let_values_;
        inside.include(value);
        if (inside.dims_.empty()) return;
        if (dims_.empty()) dims_.resize(inside.dims_.size());
        for (size_t i = 0; i < dims_.size(); i++) {
            Ends &d = dims_[i];
            const Ends &e = inside.dims_[i];
            d.unbounded_min |= e.unbounded_min;
            d.unbounded_max |= e.unbounded_max;
            d.mins.insert(e.mins.begin(), e.mins.end());
            d.maxs.insert(e.maxs.begin(), e.maxs.end());
        }
    }

    void record(const std::vector<Expr> &args) {
        if (!arg_lists_.insert(args).second) return;
        if (dims_.empty()) dims_.resize(args.size());
        internal_assert(dims_.size() == args.size())
            << "calls to " << callee_ << " of different dimensions";
        for (size_t i = 0; i < args.size(); i++) {
            Interval b = bounds_of_expr_in_scope(args[i], scope_);
            if (b.empty) continue;
            Ends &d = dims_[i];
            if (!b.min.defined()) {
                d.unbounded_min = true;
            } else if (!d.unbounded_min) {
                d.mins.insert(simplify(b.min));
            }
            if (!b.max.defined()) {
                d.unbounded_max = true;
            } else if (!d.unbounded_max) {
                d.maxs.insert(simplify(b.max));
            }
        }
    }

    struct ArgsLess {
        bool operator()(const std::vector<Expr> &a, const std::vector<Expr> &b) const {
            if (a.size() != b.size()) return a.size() < b.size();
            for (size_t i = 0; i < a.size(); i++) {
                int c = compare(a[i], b[i]);
                if (c != 0) return c < 0;
            }
            return false;
        }
    };
    struct Ends {
        std::set<Expr, ExprLess> mins, maxs;
        bool unbounded_min = false, unbounded_max = false;
    };
    static Expr balanced(const std::set<Expr, ExprLess> &ends, bool is_min) {
        std::vector<Expr> level(ends.begin(), ends.end());
        internal_assert(!level.empty()) << "a dimension without bounds";
        while (level.size() > 1) {
            std::vector<Expr> next;
            for (size_t i = 0; i + 1 < level.size(); i += 2)
                next.push_back(is_min ? Min::make(level[i], level[i + 1])
                                      : Max::make(level[i], level[i + 1]));
            if (level.size() % 2) next.push_back(level.back());
            level = std::move(next);
        }
        return level[0];
    }

    const std::string &callee_;
    const Scope<Interval> &scope_;
    int *select_budget_;
    std::unordered_set<const void *> seen_;
    std::set<std::vector<Expr>, ArgsLess> arg_lists_;
    /// The enclosing lets' values, themselves with the lets outside them substituted.
    std::map<std::string, Expr> let_values_;
    std::vector<Ends> dims_;
};

}  // namespace

Box box_of_calls(const Function &consumer, int stage, const std::string &callee,
                 bool through_selects) {
    Definition d = rename_stage_vars(consumer, stage);
    Scope<Interval> narrowed = stage_scope(consumer, stage, Regions::Any, d.predicate);
    // (Enough for the selects of boundary conditions and concatenations; a chain of many
    // inlined selects keeps the whole bounds past it rather than multiply the work.)
    int select_budget = 64;
    CallBoxes finder(callee, narrowed, through_selects ? &select_budget : nullptr);
    for (const Expr &e : d.args)
        finder.include(e);
    for (const Expr &e : d.values)
        finder.include(e);
    Box box = finder.box();
    if (d.predicate.defined() && !is_const_true(d.predicate)) {
        Scope<Interval> whole = stage_scope(consumer, stage);
        CallBoxes in_conditions(callee, whole);
        in_conditions.include(d.predicate);
        merge_boxes(box, in_conditions.box());
    }
    return box;
}

bool stage_calls(const Function &consumer, int stage, const std::string &callee) {
    const Definition &d = consumer.stage(stage);
    auto any = [&](const std::vector<Expr> &exprs) {
        for (const Expr &e : exprs) {
            if (calls_func(e, callee)) return true;
        }
        return false;
    };
    return any(d.args) || any(d.values) || calls_func(d.predicate, callee);
}

bool func_calls(const Function &consumer, const std::string &callee) {
    for (int s = 0; s < consumer.stages(); s++) {
        if (stage_calls(consumer, s, callee)) return true;
    }
    return false;
}

Box box_of_calls_in(const std::vector<Expr> &exprs, const std::string &callee,
                    const Scope<Interval> &scope) {
    CallBoxes finder(callee, scope);
    for (const Expr &e : exprs)
        finder.include(e);
    return finder.box();
}

Box box_of_writes(const Function &f, int stage, Regions regions) {
    Definition d = rename_stage_vars(f, stage);
    Scope<Interval> scope = stage_scope(f, stage, regions, d.predicate);
    Box b;
    for (const Expr &a : d.args) {
        Interval i = bounds_of_expr_in_scope(a, scope);
        if (i.min.defined()) i.min = simplify(i.min);
        if (i.max.defined()) i.max = simplify(i.max);
        b.push_back(i);
    }
    return b;
}

void require_bounded(const Box &box, const std::string &callee, const std::string &consumer) {
    for (size_t i = 0; i < box.size(); i++) {
        user_assert(box[i].is_bounded())
            << "Func \"" << consumer << "\" uses \"" << callee
            << "\" at coordinates that cannot be bounded in dimension " << i
            << " (the coordinate depends on a value, not only on loop variables). Clamp that "
               "coordinate, e.g. "
            << callee << "(clamp(e, 0, 255), ...), or use a boundary condition.";
    }
}

}  // namespace dsl::lowering
