#include "lowering/SkipStages.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/CSE.h"
#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Where a Func realized around the walked statement is read: the conditions around each read
/// that are known before its storage is made (they use none of `inner`, the names bound inside
/// it). A condition may read an input (a buffer no Realize makes, in `realized`) when it is
/// under no other condition: the consumer then reads it at every iteration whose production
/// the guard decides, at coordinates bounds inference has made the input cover.
class ReadConditions : public IRVisitor {
  public:
    ReadConditions(const std::string &func, const std::set<std::string> &inner,
                   const std::set<std::string> &realized)
        : func_(func), inner_(inner), realized_(realized) {}

    /// Some read was found.
    bool found = false;
    /// Some read is under no usable condition.
    bool unconditional = false;
    /// The distinct conjunctions of usable conditions, one per kind of read.
    std::vector<Expr> conjunctions;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == Call::CallType::Func && op->name == func_) record();
        IRVisitor::visit(op);
    }
    void visit(const Select *op) override {
        include(op->condition);
        under(op->condition, [&] { include(op->true_value); });
        under(!op->condition, [&] { include(op->false_value); });
    }
    void visit(const IfThenElse *op) override {
        include(op->condition);
        under(op->condition, [&] { include(op->then_case); });
        if (op->else_case.defined()) under(!op->condition, [&] { include(op->else_case); });
    }
    void visit(const ProducerConsumer *op) override {
        // The Func's own production reads it only in its updates.
        if (op->is_producer && op->name == func_) return;
        IRVisitor::visit(op);
    }

  private:
    template <typename F>
    void under(const Expr &condition, F walk) {
        // Not a condition that reads a Func (its storage may not be there where the guard goes)
        // or has side effects. An input's values may decide, but only where no condition is
        // around: under one, the consumer may never read the input there (a select that keeps
        // x inside the input), and the guard, which evaluates every term, would.
        const bool outermost = depth_ == 0;
        bool usable = !any_call(condition, [&](const Call *c) {
            if (c->call_type == Call::CallType::Image)
                return !outermost || realized_.count(c->name) > 0;
            return c->call_type == Call::CallType::Func || !c->is_pure();
        });
        for (const std::string &n : free_names(condition, false))
            usable = usable && !inner_.count(n);
        if (usable) conditions_.push_back(condition);
        depth_++;
        walk();
        depth_--;
        if (usable) conditions_.pop_back();
    }
    void record() {
        found = true;
        if (unconditional) return;
        if (conditions_.empty()) {
            unconditional = true;
            conjunctions.clear();
            return;
        }
        Expr all = conditions_[0];
        for (size_t i = 1; i < conditions_.size(); i++)
            all = all && conditions_[i];
        for (const Expr &c : conjunctions)
            if (equal(c, all)) return;
        conjunctions.push_back(all);
    }

    const std::string &func_;
    const std::set<std::string> &inner_;
    const std::set<std::string> &realized_;
    std::vector<Expr> conditions_;
    /// Conditions around the walk, usable or not.
    int depth_ = 0;
};

/// Whether a statement has a loop that runs on a device (a GPU or the NPU).
bool has_device_loop(const Stmt &s) {
    class Find : public IRVisitor {
      public:
        bool found = false;

      protected:
        using IRVisitor::visit;
        void visit(const For *op) override {
            found = found || op->device_api != DeviceAPI::None;
            IRVisitor::visit(op);
        }
    } find;
    find.include(s);
    return find.found;
}

