// Elementwise operators: map/zip over broadcast tensors, and each operator as the expression it
// computes per element.
#include "dsl/nn/Elementwise.h"

#include <cmath>

#include "dsl/Math.h"
#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "nn/ops/InheritSchedule.h"

namespace dsl::nn {

namespace {

/// `f` computed in float32 when `x` is a 16-bit float, in x's own type otherwise.
Expr in_float(const Expr &x, const std::function<Expr(const Expr &)> &f) {
    Type t = x.type();
    if (t.is_float() && t.bits() == 16) return cast(t, f(cast(Float(32, t.lanes()), x)));
    return f(x);
}

Expr c(const Expr &like, double v) {
    return make_const(like.type(), v);
}

void check_same_type(const Tensor &a, const Tensor &b, const char *op) {
    user_assert(a.type() == b.type())
        << op << ": operands \"" << a.func().name() << "\" (" << a.type() << ") and \""
        << b.func().name() << "\" (" << b.type() << ") must have one type; cast one of them.";
}

Tensor binary(const Tensor &a, const Tensor &b, const char *op,
              const std::function<Expr(const Expr &, const Expr &)> &f) {
    check_same_type(a, b, op);
    return zip(
        {a, b}, [&](const std::vector<Expr> &v) { return f(v[0], v[1]); }, op);
}

Tensor compare(const Tensor &a, const Tensor &b, const char *op,
               const std::function<Expr(const Expr &, const Expr &)> &f) {
    check_same_type(a, b, op);
    return zip(
        {a, b}, [&](const std::vector<Expr> &v) { return f(v[0], v[1]); }, op);
}

Tensor logical(const Tensor &a, const Tensor &b, const char *op,
               const std::function<Expr(const Expr &, const Expr &)> &f) {
    auto as_bool = [](const Expr &e) { return e.type().is_bool() ? e : e != c(e, 0); };
    return zip(
        {a, b}, [&](const std::vector<Expr> &v) { return f(as_bool(v[0]), as_bool(v[1])); }, op);
}

Tensor unary_math(const Tensor &x, const char *op, Expr (*f)(const Expr &)) {
    user_assert(x.type().is_float()) << op << " of \"" << x.func().name() << "\", which holds "
                                     << x.type() << ": it needs a float tensor; cast it first.";
    return map(
        x, [&](const Expr &e) { return in_float(e, f); }, op);
}

Tensor float_activation(const Tensor &x, const char *op,
                        const std::function<Expr(const Expr &)> &f) {
    user_assert(x.type().is_float()) << op << " of \"" << x.func().name() << "\", which holds "
                                     << x.type() << ": it needs a float tensor.";
    return map(
        x, [&](const Expr &e) { return in_float(e, f); }, op);
}

/// Integer division that truncates toward zero (dsl's `/` on integers rounds down).
Expr truncating_div(const Expr &a, const Expr &b) {
    if (a.type().is_float()) return a / b;
    if (a.type().is_uint()) return a / b;
    // dsl's division is Euclidean (the remainder is never negative). It differs from C's only
    // for a negative dividend and an inexact division: one more for a positive divisor, one
    // less for a negative one.
    Expr q = a / b;
    Expr zero = c(a, 0);
    return select(a < zero && a % b != zero, select(b > zero, q + c(a, 1), q - c(a, 1)), q);
}

}  // namespace

void inherit_schedule(Tensor &result, const std::vector<Tensor> &inputs) {
    const Tensor *scheduled = nullptr;
    for (const Tensor &t : inputs) {
        if (!t.schedule()) continue;
        // Two scheduled operators: neither can own the result. Two branches of one operator's
        // result (x * hard_sigmoid(x) over one convolution) carry its one schedule.
        if (scheduled && !scheduled->shares_schedule(t)) return;
        scheduled = &t;
    }
    if (!scheduled || scheduled->rank() != result.rank()) return;
    for (int a = 0; a < result.rank(); a++) {
        if (!ir::equal(scheduled->dim(a), result.dim(a))) return;
    }
    result.share_schedule(*scheduled);
}

Tensor map(const Tensor &x, const std::function<Expr(const Expr &)> &f, const std::string &name) {
    Tensor r = compute(unique_name(name), x.shape(), [&](const Index &i) { return f(x(i)); });
    inherit_schedule(r, {x});
    return r;
}

Tensor zip(const std::vector<Tensor> &xs, const std::function<Expr(const std::vector<Expr> &)> &f,
           const std::string &name) {
    user_assert(!xs.empty()) << name << " of no tensors.";
    std::vector<Shape> shapes;
    for (const Tensor &t : xs)
        shapes.push_back(t.shape());
    Shape out = broadcast_shapes(shapes);
    Tensor r = compute(unique_name(name), out, [&](const Index &i) {
        std::vector<Expr> v;
        for (const Tensor &t : xs)
            v.push_back(broadcast_read(t, out, i));
        return f(v);
    });
    inherit_schedule(r, xs);
    return r;
}

Tensor add(const Tensor &a, const Tensor &b) {
    return binary(a, b, "add", [](const Expr &x, const Expr &y) { return x + y; });
}
Tensor sub(const Tensor &a, const Tensor &b) {
    return binary(a, b, "sub", [](const Expr &x, const Expr &y) { return x - y; });
}
Tensor mul(const Tensor &a, const Tensor &b) {
    return binary(a, b, "mul", [](const Expr &x, const Expr &y) { return x * y; });
}
Tensor div(const Tensor &a, const Tensor &b) {
    return binary(a, b, "div", truncating_div);
}

Tensor mod(const Tensor &a, const Tensor &b, bool fmod) {
    user_assert(fmod || !a.type().is_float()) << "mod of float tensors \"" << a.func().name()
                                              << "\" needs fmod = true (ONNX: attribute fmod=1).";
    return binary(a, b, "mod", [fmod](const Expr &x, const Expr &y) -> Expr {
        Expr zero = c(x, 0);
        if (x.type().is_float()) {
            return in_float(x, [&](const Expr &xf) {
                Expr yf = cast(xf.type(), y);
                return xf - yf * trunc(xf / yf);
            });
        }
        if (x.type().is_uint()) return select(y == zero, zero, x % y);
        // dsl's % is Euclidean: 0 <= r < |y|.
        Expr r = x % y;
        if (fmod) {
            // The sign of x: r - |y| when x is negative and r is not 0.
            return select(y == zero, zero,
                          select(x < zero && r != zero, r - select(y < zero, zero - y, y), r));
        }
        // The sign of y: r - |y| when y is negative and r is not 0.
        return select(y == zero, zero, select(y < zero && r != zero, r + y, r));
    });
}

Tensor pow(const Tensor &a, const Tensor &b) {
    return zip(
        {a, b},
        [](const std::vector<Expr> &v) -> Expr {
            Type t = v[0].type();
            if (t.is_float() && t.bits() >= 32) return dsl::pow(v[0], cast(t, v[1]));
            Type wide =
                t.is_float() || v[1].type().bits() > 32 || t.bits() > 32 ? Float(64) : Float(32);
            Expr r = dsl::pow(cast(wide, v[0]), cast(wide, v[1]));
            return cast(t, t.is_float() ? r : dsl::round(r));
        },
        "pow");
}

namespace {
Tensor fold(const std::vector<Tensor> &xs, const char *op,
            const std::function<Expr(const Expr &, const Expr &)> &f) {
    user_assert(!xs.empty()) << op << " of no tensors.";
    for (const Tensor &t : xs)
        check_same_type(xs[0], t, op);
    return zip(
        xs,
        [&](const std::vector<Expr> &v) {
            Expr r = v[0];
            for (size_t i = 1; i < v.size(); i++)
                r = f(r, v[i]);
            return r;
        },
        op);
}
}  // namespace

Tensor max(const std::vector<Tensor> &xs) {
    return fold(xs, "max", [](const Expr &a, const Expr &b) {
        // NaN propagates, as in numpy and ONNX.
        Expr m = dsl::max(a, b);
        if (!a.type().is_float()) return m;
        return select(dsl::is_nan(a) || dsl::is_nan(b), a + b, m);
    });
}
Tensor min(const std::vector<Tensor> &xs) {
    return fold(xs, "min", [](const Expr &a, const Expr &b) {
        Expr m = dsl::min(a, b);
        if (!a.type().is_float()) return m;
        return select(dsl::is_nan(a) || dsl::is_nan(b), a + b, m);
    });
}
Tensor sum(const std::vector<Tensor> &xs) {
    return fold(xs, "sum", [](const Expr &a, const Expr &b) { return a + b; });
}
Tensor mean(const std::vector<Tensor> &xs) {
    Tensor s = sum(xs);
    user_assert(s.type().is_float()) << "mean of integer tensors; cast them to a float type.";
    double n = static_cast<double>(xs.size());
    return map(
        s, [n](const Expr &e) { return e / c(e, n); }, "mean");
}

Tensor equal(const Tensor &a, const Tensor &b) {
    return compare(a, b, "equal", [](const Expr &x, const Expr &y) { return x == y; });
}
Tensor less(const Tensor &a, const Tensor &b) {
    return compare(a, b, "less", [](const Expr &x, const Expr &y) { return x < y; });
}
Tensor less_equal(const Tensor &a, const Tensor &b) {
    return compare(a, b, "less_equal", [](const Expr &x, const Expr &y) { return x <= y; });
}
Tensor greater(const Tensor &a, const Tensor &b) {
    return compare(a, b, "greater", [](const Expr &x, const Expr &y) { return x > y; });
}
Tensor greater_equal(const Tensor &a, const Tensor &b) {
    return compare(a, b, "greater_equal", [](const Expr &x, const Expr &y) { return x >= y; });
}
Tensor logical_and(const Tensor &a, const Tensor &b) {
    return logical(a, b, "and", [](const Expr &x, const Expr &y) { return x && y; });
}
Tensor logical_or(const Tensor &a, const Tensor &b) {
    return logical(a, b, "or", [](const Expr &x, const Expr &y) { return x || y; });
}
Tensor logical_xor(const Tensor &a, const Tensor &b) {
    return logical(a, b, "xor", [](const Expr &x, const Expr &y) { return x != y; });
}
Tensor logical_not(const Tensor &a) {
    return map(
        a, [](const Expr &e) { return e.type().is_bool() ? !e : e == c(e, 0); }, "not");
}

namespace {
void check_integer(const Tensor &t, const char *op) {
    user_assert(t.type().is_int() || t.type().is_uint())
        << op << " of \"" << t.func().name() << "\", which holds " << t.type()
        << ": it needs an integer tensor.";
}
}  // namespace

Tensor bitwise_and(const Tensor &a, const Tensor &b) {
    check_integer(a, "bitwise_and");
    return binary(a, b, "bitwise_and", [](const Expr &x, const Expr &y) { return x & y; });
}
Tensor bitwise_or(const Tensor &a, const Tensor &b) {
    check_integer(a, "bitwise_or");
    return binary(a, b, "bitwise_or", [](const Expr &x, const Expr &y) { return x | y; });
}
Tensor bitwise_xor(const Tensor &a, const Tensor &b) {
    check_integer(a, "bitwise_xor");
    return binary(a, b, "bitwise_xor", [](const Expr &x, const Expr &y) { return x ^ y; });
}
Tensor bitwise_not(const Tensor &a) {
    check_integer(a, "bitwise_not");
    return map(
        a, [](const Expr &e) { return ~e; }, "bitwise_not");
}
Tensor bit_shift(const Tensor &a, const Tensor &b, bool left) {
    check_integer(a, "bit_shift");
    return binary(a, b, "bit_shift", [left](const Expr &x, const Expr &y) {
        Expr bits = c(y, x.type().bits());
        // Shifting by the width or more gives 0.
        return select(y >= bits, c(x, 0), left ? (x << y) : (x >> y));
    });
}

Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b) {
    check_same_type(a, b, "where");
    return zip(
        {cond, a, b},
        [](const std::vector<Expr> &v) {
            Expr k = v[0].type().is_bool() ? v[0] : v[0] != c(v[0], 0);
            return select(k, v[1], v[2]);
        },
        "where");
}

