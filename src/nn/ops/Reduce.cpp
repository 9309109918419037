// Reductions with RDoms over the reduced axes, arg-reductions, and the softmax family.
#include "dsl/nn/Reduce.h"
#include "dsl/Math.h"

#include <algorithm>
#include <functional>

#include "dsl/InlineReductions.h"
#include "dsl/nn/Elementwise.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/Indexing.h"

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

}  // namespace

namespace {

/// Threads over the axes of the accumulation `t` from Func argument `first` out, fused into one
/// loop, in its pure definition and every update: a batch of one (a symbol, not known to be 1)
/// leaves the rows of a softmax to share out.
void parallelize_outer(const Tensor &t, size_t first) {
    Func f = t.func();
    std::vector<Var> fv = f.args();
    if (first >= fv.size()) return;
    auto fuse_outer = [&](auto &&stage) {
        Var outer = fv.back();
        for (size_t i = fv.size() - 1; i-- > first;) {
            Var fused(outer.name() + "_" + fv[i].name());
            stage.fuse(fv[i], outer, fused);
            outer = fused;
        }
        stage.parallel(outer);
    };
    fuse_outer(f);
    for (int u = 0; u < f.num_update_definitions(); u++)
        fuse_outer(f.update(u));
}

/// An explicit accumulation over the reduced axes: `init`, then `combine(acc, term(o, i))` for
/// every index i of x that output index o reduces. A Func of its own, computed at root with
/// threads over an outer kept axis and, when x's innermost axis is kept, vectors along it (the
/// reduction loops inside the vector loop, each reading a vector of x).
Tensor accumulate(const Tensor &x, const std::vector<int> &axes, bool keepdims, Type acc,
                  const Expr &init, const std::function<Expr(const Expr &, const Expr &)> &combine,
                  const std::function<Expr(const Index &, const Index &)> &term,
                  const std::string &name) {
    ReducedShape rs = reduced_shape(x, axes, keepdims);
    Tensor t = compute(unique_name(name), rs.shape, [&](const Index &) { return init; });
    Func f = t.func();
    Index o;
    for (int a = 0; a < t.rank(); a++)
        o.push_back(t.var(a));
    std::vector<Expr> args(o.rbegin(), o.rend());
    const int lanes = std::max(1, Target::host().natural_vector_size(acc));
    int64_t inner_extent = 0;
    const bool inner_reduced =
        x.rank() > 0 && std::find(axes.begin(), axes.end(), x.rank() - 1) != axes.end();
    if (inner_reduced && lanes > 1 &&
        (!is_const(x.dim(-1), &inner_extent) || inner_extent >= 4 * lanes)) {
        // The innermost axis is reduced: one accumulator per vector lane, lane l summing the
        // elements l, l + lanes, l + 2 * lanes, ... of the whole vectors, then the lanes
        // combined, then the elements after the last whole vector. The combine must be associative
        // and commutative (every reduction here is). Scalar loops over a long innermost axis (a
        // softmax over 6625 classes) ran several times slower.
        const Expr n = x.dim(-1);
        const Expr full = n / lanes;  // whole vectors; the rest is summed after the lanes
        std::vector<std::pair<Expr, Expr>> ranges = rs.ranges;
        ranges[0] = {0, full};
        RDom rj(ranges, unique_name(name + "_r"));
        Var lane(unique_name("lane"));
        std::vector<Var> pv{lane};
        for (const Var &v : f.args())
            pv.push_back(v);
        std::vector<Expr> pargs{lane};
        pargs.insert(pargs.end(), args.begin(), args.end());
        Func partial(unique_name(name + "_lanes"));
        partial(pv) = init;
        Index in = source_index(x, axes, keepdims, o, rj);
        in.back() = rj[0] * lanes + lane;
        partial(pargs) = combine(partial(pargs), term(o, in));
        RDom rl(0, lanes, unique_name(name + "_l"));
        std::vector<Expr> largs{Expr(rl.x)};
        largs.insert(largs.end(), args.begin(), args.end());
        f(args) = combine(f(args), partial(largs));
        ranges[0] = {full * lanes, n - full * lanes};
        RDom rt(ranges, unique_name(name + "_tail"));
        f(args) = combine(f(args), term(o, source_index(x, axes, keepdims, o, rt)));
        if (f.args().empty())
            partial.compute_root().vectorize(lane);
        else
            partial.compute_at(f, f.args()[0]).vectorize(lane);
        partial.update().vectorize(lane);
        parallelize_outer(t, f.args().size() > 1 ? 1 : 0);
        return t;
    }
    RDom rd(rs.ranges, unique_name(name + "_r"));
    f(args) = combine(f(args), term(o, source_index(x, axes, keepdims, o, rd)));
    std::vector<Var> fv = f.args();
    if (fv.empty()) return t;
    const bool inner_kept =
        x.rank() > 0 && std::find(axes.begin(), axes.end(), x.rank() - 1) == axes.end();
    Stage update = f.update();
    if (inner_kept) {
        std::vector<VarOrRVar> order{fv[0]};
        for (int d = 0; d < rd.dimensions(); d++)
            order.push_back(rd[d]);
        for (size_t i = 1; i < fv.size(); i++)
            order.push_back(fv[i]);
        update.reorder(order);
        int64_t inner = 0;
        if (!is_const(t.dim(-1), &inner) || inner >= lanes) {
            f.vectorize(fv[0], lanes);
            update.vectorize(fv[0], lanes);
        }
    }
    parallelize_outer(t, inner_kept ? 1 : 0);
    return t;
}

Expr plus(const Expr &a, const Expr &b) {
    return a + b;
}

}  // namespace