/// Whether each Func produced inside a production of `func` has its storage inside that
/// production too. One whose storage is outside (stored at an outer loop, computed inside) keeps
/// what it computed from one production of `func` to the next, as a sliding window does:
/// skipping one production would leave a hole that the next one does not fill.
bool inner_productions_are_local(const std::string &func, const Stmt &s) {
    class Check : public IRVisitor {
      public:
        explicit Check(const std::string &func) : func_(func) {}
        bool local = true;

      protected:
        using IRVisitor::visit;
        void visit(const ProducerConsumer *op) override {
            if (op->is_producer && op->name == func_ && depth_ == 0) {
                depth_++;
                IRVisitor::visit(op);
                depth_--;
                return;
            }
            if (op->is_producer && depth_ > 0 && !realized_.count(op->name)) local = false;
            IRVisitor::visit(op);
        }
        void visit(const Realize *op) override {
            if (depth_ > 0) realized_.insert(op->name);
            IRVisitor::visit(op);
        }

      private:
        const std::string &func_;
        int depth_ = 0;
        std::set<std::string> realized_;
    } check(func);
    check.include(s);
    return check.local;
}

/// Puts the production of `func` under `if (condition)`.
class GuardProduction : public IRMutator {
  public:
    GuardProduction(const std::string &func, const Expr &condition)
        : func_(func), condition_(condition) {}

  protected:
    using IRMutator::visit;
    Stmt visit(const ProducerConsumer *op) override {
        if (!op->is_producer || op->name != func_) return IRMutator::visit(op);
        return ProducerConsumer::make(op->name, true, IfThenElse::make(condition_, op->body));
    }

  private:
    const std::string &func_;
    const Expr &condition_;
};

/// The most nodes a guard may have: a Func read in many places under different conditions
/// (a pyramid's levels, each masked by a test of its size) would otherwise be guarded by
/// ever longer disjunctions, for little gain.
constexpr double kMaxGuardNodes = 200;

class SkipStages : public IRMutator {
  public:
    explicit SkipStages(std::set<std::string> realized) : realized_(std::move(realized)) {}

    /// Some production was guarded by the last walk.
    bool changed = false;

  protected:
    using IRMutator::visit;
    Stmt visit(const Realize *op) override {
        // Inner Funcs first: a read inside a production guarded here is under its guard.
        Stmt body = mutate(op->body);
        if (!guarded_.count(op->name) && !has_device_loop(body) &&
            inner_productions_are_local(op->name, body)) {
            const std::set<std::string> inner = bound_names(body);
            ReadConditions reads(op->name, inner, realized_);
            reads.include(body);
            if (reads.found && !reads.unconditional && !reads.conjunctions.empty()) {
                Expr any = reads.conjunctions[0];
                for (size_t i = 1; i < reads.conjunctions.size(); i++)
                    any = any || reads.conjunctions[i];
                any = simplify(any);
                if (!is_const_true(any) && !tree_larger_than(any, kMaxGuardNodes)) {
                    body = GuardProduction(op->name, any).mutate(body);
                    guarded_.insert(op->name);
                    changed = true;
                }
            }
        }
        if (body.same_as(op->body)) return op;
        return Realize::make(op->name, op->types, op->memory_type, op->bounds, op->condition, body);
    }

  private:
    /// Every Func the statement realizes (a Call::Image of one of these reads a Func's storage,
    /// not an input's).
    const std::set<std::string> realized_;
    std::set<std::string> guarded_;
};

std::set<std::string> realized_names(const Stmt &s) {
    class Collect : public IRVisitor {
      public:
        std::set<std::string> names;

      protected:
        using IRVisitor::visit;
        void visit(const Realize *op) override {
            names.insert(op->name);
            IRVisitor::visit(op);
        }
    } collect;
    collect.include(s);
    return collect.names;
}

}  // namespace

Stmt skip_stages(const Stmt &s) {
    // A Func realized inside the storage of one that reads it (a producer computed per tile of
    // a consumer stored at root) is met before that reader's production is guarded: walk again
    // until no guard is added, each walk guarding at least one more Func.
    SkipStages pass(realized_names(s));
    Stmt result = s;
    do {
        pass.changed = false;
        result = pass.mutate(result);
    } while (pass.changed);
    return result;
}

}  // namespace dsl::lowering
