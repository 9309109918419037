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
/// An innermost loop is versioned on the conditions of selects between loads in its stored
/// values only while it is at most this many nodes, and on at most this many such conditions.
constexpr int max_value_loop_nodes = 4000;
constexpr size_t max_value_conditions = 4;

/// Whether `e` reads memory (or, with `calls`, also calls a function).
bool reads_memory(const Expr &e, bool calls) {
    class Finder : public IRVisitor {
      public:
        explicit Finder(bool c) : calls(c) {}
        bool calls, found = false;

      protected:
        void visit(const Load *) override { found = true; }
        void visit(const Call *op) override {
            found |= calls;
            IRVisitor::visit(op);
        }
    } finder(calls);
    finder.include(e);
    return finder.found;
}

/// Whether `e` is computed from variables and constants alone (no loads, no calls).
bool is_pure(const Expr &e) {
    return !reads_memory(e, true);
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

/// The scalar, pure conditions of vector selects between values that read memory, in what a
/// loop stores (a Concat's `select(c < 24, x[ramp], select(c < 48, y[ramp], ...))`, all lanes
/// of one channel choosing alike): both sides are loaded for every vector, so each element
/// costs the loads of every input. Also whether the loop has a loop inside, and its size.
class ValueCandidates : public IRVisitor {
  public:
    std::vector<Expr> conditions;
    bool has_inner_loop = false;
    int nodes = 0;

    void include(const Expr &e) override {
        if (e.defined()) nodes++;
        IRVisitor::include(e);
    }
    void include(const Stmt &s) override {
        if (s.defined()) nodes++;
        IRVisitor::include(s);
    }

  protected:
    void visit(const For *op) override {
        has_inner_loop = true;
        IRVisitor::visit(op);
    }
    void visit(const Select *op) override {
        if (op->type.is_vector() && op->condition.type().is_scalar() && is_pure(op->condition) &&
            (reads_memory(op->true_value, false) || reads_memory(op->false_value, false))) {
            bool seen = false;
            for (const Expr &c : conditions)
                seen = seen || equal(c, op->condition);
            if (!seen) conditions.push_back(op->condition);
        }
        IRVisitor::visit(op);
    }
};

/// Replaces every occurrence of the given conditions by `value`.
class Assume : public IRMutator {
  public:
    Assume(const std::vector<Expr> &conditions, bool value)
        : conditions_(conditions), value_(value) {}
    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (e.defined() && e.type() == Bool()) {
            for (const Expr &c : conditions_) {
                if (equal(c, e)) return make_bool(value_);
            }
        }
        return IRMutator::mutate(e);
    }

  private:
    const std::vector<Expr> &conditions_;
    bool value_;
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
        if (hoisted.empty()) return unswitch_values(op, found.bound);
        done_.insert(done_.end(), hoisted.begin(), hoisted.end());
        Stmt fast = simplify(Assume(hoisted, false).mutate(Stmt(op)));
        // Selects on conditions that change inside the loop may still be hoisted further in.
        fast = mutate(fast);
        Expr none = make_bool(true);
        for (const Expr &c : hoisted)
            none = none && !c;
        return IfThenElse::make(none, fast, op);
    }

  private:
    /// An innermost loop (small) whose stored values select between loads on a condition that
    /// does not change inside it: `if (c) { the loop with c true } else { the loop with c
    /// false }`, each version in turn on the conditions left, so that each loads only what it
    /// stores (a Concat of four maps read four vectors per vector written).
    Stmt unswitch_values(const For *op, const std::set<std::string> &bound) {
        if (value_versions_ >= max_value_conditions) return IRMutator::visit(op);
        ValueCandidates found;
        found.include(op->body);
        if (found.has_inner_loop || found.nodes > max_value_loop_nodes) {
            return IRMutator::visit(op);
        }
        for (const Expr &c : found.conditions) {
            // `bound` holds the loop's own variable and every name bound inside it.
            bool invariant = true;
            for (const std::string &n : free_names(c, false))
                invariant = invariant && !bound.count(n);
            if (!invariant) continue;
            const std::vector<Expr> one{c};
            value_versions_++;
            Stmt yes = mutate(simplify(Assume(one, true).mutate(Stmt(op))));
            Stmt no = mutate(simplify(Assume(one, false).mutate(Stmt(op))));
            value_versions_--;
            return IfThenElse::make(c, yes, no);
        }
        return IRMutator::visit(op);
    }

    /// Conditions already hoisted (the versions below them are not versioned on them again).
    std::vector<Expr> done_;
    /// How many value conditions the loop being versioned is already versioned on.
    size_t value_versions_ = 0;
};

}  // namespace

Stmt unswitch_uniform_selects(const Stmt &s) {
    return Unswitch().mutate(s);
}

}  // namespace dsl::lowering
