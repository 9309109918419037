#include "lowering/PartitionLoops.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/LinearBounds.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Bodies larger than this many nodes (counted as a tree) are not copied: the compile time of
/// three copies would outweigh what the steady state gains.
constexpr int kMaxBodyNodes = 20000;
/// A loop whose body holds only loops of at most this many iterations is partitioned too: in a
/// histogram's update over pixels with the channels innermost, the clamps of the pixel's
/// coordinates are in the loop over pixels.
constexpr int64_t kMaxShortLoop = 4;

class CountNodes : public IRVisitor {
  public:
    int count = 0;
    /// Whether the body holds a loop other than a short one of constant count (at most
    /// kMaxShortLoop iterations: the channels of a pixel, which LLVM unrolls).
    bool has_loop = false;
    /// Whether it holds any loop at all.
    bool has_inner_loop = false;
    void include(const Expr &e) override {
        if (e.defined() && count <= kMaxBodyNodes) {
            count++;
            IRVisitor::include(e);
        }
    }
    void include(const Stmt &s) override {
        if (s.defined() && count <= kMaxBodyNodes) {
            count++;
            if (const auto *loop = s.as<For>()) {
                auto trips = as_const_int(loop->extent);
                has_loop |= !trips || *trips > kMaxShortLoop;
                has_inner_loop = true;
            }
            IRVisitor::include(s);
        }
    }
};

/// What a loop body may change: the buffers it stores to, and whether it calls outside code
/// (which may write anything).
class Writes : public IRVisitor {
  public:
    std::set<std::string> buffers;
    bool calls_out = false;

  protected:
    using IRVisitor::visit;
    void visit(const Store *op) override {
        buffers.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        calls_out |= op->call_type != Call::CallType::Intrinsic;
        IRVisitor::visit(op);
    }
};

/// Whether an expression reads memory the loop may change, or calls outside code: its value may
/// then change from one iteration to the next even when it names nothing the loop binds (an
/// update that takes the max of the value it stores: fuzzer case 763053). A load of a buffer the
/// loop never writes (a look-up table) at an index fixed over the loop is fixed too.
class ReadsChangingMemory : public IRVisitor {
  public:
    explicit ReadsChangingMemory(const Writes &writes) : writes_(writes) {}
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Load *op) override {
        found |= writes_.calls_out || writes_.buffers.count(op->name) > 0;
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        found |= op->call_type != Call::CallType::Intrinsic;
        IRVisitor::visit(op);
    }

  private:
    const Writes &writes_;
};

/// Rewrites a loop body into its steady state: every clamp of a linear expression of the loop
/// variable by a loop-invariant bound becomes the expression, and the range of the loop variable
/// where that is exact is recorded as bounds on it.
class SteadyState : public IRMutator {
  public:
    SteadyState(const std::string &var, const Writes &writes) : var_(var), writes_(writes) {}
    /// The loop variable must be at least each of `lower` and at most each of `upper`.
    std::vector<Expr> lower, upper;

