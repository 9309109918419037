#include "ir/Monotonic.h"

#include "ir/IROperator.h"
#include "ir/Substitute.h"

namespace dsl::ir {

namespace {

Monotonic flip(Monotonic m) {
    switch (m) {
        case Monotonic::Increasing:
            return Monotonic::Decreasing;
        case Monotonic::Decreasing:
            return Monotonic::Increasing;
        default:
            return m;
    }
}

/// The direction of a + b (and of min / max of a and b, which follow the same rule).
Monotonic combine(Monotonic a, Monotonic b) {
    if (a == Monotonic::Constant) return b;
    if (b == Monotonic::Constant) return a;
    if (a == b) return a;
    return Monotonic::Unknown;
}

/// The sign of a constant: 1, 0 or -1; nullopt when `e` is not a constant.
std::optional<int> constant_sign(const Expr &e) {
    if (auto i = as_const_int(e)) return *i > 0 ? 1 : (*i < 0 ? -1 : 0);
    if (auto u = as_const_uint(e)) return *u > 0 ? 1 : 0;
    return std::nullopt;
}

/// The direction of `e` times a factor that does not depend on the variable.
Monotonic scale(Monotonic m, const Expr &factor) {
    if (m == Monotonic::Constant) return m;
    std::optional<int> sign = constant_sign(factor);
    if (!sign) return Monotonic::Unknown;
    if (*sign == 0) return Monotonic::Constant;
    return *sign > 0 ? m : flip(m);
}

}  // namespace

Monotonic is_monotonic(const Expr &e, const std::string &var) {
    if (!expr_uses_var(e, var)) return Monotonic::Constant;
    if (const auto *v = e.as<Variable>()) {
        return v->name == var ? Monotonic::Increasing : Monotonic::Constant;
    }
    if (const auto *op = e.as<Add>()) {
        return combine(is_monotonic(op->a, var), is_monotonic(op->b, var));
    }
    if (const auto *op = e.as<Sub>()) {
        return combine(is_monotonic(op->a, var), flip(is_monotonic(op->b, var)));
    }
    if (const auto *op = e.as<Mul>()) {
        if (!expr_uses_var(op->b, var)) return scale(is_monotonic(op->a, var), op->b);
        if (!expr_uses_var(op->a, var)) return scale(is_monotonic(op->b, var), op->a);
        return Monotonic::Unknown;
    }
    if (const auto *op = e.as<Div>()) {
        // Integer division rounds down (Euclidean for a positive divisor): still monotonic.
        if (expr_uses_var(op->b, var)) return Monotonic::Unknown;
        return scale(is_monotonic(op->a, var), op->b);
    }
    if (const auto *op = e.as<Min>()) {
        return combine(is_monotonic(op->a, var), is_monotonic(op->b, var));
    }
    if (const auto *op = e.as<Max>()) {
        return combine(is_monotonic(op->a, var), is_monotonic(op->b, var));
    }
    if (const auto *op = e.as<Select>()) {
        if (expr_uses_var(op->condition, var)) return Monotonic::Unknown;
        return combine(is_monotonic(op->true_value, var), is_monotonic(op->false_value, var));
    }
    if (const auto *op = e.as<Let>()) {
        if (!expr_uses_var(op->value, var)) return is_monotonic(op->body, var);
        return is_monotonic(substitute(op->name, op->value, op->body), var);
    }
    if (const auto *op = e.as<Cast>()) {
        Type from = op->value.type(), to = op->type;
        bool widening = from.is_int_or_uint() && to.is_int_or_uint() && !from.is_bool() &&
                        (to.bits() > from.bits() || (to.bits() == from.bits() && to == from)) &&
                        !(from.is_int() && to.is_uint());
        if (widening || (from.is_int_or_uint() && to.is_float())) {
            return is_monotonic(op->value, var);
        }
        return Monotonic::Unknown;
    }
    return Monotonic::Unknown;
}

const char *to_string(Monotonic m) {
    switch (m) {
        case Monotonic::Constant:
            return "constant";
        case Monotonic::Increasing:
            return "increasing";
        case Monotonic::Decreasing:
            return "decreasing";
        case Monotonic::Unknown:
            return "unknown";
    }
    return "?";
}

}  // namespace dsl::ir
