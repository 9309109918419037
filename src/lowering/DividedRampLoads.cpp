#include "lowering/DividedRampLoads.h"

#include <optional>

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// `ramp(base, 1, lanes) / divisor + offset`, with `offset` a scalar.
struct DividedRamp {
    Expr base;
    int divisor;
    Expr offset;
};

std::optional<DividedRamp> match(const Expr &e) {
    if (const auto *div = e.as<Div>()) {
        const auto *ramp = div->a.as<Ramp>();
        const auto *k = div->b.as<Broadcast>();
        if (!ramp || !k || !is_const_one(ramp->stride)) return std::nullopt;
        auto divisor = as_const_int(k->value);
        if (!divisor || *divisor < 2 || *divisor > 4) return std::nullopt;
        return DividedRamp{ramp->base, static_cast<int>(*divisor), make_zero(Int(32))};
    }
    if (const auto *add = e.as<Add>()) {
        for (int side = 0; side < 2; side++) {
            const Expr &x = side == 0 ? add->a : add->b, &y = side == 0 ? add->b : add->a;
            if (const auto *c = y.as<Broadcast>()) {
                if (auto m = match(x))
                    return DividedRamp{m->base, m->divisor, m->offset + c->value};
            }
        }
    }
    if (const auto *sub = e.as<Sub>()) {
        if (const auto *c = sub->b.as<Broadcast>()) {
            if (auto m = match(sub->a))
                return DividedRamp{m->base, m->divisor, m->offset - c->value};
        }
    }
    return std::nullopt;
}

class DividedRampLoads : public IRMutator {
  protected:
    using IRMutator::visit;

    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        if (!is_const_true(op->predicate) || index.type().element_of() != Int(32) ||
            op->type.is_bool()) {
            return Load::make(op->type, op->name, index, mutate(op->predicate), op->alignment);
        }
        auto m = match(index);
        if (!m) return Load::make(op->type, op->name, index, op->predicate, op->alignment);
        const int lanes = op->type.lanes(), k = m->divisor;
        // Lanes read the elements first .. last of the buffer, last - first + 1 of them: at most
        // `span`. The load reads exactly those (the mask stops it at `last`).
        const int span = (lanes - 1) / k + 2;
        Expr kk = make_const(Int(32), k);
        Expr first = m->base / kk;
        Expr phase = simplify(m->base % kk);  // never negative
        auto known = as_const_int(phase);
        Expr count = (m->base + (lanes - 1)) / kk - first + 1;
        Expr mask =
            Ramp::make(make_zero(Int(32)), make_one(Int(32)), span) < Broadcast::make(count, span);
        Expr dense = Load::make(op->type.with_lanes(span), op->name,
                                Ramp::make(first + m->offset, make_one(Int(32)), span), mask);
        // Lane i reads element (phase + i) / k of the dense vector.
        Expr result;
        for (int p = k - 1; p >= 0; p--) {
            if (known && *known != p) continue;
            std::vector<int> picks(static_cast<size_t>(lanes));
            for (int i = 0; i < lanes; i++)
                picks[static_cast<size_t>(i)] = (p + i) / k;
            Expr shuffled = Shuffle::make({dense}, picks);
            result = result.defined()
                         ? Select::make(phase == make_const(Int(32), p), shuffled, result)
                         : shuffled;
        }
        return result;
    }
};

}  // namespace

Stmt dense_loads_of_divided_ramps(const Stmt &s) {
    return DividedRampLoads().mutate(s);
}

}  // namespace dsl::lowering
