// Reductions with RDoms over the reduced axes, arg-reductions, and the softmax family.
#include "dsl/nn/Reduce.h"

#include <algorithm>

#include "dsl/InlineReductions.h"
#include "dsl/nn/Elementwise.h"
#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl::nn {

namespace {

std::vector<int> normalized_axes(std::vector<int> axes, int rank, const char *op) {
    if (axes.empty()) {
        for (int i = 0; i < rank; i++)
            axes.push_back(i);
    }
    for (int &a : axes)
        a = normalize_axis(a, rank, op);
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    return axes;
}

/// The result's shape, and a function from a result index and the RDom's variables to the
/// index of x it reads.
struct ReducedShape {
    Shape shape;
    std::vector<std::pair<Expr, Expr>> ranges;  // the RDom, innermost axis first
};

ReducedShape reduced_shape(const Tensor &x, const std::vector<int> &axes, bool keepdims) {
    ReducedShape r;
    for (int i = 0; i < x.rank(); i++) {
        bool reduced = std::count(axes.begin(), axes.end(), i) != 0;
        if (!reduced)
            r.shape.push_back(x.dim(i));
        else if (keepdims)
            r.shape.push_back(1);
    }
    for (auto it = axes.rbegin(); it != axes.rend(); ++it)
        r.ranges.push_back({0, x.dim(*it)});
    return r;
}

/// x's index for result index `o` and RDom `rd` (whose dimension k is the k-th reduced axis
/// from the innermost).
Index source_index(const Tensor &x, const std::vector<int> &axes, bool keepdims, const Index &o,
                   const RDom &rd) {
    Index in;
    size_t k = 0;
    for (int i = 0; i < x.rank(); i++) {
        auto pos = std::find(axes.begin(), axes.end(), i);
        if (pos == axes.end()) {
            in.push_back(o[k++]);
        } else {
            int j = static_cast<int>(axes.end() - pos) - 1;  // innermost reduced axis is 0
            in.push_back(rd[j]);
            if (keepdims) k++;
        }
    }
    return in;
}

Type accumulator_type(Type t) {
    return t.is_float() && t.bits() == 16 ? Float(32) : t;
}

}  // namespace

Tensor reduce(const Tensor &x, Reduction kind, std::vector<int> axes_in, bool keepdims) {
    std::vector<int> axes = normalized_axes(std::move(axes_in), x.rank(), "reduce");
    ReducedShape rs = reduced_shape(x, axes, keepdims);
    const Type t = x.type(), acc = accumulator_type(t);
    return compute(unique_name("reduce"), rs.shape, [&](const Index &o) -> Expr {
        if (rs.ranges.empty()) return x(o);
        RDom rd(rs.ranges, unique_name("reduce_r"));
        Expr v = cast(acc, x(source_index(x, axes, keepdims, o, rd)));
        Expr r;
        switch (kind) {
            case Reduction::Sum:
                r = sum(v);
                break;
            case Reduction::Mean: {
                Expr n = 1;
                for (int a : axes)
                    n = n * x.dim(a);
                r = sum(v) / cast(acc, n);
                break;
            }
            case Reduction::Max:
                r = maximum(v);
                break;
            case Reduction::Min:
                r = minimum(v);
                break;
            case Reduction::Prod:
                r = product(v);
                break;
            case Reduction::L1:
                r = sum(select(v < make_const(acc, 0), make_const(acc, 0) - v, v));
                break;
            case Reduction::L2:
                r = dsl::sqrt(sum(v * v));
                if (!acc.is_float()) r = cast(acc, r);
                break;
            case Reduction::SumSquare:
                r = sum(v * v);
                break;
            case Reduction::LogSum:
                r = dsl::log(sum(v));
                break;
            case Reduction::LogSumExp: {
                // Shifted by the maximum, so that exp does not overflow.
                RDom rd2(rs.ranges, unique_name("reduce_m"));
                Expr m = maximum(cast(acc, x(source_index(x, axes, keepdims, o, rd2))));
                Expr finite =
                    select(is_nan(m) || m == acc.max() || m == acc.min(), make_const(acc, 0), m);
                r = finite + dsl::log(sum(dsl::exp(v - finite)));
                break;
            }
        }
        return cast(t, r);
    });
}

