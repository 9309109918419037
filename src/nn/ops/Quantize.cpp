// Linear quantization and dequantization, per tensor or per channel; TFLite's int8 matrix
// product.
#include "dsl/nn/Quantize.h"

#include "dsl/InlineReductions.h"

#include "dsl/nn/Reduce.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "lang/Function.h"
#include "lowering/OffloadNPULoops.h"
#include "nn/ops/InheritSchedule.h"
#include "nn/ops/Quantized.h"

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
    Tensor r = compute(unique_name("quantize"), x.shape(), [&](const Index &i) {
        Expr s = cast(Float(32), per_axis(scale, i, axis));
        Expr v = dsl::round(cast(Float(32), x(i)) / s);
        if (zero_point.defined()) v = v + cast(Float(32), per_axis(zero_point, i, axis));
        return saturate(v, out);
    });
    inherit_schedule(r, {x});
    return r;
}

Tensor dequantize_linear(const Tensor &q, const Tensor &scale, const Tensor &zero_point, int axis) {
    if (!per_tensor(scale)) axis = normalize_axis(axis, q.rank(), "dequantize_linear");
    const Type out = scale.type();
    // 8- and 16-bit values less their zero point fit int32 (vectors twice as wide as int64).
    const Type wide = q.type().bits() <= 16 ? Int(32) : Int(64);
    Tensor r = compute(unique_name("dequantize"), q.shape(), [&](const Index &i) {
        Expr v = cast(wide, q(i));
        if (zero_point.defined()) v = v - cast(wide, per_axis(zero_point, i, axis));
        return cast(out, v) * per_axis(scale, i, axis);
    });
    inherit_schedule(r, {q});
    return r;
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

Tensor requantize_linear(const Tensor &acc, const Tensor &scale_a, const Tensor &scale_b, int axis,
                         const Tensor &y_scale, const Tensor &y_zero_point) {
    const Type out = y_zero_point.defined() ? y_zero_point.type() : UInt(8);
    user_assert(out.is_int() || out.is_uint())
        << "requantize_linear: the zero point \"" << y_zero_point.func().name()
        << "\" must hold integers.";
    if (!per_tensor(scale_b)) axis = normalize_axis(axis, acc.rank(), "requantize_linear");
    Tensor r = compute(unique_name("requantize"), acc.shape(), [&](const Index &i) {
        const Type f = Float(32);
        Expr factor = cast(f, per_axis(scale_a, i, 0)) * cast(f, per_axis(scale_b, i, axis)) /
                      cast(f, per_axis(y_scale, i, 0));
        Expr v = dsl::round(cast(f, acc(i)) * factor);
        if (y_zero_point.defined()) v = v + cast(f, per_axis(y_zero_point, i, 0));
        return saturate(v, out);
    });
    inherit_schedule(r, {acc});
    return r;
}

Tensor requantize_fixed_point(const Tensor &acc, const Tensor &multiplier, const Tensor &shift,
                              int axis, const Tensor &y_zero_point) {
    user_assert(acc.type() == Int(32)) << "requantize_fixed_point of \"" << acc.func().name()
                                       << "\": the sums must be int32, not " << acc.type() << ".";
    user_assert(multiplier.type() == Int(32) && shift.type() == Int(32))
        << "requantize_fixed_point of \"" << acc.func().name()
        << "\": the multiplier and the shift must be int32 (quantize_multiplier gives them).";
    const Type out = y_zero_point.defined() ? y_zero_point.type() : UInt(8);
    user_assert(out.is_int() || out.is_uint())
        << "requantize_fixed_point: the zero point \"" << y_zero_point.func().name()
        << "\" must hold integers.";
    if (!per_tensor(multiplier) || !per_tensor(shift))
        axis = normalize_axis(axis, acc.rank(), "requantize_fixed_point");
    Tensor r = compute(unique_name("requantize_fixed"), acc.shape(), [&](const Index &i) {
        Expr v = multiply_by_quantized_multiplier(acc(i), per_axis(multiplier, i, axis),
                                                  per_axis(shift, i, axis));
        if (y_zero_point.defined()) v = v + cast<int32_t>(per_axis(y_zero_point, i, 0));
        return saturate(v, out);
    });
    inherit_schedule(r, {acc});
    return r;
}

Tensor subtract_zero_point(const Tensor &q, const Tensor &zero_point, int axis) {
    user_assert(q.type().is_int() || q.type().is_uint())
        << "subtract_zero_point: \"" << q.func().name() << "\" is " << q.type()
        << ", not an integer type.";
    const int a = normalize_axis(axis, std::max(q.rank(), 1), "subtract_zero_point");
    int64_t count = 0;
    const bool per_axis = zero_point.defined() && zero_point.rank() == 1 &&
                          !(is_const(zero_point.dim(0), &count) && count == 1);
    return compute(unique_name("integer"), q.shape(), [&](const Index &i) {
        Expr v = cast<int32_t>(q(i));
        if (!zero_point.defined()) return v;
        Expr z = zero_point.rank() == 0 ? zero_point({})
                 : per_axis             ? zero_point({i[static_cast<size_t>(a)]})
                                        : zero_point({Expr(0)});
        return v - cast<int32_t>(z);
    });
}

void check_requantized_type(const Requantization &q, const std::string &what) {
    const int lo = q.type == UInt(8) ? 0 : -128, hi = q.type == UInt(8) ? 255 : 127;
    user_assert(q.type == Int(8) || q.type == UInt(8))
        << what << ": the requantization's result must be int8 or uint8, not " << q.type << ".";
    user_assert(q.min >= lo && q.max <= hi && q.min <= q.max)
        << what << ": the requantization clamps to [" << q.min << ", " << q.max
        << "], which is not within " << q.type << "'s [" << lo << ", " << hi
        << "]; clamp to the result type's range.";
}

Tensor::Schedule quantized_schedule(Func acc, std::vector<Func> roots, Var inner) {
    return [acc, roots, inner](Func out, const Target &target) mutable {
        for (Func &r : roots)
            r.compute_root();
        acc.compute_root();
        if (target.has_feature(Target::Feature::NPU)) {
            acc.update(0).npu_gemm();
            acc.update(1).npu_gemm();
            // The int8 or uint8 result stored by the NPU itself (a saturating STORE), where
            // the output is that conversion.
            if (lowering::converts_to_bytes(lang::Function(out.contents()), acc.name())) {
                out.npu_gemm();
            } else {
                out.vectorize(out.args()[0], 8);
            }
        } else {
            acc.vectorize(inner, 8);
            acc.update(0).vectorize(inner, 8);
            acc.update(1).vectorize(inner, 8);
            out.vectorize(out.args()[0], 8);
        }
    };
}

Tensor quantized_matmul(const Tensor &a, const Tensor &b, const Tensor &bias,
                        const Requantization &q) {
    user_assert(a.rank() == 2 && b.rank() == 2)
        << "quantized_matmul of \"" << a.func().name() << "\" and \"" << b.func().name()
        << "\": both must be matrices (ranks " << a.rank() << " and " << b.rank() << ").";
    user_assert(a.type() == Int(8) && b.type() == Int(8))
        << "quantized_matmul of \"" << a.func().name() << "\" and \"" << b.func().name()
        << "\": both must be int8 (they are " << a.type() << " and " << b.type() << ").";
    user_assert(!bias.defined() || bias.type() == Int(32))
        << "quantized_matmul: the bias \"" << bias.func().name() << "\" must be int32.";
    user_assert(q.multiplier.defined() && q.shift.defined())
        << "quantized_matmul of \"" << a.func().name()
        << "\": the requantization needs a multiplier and a shift per output column.";
    check_requantized_type(q, "quantized_matmul of \"" + a.func().name() + "\"");
    const Expr k = a.dim(1);
    // sum (a - z) b = sum a b - z sum b: the zero point's part is the starting value's.
    Tensor column_sums =
        compute(unique_name("qmatmul_column_sums"), {b.dim(1)}, [&](const Index &i) {
            RDom r(0, k, unique_name("qmatmul_cs"));
            return sum(cast<int32_t>(b({r.x, i[0]})));
        });
    // A copy of a, computed first, so that the sum reads int8 values at affine coordinates
    // whatever computes a (the NPU takes nothing else).
    Tensor rows =
        compute(unique_name("qmatmul_a"), a.shape(), [&](const Index &i) { return a(i); });
    const Shape s{a.dim(0), b.dim(1)};
    Tensor acc = compute(unique_name("qmatmul_acc"), s, [&](const Index &o) {
        Expr start = bias.defined() ? bias({o[1]}) : Expr(0);
        return start - q.input_zero_point * column_sums({o[1]});
    });
    Func f = acc.func();
    RDom r(0, k, unique_name("qmatmul_r"));
    const Var row = acc.var(0), column = acc.var(1);
    f(column, row) =
        f(column, row) + cast<int32_t>(rows({row, r.x})) * cast<int32_t>(b({r.x, column}));
    f(column, row) =
        clamp(q.output_zero_point + multiply_by_quantized_multiplier(
                                        f(column, row), q.multiplier({column}), q.shift({column})),
              q.min, q.max);
    Tensor result =
        compute(unique_name("qmatmul"), s, [&](const Index &i) { return cast(q.type, acc(i)); });
    result.set_schedule(quantized_schedule(f, {rows.func(), column_sums.func()}, column));
    return result;
}

}  // namespace dsl::nn
