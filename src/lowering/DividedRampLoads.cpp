#include "lowering/DividedRampLoads.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// An index `ramp(base, 1, lanes) / divisor + remainders * (ramp(base, 1, lanes) % divisor) +
/// offset`, with `offset` a scalar: lane i reads floor((base + i) / k) + c * ((base + i) mod k)
/// plus the offset. An upsampling's f(x / 2) has c = 0; its other tap, f(x / 2 - 1 + 2 * (x % 2)),
/// has c = 2.
struct DividedRamp {
    Expr base;
    int divisor = 0;
    int quotients = 0;   // how many times ramp / k is added (only 1 is rewritten)
    int remainders = 0;  // the coefficient of ramp % k
    Expr offset;
};

/// Adds `sign` times `e` into `m`; false when `e` is not of the form above, or names another
/// ramp or divisor than the terms before it.
bool accumulate(const Expr &e, int sign, DividedRamp &m) {
    auto same_ramp = [&](const Expr &ramp_expr, const Expr &k_expr) {
        const auto *ramp = ramp_expr.as<Ramp>();
        const auto *k = k_expr.as<Broadcast>();
        if (!ramp || !k || !is_const_one(ramp->stride) || !ramp->base.type().is_scalar())
            return false;
        auto divisor = as_const_int(k->value);
        if (!divisor || *divisor < 2 || *divisor > 4) return false;
        if (m.divisor == 0) {
            m.base = ramp->base;
            m.divisor = static_cast<int>(*divisor);
            return true;
        }
        return m.divisor == *divisor && equal(m.base, ramp->base);
    };
    if (const auto *b = e.as<Broadcast>()) {
        m.offset = sign > 0 ? m.offset + b->value : m.offset - b->value;
        return true;
    }
    if (const auto *add = e.as<Add>())
        return accumulate(add->a, sign, m) && accumulate(add->b, sign, m);
    if (const auto *sub = e.as<Sub>())
        return accumulate(sub->a, sign, m) && accumulate(sub->b, -sign, m);
    if (const auto *div = e.as<Div>()) {
        if (!same_ramp(div->a, div->b)) return false;
        m.quotients += sign;
        return true;
    }
    if (const auto *mod = e.as<Mod>()) {
        if (!same_ramp(mod->a, mod->b)) return false;
        m.remainders += sign;
        return true;
    }
    if (const auto *mul = e.as<Mul>()) {
        for (int side = 0; side < 2; side++) {
            const Expr &x = side == 0 ? mul->a : mul->b, &y = side == 0 ? mul->b : mul->a;
            const auto *mod = x.as<Mod>();
            const auto *c = y.as<Broadcast>();
            auto coefficient = c ? as_const_int(c->value) : std::nullopt;
            if (!mod || !coefficient || *coefficient < -4 || *coefficient > 4) continue;
            if (!same_ramp(mod->a, mod->b)) return false;
            m.remainders += sign * static_cast<int>(*coefficient);
            return true;
        }
    }
    return false;
}

std::optional<DividedRamp> match(const Expr &e) {
    DividedRamp m;
    m.offset = make_zero(Int(32));
    if (!accumulate(e, 1, m) || m.divisor == 0 || m.quotients != 1) return std::nullopt;
    if (m.remainders < -4 || m.remainders > 4) return std::nullopt;
    return m;
}

/// Where lane i reads, relative to floor(base / k) + offset, when base mod k is `phase`.
int relative_element(const DividedRamp &m, int phase, int lane) {
    const int q = phase + lane;
    return q / m.divisor + m.remainders * (q % m.divisor);
}

/// The first and last element the lanes read at `phase`, relative as above.
std::pair<int, int> reach(const DividedRamp &m, int phase, int lanes) {
    int lo = INT_MAX, hi = INT_MIN;
    for (int i = 0; i < lanes; i++) {
        lo = std::min(lo, relative_element(m, phase, i));
        hi = std::max(hi, relative_element(m, phase, i));
    }
    return {lo, hi};
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
        Expr kk = make_const(Int(32), k);
        Expr phase = simplify(m->base % kk);  // never negative
        auto known = as_const_int(phase);

        // The dense vector covers what the lanes read at any phase; the mask keeps it between
        // the first and the last element they read at this one (elements between those lie
        // inside what bounds inference gave the buffer, whether a lane reads them or not).
        int lo = INT_MAX, hi = INT_MIN;
        for (int p = 0; p < k; p++) {
            auto [l, h] = reach(*m, p, lanes);
            lo = std::min(lo, l);
            hi = std::max(hi, h);
        }
        const int span = hi - lo + 1;
        if (span > 2 * lanes)
            return Load::make(op->type, op->name, index, op->predicate, op->alignment);
        // The phases the vector can start at (one, when it is known here), and a value per
        // phase chosen at run time.
        std::vector<int> phases;
        for (int p = k - 1; p >= 0; p--) {
            if (!known || *known == p) phases.push_back(p);
        }
        auto by_phase = [&](const auto &value_at) {
            Expr chosen;
            for (int p : phases) {
                Expr v = value_at(p);
                chosen =
                    chosen.defined() ? Select::make(phase == make_const(Int(32), p), v, chosen) : v;
            }
            return chosen;
        };
        // Per phase, the first and last lane of the dense vector that the lanes read.
        bool all_start_at_lo = true, all_end_at_hi = true;
        for (int p : phases) {
            all_start_at_lo = all_start_at_lo && reach(*m, p, lanes).first == lo;
            all_end_at_hi = all_end_at_hi && reach(*m, p, lanes).second == hi;
        }
        Expr first_read =
            by_phase([&](int p) { return make_const(Int(32), reach(*m, p, lanes).first - lo); });
        Expr last_read =
            by_phase([&](int p) { return make_const(Int(32), reach(*m, p, lanes).second - lo); });
        Expr lane = Ramp::make(make_zero(Int(32)), make_one(Int(32)), span);
        Expr mask = make_bool(true, span);
        if (!all_start_at_lo) mask = Broadcast::make(first_read, span) <= lane;
        if (!all_end_at_hi) {
            Expr below = lane <= Broadcast::make(last_read, span);
            mask = all_start_at_lo ? below : mask && below;
        }
        Expr start = m->base / kk + m->offset + make_const(Int(32), lo);
        Expr dense =
            Load::make(op->type.with_lanes(span), op->name,
                       Ramp::make(simplify(start), make_one(Int(32)), span), simplify(mask));
        Expr result = by_phase([&](int p) {
            std::vector<int> picks(static_cast<size_t>(lanes));
            for (int i = 0; i < lanes; i++)
                picks[static_cast<size_t>(i)] = relative_element(*m, p, i) - lo;
            return Shuffle::make({dense}, picks);
        });
        return result;
    }
};

}  // namespace

Stmt dense_loads_of_divided_ramps(const Stmt &s) {
    return DividedRampLoads().mutate(s);
}

}  // namespace dsl::lowering
