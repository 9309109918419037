// Normalizations (batch, instance, layer, local response, mean-variance) and the losses.
#include "dsl/nn/Norm.h"

#include "dsl/InlineReductions.h"
#include "dsl/nn/Elementwise.h"
#include "dsl/nn/Reduce.h"
#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl::nn {

namespace {

Type compute_type(Type t) {
    return t.is_float() && t.bits() == 16 ? Float(32) : t;
}

/// The per-channel value of a (C) tensor for an (N, C, ...) index.
Expr channel(const Tensor &t, const Index &o) {
    return t({o[1]});
}

void check_float(const Tensor &x, const char *op) {
    user_assert(x.type().is_float())
        << op << " of \"" << x.func().name() << "\", which is not a float tensor.";
}

}  // namespace

Tensor batch_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, const Tensor &mean,
                  const Tensor &var, float epsilon) {
    check_float(x, "batch_norm");
    user_assert(x.rank() >= 2) << "batch_norm of \"" << x.func().name()
                               << "\", which needs (N, C, ...) axes.";
    const Type t = x.type(), c = compute_type(t);
    return compute(unique_name("batch_norm"), x.shape(), [&](const Index &o) {
        Expr inv =
            make_const(c, 1.0) / dsl::sqrt(cast(c, channel(var, o)) + make_const(c, epsilon));
        Expr v = (cast(c, x(o)) - cast(c, channel(mean, o))) * inv * cast(c, channel(scale, o)) +
                 cast(c, channel(bias, o));
        return cast(t, v);
    });
}

Tensor instance_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, float epsilon) {
    check_float(x, "instance_norm");
    std::vector<int> spatial;
    for (int i = 2; i < x.rank(); i++)
        spatial.push_back(i);
    const Type t = x.type(), c = compute_type(t);
    Tensor xc = cast(x, c);
    Tensor mean = reduce(xc, Reduction::Mean, spatial, true);
    Tensor centered = sub(xc, mean);
    Tensor var = reduce(mul(centered, centered), Reduction::Mean, spatial, true);
    return compute(unique_name("instance_norm"), x.shape(), [&](const Index &o) {
        Index s = o;
        for (size_t i = 2; i < s.size(); i++)
            s[i] = 0;
        Expr v =
            centered(o) / dsl::sqrt(var(s) + make_const(c, epsilon)) * cast(c, channel(scale, o)) +
            cast(c, channel(bias, o));
        return cast(t, v);
    });
}

LayerNorm layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, int axis,
                     float epsilon) {
    check_float(x, "layer_norm");
    axis = normalize_axis(axis, x.rank(), "layer_norm");
    std::vector<int> axes;
    for (int i = axis; i < x.rank(); i++)
        axes.push_back(i);
    const Type t = x.type(), c = compute_type(t);
    Tensor xc = cast(x, c);
    LayerNorm r;
    r.mean = reduce(xc, Reduction::Mean, axes, true);
    Tensor centered = sub(xc, r.mean);
    Tensor var = reduce(mul(centered, centered), Reduction::Mean, axes, true);
    r.inv_std_dev = map(
        var,
        [&](const Expr &v) { return make_const(c, 1.0) / dsl::sqrt(v + make_const(c, epsilon)); },
        "inv_std_dev");
    Tensor normalized = mul(centered, r.inv_std_dev);
    Tensor scaled = mul(normalized, cast(scale, c));
    r.y = cast(bias.defined() ? add(scaled, cast(bias, c)) : scaled, t);
    return r;
}

Tensor lrn(const Tensor &x, int size, float alpha, float beta, float bias) {
    check_float(x, "lrn");
    const Type t = x.type(), c = compute_type(t);
    const int before = (size - 1) / 2, after = size - 1 - before;
    return compute(unique_name("lrn"), x.shape(), [&](const Index &o) {
        RDom r(-before, before + after + 1, unique_name("lrn_r"));
        Index n = o;
        Expr ch = o[1] + r.x;
        n[1] = clamp(ch, 0, x.dim(1) - 1);
        Expr v = cast(c, x(n));
        Expr square_sum = sum(select(ch >= 0 && ch < x.dim(1), v * v, make_const(c, 0)));
        Expr denom = dsl::pow(make_const(c, bias) + make_const(c, alpha / size) * square_sum,
                              make_const(c, beta));
        return cast(t, cast(c, x(o)) / denom);
    });
}

Tensor mean_variance_normalization(const Tensor &x, const std::vector<int> &axes) {
    check_float(x, "mean_variance_normalization");
    const Type t = x.type(), c = compute_type(t);
    Tensor xc = cast(x, c);
    Tensor mean = reduce(xc, Reduction::Mean, axes, true);
    Tensor mean_sq = reduce(mul(xc, xc), Reduction::Mean, axes, true);
    return cast(zip(
                    {xc, mean, mean_sq},
                    [&](const std::vector<Expr> &v) {
                        Expr sd = dsl::sqrt(v[2] - v[1] * v[1]);
                        return (v[0] - v[1]) / (sd + make_const(c, 1e-9));
                    },
                    "mvn"),
                t);
}

Tensor nll_loss(const Tensor &input, const Tensor &target, const Tensor &weight,
                LossReduction reduction, bool has_ignore_index, int64_t ignore_index) {
    check_float(input, "nll_loss");
    user_assert(input.rank() >= 2 && target.rank() == input.rank() - 1)
        << "nll_loss: input \"" << input.func().name() << "\" must be (N, C, d...) and target \""
        << target.func().name() << "\" (N, d...).";
    const Type t = input.type(), c = compute_type(t);
    const Expr classes = input.dim(1);
    // The class of a target element, and whether it counts.
    auto target_class = [&](const Index &ti, Expr *counts) {
        Expr k = cast(Int(64), target(ti));
        *counts = has_ignore_index ? k != make_const(Int(64), ignore_index) : const_true();
        return clamp(cast(Int(32), k), 0, classes - 1);
    };
    auto weight_of = [&](const Expr &k) {
        return weight.defined() ? cast(c, weight({k})) : make_const(c, 1.0);
    };
    // The per-element loss and weight.
    Tensor loss = compute(unique_name("nll"), target.shape(), [&](const Index &o) {
        Expr counts;
        Expr k = target_class(o, &counts);
        Index ii = o;
        ii.insert(ii.begin() + 1, k);
        return select(counts, -cast(c, input(ii)) * weight_of(k), make_const(c, 0));
    });
    if (reduction == LossReduction::None) return cast(loss, t);
    Tensor total = reduce(loss, Reduction::Sum, {}, false);
    if (reduction == LossReduction::Sum) return cast(total, t);
    Tensor weights = compute(unique_name("nll_weight"), target.shape(), [&](const Index &o) {
        Expr counts;
        Expr k = target_class(o, &counts);
        return select(counts, weight_of(k), make_const(c, 0));
    });
    Tensor denom = reduce(weights, Reduction::Sum, {}, false);
    return cast(
        zip(
            {total, denom}, [](const std::vector<Expr> &v) { return v[0] / v[1]; }, "nll_mean"),
        t);
}

CrossEntropy softmax_cross_entropy(const Tensor &scores, const Tensor &labels, const Tensor &weight,
                                   LossReduction reduction, bool has_ignore_index,
                                   int64_t ignore_index) {
    CrossEntropy r;
    r.log_prob = log_softmax(scores, 1);
    r.loss = nll_loss(r.log_prob, labels, weight, reduction, has_ignore_index, ignore_index);
    return r;
}

}  // namespace dsl::nn