Tensor reduce(const Tensor &x, Reduction kind, std::vector<int> axes_in, bool keepdims) {
    std::vector<int> axes = normalized_axes(std::move(axes_in), x.rank(), "reduce");
    ReducedShape rs = reduced_shape(x, axes, keepdims);
    const Type t = x.type(), acc = accumulator_type(t);
    if (rs.ranges.empty()) {
        return compute(unique_name("reduce"), rs.shape, [&](const Index &o) { return x(o); });
    }
    auto value = [&](const Index &i) { return cast(acc, x(i)); };
    auto summed = [&](const std::function<Expr(const Expr &)> &f) {
        return accumulate(
            x, axes, keepdims, acc, make_const(acc, 0), plus,
            [&](const Index &, const Index &i) { return f(value(i)); }, "reduce_sum");
    };
    auto identity = [](const Expr &v) { return v; };
    Tensor a;
    std::function<Expr(const Expr &, const Index &)> finish = [](const Expr &v, const Index &) {
        return v;
    };
    switch (kind) {
        case Reduction::Sum:
            a = summed(identity);
            break;
        case Reduction::Mean: {
            Expr n = 1;
            for (int ax : axes)
                n = n * x.dim(ax);
            a = summed(identity);
            finish = [n, acc](const Expr &v, const Index &) { return v / cast(acc, n); };
            break;
        }
        case Reduction::Max:
        case Reduction::Min: {
            const bool is_max = kind == Reduction::Max;
            a = accumulate(
                x, axes, keepdims, acc, is_max ? acc.min() : acc.max(),
                [is_max](const Expr &p, const Expr &q) { return is_max ? max(p, q) : min(p, q); },
                [&](const Index &, const Index &i) { return value(i); }, "reduce_extreme");
            break;
        }
        case Reduction::Prod:
            a = accumulate(
                x, axes, keepdims, acc, make_const(acc, 1),
                [](const Expr &p, const Expr &q) { return p * q; },
                [&](const Index &, const Index &i) { return value(i); }, "reduce_prod");
            break;
        case Reduction::L1:
            a = summed([&](const Expr &v) {
                return select(v < make_const(acc, 0), make_const(acc, 0) - v, v);
            });
            break;
        case Reduction::L2:
            a = summed([](const Expr &v) { return v * v; });
            finish = [acc](const Expr &v, const Index &) {
                Expr r = dsl::sqrt(v);
                return acc.is_float() ? r : cast(acc, r);
            };
            break;
        case Reduction::SumSquare:
            a = summed([](const Expr &v) { return v * v; });
            break;
        case Reduction::LogSum:
            a = summed(identity);
            finish = [](const Expr &v, const Index &) { return dsl::log(v); };
            break;
        case Reduction::LogSumExp: {
            // Shifted by the maximum, so that exp does not overflow.
            Tensor m = accumulate(
                x, axes, keepdims, acc, acc.min(),
                [](const Expr &p, const Expr &q) { return max(p, q); },
                [&](const Index &, const Index &i) { return value(i); }, "reduce_lse_max");
            auto shift = [acc](const Expr &mv) {
                return select(is_nan(mv) || mv == acc.max() || mv == acc.min(), make_const(acc, 0),
                              mv);
            };
            a = accumulate(
                x, axes, keepdims, acc, make_const(acc, 0), plus,
                [&](const Index &o, const Index &i) {
                    return dsl::fast_exp(value(i) - shift(m(o)));
                },
                "reduce_lse_sum");
            finish = [m, shift](const Expr &v, const Index &o) {
                return shift(m(o)) + dsl::log(v);
            };
            break;
        }
    }
    return compute(unique_name("reduce"), rs.shape,
                   [&](const Index &o) { return cast(t, finish(a(o), o)); });
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
        {x, m}, [](const std::vector<Expr> &v) { return dsl::fast_exp(v[0] - v[1]); },
        "softmax_exp");
    Tensor s = reduce(e, Reduction::Sum, {axis}, true);
    return zip(
        {e, s}, [](const std::vector<Expr> &v) { return v[0] / v[1]; }, "softmax");
}

Tensor log_softmax(const Tensor &x, int axis) {
    user_assert(x.type().is_float())
        << "log_softmax of \"" << x.func().name() << "\", which is not a float tensor.";
    Tensor m = reduce(x, Reduction::Max, {axis}, true);
    Tensor shifted = sub(x, m);
    Tensor s =
        reduce(map(
                   shifted, [](const Expr &v) { return dsl::fast_exp(v); }, "log_softmax_exp"),
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
