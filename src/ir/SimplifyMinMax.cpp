// Rules for Min and Max.
#include "ir/IROperator.h"
#include "ir/SimplifyInternal.h"

namespace dsl::ir::simplify_internal {

namespace {

/// The operands of `e` if it is a Min (`want_min`) or a Max (otherwise).
bool match(const Expr &e, bool want_min, Expr *a, Expr *b) {
    if (want_min) {
        if (const auto *m = e.as<Min>()) {
            *a = m->a;
            *b = m->b;
            return true;
        }
    } else if (const auto *m = e.as<Max>()) {
        *a = m->a;
        *b = m->b;
        return true;
    }
    return false;
}

}  // namespace

Expr Simplifier::visit_min_max(const Expr &e, ExprInfo *info) {
    const bool is_min = e.node_type() == IRNodeType::Min;
    Expr orig_a, orig_b;
    match(e, is_min, &orig_a, &orig_b);
    ExprInfo ia, ib;
    Expr a = mutate(orig_a, &ia), b = mutate(orig_b, &ib);
    Type t = e.type();
    auto make = [is_min](const Expr &x, const Expr &y) {
        return is_min ? Min::make(x, y) : Max::make(x, y);
    };

    if (auto f = fold_if_const(make(a, b), {a, b})) return rewrite(*f, info);
    const auto *ba = a.as<Broadcast>();
    const auto *bb = b.as<Broadcast>();
    if (ba && bb && ba->lanes == bb->lanes)
        return rewrite(Broadcast::make(make(ba->value, bb->value), ba->lanes), info);
    if (equal(a, b)) {
        *info = ia;
        return a;
    }
    // Not for floats: min(-0.0, 0.0) and min(0.0, -0.0) differ in the sign of the zero.
    if (is_const(a) && !is_const(b) && !t.is_float()) return rewrite(make(b, a), info);

    const bool is_integer = t.is_int_or_uint() && !t.is_bool();
    if (is_integer) {
        // Decided by bounds: min(x, y) is x when x <= y everywhere.
        bool a_le_b = ia.max && ib.min && *ia.max <= *ib.min;
        bool b_le_a = ib.max && ia.min && *ib.max <= *ia.min;
        if (is_min ? a_le_b : b_le_a) {
            *info = ia;
            return a;
        }
        if (is_min ? b_le_a : a_le_b) {
            *info = ib;
            return b;
        }
        Expr x, y;
        if (match(a, is_min, &x, &y)) {
            // min(min(x, c1), c2) -> min(x, min(c1, c2)); min(min(x, c), y) -> min(min(x, y), c)
            if (is_const(y) && is_const(b)) {
                if (auto c = fold(make(y, b))) return rewrite(make(x, *c), info);
            } else if (is_const(y)) {
                return rewrite(make(make(x, b), y), info);
            }
            // min(min(x, y), x) -> min(x, y)
            if (equal(x, b) || equal(y, b)) {
                *info = ia;
                return a;
            }
        }
        if (match(b, is_min, &x, &y)) {
            if (equal(x, a) || equal(y, a)) {
                *info = ib;
                return b;
            }
            if (is_const(y)) return rewrite(make(make(a, x), y), info);
        }
        // min(max(x, y), x) -> x, and the like: the inner max is at least x.
        if (match(a, !is_min, &x, &y) && (equal(x, b) || equal(y, b))) {
            *info = ib;
            return b;
        }
        if (match(b, !is_min, &x, &y) && (equal(x, a) || equal(y, a))) {
            *info = ia;
            return a;
        }
        // min(x / c, y / c) -> min(x, y) / c for c > 0: division rounding down is monotonic.
        const auto *div_a = a.as<Div>();
        const auto *div_b = b.as<Div>();
        if (div_a && div_b && equal(div_a->b, div_b->b)) {
            auto c = const_int(div_a->b);
            if (c && *c > 0) return rewrite(Div::make(make(div_a->a, div_b->a), div_a->b), info);
        }
        if (no_overflow(t)) {
            // min(x * c, y * c) -> min(x, y) * c for c > 0 (max for c < 0); the product is one of
            // the original ones, so it cannot overflow.
            const auto *mul_a = a.as<Mul>();
            const auto *mul_b = b.as<Mul>();
            if (mul_a && mul_b && equal(mul_a->b, mul_b->b)) {
                auto c = const_int(mul_a->b);
                if (c && *c > 0)
                    return rewrite(Mul::make(make(mul_a->a, mul_b->a), mul_a->b), info);
                if (c && *c < 0) {
                    Expr other =
                        is_min ? Max::make(mul_a->a, mul_b->a) : Min::make(mul_a->a, mul_b->a);
                    return rewrite(Mul::make(other, mul_a->b), info);
                }
            }
            // min(x + y, x) -> x when y >= 0 (x + y when y <= 0), and the like for max: the sum
            // is one of the original terms, so it does not overflow.
            for (int side = 0; side < 2; side++) {
                const Expr &sum = side == 0 ? a : b, &base = side == 0 ? b : a;
                const auto *add = sum.as<Add>();
                if (!add) continue;
                Expr offset = equal(add->a, base) ? add->b : equal(add->b, base) ? add->a : Expr();
                if (!offset.defined()) continue;
                ExprInfo io;
                mutate(offset, &io);
                bool sum_larger = io.min && *io.min >= 0, sum_smaller = io.max && *io.max <= 0;
                if (!sum_larger && !sum_smaller) continue;
                bool take_sum = is_min ? sum_smaller : sum_larger;
                const Expr &chosen = take_sum ? sum : base;
                *info = (chosen.same_as(a)) ? ia : ib;
                return chosen;
            }
            // min(x, y) -> x where x - y is a constant at most 0: `max(a + i, (a + (i + -1)) +
            // 3)` is the second.
            if (auto d = constant_difference(a, b)) {
                bool take_a = is_min ? *d <= 0 : *d >= 0;
                *info = take_a ? ia : ib;
                return take_a ? a : b;
            }
            // min(x + c1, x + c2) -> x + min(c1, c2), where the sums do not overflow.
            int64_t ca, cb;
            Expr xa = split_constant(a, &ca), xb = split_constant(b, &cb);
            if ((ca != 0 || cb != 0) && equal(xa, xb)) {
                bool take_a = is_min ? ca <= cb : ca >= cb;
                *info = take_a ? ia : ib;
                return take_a ? a : b;
            }
            if (ca != 0 && ca == cb)
                return rewrite(Add::make(make(xa, xb), int_const(t, ca)), info);
        }
    }
    // min(select(c, x, y), select(c, z, w)) -> select(c, min(x, z), min(y, w))
    const auto *sa = a.as<Select>();
    const auto *sb = b.as<Select>();
    if (sa && sb && equal(sa->condition, sb->condition)) {
        return rewrite(Select::make(sa->condition, make(sa->true_value, sb->true_value),
                                    make(sa->false_value, sb->false_value)),
                       info);
    }

    if (is_integer) {
        // min is at most either operand and at least the smaller lower bound.
        ExprInfo r;
        if (is_min) {
            if (ia.min && ib.min) r.min = std::min(*ia.min, *ib.min);
            if (ia.max || ib.max)
                r.max = std::min(ia.max.value_or(INT64_MAX), ib.max.value_or(INT64_MAX));
        } else {
            if (ia.max && ib.max) r.max = std::max(*ia.max, *ib.max);
            if (ia.min || ib.min)
                r.min = std::max(ia.min.value_or(INT64_MIN), ib.min.value_or(INT64_MIN));
        }
        r.alignment = unify(ia.alignment, ib.alignment);
        *info = make_info(t, wide(r.min), wide(r.max), r.alignment);
        if (info->is_const()) return int_const(t, *info->min);
    }
    if (a.same_as(orig_a) && b.same_as(orig_b)) return e;
    return make(a, b);
}

}  // namespace dsl::ir::simplify_internal