Tensor cast(const Tensor &x, Type t) {
    return map(
        x,
        [t](const Expr &e) -> Expr {
            Type from = e.type();
            if (from == t) return e;
            if (t.is_bool()) return e != c(e, 0);
            if (from.is_float() && (t.is_int() || t.is_uint())) {
                // Saturate in the float type: conversion of an out-of-range float is undefined.
                Expr f = from.bits() == 16 ? cast(Float(32), e) : e;
                Expr lo = cast(f.type(), t.min()), hi = cast(f.type(), t.max());
                Expr v = dsl::trunc(f);
                Expr clamped = select(v <= lo, t.min(), select(v >= hi, t.max(), cast(t, v)));
                return select(dsl::is_nan(f), make_const(t, 0), clamped);
            }
            return dsl::cast(t, e);
        },
        "cast");
}

Tensor is_nan(const Tensor &x) {
    return map(
        x, [](const Expr &e) { return dsl::is_nan(e); }, "is_nan");
}

Tensor is_inf(const Tensor &x, bool positive, bool negative) {
    return map(
        x,
        [=](const Expr &e) -> Expr {
            if (!e.type().is_float()) return ir::make_bool(false);
            Expr inf = e.type().max();
            Expr r = ir::make_bool(false);
            if (positive) r = r || e == inf;
            if (negative) r = r || e == -inf;
            return r;
        },
        "is_inf");
}