  protected:
    using IRMutator::visit;

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        bind(op->name, value);
        Expr body = mutate(op->body);
        unbind(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }
    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        bind(op->name, value);
        Stmt body = mutate(op->body);
        unbind(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }
    Stmt visit(const For *op) override {
        Expr min = mutate(op->min), extent = mutate(op->extent);
        bind(op->name, Expr());
        Stmt body = mutate(op->body);
        unbind(op->name);
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
            return op;
        }
        return For::make(op->name, min, extent, op->for_type, op->device_api, body);
    }
    Expr visit(const Min *op) override { return clamp_of(op, true); }
    Expr visit(const Max *op) override { return clamp_of(op, false); }

  private:
    template <typename T>
    Expr clamp_of(const T *op, bool is_min) {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (op->type.element_of() == Int(32)) {
            if (record(a, b, is_min)) return a;
            if (record(b, a, is_min)) return b;
        }
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return T::make(a, b);
    }

    /// Whether `min(moving, bound)` (or max) is `moving` over a range of the loop variable that
    /// could be found; records that range.
    bool record(const Expr &moving, const Expr &bound, bool is_min) {
        if (!invariant(bound) || invariant(moving)) return false;
        auto m = lanes(moving), b = lanes(bound);
        if (!m || !b) return false;
        // min: every lane of `moving` at most the smallest lane of `bound`; max: at least the
        // largest.
        auto form = linear(is_min ? m->second : m->first);
        if (!form || form->coeff == 0) return false;
        // min: coeff * v + rest <= the bound's smallest lane; max: >= its largest.
        VarBound v = solve_linear(*form, is_min ? b->first : b->second, is_min);
        (v.lower ? lower : upper).push_back(v.value);
        return true;
    }

    /// The smallest and largest lane of `e` as scalars, where that is simple to say.
    std::optional<std::pair<Expr, Expr>> lanes(const Expr &e) const {
        if (e.type().is_scalar()) return std::make_pair(e, e);
        if (const auto *b = e.as<Broadcast>()) return std::make_pair(b->value, b->value);
        if (const auto *r = e.as<Ramp>()) {
            auto s = as_const_int(r->stride);
            if (!s) return std::nullopt;
            Expr last = r->base + make_const(Int(32), *s * (r->lanes - 1));
            return *s >= 0 ? std::make_pair(r->base, last) : std::make_pair(last, r->base);
        }
        if (const auto *add = e.as<Add>()) {
            auto a = lanes(add->a), b = lanes(add->b);
            if (!a || !b) return std::nullopt;
            return std::make_pair(a->first + b->first, a->second + b->second);
        }
        if (const auto *sub = e.as<Sub>()) {
            auto a = lanes(sub->a), b = lanes(sub->b);
            if (!a || !b) return std::nullopt;
            return std::make_pair(a->first - b->second, a->second - b->first);
        }
        if (const auto *v = e.as<Variable>()) {
            auto it = lets_.find(v->name);
            if (it != lets_.end() && !it->second.empty() && it->second.back().defined()) {
                return lanes(it->second.back());
            }
        }
        return std::nullopt;
    }

    std::optional<LinearForm> linear(const Expr &e) const {
        return linear_form(
            e, var_, [this](const Expr &x) { return invariant(x); },
            [this](const std::string &name) {
                auto it = lets_.find(name);
                return it != lets_.end() && !it->second.empty() ? it->second.back() : Expr();
            });
    }

    /// Uses neither the loop variable nor any name bound inside the loop, and reads no memory the
    /// loop may change.
    bool invariant(const Expr &e) const {
        if (expr_uses_var(e, var_)) return false;
        ReadsChangingMemory reads(writes_);
        reads.include(e);
        if (reads.found) return false;
        for (const auto &[name, values] : lets_) {
            if (!values.empty() && expr_uses_var(e, name)) return false;
        }
        return true;
    }

    void bind(const std::string &name, const Expr &value) { lets_[name].push_back(value); }
    void unbind(const std::string &name) { lets_[name].pop_back(); }

    std::string var_;
    const Writes &writes_;
    // Names bound inside the loop, innermost binding last: a Let's value, or undefined for a
    // loop variable.
    std::map<std::string, std::vector<Expr>> lets_;
};

class PartitionLoops : public IRMutator {
  protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        Stmt body = mutate(op->body);
        Stmt unchanged = body.same_as(op->body) ? Stmt(op)
                                                : For::make(op->name, op->min, op->extent,
                                                            op->for_type, op->device_api, body);
        // A loop that runs at most once (a split's tail) has no steady state to separate.
        if (op->for_type != ForType::Serial || at_most_one_iteration(op->extent)) return unchanged;
        CountNodes size;
        size.include(body);
        // Innermost loops only (but for short loops inside): where the clamps of vector indices
        // are, and where copying the body costs least (a loop around partitioned loops would
        // copy all three).
        if (size.count > kMaxBodyNodes || size.has_loop) return unchanged;
        if (size.has_inner_loop && !body.same_as(op->body)) return unchanged;
        Writes writes;
        writes.include(body);
        SteadyState steady(op->name, writes);
        Stmt steady_body = steady.mutate(body);
        if (steady.lower.empty() && steady.upper.empty()) return unchanged;

        // [min, first) before, [first, end) steady, [end, min + extent) after; each may be
        // empty, and together they are the loop's iterations in order.
        Expr loop_end = op->min + op->extent;
        Expr first = op->min;
        for (const Expr &l : steady.lower)
            first = max(first, l);
        first = simplify(min(first, loop_end));
        std::string first_name = names::steady_first(op->name),
                    end_name = names::steady_end(op->name);
        Expr first_var = Variable::make(Int(32), first_name);
        Expr end = loop_end;
        for (const Expr &u : steady.upper)
            end = min(end, u + 1);
        end = simplify(max(end, first_var));
        Expr end_var = Variable::make(Int(32), end_name);
        Stmt before =
            For::make(op->name, op->min, first_var - op->min, op->for_type, op->device_api, body);
        Stmt during = For::make(op->name, first_var, end_var - first_var, op->for_type,
                                op->device_api, steady_body);
        Stmt after =
            For::make(op->name, end_var, loop_end - end_var, op->for_type, op->device_api, body);
        return LetStmt::make(first_name, first,
                             LetStmt::make(end_name, end, Block::make({before, during, after})));
    }
};

}  // namespace

Stmt partition_loops(const Stmt &s) {
    return PartitionLoops().mutate(s);
}

}  // namespace dsl::lowering
