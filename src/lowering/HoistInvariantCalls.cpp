#include "lowering/HoistInvariantCalls.h"

#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Transcendental.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// An integer division or remainder by `divisor` that is not a constant (LLVM keeps those
/// where they are written).
bool divides_by_variable(Type t, const Expr &divisor) {
    return t.is_int_or_uint() && !t.is_bool() && !is_const(divisor);
}

bool is_costly(const Call *c) {
    if (c->call_type == Call::CallType::PureExtern) return true;
    return c->call_type == Call::CallType::Intrinsic && is_transcendental(c->intrinsic);
}

/// What an expression is, inside one loop: whether its value is the same at every iteration
/// (no name bound in the loop, no load, nothing impure, no GPU index), and whether it holds a
/// costly call. Memoised by node: the names bound anywhere in the loop count as bound
/// everywhere in it, so a node's answer does not depend on where it appears.
class Classifier : public IRVisitor {
  public:
    struct Flags {
        bool invariant = true;
        bool costly = false;   ///< holds a costly call
        bool divides = false;  ///< holds an integer division or remainder by a non-constant
    };
    explicit Classifier(const std::set<std::string> &bound) : bound_(bound) {}

    /// The flags of `e`, also folded into those of the expression being classified around it.
    Flags of(const Expr &e) {
        Flags result;
        auto found = memo_.find(e.get());
        if (found != memo_.end()) {
            result = found->second;
        } else {
            Flags saved = current_;
            current_ = Flags{};
            IRVisitor::include(e);
            result = current_;
            memo_[e.get()] = result;
            current_ = saved;
        }
        current_.invariant = current_.invariant && result.invariant;
        current_.costly = current_.costly || result.costly;
        current_.divides = current_.divides || result.divides;
        return result;
    }

  protected:
    using IRVisitor::visit;
    // Children go through of(), so that every node is classified once.
    void include(const Expr &e) override {
        if (e.defined()) of(e);
    }
    void visit(const Variable *op) override {
        if (bound_.count(op->name)) current_.invariant = false;
    }
    void visit(const Div *op) override {
        divide(op->type, op->b);
        IRVisitor::visit(op);
    }
    void visit(const Mod *op) override {
        divide(op->type, op->b);
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        current_.invariant = false;
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        // Its name is in bound_, so its body is not invariant; the value may be.
        current_.invariant = false;
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (!op->is_pure() || op->call_type == Call::CallType::Func ||
            op->call_type == Call::CallType::Image ||
            op->is_intrinsic(Call::Intrinsic::GPUBlockIndex) ||
            op->is_intrinsic(Call::Intrinsic::GPUThreadIndex)) {
            current_.invariant = false;
        }
        if (is_costly(op)) current_.costly = true;
        IRVisitor::visit(op);
    }

  private:
    void divide(Type t, const Expr &divisor) {
        if (divides_by_variable(t, divisor)) current_.divides = true;
    }

    const std::set<std::string> &bound_;
    std::unordered_map<const IRNode *, Flags> memo_;
    Flags current_;
};

/// Replaces the maximal invariant scalar expressions that hold a costly call (`calls`) or an
/// integer division by a non-constant by variables, collecting their values (one variable per
/// distinct expression).
class Lifter : public IRMutator {
  public:
    Lifter(const std::string &loop, Classifier &classifier, bool calls)
        : loop_(loop), classifier_(classifier), calls_(calls) {}
    std::vector<std::pair<std::string, Expr>> lifted;

    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        if (e.type().lanes() == 1) {
            const Classifier::Flags f = classifier_.of(e);
            if (!(calls_ && f.costly) && !f.divides) return e;
            if (f.invariant) return lift(e);
        }
        return IRMutator::mutate(e);
    }
    using IRMutator::mutate;

  private:
    Expr lift(const Expr &e) {
        for (const auto &[name, value] : lifted) {
            if (equal(value, e)) return Variable::make(e.type(), name);
        }
        std::string name = loop_ + ".invariant." + std::to_string(lifted.size());
        lifted.emplace_back(name, e);
        return Variable::make(e.type(), name);
    }

    const std::string &loop_;
    Classifier &classifier_;
    const bool calls_;
};

class Hoister : public IRMutator {
  protected:
    using IRMutator::visit;
    // What could be lifted, seen on the way through a loop's body (the walk visits every
    // expression): a loop whose body holds none is left as it is without classifying it.
    Expr visit(const Div *op) override {
        divides_ |= divides_by_variable(op->type, op->b);
        return IRMutator::visit(op);
    }
    Expr visit(const Mod *op) override {
        divides_ |= divides_by_variable(op->type, op->b);
        return IRMutator::visit(op);
    }
    Expr visit(const Call *op) override {
        costly_ |= is_costly(op);
        return IRMutator::visit(op);
    }
    Stmt visit(const For *op) override {
        const bool kernel = op->for_type == ForType::GPUBlock && gpu_depth_ == 0;
        const bool gpu = op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread;
        gpu_depth_ += gpu;
        const bool outer_divides = divides_, outer_costly = costly_;
        divides_ = costly_ = false;
        // Inner loops first: what they lift becomes a LetStmt of this loop's body, whose value
        // this loop may lift further.
        Stmt body = mutate(op->body);
        const bool body_divides = divides_, body_costly = costly_;
        divides_ = divides_ || outer_divides;
        costly_ = costly_ || outer_costly;
        // This loop's bounds are part of the enclosing loop's body.
        mutate(op->min);
        mutate(op->extent);
        gpu_depth_ -= gpu;
        // Calls leave parallel loops and kernels; divisions leave serial loops too (LLVM keeps
        // them in: a division it cannot prove safe to run early stays where it was).
        const bool calls = op->for_type == ForType::Parallel || kernel;
        const bool candidates = body_divides || (calls && body_costly);
        if (!candidates || (!calls && (op->for_type != ForType::Serial || gpu_depth_ > 0))) {
            if (body.same_as(op->body)) return op;
            return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        }
        std::set<std::string> bound = bound_names(body);
        bound.insert(op->name);
        Classifier classifier(bound);
        Lifter lifter(op->name, classifier, calls);
        body = lifter.mutate(body);
        Stmt s = For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        for (auto it = lifter.lifted.rbegin(); it != lifter.lifted.rend(); ++it)
            s = LetStmt::make(it->first, it->second, s);
        return s;
    }

  private:
    int gpu_depth_ = 0;
    bool divides_ = false, costly_ = false;
};

}  // namespace

Stmt hoist_invariant_calls(const Stmt &s) {
    return Hoister().mutate(s);
}

}  // namespace dsl::lowering
