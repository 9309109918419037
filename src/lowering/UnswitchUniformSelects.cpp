#include "lowering/UnswitchUniformSelects.h"

#include <set>
#include <string>
#include <vector>

#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

using namespace ir;

namespace {

constexpr size_t max_conditions = 8;

/// Whether `e` is computed from variables and constants alone (no loads, no calls).
bool is_pure(const Expr &e) {
    class Finder : public IRVisitor {
      public:
        bool found = false;

      protected:
        void visit(const Load *) override { found = true; }
        void visit(const Call *) override { found = true; }
    } finder;
    finder.include(e);
    return !finder.found;
}

/// The scalar conditions of vector selects inside the indices of vector loads and stores, and
/// the names bound inside the statement visited (loop variables, lets).
class Candidates : public IRVisitor {
  public:
    std::vector<Expr> conditions;
    std::set<std::string> bound;

  protected:
    void visit(const Load *op) override {
        if (op->index.type().is_vector()) index_depth_++;
        IRVisitor::visit(op);
        if (op->index.type().is_vector()) index_depth_--;
    }
    void visit(const Store *op) override {
        include(op->value);
        include(op->predicate);
        if (op->index.type().is_vector()) index_depth_++;
        include(op->index);
        if (op->index.type().is_vector()) index_depth_--;
    }
    void visit(const Select *op) override {
        if (index_depth_ > 0 && op->type.is_vector() && op->condition.type().is_scalar() &&
            is_pure(op->condition)) {
            bool seen = false;
            for (const Expr &c : conditions)
                seen = seen || equal(c, op->condition);
            if (!seen) conditions.push_back(op->condition);
        }
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        bound.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        bound.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        bound.insert(op->name);
        IRVisitor::visit(op);
    }

  private:
    int index_depth_ = 0;
};

/// Replaces every occurrence of the given conditions by false.
class AssumeFalse : public IRMutator {
  public:
    explicit AssumeFalse(const std::vector<Expr> &conditions) : conditions_(conditions) {}
    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (e.defined() && e.type() == Bool()) {
            for (const Expr &c : conditions_) {
                if (equal(c, e)) return make_bool(false);
            }
        }
        return IRMutator::mutate(e);
    }

  private:
    const std::vector<Expr> &conditions_;
};

class Unswitch : public IRMutator {
  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (op->device_api != DeviceAPI::None && op->device_api != DeviceAPI::Host) return op;
        if (op->for_type != ForType::Serial && op->for_type != ForType::Parallel)
            return IRMutator::visit(op);
        Candidates found;
        found.include(Stmt(op));
        std::vector<Expr> hoisted;
        for (const Expr &c : found.conditions) {
            if (hoisted.size() == max_conditions) break;
            bool invariant = true;
            for (const Expr &d : done_)
                invariant = invariant && !equal(c, d);
            for (const std::string &n : free_names(c, false))
                invariant = invariant && !found.bound.count(n);
            if (invariant) hoisted.push_back(c);
        }
        if (hoisted.empty()) return IRMutator::visit(op);
        done_.insert(done_.end(), hoisted.begin(), hoisted.end());
        Stmt fast = simplify(AssumeFalse(hoisted).mutate(Stmt(op)));
        // Selects on conditions that change inside the loop may still be hoisted further in.
        fast = mutate(fast);
        Expr none = make_bool(true);
        for (const Expr &c : hoisted)
            none = none && !c;
        return IfThenElse::make(none, fast, op);
    }

  private:
    /// Conditions already hoisted (the versions below them are not versioned on them again).
    std::vector<Expr> done_;
};

}  // namespace

Stmt unswitch_uniform_selects(const Stmt &s) {
    return Unswitch().mutate(s);
}

}  // namespace dsl::lowering
