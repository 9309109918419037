#include "codegen/ShiftedLoads.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"

namespace dsl::codegen {

using namespace ir;

namespace {

/// A dense load's start, as a term plus a constant: `x + 3` is (x, 3), `x` is (x, 0). Index
/// constants come last (lowering's move_index_constants_out puts them there), so a stencil's
/// taps differ only in that constant.
struct Start {
    Expr term;
    int64_t shift = 0;
};

/// Whether `op` is a vector load of `ramp(start, 1, lanes)` everywhere (no predicate), and its
/// start.
bool is_tap(const Load *op, Start *start) {
    const auto *ramp = op->index.as<Ramp>();
    if (op->type.is_bool() || !ramp || !is_const_one(ramp->stride) || !is_const_true(op->predicate))
        return false;
    start->term = ramp->base;
    start->shift = 0;
    if (const auto *add = ramp->base.as<Add>()) {
        if (const auto *c = add->b.as<IntImm>()) {
            start->term = add->a;
            start->shift = c->value;
        }
    }
    return true;
}

/// The loads of one buffer, type and term: their shifts, and the two that are kept. `scope` is
/// the innermost `let` of the expression that binds a variable of the term (null for none): the
/// two loads are bound at the top of that let's body, where the term has its meaning.
struct Window {
    std::string buffer;
    Type type;
    Expr term;
    const Let *scope = nullptr;
    std::set<int64_t> shifts;
    std::map<int64_t, ModulusRemainder> alignments;  // what the loads knew, by shift
    std::string low_name, high_name;

    bool shared() const {
        // Two taps are two loads either way; past one vector, the two would miss elements.
        // Lanes narrower than 32 bits stay loads: their shuffles (vpermt2w / vpermt2b on
        // AVX-512) cost more than the loads they save (blur's uint16 taps ran 5-10% slower).
        return type.bits() >= 32 && shifts.size() >= 3 &&
               *shifts.rbegin() - *shifts.begin() <= type.lanes();
    }

    /// Whether a load of `buffer` and `type` starting at `start`, inside `within`, is one of ours.
    bool holds(const std::string &name, Type t, const Start &start, const Let *within) const {
        return buffer == name && type == t && scope == within && equal(term, start.term);
    }

    Expr load_at(int64_t shift) const {
        // In the index's own type (32 or 64 bits).
        Expr start = shift == 0 ? term : term + make_const(term.type(), shift);
        return Load::make(type, buffer, Ramp::make(start, make_one(term.type()), type.lanes()),
                          make_bool(true, type.lanes()), alignments.at(shift));
    }
};

/// Walks an expression keeping the `let`s that enclose the node visited.
class LetScopes {
  protected:
    std::vector<const Let *> lets_;

    /// The innermost enclosing let that binds a variable `e` uses, or null.
    const Let *scope_of(const Expr &e) const {
        for (auto l = lets_.rbegin(); l != lets_.rend(); ++l) {
            if (expr_uses_var(e, (*l)->name)) return *l;
        }
        return nullptr;
    }
};

/// Finds the windows of the loads of an expression.
class FindWindows : public IRVisitor, public LetScopes {
  public:
    std::vector<Window> windows;

  protected:
    using IRVisitor::visit;

    void visit(const Let *op) override {
        include(op->value);
        lets_.push_back(op);
        include(op->body);
        lets_.pop_back();
    }

    void visit(const Load *op) override {
        IRVisitor::visit(op);
        Start start;
        if (!is_tap(op, &start)) return;
        const Let *scope = scope_of(start.term);
        for (Window &w : windows) {
            if (w.holds(op->name, op->type, start, scope)) {
                w.shifts.insert(start.shift);
                w.alignments.emplace(start.shift, op->alignment);
                return;
            }
        }
        Window w;
        w.buffer = op->name;
        w.type = op->type;
        w.term = start.term;
        w.scope = scope;
        w.shifts.insert(start.shift);
        w.alignments.emplace(start.shift, op->alignment);
        windows.push_back(w);
    }
};

/// Replaces each load of a shared window by one of its two loads or a shuffle of both, and binds
/// the two at the top of the window's scope.
class ReplaceTaps : public IRMutator, public LetScopes {
  public:
    explicit ReplaceTaps(const std::vector<Window> &windows) : windows_(windows) {}

    /// `e` (the whole expression) with its windows' loads bound around it.
    Expr bind_outermost(const Expr &e) const { return bind(nullptr, e); }

  protected:
    using IRMutator::visit;
    const std::vector<Window> &windows_;

    Expr bind(const Let *scope, Expr body) const {
        for (auto w = windows_.rbegin(); w != windows_.rend(); ++w) {
            if (w->scope != scope) continue;
            body = Let::make(w->low_name, w->load_at(*w->shifts.begin()),
                             Let::make(w->high_name, w->load_at(*w->shifts.rbegin()), body));
        }
        return body;
    }

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        lets_.push_back(op);
        Expr body = bind(op, mutate(op->body));
        lets_.pop_back();
        return Let::make(op->name, value, body);
    }

    Expr visit(const Load *op) override {
        Start start;
        if (!is_tap(op, &start)) return IRMutator::visit(op);
        const Let *scope = scope_of(start.term);
        for (const Window &w : windows_) {
            if (!w.holds(op->name, op->type, start, scope)) continue;
            const int64_t low = *w.shifts.begin(), high = *w.shifts.rbegin();
            const int lanes = op->type.lanes();
            Expr low_vector = Variable::make(op->type, w.low_name);
            Expr high_vector = Variable::make(op->type, w.high_name);
            if (start.shift == low) return low_vector;
            if (start.shift == high) return high_vector;
            // Lane i reads element start + i: in the low vector while it lasts, then in the
            // high one (lane j of the concatenation is lane j - lanes of the high vector).
            std::vector<int> picks(static_cast<size_t>(lanes));
            for (int i = 0; i < lanes; i++) {
                const int64_t element = start.shift - low + i;  // from the low vector's start
                picks[static_cast<size_t>(i)] =
                    element < lanes ? static_cast<int>(element)
                                    : lanes + static_cast<int>(start.shift - high + i);
            }
            return Shuffle::make({low_vector, high_vector}, picks);
        }
        return IRMutator::visit(op);
    }
};

class ShiftedLoads : public IRMutator {
  protected:
    using IRMutator::visit;
    int windows_made_ = 0;

    Stmt visit(const Store *op) override {
        FindWindows find;
        find.include(op->value);
        std::vector<Window> shared;
        for (Window &w : find.windows) {
            if (!w.shared()) continue;
            const std::string prefix = w.buffer + ".window" + std::to_string(windows_made_++);
            w.low_name = prefix + ".low";
            w.high_name = prefix + ".high";
            shared.push_back(w);
        }
        if (shared.empty()) return op;
        ReplaceTaps replace(shared);
        Expr value = replace.bind_outermost(replace.mutate(op->value));
        return Store::make(op->name, value, op->index, op->predicate, op->alignment);
    }
};

}  // namespace

Stmt share_loads_of_shifted_windows(const Stmt &s) {
    return ShiftedLoads().mutate(s);
}

}  // namespace dsl::codegen