Tensor neg(const Tensor &x) {
    return map(
        x, [](const Expr &e) { return -e; }, "neg");
}
Tensor abs(const Tensor &x) {
    return map(
        x, [](const Expr &e) { return e.type().is_uint() ? e : cast(e.type(), dsl::abs(e)); },
        "abs");
}
Tensor sign(const Tensor &x) {
    return map(
        x,
        [](const Expr &e) {
            return select(e > c(e, 0), c(e, 1), select(e < c(e, 0), c(e, -1), c(e, 0)));
        },
        "sign");
}
Tensor reciprocal(const Tensor &x) {
    return float_activation(x, "reciprocal", [](const Expr &e) { return c(e, 1.0) / e; });
}
Tensor floor(const Tensor &x) {
    return unary_math(x, "floor", dsl::floor);
}
Tensor ceil(const Tensor &x) {
    return unary_math(x, "ceil", dsl::ceil);
}
Tensor round(const Tensor &x) {
    return unary_math(x, "round", dsl::round);
}
Tensor sqrt(const Tensor &x) {
    return unary_math(x, "sqrt", dsl::sqrt);
}
Tensor exp(const Tensor &x) {
    return unary_math(x, "exp", dsl::fast_exp);
}
Tensor log(const Tensor &x) {
    return unary_math(x, "log", dsl::log);
}
Tensor sin(const Tensor &x) {
    return unary_math(x, "sin", dsl::sin);
}
Tensor cos(const Tensor &x) {
    return unary_math(x, "cos", dsl::cos);
}
Tensor tan(const Tensor &x) {
    return unary_math(x, "tan", dsl::tan);
}
Tensor asin(const Tensor &x) {
    return unary_math(x, "asin", dsl::asin);
}
Tensor acos(const Tensor &x) {
    return unary_math(x, "acos", dsl::acos);
}
Tensor atan(const Tensor &x) {
    return unary_math(x, "atan", dsl::atan);
}
Tensor sinh(const Tensor &x) {
    return unary_math(x, "sinh", dsl::sinh);
}
Tensor cosh(const Tensor &x) {
    return unary_math(x, "cosh", dsl::cosh);
}
Tensor tanh(const Tensor &x) {
    return unary_math(x, "tanh", dsl::tanh);
}
Tensor asinh(const Tensor &x) {
    return unary_math(x, "asinh", dsl::asinh);
}
Tensor acosh(const Tensor &x) {
    return unary_math(x, "acosh", dsl::acosh);
}
Tensor atanh(const Tensor &x) {
    return unary_math(x, "atanh", dsl::atanh);
}
Tensor erf(const Tensor &x) {
    return unary_math(x, "erf", dsl::erf);
}

