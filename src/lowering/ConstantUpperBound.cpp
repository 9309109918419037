#include "lowering/ConstantUpperBound.h"

#include <algorithm>

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Bounds as constants: what the device code's sizes need.
struct ConstantBound {
    using Value = int64_t;
    static Value constant(int64_t c) { return c; }
    static Value add(Value x, Value y) { return x + y; }
    static Value min(Value x, Value y) { return std::min(x, y); }
    static Value max(Value x, Value y) { return std::max(x, y); }
    static Value times(Value x, int64_t c) { return x * c; }
    /// floor(x / c), c > 0.
    static Value over(Value x, int64_t c) { return x >= 0 ? x / c : -((-x + c - 1) / c); }
    /// Where no constant bounds `e`: none.
    static std::optional<Value> itself(const Expr &, const HostKnown &) { return std::nullopt; }
};

/// Bounds as expressions the host can evaluate before a launch (of the names `known` accepts),
/// constants where they are.
struct ExprBound {
    using Value = Expr;
    static Value constant(int64_t c) { return make_const(Int(32), c); }
    static Value add(const Value &x, const Value &y) { return simplify(x + y); }
    static Value min(const Value &x, const Value &y) { return simplify(dsl::min(x, y)); }
    static Value max(const Value &x, const Value &y) { return simplify(dsl::max(x, y)); }
    static Value times(const Value &x, int64_t c) { return simplify(x * constant(c)); }
    /// floor(x / c), c > 0 (integer division rounds down).
    static Value over(const Value &x, int64_t c) { return simplify(x / constant(c)); }
    /// `e` is its own bound where the host knows it.
    static std::optional<Value> itself(const Expr &e, const HostKnown &known) {
        if (known && known(e)) return e;
        return std::nullopt;
    }
};

/// A constant upper bound of an integer expression of sizes and positions: the simplifier's
/// where it has one, else one found by taking differences apart at their mins and maxes. The
/// simplifier bounds the two sides of a difference alone, and a region clamped at its ends has
/// sides without bounds; but its size min(h, m) - min(l, m) is at most max(h - l, 0) whatever
/// m is, and h - l is often a constant.
template <typename B>
class UpperBound {
  public:
    using Bound = std::optional<typename B::Value>;
    UpperBound(const Scope<ConstantBounds> &loops, HostKnown known)
        : loops_(loops), known_(std::move(known)) {}

    Bound of(const Expr &e) {
        if (++steps_ > kMaxSteps) return std::nullopt;
        Bound simple = simplifier_bound(e);
        // The simplifier bounds a difference's sides apart: min(16 i + 15, 199) - 16 i is at
        // most 199 to it, 15 taken apart. Sums and differences try both.
        if (const auto *a = e.as<Add>()) return smaller(simple, sum(of(a->a), of(a->b)));
        if (const auto *d = e.as<Sub>()) return smaller(simple, difference(d->a, d->b));
        if (simple) return simple;
        if (const auto *l = e.as<Let>()) return of(substitute(l->name, l->value, l->body));
        if (const auto *m = e.as<Min>()) return smaller(of(m->a), of(m->b));
        if (const auto *m = e.as<Max>()) return larger(of(m->a), of(m->b));
        if (const auto *m = e.as<Mul>()) {
            auto c = as_const_int(m->b);
            auto x = of(m->a);
            if (c && *c >= 0 && x) return B::times(*x, *c);
        }
        if (const auto *d = e.as<Div>()) {
            // floor(a / c) for c > 0 is at most floor of a's bound over c.
            auto c = as_const_int(d->b);
            auto x = c && *c > 0 ? of(d->a) : std::nullopt;
            if (x) return B::over(*x, *c);
        }
        if (const auto *c = e.as<Cast>()) {
            Type from = c->value.type();
            if (from.is_int() && c->type.is_int() && c->type.bits() >= from.bits())
                return of(c->value);
        }
        return B::itself(e, known_);
    }

  private:
    static constexpr int kMaxSteps = 20000;
    static Bound sum(const Bound &x, const Bound &y) {
        return x && y ? Bound(B::add(*x, *y)) : std::nullopt;
    }
    /// Of min(x, y): either bound will do.
    static Bound smaller(const Bound &x, const Bound &y) {
        return x && y ? Bound(B::min(*x, *y)) : x ? x : y;
    }
    /// Of max(x, y): both are needed.
    static Bound larger(const Bound &x, const Bound &y) {
        return x && y ? Bound(B::max(*x, *y)) : std::nullopt;
    }
    static Bound at_least_zero(const Bound &x) { return x ? Bound(B::max(*x, B::constant(0))) : x; }
    /// The simplifier's constant bound of `e`, if it has a useful one.
    Bound simplifier_bound(const Expr &e) const {
        ConstantBounds b = constant_bounds(e, loops_);
        if (b.max && *b.max < kLooseBound) return Bound(B::constant(*b.max));
        return std::nullopt;
    }

