#include "lowering/LinearBounds.h"

#include <climits>

#include "ir/IROperator.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

std::optional<std::pair<int64_t, Expr>> constant_factor(const ir::Mul *product) {
    if (auto k = as_const_int(product->b)) return std::make_pair(*k, product->a);
    if (auto k = as_const_int(product->a)) return std::make_pair(*k, product->b);
    return std::nullopt;
}

std::optional<LinearForm> linear_form(const Expr &e, const std::string &var,
                                      const std::function<bool(const Expr &)> &invariant,
                                      const std::function<Expr(const std::string &)> &value_of) {
    if (e.type() != Int(32)) return std::nullopt;
    auto recurse = [&](const Expr &x) { return linear_form(x, var, invariant, value_of); };
    if (const auto *v = e.as<Variable>()) {
        if (v->name == var) return LinearForm{1, make_zero(Int(32))};
        if (value_of) {
            if (Expr value = value_of(v->name); value.defined()) return recurse(value);
        }
    }
    if (!expr_uses_var(e, var) && invariant(e)) return LinearForm{0, e};
    if (const auto *add = e.as<Add>()) {
        auto a = recurse(add->a), b = recurse(add->b);
        if (!a || !b) return std::nullopt;
        return LinearForm{a->coeff + b->coeff, a->rest + b->rest};
    }
    if (const auto *sub = e.as<Sub>()) {
        auto a = recurse(sub->a), b = recurse(sub->b);
        if (!a || !b) return std::nullopt;
        return LinearForm{a->coeff - b->coeff, a->rest - b->rest};
    }
    if (const auto *mul = e.as<Mul>()) {
        auto product = constant_factor(mul);
        if (!product) return std::nullopt;
        auto [k, other] = *product;
        auto a = recurse(other);
        if (!a) return std::nullopt;
        return LinearForm{a->coeff * k, a->rest * make_const(Int(32), k)};
    }
    return std::nullopt;
}

VarBound solve_linear(const LinearForm &form, const Expr &limit, bool at_most) {
    // coeff * v <= gap (at_most) or >= gap. For coeff < 0 the sides swap and the signs flip.
    // Division rounds down for a positive divisor.
    int64_t c = form.coeff;
    Expr gap = cast(Int(64), limit) - cast(Int(64), form.rest);
    bool upper = at_most == (c > 0);
    int64_t k = c > 0 ? c : -c;
    Expr kk = make_const(Int(64), k);
    if (c < 0) gap = make_zero(Int(64)) - gap;
    Expr v = upper ? gap / kk : (gap + kk - 1) / kk;
    v = cast(Int(32),
             clamp(v, make_const(Int(64), INT32_MIN + 1), make_const(Int(64), INT32_MAX - 1)));
    return VarBound{!upper, v};
}

std::vector<Expr> conjuncts(const Expr &e) {
    if (const auto *a = e.as<And>()) {
        std::vector<Expr> parts = conjuncts(a->a), rest = conjuncts(a->b);
        parts.insert(parts.end(), rest.begin(), rest.end());
        return parts;
    }
    if (const auto *b = e.as<Broadcast>(); b && b->value.as<And>()) {
        std::vector<Expr> parts;
        for (const Expr &scalar : conjuncts(b->value))
            parts.push_back(Broadcast::make(scalar, b->lanes));
        return parts;
    }
    return {e};
}

std::optional<Comparison> as_comparison(const Expr &condition) {
    if (const auto *lt = condition.as<LT>()) return Comparison{lt->a, lt->b, true, -1};
    if (const auto *le = condition.as<LE>()) return Comparison{le->a, le->b, true, 0};
    if (const auto *gt = condition.as<GT>()) return Comparison{gt->a, gt->b, false, 1};
    if (const auto *ge = condition.as<GE>()) return Comparison{ge->a, ge->b, false, 0};
    return std::nullopt;
}

std::optional<VarBound> bound_from_condition(const Expr &condition, const std::string &var,
                                             const std::function<bool(const Expr &)> &invariant) {
    auto c = as_comparison(condition);
    if (!c || c->a.type() != Int(32)) return std::nullopt;
    auto fa = linear_form(c->a, var, invariant), fb = linear_form(c->b, var, invariant);
    if (!fa || !fb || fa->coeff == fb->coeff) return std::nullopt;
    // (ca - cb) * v + ra <= rb + slack: the right side stays in 64 bits.
    LinearForm form{fa->coeff - fb->coeff, fa->rest};
    Expr right = cast(Int(64), fb->rest) + make_const(Int(64), c->slack);
    // solve_linear casts its limit to 64 bits, which keeps this one as it is.
    return solve_linear(form, right, c->at_most);
}

}  // namespace dsl::lowering
