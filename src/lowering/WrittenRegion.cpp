#include "lowering/WrittenRegion.h"

#include "ir/Bounds.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

using namespace ir;

namespace {

class WrittenBox : public IRVisitor {
  public:
    explicit WrittenBox(const std::string &func) : func_(func) {}
    Box box;

  protected:
    using IRVisitor::visit;
    void visit(const LetStmt *op) override {
        include(op->value);
        ScopedBinding<Interval> bind(scope_, op->name, bounds_of_expr_in_scope(op->value, scope_));
        include(op->body);
    }
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        // A loop that never runs (the steady state of a partitioned loop shorter than its
        // vector width, say) writes nothing; its variable's range would be empty.
        if (auto extent = as_const_int(simplify(op->extent)); extent && *extent <= 0) return;
        Interval first = bounds_of_expr_in_scope(op->min, scope_);
        Interval last = bounds_of_expr_in_scope(op->min + op->extent - 1, scope_);
        ScopedBinding<Interval> bind(scope_, op->name, Interval(first.min, last.max));
        include(op->body);
    }
    void visit(const Provide *op) override {
        IRVisitor::visit(op);
        if (op->name != func_) return;
        Box b;
        for (const Expr &a : op->args)
            b.push_back(bounds_of_expr_in_scope(a, scope_));
        if (box.empty()) {
            box = b;
        } else {
            for (size_t i = 0; i < b.size() && i < box.size(); i++)
                box[i] = Interval::make_union(box[i], b[i]);
        }
    }

  private:
    std::string func_;
    Scope<Interval> scope_;
};

}  // namespace

Box box_written(const std::string &func, const Stmt &s) {
    WrittenBox w(func);
    w.include(s);
    return w.box;
}

void widen_realized_to_writes(const lang::Function &f, const Stmt &body,
                              std::vector<std::pair<std::string, Expr>> &lets) {
    widen_realized(f, box_written(f.name(), body), lets);
}

void widen_realized(const lang::Function &f, const Box &box,
                    std::vector<std::pair<std::string, Expr>> &lets) {
    if (static_cast<int>(box.size()) != f.dimensions()) return;
    for (int d = 0; d < f.dimensions(); d++) {
        const Interval &w = box[static_cast<size_t>(d)];
        if (!w.is_bounded() || w.empty) continue;
        const std::string &var = f.args()[static_cast<size_t>(d)];
        std::string min_name = names::realized_min(f.name(), var);
        std::string max_name = names::realized_max(f.name(), var);
        std::string extent_name = names::realized_extent(f.name(), var);
        Expr *lo = nullptr, *hi = nullptr, *extent = nullptr;
        for (auto &[name, value] : lets) {
            if (name == min_name) lo = &value;
            if (name == max_name) hi = &value;
            if (name == extent_name) extent = &value;
        }
        if (!lo || !hi || !extent) continue;
        *lo = simplify(dsl::min(*lo, w.min));
        *hi = simplify(dsl::max(*hi, w.max));
        // (An empty region, an RDom of no chunks, has max < min: no negative extent.)
        Expr e = simplify(dsl::max(*hi - *lo + 1, 0));
        if (!as_const_int(e)) {
            e = dsl::max(Variable::make(Int(32), max_name) - Variable::make(Int(32), min_name) + 1,
                         0);
        }
        *extent = e;
    }
}

}  // namespace dsl::lowering