    /// An upper bound of h - l.
    Bound difference(const Expr &h, const Expr &l) {
        if (++steps_ > kMaxSteps) return std::nullopt;
        if (const auto *let = h.as<Let>())
            return difference(substitute(let->name, let->value, let->body), l);
        if (const auto *let = l.as<Let>())
            return difference(h, substitute(let->name, let->value, let->body));
        if (equal(h, l)) return Bound(B::constant(0));
        // A constant added to one side goes inside the mins and maxes of the other, where the
        // two sides' common clamps then show: min(a, m + 2) - (min(b, m) + 2) becomes
        // min(a - 2, m) - min(b, m).
        const bool h_clamp = h.as<Min>() || h.as<Max>(), l_clamp = l.as<Min>() || l.as<Max>();
        if (const auto *a = l.as<Add>(); a && h_clamp && is_const(a->b))
            return difference(add_inside(h, -*as_const_int(a->b)), a->a);
        if (const auto *a = h.as<Add>(); a && l_clamp && is_const(a->b))
            return difference(a->a, add_inside(l, -*as_const_int(a->b)));
        // The same clamp on both sides: min(a, m) - min(b, m) <= max(a - b, 0); so for max.
        // Tried with the exact rules below, which may bound what this one cannot (and the
        // other way around): the smaller bound wins.
        Bound clamped;
        const auto *hmin = h.as<Min>(), *lmin = l.as<Min>();
        const auto *hmax = h.as<Max>(), *lmax = l.as<Max>();
        if ((hmin && lmin) || (hmax && lmax)) {
            Expr ha = hmin ? hmin->a : hmax->a, hb = hmin ? hmin->b : hmax->b;
            Expr la = lmin ? lmin->a : lmax->a, lb = lmin ? lmin->b : lmax->b;
            if (equal(hb, lb)) {
                clamped = at_least_zero(difference(ha, la));
            } else if (equal(ha, la)) {
                clamped = at_least_zero(difference(hb, lb));
            } else if (equal(ha, lb)) {
                clamped = at_least_zero(difference(hb, la));
            } else if (equal(hb, la)) {
                clamped = at_least_zero(difference(ha, lb));
            }
        }
        // Otherwise apart, exactly: min(a, b) - l == min(a - l, b - l), and so on.
        Bound apart;
        if (hmin) {
            apart = smaller(difference(hmin->a, l), difference(hmin->b, l));
        } else if (hmax) {
            apart = larger(difference(hmax->a, l), difference(hmax->b, l));
        } else if (lmin) {
            apart = larger(difference(h, lmin->a), difference(h, lmin->b));
        } else if (lmax) {
            apart = smaller(difference(h, lmax->a), difference(h, lmax->b));
        }
        if (hmin || hmax || lmin || lmax) return smaller(clamped, apart);
        // The same shape on both sides: term by term.
        if (const auto *ha = h.as<Add>()) {
            if (const auto *la = l.as<Add>()) {
                Bound d = sum(difference(ha->a, la->a), difference(ha->b, la->b));
                if (d) return d;
            }
        }
        if (const auto *hs = h.as<Sub>()) {
            if (const auto *ls = l.as<Sub>()) {
                // (a - b) - (c - d) == (a - c) + (d - b)
                Bound d = sum(difference(hs->a, ls->a), difference(ls->b, hs->b));
                if (d) return d;
            }
        }
        if (const auto *hm = h.as<Mul>()) {
            const auto *lm = l.as<Mul>();
            auto c = as_const_int(hm->b);
            if (lm && c && equal(hm->b, lm->b)) {
                // c * a - c * b: c times a - b, or |c| times b - a.
                Bound d = *c >= 0 ? difference(hm->a, lm->a) : difference(lm->a, hm->a);
                if (d) return B::times(*d, *c >= 0 ? *c : -*c);
            }
        }
        if (const auto *hd = h.as<Div>()) {
            const auto *ld = l.as<Div>();
            auto c = as_const_int(hd->b);
            if (ld && c && *c > 0 && equal(hd->b, ld->b)) {
                // floor(a / c) - floor(b / c) <= floor((a - b) / c) + 1.
                Bound d = difference(hd->a, ld->a);
                if (d) return B::add(B::over(*d, *c), B::constant(1));
            }
        }
        // Constants added on either side.
        if (const auto *a = h.as<Add>(); a && is_const(a->b))
            return sum(difference(a->a, l), B::constant(*as_const_int(a->b)));
        if (const auto *a = l.as<Add>(); a && is_const(a->b))
            return sum(difference(h, a->a), B::constant(-*as_const_int(a->b)));
        Expr d = simplify(h - l);
        Bound b = simplifier_bound(d);
        return b ? b : B::itself(d, known_);
    }

    /// e + k, with k added to the operands of the mins and maxes at its top.
    static Expr add_inside(const Expr &e, int64_t k) {
        if (const auto *m = e.as<Min>()) return Min::make(add_inside(m->a, k), add_inside(m->b, k));
        if (const auto *m = e.as<Max>()) return Max::make(add_inside(m->a, k), add_inside(m->b, k));
        return simplify(e + make_const(e.type(), k));
    }

    const Scope<ConstantBounds> &loops_;
    HostKnown known_;
    int steps_ = 0;
};

}  // namespace

std::optional<int64_t> constant_upper_bound(const Expr &e, const Scope<ConstantBounds> &loops) {
    return UpperBound<ConstantBound>(loops, nullptr).of(e);
}

std::optional<Expr> host_upper_bound(const Expr &e, const Scope<ConstantBounds> &loops,
                                     const HostKnown &known) {
    return UpperBound<ExprBound>(loops, known).of(e);
}

}  // namespace dsl::lowering
