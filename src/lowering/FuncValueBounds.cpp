#include "lowering/FuncValueBounds.h"

#include "ir/CSE.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Whether an end uses only constants and Params (no Var, RVar or let of the definition).
bool closed(const Expr &e) {
    if (!e.defined()) return false;
    bool ok = true;
    class Check : public IRVisitor {
      public:
        bool *ok;
        using IRVisitor::visit;
        void visit(const Variable *op) override {
            if (!op->param.defined()) *ok = false;
        }
        void visit(const Let *) override { *ok = false; }
        void visit(const Call *op) override {
            if (op->call_type != Call::CallType::Intrinsic) *ok = false;
            IRVisitor::visit(op);
        }
    } check;
    check.ok = &ok;
    check.include(e);
    return ok;
}

/// The most nodes a Func's value bound may have as a tree.
constexpr double kMaxBoundNodes = 2000;

}  // namespace

FuncValueBounds func_value_bounds(const Environment &env) {
    FuncValueBounds result;
    // Producers come first, so their entries are used; a call of the Func itself (an update
    // that reads it) is not in the map yet and counts as its type's range, which is sound.
    ScopedFuncValueBounds use(&result);
    for (const std::string &name : env.order) {
        const lang::Function &f = env.func(name);
        std::vector<Interval> values(static_cast<size_t>(f.outputs()));
        bool ok = true;
        for (int s = 0; s < f.stages() && ok; s++) {
            const lang::Definition &d = f.stage(s);
            Scope<Interval> scope;
            for (const std::string &a : f.args())
                scope.push(a, Interval::everything());
            if (d.rdom.defined()) {
                for (const ReductionVariable &rv : d.rdom.domain()) {
                    scope.push(rv.var, Interval(rv.min, rv.min + rv.extent - 1));
                }
            }
            for (size_t i = 0; i < d.values.size() && ok; i++) {
                if (is_undef(d.values[i])) continue;  // not stored
                Interval b = bounds_of_expr_in_scope(d.values[i], scope);
                if (b.empty) continue;  // contributes nothing
                // Bounds that grow with each Func they pass through (a pyramid's levels, each
                // the sum of two reads of the one before, under a select of a Param) are of no
                // use to prove anything and would be exponential trees: unknown instead.
                if (tree_larger_than(b.min, kMaxBoundNodes) ||
                    tree_larger_than(b.max, kMaxBoundNodes) || !closed(b.min) || !closed(b.max)) {
                    ok = false;
                    break;
                }
                values[i] = s == 0 ? b : Interval::make_union(values[i], b);
            }
        }
        if (!ok) continue;
        for (size_t i = 0; i < values.size(); i++) {
            if (values[i].min.defined() && values[i].max.defined())
                result[{name, static_cast<int>(i)}] = values[i];
        }
    }
    return result;
}

}  // namespace dsl::lowering