namespace {
Tensor arg_reduce(const Tensor &x, int axis, bool keepdims, bool last, bool is_max) {
    axis = normalize_axis(axis, x.rank(), is_max ? "argmax" : "argmin");
    std::vector<int> axes{axis};
    ReducedShape rs = reduced_shape(x, axes, keepdims);
    Expr n = x.dim(axis);
    return compute(unique_name(is_max ? "argmax" : "argmin"), rs.shape, [&](const Index &o) {
        // Two reductions: the extreme value, then the first (or last) index holding it.
        RDom rd(rs.ranges, unique_name("arg_r"));
        Expr v = x(source_index(x, axes, keepdims, o, rd));
        Expr extreme = is_max ? maximum(v) : minimum(v);
        RDom ri(rs.ranges, unique_name("arg_i"));
        Expr w = x(source_index(x, axes, keepdims, o, ri));
        Expr i = ri.x;
        Expr index =
            last ? maximum(select(w == extreme, i, -1)) : minimum(select(w == extreme, i, n));
        return cast(Int(64), index);
    });
}
}  // namespace

Tensor argmax(const Tensor &x, int axis, bool keepdims, bool select_last_index) {
    return arg_reduce(x, axis, keepdims, select_last_index, true);
}
Tensor argmin(const Tensor &x, int axis, bool keepdims, bool select_last_index) {
    return arg_reduce(x, axis, keepdims, select_last_index, false);
}

Tensor softmax(const Tensor &x, int axis) {
    user_assert(x.type().is_float())
        << "softmax of \"" << x.func().name() << "\", which is not a float tensor.";
    Tensor m = reduce(x, Reduction::Max, {axis}, true);
    Tensor e = zip(
        {x, m}, [](const std::vector<Expr> &v) { return dsl::exp(v[0] - v[1]); }, "softmax_exp");
    Tensor s = reduce(e, Reduction::Sum, {axis}, true);
    return zip(
        {e, s}, [](const std::vector<Expr> &v) { return v[0] / v[1]; }, "softmax");
}

Tensor log_softmax(const Tensor &x, int axis) {
    user_assert(x.type().is_float())
        << "log_softmax of \"" << x.func().name() << "\", which is not a float tensor.";
    Tensor m = reduce(x, Reduction::Max, {axis}, true);
    Tensor shifted = sub(x, m);
    Tensor s = reduce(map(
                          shifted, [](const Expr &v) { return dsl::exp(v); }, "log_softmax_exp"),
                      Reduction::Sum, {axis}, true);
    return zip(
        {shifted, s}, [](const std::vector<Expr> &v) { return v[0] - dsl::log(v[1]); },
        "log_softmax");
}

Tensor hardmax(const Tensor &x, int axis) {
    axis = normalize_axis(axis, x.rank(), "hardmax");
    Tensor best = argmax(x, axis, true, false);
    return compute(unique_name("hardmax"), x.shape(), [&](const Index &o) {
        Index b = o;
        b[static_cast<size_t>(axis)] = 0;
        return select(best(b) == cast(Int(64), o[static_cast<size_t>(axis)]),
                      make_const(x.type(), 1), make_const(x.type(), 0));
    });
}

TopK top_k(const Tensor &x, const Expr &k, int axis, bool largest) {
    axis = normalize_axis(axis, x.rank(), "top_k");
    const size_t a = static_cast<size_t>(axis);
    const Expr n = x.dim(axis);
    // Each element's rank: how many elements come before it in the order.
    Tensor rank = compute(unique_name("top_k_rank"), x.shape(), [&](const Index &o) {
        RDom r(0, n, unique_name("top_k_r"));
        Index other = o;
        other[a] = r.x;
        Expr v = x(o), w = x(other);
        Expr before = (largest ? w > v : w < v) || (w == v && Expr(r.x) < o[a]);
        return sum(select(before, 1, 0));
    });
    rank.func().compute_root();
    Shape s = x.shape();
    s[a] = cast(Int(32), k);
    TopK result;
    result.indices = compute(unique_name("top_k_indices"), s, [&](const Index &o) {
        RDom r(0, n, unique_name("top_k_i"));
        Index at = o;
        at[a] = r.x;
        return cast(Int(64), minimum(select(rank(at) == o[a], Expr(r.x), n)));
    });
    result.indices.func().compute_root();
    result.values = compute(unique_name("top_k_values"), s, [&](const Index &o) {
        Index at = o;
        at[a] = clamp(cast(Int(32), result.indices(o)), 0, n - 1);
        return x(at);
    });
    return result;
}

}  // namespace dsl::nn
