#include "lowering/Regions.h"

#include <map>
#include <set>
#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
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

/// Intervals of a stage's loop variables: their symbolic bounds, widened where a split rounds up
/// or shifts inwards. RVars get their RDom's bounds directly, since the names of their loop
/// bounds only exist inside the stage.
Scope<Interval> stage_scope(const Function &f, int stage, Regions regions = Regions::Any) {
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
        for (const ReductionVariable &rv : d.rdom.domain()) {
            scope.push(names::stage_var(f.name(), stage, rv.var),
                       Interval(simplify(rv.min), simplify(rv.min + rv.extent - 1)));
        }
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
    CallBoxes(const std::string &callee, const Scope<Interval> &scope)
        : callee_(callee), scope_(scope) {}

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
    std::unordered_set<const void *> seen_;
    std::set<std::vector<Expr>, ArgsLess> arg_lists_;
    /// The enclosing lets' values, themselves with the lets outside them substituted.
    std::map<std::string, Expr> let_values_;
    std::vector<Ends> dims_;
};

}  // namespace

Box box_of_calls(const Function &consumer, int stage, const std::string &callee) {
    Definition d = rename_stage_vars(consumer, stage);
    Scope<Interval> scope = stage_scope(consumer, stage);
    CallBoxes finder(callee, scope);
    for (const Expr &e : d.args)
        finder.include(e);
    for (const Expr &e : d.values)
        finder.include(e);
    finder.include(d.predicate);
    return finder.box();
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
    Scope<Interval> scope = stage_scope(f, stage, regions);
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
