// Rules for Add, Sub, Mul, Div and Mod.
#include "ir/IROperator.h"
#include "ir/SimplifyInternal.h"

namespace dsl::ir::simplify_internal {

namespace {

using Bound = std::optional<int128>;

Bound plus(const Bound &a, const Bound &b) {
    if (a && b) return *a + *b;
    return std::nullopt;
}

Bound minus(const Bound &a, const Bound &b) {
    if (a && b) return *a - *b;
    return std::nullopt;
}

/// Whether reasoning modulo `c` about a value of type `t` survives wrap-around: it does when
/// nothing overflows, or when `c` divides 2^bits.
bool mod_survives_wrap(Type t, int64_t c) {
    if (no_overflow(t)) return true;
    return c > 0 && (c & (c - 1)) == 0 && (t.bits() >= 63 || c <= (int64_t(1) << t.bits()));
}

/// A float constant equal to -0.0 (scalar or broadcast).
bool is_negative_zero(const Expr &e) {
    auto f = as_const_float(e);
    return f && *f == 0 && std::signbit(*f);
}

bool is_positive_zero(const Expr &e) {
    auto f = as_const_float(e);
    return f && *f == 0 && !std::signbit(*f);
}

template <typename T>
std::optional<Expr> fold_op(const Expr &x, const Expr &y) {
    return fold(T::make(x, y));
}

/// Both operands are broadcasts of the same width.
bool both_broadcasts(const Expr &a, const Expr &b) {
    const auto *ba = a.as<Broadcast>();
    const auto *bb = b.as<Broadcast>();
    return ba && bb && ba->lanes == bb->lanes;
}

}  // namespace

// The facts of a node no rule rewrote; a constant value turns into a constant.
#define DSL_FINISH(node_expr)                                               \
    do {                                                                    \
        if (is_int(t) && info->is_const()) return int_const(t, *info->min); \
        return node_expr;                                                   \
    } while (0)

bool Simplifier::cannot_overflow(IRNodeType op, const Expr &p, const Expr &q) {
    Type t = p.type();
    if (!no_overflow(t)) return true;  // wrap-around keeps ring identities exact
    // A new 32/64-bit signed term must provably stay in range: later rules assume that no such
    // term overflows, which the original expression only promised for its own terms.
    ExprInfo ip, iq;
    mutate(p, &ip);
    mutate(q, &iq);
    if (!ip.min || !ip.max || !iq.min || !iq.max) return false;
    int128 lo, hi;
    if (op == IRNodeType::Add) {
        lo = int128(*ip.min) + *iq.min;
        hi = int128(*ip.max) + *iq.max;
    } else if (op == IRNodeType::Sub) {
        lo = int128(*ip.min) - *iq.max;
        hi = int128(*ip.max) - *iq.min;
    } else {
        int128 c[4] = {int128(*ip.min) * *iq.min, int128(*ip.min) * *iq.max,
                       int128(*ip.max) * *iq.min, int128(*ip.max) * *iq.max};
        lo = std::min(std::min(c[0], c[1]), std::min(c[2], c[3]));
        hi = std::max(std::max(c[0], c[1]), std::max(c[2], c[3]));
    }
    return lo >= t.element_of().int_min() && hi <= t.element_of().int_max();
}

std::optional<Expr> Simplifier::push_into_select(const Expr &a, const Expr &b,
                                                 Expr (*make)(Expr, Expr)) {
    // select(c, k1, k2) op k -> select(c, k1 op k, k2 op k): each lane computes what it would
    // have computed anyway.
    for (int side = 0; side < 2; side++) {
        const auto *sel = (side == 0 ? a : b).as<Select>();
        const Expr &other = side == 0 ? b : a;
        if (!sel || !is_const(other) || !is_const(sel->true_value) || !is_const(sel->false_value))
            continue;
        if (sel->condition.type().lanes() != a.type().lanes() && sel->condition.type().is_vector())
            continue;
        auto t =
            side == 0 ? fold(make(sel->true_value, other)) : fold(make(other, sel->true_value));
        auto f =
            side == 0 ? fold(make(sel->false_value, other)) : fold(make(other, sel->false_value));
        if (t && f && is_const(*t) && is_const(*f)) return Select::make(sel->condition, *t, *f);
    }
    return std::nullopt;
}

Expr Simplifier::visit_add(const Add *op, ExprInfo *info) {
    ExprInfo ia, ib;
    Expr a = mutate(op->a, &ia), b = mutate(op->b, &ib);
    Type t = op->type;
    if (auto f = fold_if_const(Add::make(a, b), {a, b})) return rewrite(*f, info);
    if (auto p = push_into_select(a, b, Add::make)) return rewrite(*p, info);
    if (both_broadcasts(a, b)) {
        const auto *ba = a.as<Broadcast>();
        return rewrite(Broadcast::make(Add::make(ba->value, b.as<Broadcast>()->value), ba->lanes),
                       info);
    }
    if (is_const(a) && !is_const(b)) return rewrite(Add::make(b, a), info);
    const auto *add_a = a.as<Add>();
    const auto *add_b = b.as<Add>();
    const auto *sub_a = a.as<Sub>();
    const auto *sub_b = b.as<Sub>();
    if (t.is_float()) {
        // x + -0.0 is x for every x; x + 0.0 is not (-0.0 + 0.0 == 0.0).
        if (is_negative_zero(b)) return a;
        if (sub_b && is_negative_zero(sub_b->a)) return rewrite(Sub::make(a, sub_b->b), info);
        if (sub_a && is_negative_zero(sub_a->a)) return rewrite(Sub::make(b, sub_a->b), info);
    } else if (is_int(t)) {
        const auto *mul_a = a.as<Mul>();
        const auto *mul_b = b.as<Mul>();
        const auto *ramp_a = a.as<Ramp>();
        const auto *ramp_b = b.as<Ramp>();
        const auto *bc_b = b.as<Broadcast>();
        if (is_const_zero(b)) return a;
        if (add_a && is_const(add_a->b)) {
            // (x + c1) + c2 -> x + (c1 + c2); (x + c) + y -> (x + y) + c
            if (is_const(b)) {
                if (auto c = fold_op<Add>(add_a->b, b))
                    return rewrite(Add::make(add_a->a, *c), info);
            } else if (cannot_overflow(IRNodeType::Add, add_a->a, b)) {
                return rewrite(Add::make(Add::make(add_a->a, b), add_a->b), info);
            }
        }
        if (add_b && is_const(add_b->b) && cannot_overflow(IRNodeType::Add, a, add_b->a)) {
            return rewrite(Add::make(Add::make(a, add_b->a), add_b->b), info);  // x + (y + c)
        }
        // x + ((y - x) + c) -> y + c, and (x + c) + (y - x) -> y + c: the result is the value of
        // the whole sum, so it cannot overflow where the original did not.
        if (add_b && is_const(add_b->b)) {
            const auto *inner = add_b->a.as<Sub>();
            if (inner && equal(inner->b, a)) return rewrite(Add::make(inner->a, add_b->b), info);
        }
        if (add_a && is_const(add_a->b) && sub_b && equal(sub_b->b, add_a->a)) {
            return rewrite(Add::make(sub_b->a, add_a->b), info);
        }
        if (add_a && is_const(add_a->b)) {  // ((y - x) + c) + x -> y + c
            const auto *inner = add_a->a.as<Sub>();
            if (inner && equal(inner->b, b)) return rewrite(Add::make(inner->a, add_a->b), info);
        }
        if (t.is_uint() && sub_a && is_const(sub_a->b) && is_const(b)) {
            // Unsigned (x - c1) + c2
            auto c1 = const_int(sub_a->b), c2 = const_int(b);
            if (c1 && c2 && *c2 >= *c1)
                return rewrite(Add::make(sub_a->a, int_const(t, *c2 - *c1)), info);
            if (c1 && c2) return rewrite(Sub::make(sub_a->a, int_const(t, *c1 - *c2)), info);
        }
        if (sub_a && is_const(sub_a->a)) {
            // (c1 - x) + c2 -> (c1 + c2) - x; (c - x) + y -> (y - x) + c
            if (is_const(b)) {
                if (auto c = fold_op<Add>(sub_a->a, b))
                    return rewrite(Sub::make(*c, sub_a->b), info);
            } else if (cannot_overflow(IRNodeType::Sub, b, sub_a->b)) {
                return rewrite(Add::make(Sub::make(b, sub_a->b), sub_a->a), info);
            }
        }
        if (sub_b && is_const(sub_b->a) && cannot_overflow(IRNodeType::Sub, a, sub_b->b)) {
            return rewrite(Add::make(Sub::make(a, sub_b->b), sub_b->a), info);  // x + (c - y)
        }
        // Terms that cancel across the two sides. Each result is the value of the whole sum, so
        // it cannot overflow where the original did not.
        if (add_a && sub_b) {
            if (equal(sub_b->b, add_a->a)) return rewrite(Add::make(add_a->b, sub_b->a), info);
            if (equal(sub_b->b, add_a->b)) return rewrite(Add::make(add_a->a, sub_b->a), info);
        }
        if (sub_a && add_b) {
            if (equal(sub_a->b, add_b->a)) return rewrite(Add::make(sub_a->a, add_b->b), info);
            if (equal(sub_a->b, add_b->b)) return rewrite(Add::make(sub_a->a, add_b->a), info);
        }
        if (sub_a && sub_b) {
            if (equal(sub_a->a, sub_b->b)) return rewrite(Sub::make(sub_b->a, sub_a->b), info);
            if (equal(sub_a->b, sub_b->a)) return rewrite(Sub::make(sub_a->a, sub_b->b), info);
        }
        if (sub_a && equal(sub_a->b, b)) return sub_a->a;  // (x - y) + y
        if (sub_b && equal(sub_b->b, a)) return sub_b->a;  // y + (x - y)
        if (equal(a, b)) return rewrite(Mul::make(a, int_const(t, 2)), info);
        if (mul_a && is_const(mul_a->b)) {
            // x*c1 + x*c2 -> x*(c1 + c2); x*c + x -> x*(c + 1)
            if (mul_b && is_const(mul_b->b) && equal(mul_a->a, mul_b->a)) {
                return rewrite(Mul::make(mul_a->a, Add::make(mul_a->b, mul_b->b)), info);
            }
            if (equal(mul_a->a, b)) {
                return rewrite(Mul::make(b, Add::make(mul_a->b, int_const(t, 1))), info);
            }
        }
        if (mul_b && is_const(mul_b->b) && equal(mul_b->a, a)) {
            return rewrite(Mul::make(a, Add::make(mul_b->b, int_const(t, 1))), info);
        }
        if (add_a && mul_b && is_const(mul_b->b)) {
            // (z + x*c1) + x*c2 -> z + x*(c1 + c2)
            const auto *inner = add_a->b.as<Mul>();
            if (inner && is_const(inner->b) && equal(inner->a, mul_b->a) &&
                cannot_overflow(IRNodeType::Mul, inner->a, Add::make(inner->b, mul_b->b))) {
                return rewrite(
                    Add::make(add_a->a, Mul::make(inner->a, Add::make(inner->b, mul_b->b))), info);
            }
        }
        if (sub_b && is_const_zero(sub_b->a)) return rewrite(Sub::make(a, sub_b->b), info);
        // (x / y) * y + x % y -> x, in either order, for y a constant above 0 or an expression
        // known to be at least 1 (a row's length inside a loop over the rows joined: the
        // coordinates of a point of a dense buffer back to its offset).
        for (int side = 0; side < 2; side++) {
            const auto *mul = (side == 0 ? a : b).as<Mul>();
            const auto *mod = (side == 0 ? b : a).as<Mod>();
            const auto *div = mul ? mul->a.as<Div>() : nullptr;
            if (!div || !mod || !equal(div->b, mul->b) || !equal(mod->b, mul->b) ||
                !equal(div->a, mod->a)) {
                continue;
            }
            ExprInfo divisor;
            mutate(mul->b, &divisor);
            if (divisor.min_at_least(1)) return rewrite(div->a, info);
        }
        if (sub_a && is_const_zero(sub_a->a)) return rewrite(Sub::make(b, sub_a->b), info);
        if (ramp_a && ramp_b && ramp_a->lanes == ramp_b->lanes) {
            return rewrite(Ramp::make(Add::make(ramp_a->base, ramp_b->base),
                                      Add::make(ramp_a->stride, ramp_b->stride), ramp_a->lanes),
                           info);
        }
        if (ramp_a && bc_b && ramp_a->lanes == bc_b->lanes) {
            return rewrite(
                Ramp::make(Add::make(ramp_a->base, bc_b->value), ramp_a->stride, ramp_a->lanes),
                info);
        }
        if (ramp_b && a.as<Broadcast>() && ramp_b->lanes == a.as<Broadcast>()->lanes) {
            return rewrite(Add::make(b, a), info);
        }
    }
    // select(c, x, y) + select(c, z, w) -> select(c, x + z, y + w)
    const auto *sel_a = a.as<Select>();
    const auto *sel_b = b.as<Select>();
    if (sel_a && sel_b && equal(sel_a->condition, sel_b->condition)) {
        return rewrite(
            Select::make(sel_a->condition, Add::make(sel_a->true_value, sel_b->true_value),
                         Add::make(sel_a->false_value, sel_b->false_value)),
            info);
    }
    *info = make_info(t, plus(wide(ia.min), wide(ib.min)), plus(wide(ia.max), wide(ib.max)),
                      ia.alignment + ib.alignment);
    DSL_FINISH((a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Add::make(a, b));
}

Expr Simplifier::visit_sub(const Sub *op, ExprInfo *info) {
    ExprInfo ia, ib;
    Expr a = mutate(op->a, &ia), b = mutate(op->b, &ib);
    Type t = op->type;
    if (auto f = fold_if_const(Sub::make(a, b), {a, b})) return rewrite(*f, info);
    if (auto p = push_into_select(a, b, Sub::make)) return rewrite(*p, info);
    if (both_broadcasts(a, b)) {
        const auto *ba = a.as<Broadcast>();
        return rewrite(Broadcast::make(Sub::make(ba->value, b.as<Broadcast>()->value), ba->lanes),
                       info);
    }
    const auto *add_a = a.as<Add>();
    const auto *add_b = b.as<Add>();
    const auto *sub_a = a.as<Sub>();
    const auto *sub_b = b.as<Sub>();
    if (t.is_float()) {
        // x - 0.0 is x for every x (including -0.0); negating twice is exact.
        if (is_positive_zero(b)) return a;
        if (is_negative_zero(a) && sub_b && is_negative_zero(sub_b->a)) return sub_b->b;
    } else if (is_int(t)) {
        const auto *mul_a = a.as<Mul>();
        const auto *mul_b = b.as<Mul>();
        if (equal(a, b)) return rewrite(make_zero(t), info);
        if (auto d = constant_difference(a, b)) return rewrite(int_const(t, *d), info);
        // A let-bound coordinate minus the same value spelled out (a producer's point inside
        // its allocation: the store's index minus the allocation's minimum) is a constant that
        // only the let's value shows.
        if (!through_lets_ && (let_valued(a) || let_valued(b))) {
            if (auto c = constant_through_lets(Sub::make(a, b)))
                return rewrite(int_const(t, *c), info);
        }
        if (is_const(b)) {
            if (t.is_int()) {
                // Signed x - c is x + (-c), except where -c does not exist.
                auto c = const_int(b);
                if (c && *c != t.element_of().int_min()) {
                    return rewrite(Add::make(a, int_const(t, -*c)), info);
                }
            } else {
                if (is_const_zero(b)) return a;
                if (add_a && is_const(add_a->b)) {
                    // Unsigned (x + c1) - c2
                    auto c1 = const_int(add_a->b), c2 = const_int(b);
                    if (c1 && c2 && *c1 >= *c2)
                        return rewrite(Add::make(add_a->a, int_const(t, *c1 - *c2)), info);
                    if (c1 && c2)
                        return rewrite(Sub::make(add_a->a, int_const(t, *c2 - *c1)), info);
                }
                if (sub_a && is_const(sub_a->b)) {
                    auto c1 = const_int(sub_a->b), c2 = const_int(b);
                    int128 sum = c1 && c2 ? int128(*c1) + *c2 : -1;
                    if (c1 && c2 && sum <= int128(t.element_of().uint_max())) {
                        return rewrite(Sub::make(sub_a->a, int_const(t, static_cast<int64_t>(sum))),
                                       info);
                    }
                }
            }
        }
        if (is_const(a)) {
            // c1 - (x + c2) -> (c1 - c2) - x; c1 - (c2 - x) -> x + (c1 - c2)
            if (add_b && is_const(add_b->b)) {
                if (auto c = fold_op<Sub>(a, add_b->b))
                    return rewrite(Sub::make(*c, add_b->a), info);
            }
            if (sub_b && is_const(sub_b->a)) {
                if (auto c = fold_op<Sub>(a, sub_b->a))
                    return rewrite(Add::make(sub_b->b, *c), info);
            }
        }
        if (add_a) {
            if (equal(add_a->a, b)) return add_a->b;  // (x + y) - x
            if (equal(add_a->b, b)) return add_a->a;  // (x + y) - y
            // ((x + y) + z) - x -> y + z: the new sum is the value of the whole expression, so
            // it overflows only where the original did (an unrolled row of a tile, y.min + 6 * yb
            // + 1, less y.min).
            if (const auto *inner = add_a->a.as<Add>()) {
                if (equal(inner->a, b)) return rewrite(Add::make(inner->b, add_a->b), info);
                if (equal(inner->b, b)) return rewrite(Add::make(inner->a, add_a->b), info);
            }
        }
        if (add_b) {
            if (equal(add_b->a, a)) return rewrite(Sub::make(make_zero(t), add_b->b), info);
            if (equal(add_b->b, a)) return rewrite(Sub::make(make_zero(t), add_b->a), info);
        }
        if (sub_a && equal(sub_a->a, b)) return rewrite(Sub::make(make_zero(t), sub_a->b), info);
        if (sub_b && equal(sub_b->a, a)) return sub_b->b;  // x - (x - y)
        if (sub_a && sub_b) {
            // (x - y) - (z - y) -> x - z; (x - y) - (x - z) -> z - y
            if (equal(sub_a->b, sub_b->b)) return rewrite(Sub::make(sub_a->a, sub_b->a), info);
            if (equal(sub_a->a, sub_b->a)) return rewrite(Sub::make(sub_b->b, sub_a->b), info);
        }
        if (add_a && sub_b) {
            // (x + y) - (x - z) -> y + z
            if (equal(add_a->a, sub_b->a)) return rewrite(Add::make(add_a->b, sub_b->b), info);
            if (equal(add_a->b, sub_b->a)) return rewrite(Add::make(add_a->a, sub_b->b), info);
        }
        if (add_a && add_b) {
            // Cancel a common term of two sums.
            if (equal(add_a->a, add_b->a)) return rewrite(Sub::make(add_a->b, add_b->b), info);
            if (equal(add_a->a, add_b->b)) return rewrite(Sub::make(add_a->b, add_b->a), info);
            if (equal(add_a->b, add_b->a)) return rewrite(Sub::make(add_a->a, add_b->b), info);
            if (equal(add_a->b, add_b->b)) return rewrite(Sub::make(add_a->a, add_b->a), info);
        }
        if (add_a && is_const(add_a->b) && !is_const(b) &&
            cannot_overflow(IRNodeType::Sub, add_a->a, b)) {
            return rewrite(Add::make(Sub::make(add_a->a, b), add_a->b), info);  // (x + c) - y
        }
        if (add_b && is_const(add_b->b) && !is_const(a) &&
            cannot_overflow(IRNodeType::Sub, a, add_b->a)) {
            return rewrite(Sub::make(Sub::make(a, add_b->a), add_b->b), info);  // x - (y + c)
        }
        if (mul_a && is_const(mul_a->b)) {
            if (mul_b && is_const(mul_b->b) && equal(mul_a->a, mul_b->a)) {
                return rewrite(Mul::make(mul_a->a, Sub::make(mul_a->b, mul_b->b)), info);
            }
            if (equal(mul_a->a, b)) {
                return rewrite(Mul::make(b, Sub::make(mul_a->b, int_const(t, 1))), info);
            }
        }
        if (mul_b && is_const(mul_b->b) && equal(mul_b->a, a)) {
            return rewrite(Mul::make(a, Sub::make(int_const(t, 1), mul_b->b)), info);
        }
        if (sub_b && is_const_zero(sub_b->a)) return rewrite(Add::make(a, sub_b->b), info);
        if (mul_b && is_const(mul_b->b)) {
            // x - (x / c) * c -> x % c, for c > 0. The difference is the remainder, which lies in
            // [0, c), so even where the product wraps the result is exact.
            const auto *div = mul_b->a.as<Div>();
            auto c = const_int(mul_b->b);
            if (div && c && *c > 0 && equal(div->a, a) && equal(div->b, mul_b->b)) {
                return rewrite(Mod::make(a, mul_b->b), info);
            }
        }
        const auto *ramp_a = a.as<Ramp>();
        const auto *ramp_b = b.as<Ramp>();
        const auto *bc_a = a.as<Broadcast>();
        const auto *bc_b = b.as<Broadcast>();
        if (ramp_a && ramp_b && ramp_a->lanes == ramp_b->lanes) {
            return rewrite(Ramp::make(Sub::make(ramp_a->base, ramp_b->base),
                                      Sub::make(ramp_a->stride, ramp_b->stride), ramp_a->lanes),
                           info);
        }
        if (ramp_a && bc_b && ramp_a->lanes == bc_b->lanes) {
            return rewrite(
                Ramp::make(Sub::make(ramp_a->base, bc_b->value), ramp_a->stride, ramp_a->lanes),
                info);
        }
        if (bc_a && ramp_b && bc_a->lanes == ramp_b->lanes) {
            return rewrite(Ramp::make(Sub::make(bc_a->value, ramp_b->base),
                                      Sub::make(make_zero(ramp_b->stride.type()), ramp_b->stride),
                                      ramp_b->lanes),
                           info);
        }
    }
    const auto *sel_a = a.as<Select>();
    const auto *sel_b = b.as<Select>();
    if (sel_a && sel_b && equal(sel_a->condition, sel_b->condition)) {
        return rewrite(
            Select::make(sel_a->condition, Sub::make(sel_a->true_value, sel_b->true_value),
                         Sub::make(sel_a->false_value, sel_b->false_value)),
            info);
    }
    *info = make_info(t, minus(wide(ia.min), wide(ib.max)), minus(wide(ia.max), wide(ib.min)),
                      ia.alignment - ib.alignment);
    DSL_FINISH((a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Sub::make(a, b));
}

Expr Simplifier::visit_mul(const Mul *op, ExprInfo *info) {
    ExprInfo ia, ib;
    Expr a = mutate(op->a, &ia), b = mutate(op->b, &ib);
    Type t = op->type;
    if (auto f = fold_if_const(Mul::make(a, b), {a, b})) return rewrite(*f, info);
    if (auto p = push_into_select(a, b, Mul::make)) return rewrite(*p, info);
    if (both_broadcasts(a, b)) {
        const auto *ba = a.as<Broadcast>();
        return rewrite(Broadcast::make(Mul::make(ba->value, b.as<Broadcast>()->value), ba->lanes),
                       info);
    }
    if (is_const(a) && !is_const(b)) return rewrite(Mul::make(b, a), info);
    if (t.is_float()) {
        if (is_const_one(b)) return a;
    } else if (is_int(t)) {
        if (is_const_zero(b)) return rewrite(make_zero(t), info);
        if (is_const_one(b)) return a;
        const auto *mul_a = a.as<Mul>();
        const auto *add_a = a.as<Add>();
        const auto *ramp_a = a.as<Ramp>();
        const auto *bc_b = b.as<Broadcast>();
        if (is_const(b)) {
            // (x * c1) * c2 -> x * (c1 * c2); (x + c1) * c2 -> x * c2 + c1 * c2
            if (mul_a && is_const(mul_a->b)) {
                if (auto c = fold_op<Mul>(mul_a->b, b))
                    return rewrite(Mul::make(mul_a->a, *c), info);
            }
            if (add_a && is_const(add_a->b)) {
                auto c = fold_op<Mul>(add_a->b, b);
                if (c && cannot_overflow(IRNodeType::Mul, add_a->a, b)) {
                    return rewrite(Add::make(Mul::make(add_a->a, b), *c), info);
                }
            }
        }
        if (ramp_a && bc_b && ramp_a->lanes == bc_b->lanes) {
            return rewrite(Ramp::make(Mul::make(ramp_a->base, bc_b->value),
                                      Mul::make(ramp_a->stride, bc_b->value), ramp_a->lanes),
                           info);
        }
    }
    if (is_int(t)) {
        Bound lo, hi;
        if (ia.min && ia.max && ib.min && ib.max) {
            int128 c[4] = {int128(*ia.min) * *ib.min, int128(*ia.min) * *ib.max,
                           int128(*ia.max) * *ib.min, int128(*ia.max) * *ib.max};
            lo = std::min(std::min(c[0], c[1]), std::min(c[2], c[3]));
            hi = std::max(std::max(c[0], c[1]), std::max(c[2], c[3]));
        } else if (ib.is_const()) {
            int128 c = *ib.min;
            Bound x = c >= 0 ? wide(ia.min) : wide(ia.max),
                  y = c >= 0 ? wide(ia.max) : wide(ia.min);
            if (x) lo = *x * c;
            if (y) hi = *y * c;
        }
        *info = make_info(t, lo, hi, ia.alignment * ib.alignment);
    }
    DSL_FINISH((a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Mul::make(a, b));
}

Expr Simplifier::visit_div(const Div *op, ExprInfo *info) {
    ExprInfo ia, ib;
    Expr a = mutate(op->a, &ia), b = mutate(op->b, &ib);
    Type t = op->type;
    if (auto f = fold_if_const(Div::make(a, b), {a, b})) return rewrite(*f, info);
    if (auto p = push_into_select(a, b, Div::make)) return rewrite(*p, info);
    if (both_broadcasts(a, b)) {
        const auto *ba = a.as<Broadcast>();
        return rewrite(Broadcast::make(Div::make(ba->value, b.as<Broadcast>()->value), ba->lanes),
                       info);
    }
    if (t.is_float()) {
        if (is_const_one(b)) return a;
        return (a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Div::make(a, b);
    }
    if (!is_int(t)) return (a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Div::make(a, b);
    // Integer division by zero gives zero.
    if (is_const_zero(b) || is_const_zero(a)) return rewrite(make_zero(t), info);
    if (is_const_one(b)) return a;
    if (t.is_int() && is_const(b, -1)) return rewrite(Sub::make(make_zero(t), a), info);
    auto c = const_int(b);
    if (t.is_int()) {
        // Euclidean x / -c is -(x / c); with c > 1 the negation cannot overflow.
        auto neg = as_const_int(b);
        if (neg && *neg < -1 && *neg > t.element_of().int_min()) {
            return rewrite(Sub::make(make_zero(t), Div::make(a, int_const(t, -*neg))), info);
        }
    }
    if (c && *c > 0) {
        const auto *mul_a = a.as<Mul>();
        const auto *add_a = a.as<Add>();
        const auto *div_a = a.as<Div>();
        const auto *ramp_a = a.as<Ramp>();
        // (x / c1) / c2 -> x / (c1 * c2), when the product fits.
        if (div_a) {
            auto c1 = const_int(div_a->b);
            if (c1 && *c1 > 0) {
                int128 product = int128(*c1) * *c;
                Type et = t.element_of();
                int128 limit = et.is_int() ? int128(et.int_max()) : int128(et.uint_max());
                if (product <= limit) {
                    return rewrite(Div::make(div_a->a, int_const(t, static_cast<int64_t>(product))),
                                   info);
                }
            }
        }
        if (no_overflow(t)) {
            if (mul_a) {
                auto c1 = const_int(mul_a->b);
                // (x * c1) / c -> x * (c1 / c) or x / (c / c1)
                if (c1 && *c1 % *c == 0)
                    return rewrite(Mul::make(mul_a->a, int_const(t, *c1 / *c)), info);
                if (c1 && *c1 > 0 && *c % *c1 == 0) {
                    return rewrite(Div::make(mul_a->a, int_const(t, *c / *c1)), info);
                }
            }
            if (add_a) {
                // (x*c1 + y) / c -> x*(c1/c) + y/c, and likewise with the terms swapped.
                for (int side = 0; side < 2; side++) {
                    const Expr &term = side == 0 ? add_a->a : add_a->b;
                    const Expr &other = side == 0 ? add_a->b : add_a->a;
                    const auto *m = term.as<Mul>();
                    auto c1 = m ? const_int(m->b) : std::nullopt;
                    if (c1 && *c1 % *c == 0) {
                        return rewrite(
                            Add::make(Mul::make(m->a, int_const(t, *c1 / *c)), Div::make(other, b)),
                            info);
                    }
                }
                // (x + c1) / c -> x / c + k when c1 is a multiple of c, or when x's alignment
                // says how far x is from the next multiple of c.
                if (auto c1 = const_int(add_a->b)) {
                    if (*c1 % *c == 0) {
                        return rewrite(Add::make(Div::make(add_a->a, b), int_const(t, *c1 / *c)),
                                       info);
                    }
                    ExprInfo ix;
                    mutate(add_a->a, &ix);
                    int64_t r = ix.alignment.remainder_mod(*c);
                    if (r >= 0) {
                        int128 k = floor_div(int128(r) + *c1, *c) - floor_div(r, *c);
                        return rewrite(Add::make(Div::make(add_a->a, b),
                                                 int_const(t, static_cast<int64_t>(k))),
                                       info);
                    }
                }
            }
            if (ramp_a && ramp_a->base.type().is_scalar()) {
                auto s = const_int(ramp_a->stride);
                Expr scalar_c = int_const(ramp_a->base.type(), *c);
                if (s && *s % *c == 0) {
                    return rewrite(
                        Ramp::make(Div::make(ramp_a->base, scalar_c),
                                   int_const(ramp_a->stride.type(), *s / *c), ramp_a->lanes),
                        info);
                }
                // Every lane falls between the same two multiples of c.
                ExprInfo ibase;
                mutate(ramp_a->base, &ibase);
                int64_t r = ibase.alignment.remainder_mod(*c);
                if (s && *s >= 0 && r >= 0 && int128(r) + int128(ramp_a->lanes - 1) * *s < *c) {
                    return rewrite(
                        Broadcast::make(Div::make(ramp_a->base, scalar_c), ramp_a->lanes), info);
                }
            }
        }
    }
    // Facts: Euclidean division rounds down for positive divisors and is the negation of the
    // division by |b| for negative ones; a zero divisor gives zero.
    Bound lo, hi;
    if (ib.min && ib.max && ia.min && ia.max) {
        if (*ib.min > 0) {
            int128 q[4] = {floor_div(*ia.min, *ib.min), floor_div(*ia.min, *ib.max),
                           floor_div(*ia.max, *ib.min), floor_div(*ia.max, *ib.max)};
            lo = std::min(std::min(q[0], q[1]), std::min(q[2], q[3]));
            hi = std::max(std::max(q[0], q[1]), std::max(q[2], q[3]));
        } else if (*ib.max < 0) {
            int128 q[4] = {
                -floor_div(*ia.min, -int128(*ib.min)), -floor_div(*ia.min, -int128(*ib.max)),
                -floor_div(*ia.max, -int128(*ib.min)), -floor_div(*ia.max, -int128(*ib.max))};
            lo = std::min(std::min(q[0], q[1]), std::min(q[2], q[3]));
            hi = std::max(std::max(q[0], q[1]), std::max(q[2], q[3]));
        } else {
            int128 m = std::max(-int128(*ia.min), int128(*ia.max));
            m = std::max(m, int128(0));
            lo = -m;
            hi = m;
        }
    }
    *info = make_info(t, lo, hi, ia.alignment / ib.alignment);
    DSL_FINISH((a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Div::make(a, b));
}

Expr Simplifier::visit_mod(const Mod *op, ExprInfo *info) {
    ExprInfo ia, ib;
    Expr a = mutate(op->a, &ia), b = mutate(op->b, &ib);
    Type t = op->type;
    if (auto f = fold_if_const(Mod::make(a, b), {a, b})) return rewrite(*f, info);
    if (auto p = push_into_select(a, b, Mod::make)) return rewrite(*p, info);
    if (both_broadcasts(a, b)) {
        const auto *ba = a.as<Broadcast>();
        return rewrite(Broadcast::make(Mod::make(ba->value, b.as<Broadcast>()->value), ba->lanes),
                       info);
    }
    if (!is_int(t)) return (a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Mod::make(a, b);
    if (is_const_zero(b) || is_const_one(b) || is_const_zero(a) ||
        (t.is_int() && is_const(b, -1)) || equal(a, b)) {
        return rewrite(make_zero(t), info);
    }
    auto c = const_int(b);
    if (t.is_int()) {
        // The Euclidean remainder by -c is the remainder by c.
        auto neg = as_const_int(b);
        if (neg && *neg < 0 && *neg > t.element_of().int_min()) {
            return rewrite(Mod::make(a, int_const(t, -*neg)), info);
        }
    }
    if (c && *c > 0) {
        // Already in range.
        if (ia.min_at_least(0) && ia.max_at_most(*c - 1)) {
            *info = ia;
            return a;
        }
        const auto *mod_a = a.as<Mod>();
        const auto *add_a = a.as<Add>();
        const auto *ramp_a = a.as<Ramp>();
        if (mod_a) {
            auto c1 = const_int(mod_a->b);
            if (c1 && *c1 > 0 && *c1 % *c == 0) return rewrite(Mod::make(mod_a->a, b), info);
        }
        if (mod_survives_wrap(t, *c)) {
            if (add_a) {
                // (x + y*c1) % c -> x % c, and likewise with the terms swapped.
                for (int side = 0; side < 2; side++) {
                    const Expr &term = side == 0 ? add_a->a : add_a->b;
                    const Expr &other = side == 0 ? add_a->b : add_a->a;
                    const auto *m = term.as<Mul>();
                    auto c1 = m ? const_int(m->b) : std::nullopt;
                    if (c1 && *c1 % *c == 0) return rewrite(Mod::make(other, b), info);
                    auto c2 = const_int(term);
                    if (c2 && *c2 % *c == 0) return rewrite(Mod::make(other, b), info);
                }
                // (x + c1) % c -> (x + c1 % c) % c, where the new sum cannot overflow.
                auto c1 = const_int(add_a->b);
                bool power_of_two = (*c & (*c - 1)) == 0;
                if (c1 && (*c1 >= *c || (*c1 < 0 && power_of_two))) {
                    int64_t reduced = ((*c1 % *c) + *c) % *c;
                    return rewrite(Mod::make(Add::make(add_a->a, int_const(t, reduced)), b), info);
                }
            }
            if (ramp_a && ramp_a->base.type().is_scalar()) {
                auto s = const_int(ramp_a->stride);
                Expr scalar_c = int_const(ramp_a->base.type(), *c);
                if (s && *s % *c == 0) {
                    return rewrite(
                        Broadcast::make(Mod::make(ramp_a->base, scalar_c), ramp_a->lanes), info);
                }
                ExprInfo ibase;
                mutate(ramp_a->base, &ibase);
                int64_t r = ibase.alignment.remainder_mod(*c);
                if (s && *s >= 0 && r >= 0 && int128(r) + int128(ramp_a->lanes - 1) * *s < *c) {
                    return rewrite(Ramp::make(int_const(ramp_a->base.type(), r), ramp_a->stride,
                                              ramp_a->lanes),
                                   info);
                }
            }
        }
    }
    Bound lo = 0, hi;
    if (ib.min && ib.max) {
        int128 m = std::max(-int128(*ib.min), int128(*ib.max));
        hi = m > 0 ? m - 1 : 0;
    }
    if (ia.min_at_least(0) && ia.max) hi = hi ? std::min(*hi, int128(*ia.max)) : int128(*ia.max);
    *info = make_info(t, lo, hi, ia.alignment % ib.alignment);
    DSL_FINISH((a.same_as(op->a) && b.same_as(op->b)) ? Expr(op) : Mod::make(a, b));
}

#undef DSL_FINISH

}  // namespace dsl::ir::simplify_internal
