// Rules for comparisons (EQ, NE, LT, LE; GT and GE become LT and LE), And, Or, Not and Select.
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/SimplifyInternal.h"

namespace dsl::ir::simplify_internal {

namespace {

/// The operands of a comparison or logical node.
void operands(const Expr &e, Expr *a, Expr *b) {
    switch (e.node_type()) {
#define DSL_OPERANDS(T)    \
    case IRNodeType::T:    \
        *a = e.as<T>()->a; \
        *b = e.as<T>()->b; \
        return;
        DSL_OPERANDS(EQ)
        DSL_OPERANDS(NE)
        DSL_OPERANDS(LT)
        DSL_OPERANDS(LE)
        DSL_OPERANDS(GT)
        DSL_OPERANDS(GE)
        DSL_OPERANDS(And)
        DSL_OPERANDS(Or)
#undef DSL_OPERANDS
        default:
            internal_error << "not a binary boolean node";
    }
}

bool between(int64_t v, int64_t lo_or_hi, int64_t other) {
    return (v >= std::min(lo_or_hi, other)) && (v <= std::max(lo_or_hi, other));
}

}  // namespace

Expr Simplifier::visit_compare(const Expr &e, ExprInfo *info) {
    Expr orig_a, orig_b;
    operands(e, &orig_a, &orig_b);
    IRNodeType op = e.node_type();
    // a > b is b < a and a >= b is b <= a, for floats too.
    if (op == IRNodeType::GT) return rewrite(LT::make(orig_b, orig_a), info);
    if (op == IRNodeType::GE) return rewrite(LE::make(orig_b, orig_a), info);
    ExprInfo ia, ib;
    Expr a = mutate(orig_a, &ia), b = mutate(orig_b, &ib);
    Type t = a.type();
    int lanes = t.lanes();
    auto make = [op](const Expr &x, const Expr &y) { return make_binary(op, x, y); };
    auto result = [&](bool v) { return make_bool(v, lanes); };

    if (auto f = fold_if_const(make(a, b), {a, b})) return *f;
    const auto *ba = a.as<Broadcast>();
    const auto *bb = b.as<Broadcast>();
    if (ba && bb && ba->lanes == bb->lanes)
        return rewrite(Broadcast::make(make(ba->value, bb->value), ba->lanes), info);

    const bool is_integer = t.is_int_or_uint();
    if (equal(a, b)) {
        if (op == IRNodeType::LT) return result(false);  // false even for NaN
        if (is_integer) return result(op == IRNodeType::EQ || op == IRNodeType::LE);
    }
    if (!is_integer) return (a.same_as(orig_a) && b.same_as(orig_b)) ? e : make(a, b);

    // Decided by bounds.
    switch (op) {
        case IRNodeType::LT:
            if (ia.max && ib.min && *ia.max < *ib.min) return result(true);
            if (ia.min && ib.max && *ia.min >= *ib.max) return result(false);
            break;
        case IRNodeType::LE:
            if (ia.max && ib.min && *ia.max <= *ib.min) return result(true);
            if (ia.min && ib.max && *ia.min > *ib.max) return result(false);
            break;
        default: {
            bool disjoint =
                (ia.max && ib.min && *ia.max < *ib.min) || (ib.max && ia.min && *ib.max < *ia.min);
            // Values with different remainders modulo a common modulus cannot be equal.
            ModulusRemainder diff = ia.alignment - ib.alignment;
            if (diff.modulus > 0 && diff.remainder != 0) disjoint = true;
            if (diff.is_constant() && diff.remainder != 0) disjoint = true;
            if (disjoint) return result(op == IRNodeType::NE);
            break;
        }
    }

    // Sides that differ by a constant, however they are written.
    if (auto d = constant_difference(a, b)) {
        switch (op) {
            case IRNodeType::LT:
                return result(*d < 0);
            case IRNodeType::LE:
                return result(*d <= 0);
            case IRNodeType::EQ:
                return result(*d == 0);
            default:
                return result(*d != 0);
        }
    }

    if (op == IRNodeType::LT || op == IRNodeType::LE) {
        // min(x, y) <= x and x <= max(x, y) hold; max(x, y) < x and x < min(x, y) do not.
        auto has_operand = [](const Expr &m, const Expr &v) {
            if (const auto *mn = m.as<Min>()) return equal(mn->a, v) || equal(mn->b, v) ? 1 : 0;
            if (const auto *mx = m.as<Max>()) return equal(mx->a, v) || equal(mx->b, v) ? 2 : 0;
            return 0;
        };
        int left = has_operand(a, b), right = has_operand(b, a);
        if (op == IRNodeType::LE && (left == 1 || right == 2)) return result(true);
        if (op == IRNodeType::LT && (left == 2 || right == 1)) return result(false);
    }

    if (t.is_bool()) {
        // b == true -> b, b != true -> !b, ...
        if (op == IRNodeType::EQ || op == IRNodeType::NE) {
            if (is_const(a)) std::swap(a, b);
            if (is_const(b)) {
                bool keep = is_const_true(b) == (op == IRNodeType::EQ);
                return keep ? a : rewrite(Not::make(a), info);
            }
        }
        return (a.same_as(orig_a) && b.same_as(orig_b)) ? e : make(a, b);
    }

    int64_t ca, cb;
    Expr xa = split_constant(a, &ca), xb = split_constant(b, &cb);
    if (op == IRNodeType::EQ || op == IRNodeType::NE) {
        // Equality survives wrap-around: adding a constant to both sides is a bijection.
        if (is_const(a) && !is_const(b)) return rewrite(make(b, a), info);
        if (ca != 0 && is_const(b)) {
            if (auto c = fold(Sub::make(b, a.as<Add>()->b))) return rewrite(make(xa, *c), info);
        }
        if (ca != 0 && cb != 0) {
            // Wrapping subtraction of the constants: equality holds in the ring. The new sum
            // must still not overflow where that is undefined, as bounds reasoning assumes so.
            int64_t d = static_cast<int64_t>(static_cast<uint64_t>(cb) - static_cast<uint64_t>(ca));
            Expr shifted = int_const(t, d);
            if (cannot_overflow(IRNodeType::Add, xb, shifted)) {
                return rewrite(make(xa, Add::make(xb, shifted)), info);
            }
        }
        if (const auto *sub = a.as<Sub>()) {
            if (is_const_zero(b)) return rewrite(make(sub->a, sub->b), info);  // x - y == 0
        }
        if (const auto *add = a.as<Add>()) {
            // (x + y) == x -> y == 0
            if (equal(add->a, b)) return rewrite(make(add->b, make_zero(t)), info);
            if (equal(add->b, b)) return rewrite(make(add->a, make_zero(t)), info);
        }
        if (const auto *add = b.as<Add>()) {
            if (equal(add->a, a)) return rewrite(make(add->b, make_zero(t)), info);
            if (equal(add->b, a)) return rewrite(make(add->a, make_zero(t)), info);
        }
        return (a.same_as(orig_a) && b.same_as(orig_b)) ? e : make(a, b);
    }

    // x / c < k -> x < k * c, for c > 0 and any integer type: the division rounds down and
    // does no arithmetic that could wrap; only the new constant must fit the type.
    {
        const bool lt = op == IRNodeType::LT;
        const auto *div = a.as<Div>() ? a.as<Div>() : b.as<Div>();
        auto k = const_int(a.as<Div>() ? b : a);
        auto c = div ? const_int(div->b) : std::nullopt;
        if (div && k && c && *c > 0) {
            Type et = t.element_of();
            int128 lo = et.is_int() ? int128(et.int_min()) : 0;
            int128 hi = et.is_int() ? int128(et.int_max()) : int128(et.uint_max());
            int128 bound;
            if (a.as<Div>()) {
                // x/c < k <=> x < k*c; x/c <= k <=> x <= k*c + c - 1
                bound = lt ? int128(*k) * *c : int128(*k) * *c + *c - 1;
            } else {
                // k < x/c <=> k*c + c - 1 < x; k <= x/c <=> k*c <= x
                bound = lt ? int128(*k) * *c + *c - 1 : int128(*k) * *c;
            }
            if (bound >= lo && bound <= hi && bound >= INT64_MIN && bound <= INT64_MAX) {
                Expr kc = int_const(t, static_cast<int64_t>(bound));
                return rewrite(a.as<Div>() ? make(div->a, kc) : make(kc, div->a), info);
            }
        }
    }

    // LT and LE: only when nothing overflows may terms move across.
    if (no_overflow(t)) {
        const bool lt = op == IRNodeType::LT;
        if ((ca != 0 || cb != 0) && equal(xa, xb)) return result(lt ? ca < cb : ca <= cb);
        if (ca != 0 && is_const(b)) {
            // x + c1 < c2 -> x < c2 - c1
            if (auto c = fold(Sub::make(b, a.as<Add>()->b))) return rewrite(make(xa, *c), info);
        }
        if (cb != 0 && is_const(a)) {
            if (auto c = fold(Sub::make(a, b.as<Add>()->b))) return rewrite(make(*c, xb), info);
        }
        if (ca != 0 && cb != 0) {
            // Keep one constant, chosen so that the new sum lies between values the original
            // expression computed and so cannot overflow.
            int128 wide_d = int128(ca) - cb;
            int64_t d = static_cast<int64_t>(wide_d);
            if (wide_d != d) d = 0;
            if (d != 0 && between(d, 0, ca))
                return rewrite(make(Add::make(xa, int_const(t, d)), xb), info);
            if (d != 0 && d != INT64_MIN && between(-d, 0, cb))
                return rewrite(make(xa, Add::make(xb, int_const(t, -d))), info);
        }
        const auto *add_a = a.as<Add>();
        const auto *add_b = b.as<Add>();
        if (add_a && add_b) {
            if (equal(add_a->a, add_b->a)) return rewrite(make(add_a->b, add_b->b), info);
            if (equal(add_a->a, add_b->b)) return rewrite(make(add_a->b, add_b->a), info);
            if (equal(add_a->b, add_b->a)) return rewrite(make(add_a->a, add_b->b), info);
            if (equal(add_a->b, add_b->b)) return rewrite(make(add_a->a, add_b->a), info);
        }
        if (add_a) {
            // x + y < x -> y < 0
            if (equal(add_a->a, b)) return rewrite(make(add_a->b, make_zero(t)), info);
            if (equal(add_a->b, b)) return rewrite(make(add_a->a, make_zero(t)), info);
        }
        if (add_b) {
            if (equal(add_b->a, a)) return rewrite(make(make_zero(t), add_b->b), info);
            if (equal(add_b->b, a)) return rewrite(make(make_zero(t), add_b->a), info);
        }
        const auto *mul_a = a.as<Mul>();
        const auto *mul_b = b.as<Mul>();
        if (mul_a && mul_b && equal(mul_a->b, mul_b->b)) {
            // x*c < y*c -> x < y for c > 0 (y < x for c < 0)
            auto c = const_int(mul_a->b);
            if (c && *c > 0) return rewrite(make(mul_a->a, mul_b->a), info);
            if (c && *c < 0) return rewrite(make(mul_b->a, mul_a->a), info);
        }
        auto cb_const = const_int(b), ca_const = const_int(a);
        if (mul_a && cb_const) {
            auto c = const_int(mul_a->b);
            if (c && *c > 0) {
                // x*c < k -> x < ceil(k / c); x*c <= k -> x <= floor(k / c)
                int128 k = lt ? ceil_div(*cb_const, *c) : floor_div(*cb_const, *c);
                return rewrite(make(mul_a->a, int_const(t, static_cast<int64_t>(k))), info);
            }
        }
        if (mul_b && ca_const) {
            auto c = const_int(mul_b->b);
            if (c && *c > 0) {
                // k < x*c -> floor(k / c) < x; k <= x*c -> ceil(k / c) <= x
                int128 k = lt ? floor_div(*ca_const, *c) : ceil_div(*ca_const, *c);
                return rewrite(make(int_const(t, static_cast<int64_t>(k)), mul_b->a), info);
            }
        }
    }
    return (a.same_as(orig_a) && b.same_as(orig_b)) ? e : make(a, b);
}

Expr Simplifier::visit_and_or(const Expr &e, ExprInfo *info) {
    const bool is_and = e.node_type() == IRNodeType::And;
    Expr orig_a, orig_b;
    operands(e, &orig_a, &orig_b);
    Expr a = mutate(orig_a);
    // b only matters where a is true (for &&) or false (for ||).
    std::vector<std::string> facts = push_facts(a, is_and);
    Expr b = mutate(orig_b);
    pop_facts(facts);
    int lanes = e.type().lanes();
    auto make = [is_and](const Expr &x, const Expr &y) {
        return is_and ? And::make(x, y) : Or::make(x, y);
    };
    if (auto f = fold_if_const(make(a, b), {a, b})) return *f;
    const auto *ba = a.as<Broadcast>();
    const auto *bb = b.as<Broadcast>();
    if (ba && bb && ba->lanes == bb->lanes)
        return rewrite(Broadcast::make(make(ba->value, bb->value), ba->lanes), info);
    if (is_const(a) && !is_const(b)) std::swap(a, b);
    // x && true -> x, x && false -> false, x || true -> true, x || false -> x
    if (is_const_true(b)) return is_and ? a : make_bool(true, lanes);
    if (is_const_false(b)) return is_and ? make_bool(false, lanes) : a;
    if (equal(a, b)) return a;
    // x && !x -> false, x || !x -> true
    const auto *not_a = a.as<Not>();
    const auto *not_b = b.as<Not>();
    if ((not_a && equal(not_a->a, b)) || (not_b && equal(not_b->a, a)))
        return make_bool(!is_and, lanes);
    // x && (x || y) -> x, x || (x && y) -> x; x && (x && y) -> x && y
    for (int side = 0; side < 2; side++) {
        const Expr &x = side == 0 ? a : b;
        const Expr &other = side == 0 ? b : a;
        Expr p, q;
        if (is_and ? other.as<Or>() != nullptr : other.as<And>() != nullptr) {
            operands(other, &p, &q);
            if (equal(p, x) || equal(q, x)) return x;
        }
        if (is_and ? other.as<And>() != nullptr : other.as<Or>() != nullptr) {
            operands(other, &p, &q);
            if (equal(p, x) || equal(q, x)) return other;
        }
    }
    // x < c1 && x < c2 -> x < min(c1, c2), and the like for integers.
    const auto *lt_a = a.as<LT>();
    const auto *lt_b = b.as<LT>();
    if (lt_a && lt_b && lt_a->a.type().is_int_or_uint()) {
        if (equal(lt_a->a, lt_b->a) && is_const(lt_a->b) && is_const(lt_b->b)) {
            bool tighter = is_and == (const_int(lt_a->b) <= const_int(lt_b->b));
            if (const_int(lt_a->b) && const_int(lt_b->b)) return tighter ? a : b;
        }
        if (equal(lt_a->b, lt_b->b) && is_const(lt_a->a) && is_const(lt_b->a)) {
            bool tighter = is_and == (const_int(lt_a->a) >= const_int(lt_b->a));
            if (const_int(lt_a->a) && const_int(lt_b->a)) return tighter ? a : b;
        }
    }
    if (a.same_as(orig_a) && b.same_as(orig_b)) return e;
    return make(a, b);
}

Expr Simplifier::visit_not(const Not *op, ExprInfo *info) {
    Expr a = mutate(op->a);
    if (auto f = fold_if_const(Not::make(a), {a})) return *f;
    if (const auto *b = a.as<Broadcast>())
        return rewrite(Broadcast::make(Not::make(b->value), b->lanes), info);
    if (const auto *n = a.as<Not>()) return n->a;
    // Exact for floats too: x != y is true exactly when x == y is false, NaN included.
    if (const auto *eq = a.as<EQ>()) return rewrite(NE::make(eq->a, eq->b), info);
    if (const auto *ne = a.as<NE>()) return rewrite(EQ::make(ne->a, ne->b), info);
    // !(a < b) is b <= a only without NaN, so only for integers.
    if (const auto *lt = a.as<LT>()) {
        if (lt->a.type().is_int_or_uint()) return rewrite(LE::make(lt->b, lt->a), info);
    }
    if (const auto *le = a.as<LE>()) {
        if (le->a.type().is_int_or_uint()) return rewrite(LT::make(le->b, le->a), info);
    }
    // De Morgan.
    if (const auto *and_ = a.as<And>())
        return rewrite(Or::make(Not::make(and_->a), Not::make(and_->b)), info);
    if (const auto *or_ = a.as<Or>())
        return rewrite(And::make(Not::make(or_->a), Not::make(or_->b)), info);
    if (a.same_as(op->a)) return op;
    return Not::make(a);
}

Expr Simplifier::visit_select(const Select *op, ExprInfo *info) {
    Expr cond = mutate(op->condition);
    ExprInfo it, iff;
    // Each value is only used in the lanes where the condition has its verdict. But both are
    // computed in every lane: a value that reads memory must stay safe to compute where the
    // condition has the other verdict (the clamp that keeps a boundary condition's load inside
    // its buffer must not be simplified away by the test that selects the constant outside).
    auto value = [&](const Expr &v, bool holds, ExprInfo *vinfo) {
        if (reads_memory(v)) return mutate(v, vinfo);
        std::vector<std::string> facts = push_facts(cond, holds);
        Expr result = mutate(v, vinfo);
        pop_facts(facts);
        return result;
    };
    Expr tv = value(op->true_value, true, &it);
    Expr fv = value(op->false_value, false, &iff);
    Type t = op->type;
    if (is_const_true(cond)) {
        *info = it;
        return tv;
    }
    if (is_const_false(cond)) {
        *info = iff;
        return fv;
    }
    if (equal(tv, fv)) {
        // Each side's facts were learned under its own verdict of the condition.
        *info = unify_info(it, iff);
        return tv;
    }
    if (const auto *n = cond.as<Not>()) return rewrite(Select::make(n->a, fv, tv), info);
    const bool same_lanes = cond.type().lanes() == t.lanes();
    if (t.is_bool() && same_lanes) {
        // select(c, true, false) -> c; select(c, x, false) -> c && x; ...
        if (is_const_true(tv) && is_const_false(fv)) return cond;
        if (is_const_false(tv) && is_const_true(fv)) return rewrite(Not::make(cond), info);
        if (is_const_false(fv)) return rewrite(And::make(cond, tv), info);
        if (is_const_true(tv)) return rewrite(Or::make(cond, fv), info);
    }
    // select(c, select(c, x, y), z) -> select(c, x, z), and likewise on the false side.
    if (const auto *inner = tv.as<Select>()) {
        if (equal(inner->condition, cond))
            return rewrite(Select::make(cond, inner->true_value, fv), info);
    }
    if (const auto *inner = fv.as<Select>()) {
        if (equal(inner->condition, cond))
            return rewrite(Select::make(cond, tv, inner->false_value), info);
    }
    const auto *bc = cond.as<Broadcast>();
    const auto *bt = tv.as<Broadcast>();
    const auto *bf = fv.as<Broadcast>();
    if (bc && bt && bf && bc->lanes == bt->lanes && bt->lanes == bf->lanes) {
        return rewrite(Broadcast::make(Select::make(bc->value, bt->value, bf->value), bc->lanes),
                       info);
    }
    if (bc && bc->value.type().is_scalar()) return rewrite(Select::make(bc->value, tv, fv), info);
    *info = unify_info(it, iff);
    if (t.is_int_or_uint() && !t.is_bool() && info->is_const()) return int_const(t, *info->min);
    if (cond.same_as(op->condition) && tv.same_as(op->true_value) && fv.same_as(op->false_value))
        return op;
    return Select::make(cond, tv, fv);
}

}  // namespace dsl::ir::simplify_internal