Tensor relu(const Tensor &x) {
    return map(
        x, [](const Expr &e) { return dsl::max(e, c(e, 0)); }, "relu");
}
Tensor leaky_relu(const Tensor &x, float alpha) {
    return float_activation(x, "leaky_relu", [alpha](const Expr &e) {
        return select(e < c(e, 0.0), e * c(e, alpha), e);
    });
}
Tensor prelu(const Tensor &x, const Tensor &slope) {
    check_same_type(x, slope, "prelu");
    return zip(
        {x, slope},
        [](const std::vector<Expr> &v) { return select(v[0] < c(v[0], 0), v[0] * v[1], v[0]); },
        "prelu");
}
Tensor elu(const Tensor &x, float alpha) {
    return float_activation(x, "elu", [alpha](const Expr &e) {
        return select(e < c(e, 0.0), c(e, alpha) * (dsl::fast_exp(e) - c(e, 1.0)), e);
    });
}
Tensor selu(const Tensor &x, float alpha, float gamma) {
    return float_activation(x, "selu", [=](const Expr &e) {
        return c(e, gamma) *
               select(e <= c(e, 0.0), c(e, alpha) * (dsl::fast_exp(e) - c(e, 1.0)), e);
    });
}
Tensor celu(const Tensor &x, float alpha) {
    return float_activation(x, "celu", [alpha](const Expr &e) {
        Expr a = c(e, alpha);
        return dsl::max(e, c(e, 0.0)) + dsl::min(c(e, 0.0), a * (dsl::fast_exp(e / a) - c(e, 1.0)));
    });
}
Tensor sigmoid(const Tensor &x) {
    return float_activation(x, "sigmoid", [](const Expr &e) {
        // exp of a non-positive number only: no overflow.
        Expr t = dsl::fast_exp(-dsl::abs(e));
        Expr one = c(e, 1.0);
        return select(e >= c(e, 0.0), one / (one + t), t / (one + t));
    });
}
Tensor hard_sigmoid(const Tensor &x, float alpha, float beta) {
    return float_activation(x, "hard_sigmoid", [=](const Expr &e) {
        return dsl::clamp(c(e, alpha) * e + c(e, beta), c(e, 0.0), c(e, 1.0));
    });
}
Tensor hard_swish(const Tensor &x) {
    return float_activation(x, "hard_swish", [](const Expr &e) {
        return e * dsl::clamp(e * c(e, 1.0 / 6.0) + c(e, 0.5), c(e, 0.0), c(e, 1.0));
    });
}
Tensor softplus(const Tensor &x) {
    return float_activation(x, "softplus", [](const Expr &e) {
        // log(1 + e^x) = max(x, 0) + log(1 + e^-|x|): no overflow.
        return dsl::max(e, c(e, 0.0)) + dsl::log(c(e, 1.0) + dsl::fast_exp(-dsl::abs(e)));
    });
}
Tensor softsign(const Tensor &x) {
    return float_activation(x, "softsign",
                            [](const Expr &e) { return e / (c(e, 1.0) + dsl::abs(e)); });
}
Tensor gelu(const Tensor &x, bool tanh_approximation) {
    return float_activation(x, "gelu", [tanh_approximation](const Expr &e) {
        if (tanh_approximation) {
            Expr inner = c(e, std::sqrt(2.0 / M_PI)) * (e + c(e, 0.044715) * e * e * e);
            return c(e, 0.5) * e * (c(e, 1.0) + dsl::tanh(inner));
        }
        return c(e, 0.5) * e * (c(e, 1.0) + dsl::erf(e * c(e, M_SQRT1_2)));
    });
}
Tensor clip(const Tensor &x, const Expr &lo, const Expr &hi) {
    return map(
        x,
        [&](const Expr &e) {
            Expr r = e;
            if (lo.defined()) r = dsl::max(r, cast(e.type(), lo));
            if (hi.defined()) r = dsl::min(r, cast(e.type(), hi));
            return r;
        },
        "clip");
}
Tensor thresholded_relu(const Tensor &x, float alpha) {
    return float_activation(x, "thresholded_relu", [alpha](const Expr &e) {
        return select(e > c(e, alpha), e, c(e, 0.0));
    });
}
Tensor shrink(const Tensor &x, float bias, float lambd) {
    return map(
        x,
        [=](const Expr &e) {
            Type t = e.type();
            Expr f = t.is_float() ? e : cast(Float(32), e);
            Expr r = select(f < c(f, -lambd), f + c(f, bias),
                            select(f > c(f, lambd), f - c(f, bias), c(f, 0.0)));
            return t.is_float() ? r : cast(t, r);
        },
        "shrink");
}

}  // namespace dsl::nn
