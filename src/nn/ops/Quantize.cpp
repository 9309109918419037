// Linear quantization and dequantization, per tensor or per channel.
#include "dsl/nn/Quantize.h"

#include "dsl/nn/Reduce.h"
#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl::nn {

namespace {

/// Whether a scale or zero point holds one value for the whole tensor.
bool per_tensor(const Tensor &t) {
    int64_t n = 0;
    return t.rank() == 0 || (t.rank() == 1 && is_const(t.dim(0), &n) && n == 1);
}

/// The element of a scale or zero point for index `i` of a tensor: its only element, or its
/// element along `axis`.
Expr per_axis(const Tensor &t, const Index &i, int axis) {
    if (t.rank() == 0) return t({});
    if (per_tensor(t)) return t({Expr(0)});
    return t({i[static_cast<size_t>(axis)]});
}

/// round_half_to_even(v) + zp, saturated to `t`.
Expr saturate(const Expr &v, Type t) {
    return cast(t, clamp(v, cast(v.type(), t.min()), cast(v.type(), t.max())));
}

}  // namespace

Tensor quantize_linear(const Tensor &x, const Tensor &scale, const Tensor &zero_point, int axis) {
    if (!per_tensor(scale)) axis = normalize_axis(axis, x.rank(), "quantize_linear");
    const Type out = zero_point.defined() ? zero_point.type() : UInt(8);
    user_assert(out.is_int() || out.is_uint())
        << "quantize_linear: the zero point \"" << zero_point.func().name()
        << "\" must hold integers.";
    return compute(unique_name("quantize"), x.shape(), [&](const Index &i) {
        Expr s = cast(Float(32), per_axis(scale, i, axis));
        Expr v = dsl::round(cast(Float(32), x(i)) / s);
        if (zero_point.defined()) v = v + cast(Float(32), per_axis(zero_point, i, axis));
        return saturate(v, out);
    });
}

Tensor dequantize_linear(const Tensor &q, const Tensor &scale, const Tensor &zero_point, int axis) {
    if (!per_tensor(scale)) axis = normalize_axis(axis, q.rank(), "dequantize_linear");
    const Type out = scale.type();
    return compute(unique_name("dequantize"), q.shape(), [&](const Index &i) {
        Expr v = cast(Int(64), q(i));
        if (zero_point.defined()) v = v - cast(Int(64), per_axis(zero_point, i, axis));
        return cast(out, v) * per_axis(scale, i, axis);
    });
}

DynamicQuantization dynamic_quantize_linear(const Tensor &x) {
    Tensor lo = reduce(x, Reduction::Min, {}, false), hi = reduce(x, Reduction::Max, {}, false);
    DynamicQuantization r;
    r.scale = compute(unique_name("dq_scale"), {}, [&](const Index &) {
        Expr mn = min(lo({}), make_const(Float(32), 0.0)),
             mx = max(hi({}), make_const(Float(32), 0.0));
        return (mx - mn) / make_const(Float(32), 255.0);
    });
    r.zero_point = compute(unique_name("dq_zero_point"), {}, [&](const Index &) {
        Expr mn = min(lo({}), make_const(Float(32), 0.0));
        Expr s = r.scale({});
        Expr zp = select(s == make_const(Float(32), 0.0), make_const(Float(32), 0.0),
                         dsl::round(make_const(Float(32), 0.0) - mn / s));
        return saturate(zp, UInt(8));
    });
    r.y = compute(unique_name("dq_y"), x.shape(), [&](const Index &i) {
        Expr s = r.scale({});
        Expr v = select(s == make_const(Float(32), 0.0), make_const(Float(32), 0.0),
                        dsl::round(x(i) / s)) +
                 cast(Float(32), r.zero_point({}));
        return saturate(v, UInt(8));
    });
    return r;
}


}  // namespace dsl::nn
