// Data movement: each operator as the index arithmetic that reads its input.
#include "dsl/nn/Movement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include "dsl/InlineReductions.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Simplify.h"
#include "nn/ops/Indexing.h"

namespace dsl::nn {

namespace {

Expr i32(const Expr &e) {
    return e.type() == Int(32) ? e : cast(Int(32), e);
}
Expr i64(const Expr &e) {
    return e.type() == Int(64) ? e : cast(Int(64), e);
}

/// A data-dependent index into an axis of extent `extent`: negative values count from the end,
/// and the result is clamped into the axis (ONNX calls indices outside it an error).
Expr wrap_index(const Expr &index, const Expr &extent) {
    Expr i = i32(index);
    i = select(i < 0, i + extent, i);
    return clamp(i, 0, extent - 1);
}

std::vector<int> normalized(const std::vector<int> &axes, int rank, const char *op) {
    std::vector<int> r;
    for (int a : axes)
        r.push_back(normalize_axis(a, rank, op));
    std::sort(r.begin(), r.end());
    user_assert(std::adjacent_find(r.begin(), r.end()) == r.end())
        << op << ": an axis is given twice.";
    return r;
}

}  // namespace

Tensor reshape(const Tensor &x, const Shape &shape) {
    Shape s;
    for (const Expr &e : shape)
        s.push_back(i32(e));
    Expr n_in = x.size(), n_out = 1;
    for (const Expr &e : s)
        n_out = n_out * e;
    int64_t a = 0, b = 0;
    if (is_const(n_in, &a) && is_const(ir::simplify(n_out), &b)) {
        user_assert(a == b) << "reshape of \"" << x.func().name() << "\" (" << a
                            << " elements) to a shape of " << b << " elements.";
    }
    return compute(unique_name("reshape"), s, [&](const Index &i) {
        if (x.rank() == 0) return x({});
        return x(unflatten(flat_index(i, s), x.shape()));
    });
}

Tensor flatten(const Tensor &x, int axis) {
    int r = x.rank();
    user_assert(axis >= -r && axis <= r)
        << "flatten: axis " << axis << " is out of range for rank " << r << ".";
    if (axis < 0) axis += r;
    Expr outer = 1, inner = 1;
    for (int i = 0; i < r; i++) {
        if (i < axis)
            outer = outer * x.dim(i);
        else
            inner = inner * x.dim(i);
    }
    return reshape(x, {outer, inner});
}

Tensor squeeze(const Tensor &x, const std::vector<int> &axes_in) {
    std::vector<int> axes = normalized(axes_in, x.rank(), "squeeze");
    if (axes.empty()) {
        for (int i = 0; i < x.rank(); i++) {
            int64_t v = 0;
            if (is_const(x.dim(i), &v) && v == 1) axes.push_back(i);
        }
    }
    Shape s;
    for (int i = 0; i < x.rank(); i++) {
        if (!std::count(axes.begin(), axes.end(), i))
            s.push_back(x.dim(i));
        else {
            int64_t v = 0;
            user_assert(!is_const(x.dim(i), &v) || v == 1)
                << "squeeze of axis " << i << " of \"" << x.func().name() << "\", whose extent is "
                << v << ", not 1.";
        }
    }
    return compute(unique_name("squeeze"), s, [&](const Index &o) {
        Index in;
        size_t k = 0;
        for (int i = 0; i < x.rank(); i++)
            in.push_back(std::count(axes.begin(), axes.end(), i) ? Expr(0) : o[k++]);
        return x(in);
    });
}

Tensor unsqueeze(const Tensor &x, const std::vector<int> &axes_in) {
    int r = x.rank() + static_cast<int>(axes_in.size());
    std::vector<int> axes = normalized(axes_in, r, "unsqueeze");
    Shape s;
    size_t k = 0;
    for (int i = 0; i < r; i++)
        s.push_back(std::count(axes.begin(), axes.end(), i) ? Expr(1)
                                                            : x.dim(static_cast<int>(k++)));
    return compute(unique_name("unsqueeze"), s, [&](const Index &o) {
        Index in;
        for (int i = 0; i < r; i++) {
            if (!std::count(axes.begin(), axes.end(), i)) in.push_back(o[static_cast<size_t>(i)]);
        }
        return x(in);
    });
}

Tensor transpose(const Tensor &x, std::vector<int> perm) {
    const int r = x.rank();
    if (perm.empty()) {
        for (int i = r - 1; i >= 0; i--)
            perm.push_back(i);
    }
    user_assert(static_cast<int>(perm.size()) == r)
        << "transpose of \"" << x.func().name() << "\" (rank " << r << ") with a permutation of "
        << perm.size() << " axes.";
    std::vector<int> sorted = normalized(perm, r, "transpose");
    for (int i = 0; i < r; i++)
        perm[static_cast<size_t>(i)] = normalize_axis(perm[static_cast<size_t>(i)], r, "transpose");
    Shape s;
    for (int p : perm)
        s.push_back(x.dim(p));
    return compute(unique_name("transpose"), s, [&](const Index &o) {
        Index in(static_cast<size_t>(r));
        for (int i = 0; i < r; i++)
            in[static_cast<size_t>(perm[static_cast<size_t>(i)])] = o[static_cast<size_t>(i)];
        return x(in);
    });
}

Tensor concat(const std::vector<Tensor> &xs, int axis) {
    user_assert(!xs.empty()) << "concat of no tensors.";
    const int r = xs[0].rank();
    axis = normalize_axis(axis, r, "concat");
    for (const Tensor &t : xs) {
        user_assert(t.rank() == r && t.type() == xs[0].type())
            << "concat: \"" << t.func().name() << "\" (" << t.type() << ", rank " << t.rank()
            << ") does not match \"" << xs[0].func().name() << "\" (" << xs[0].type() << ", rank "
            << r << ").";
    }
    Shape s = xs[0].shape();
    std::vector<Expr> offsets{0};
    for (size_t k = 0; k < xs.size(); k++)
        offsets.push_back(ir::simplify(offsets.back() + xs[k].dim(axis)));
    s[static_cast<size_t>(axis)] = offsets.back();
    return compute(unique_name("concat"), s, [&](const Index &o) {
        const Expr &p = o[static_cast<size_t>(axis)];
        Expr v;
        for (size_t k = xs.size(); k-- > 0;) {
            int64_t e = 0;
            if (is_const(xs[k].dim(axis), &e) && e == 0) continue;  // an empty part
            Index in = o;
            // Clamped: every operand of a select is evaluated, so each read must stay inside.
            in[static_cast<size_t>(axis)] = clamp(p - offsets[k], 0, xs[k].dim(axis) - 1);
            Expr read = xs[k](in);
            v = v.defined() ? select(p < offsets[k + 1], read, v) : read;
        }
        return v.defined() ? v : make_const(xs[0].type(), 0);
    });
}

std::vector<Tensor> split(const Tensor &x, int axis, const std::vector<Expr> &sizes) {
    axis = normalize_axis(axis, x.rank(), "split");
    std::vector<Tensor> parts;
    Expr start = 0;
    for (const Expr &n : sizes) {
        Shape s = x.shape();
        s[static_cast<size_t>(axis)] = i32(n);
        Expr begin = start;
        parts.push_back(compute(unique_name("split"), s, [&](const Index &o) {
            Index in = o;
            in[static_cast<size_t>(axis)] = o[static_cast<size_t>(axis)] + begin;
            return x(in);
        }));
        start = ir::simplify(start + i32(n));
    }
    return parts;
}

Tensor slice(const Tensor &x, const std::vector<Expr> &starts, const std::vector<Expr> &ends,
             const std::vector<int> &axes_in, const std::vector<Expr> &steps) {
    const int r = x.rank();
    Shape s = x.shape();
    std::vector<Expr> begin(static_cast<size_t>(r), Expr(0)),
        stride(static_cast<size_t>(r), Expr(1));
    for (size_t k = 0; k < axes_in.size(); k++) {
        int a = normalize_axis(axes_in[k], r, "slice");
        Expr d = i64(x.dim(a));
        Expr step = k < steps.size() ? i64(steps[k]) : Expr(int64_t(1));
        int64_t sv = 0;
        user_assert(!is_const(step, &sv) || sv != 0) << "slice: a step of 0 on axis " << a << ".";
        Expr st = i64(starts[k]), en = i64(ends[k]);
        st = select(st < 0, st + d, st);
        en = select(en < 0, en + d, en);
        Expr zero = make_const(Int(64), 0), one = make_const(Int(64), 1);
        Expr st_pos = clamp(st, zero, d), en_pos = clamp(en, zero, d);
        Expr st_neg = clamp(st, zero, d - one), en_neg = clamp(en, -one, d - one);
        Expr positive = step > zero;
        Expr first = select(positive, st_pos, st_neg);
        Expr span = select(positive, en_pos - st_pos, st_neg - en_neg);
        Expr mag = select(positive, step, zero - step);
        Expr n = max((span + mag - one) / mag, zero);
        s[static_cast<size_t>(a)] = i32(ir::simplify(n));
        begin[static_cast<size_t>(a)] = i32(ir::simplify(first));
        stride[static_cast<size_t>(a)] = i32(ir::simplify(step));
    }
    return compute(unique_name("slice"), s, [&](const Index &o) {
        Index in;
        for (size_t i = 0; i < o.size(); i++)
            in.push_back(begin[i] + o[i] * stride[i]);
        return x(in);
    });
}

Tensor gather(const Tensor &x, const Tensor &indices, int axis) {
    axis = normalize_axis(axis, x.rank(), "gather");
    Shape s;
    for (int i = 0; i < axis; i++)
        s.push_back(x.dim(i));
    for (const Expr &e : indices.shape())
        s.push_back(e);
    for (int i = axis + 1; i < x.rank(); i++)
        s.push_back(x.dim(i));
    const size_t q = static_cast<size_t>(indices.rank());
    return compute(unique_name("gather"), s, [&](const Index &o) {
        Index ii(o.begin() + axis, o.begin() + axis + static_cast<long>(q));
        Index in(o.begin(), o.begin() + axis);
        in.push_back(wrap_index(indices(ii), x.dim(axis)));
        in.insert(in.end(), o.begin() + axis + static_cast<long>(q), o.end());
        return x(in);
    });
}

Tensor gather_elements(const Tensor &x, const Tensor &indices, int axis) {
    axis = normalize_axis(axis, x.rank(), "gather_elements");
    return compute(unique_name("gather_elements"), indices.shape(), [&](const Index &o) {
        Index in = o;
        in[static_cast<size_t>(axis)] = wrap_index(indices(o), x.dim(axis));
        return x(in);
    });
}

Tensor gather_nd(const Tensor &x, const Tensor &indices, int batch_dims) {
    const int q = indices.rank(), r = x.rank();
    int64_t k = 0;
    user_assert(q >= 1 && is_const(indices.dim(-1), &k))
        << "gather_nd: the last extent of the indices \"" << indices.func().name()
        << "\" must be known when compiling.";
    Shape s;
    for (int i = 0; i < q - 1; i++)
        s.push_back(indices.dim(i));
    for (int i = batch_dims + static_cast<int>(k); i < r; i++)
        s.push_back(x.dim(i));
    return compute(unique_name("gather_nd"), s, [&](const Index &o) {
        Index in(o.begin(), o.begin() + batch_dims);
        Index prefix(o.begin(), o.begin() + (q - 1));
        for (int j = 0; j < k; j++) {
            Index ii = prefix;
            ii.push_back(j);
            in.push_back(wrap_index(indices(ii), x.dim(batch_dims + j)));
        }
        in.insert(in.end(), o.begin() + (q - 1), o.end());
        return x(in);
    });
}

namespace {

/// `x` copied, then updated at `position(r)` with `value(r)` for every r of `domain` (an RDom
/// over an updates tensor's shape, outermost axis first).
Tensor scatter(const Tensor &x, const Shape &domain,
               const std::function<Index(const Index &)> &position,
               const std::function<Expr(const Index &)> &value, ScatterReduction reduction,
               const char *name) {
    Tensor copy = compute(unique_name(name), x.shape(), [&](const Index &i) { return x(i); });
    Func f = copy.func();
    std::vector<std::pair<Expr, Expr>> ranges;
    for (size_t i = domain.size(); i-- > 0;)
        ranges.push_back({0, domain[i]});
    if (domain.empty()) ranges.push_back({0, 1});
    RDom rd(ranges, f.name() + "_r");
    Index r;
    for (size_t i = 0; i < domain.size(); i++)
        r.push_back(rd[static_cast<int>(domain.size() - 1 - i)]);
    Index p = position(r);
    std::vector<Expr> args(p.rbegin(), p.rend());
    Expr v = value(r);
    Expr old = f(args);
    switch (reduction) {
        case ScatterReduction::None:
            f(args) = v;
            break;
        case ScatterReduction::Add:
            f(args) = old + v;
            break;
        case ScatterReduction::Mul:
            f(args) = old * v;
            break;
        case ScatterReduction::Max:
            f(args) = max(old, v);
            break;
        case ScatterReduction::Min:
            f(args) = min(old, v);
            break;
    }
    return Tensor(f, x.shape());
}

}  // namespace

Tensor scatter_elements(const Tensor &x, const Tensor &indices, const Tensor &updates, int axis,
                        ScatterReduction reduction) {
    axis = normalize_axis(axis, x.rank(), "scatter_elements");
    return scatter(
        x, updates.shape(),
        [&](const Index &r) {
            Index p = r;
            p[static_cast<size_t>(axis)] = wrap_index(indices(r), x.dim(axis));
            return p;
        },
        [&](const Index &r) { return updates(r); }, reduction, "scatter_elements");
}

Tensor scatter_nd(const Tensor &x, const Tensor &indices, const Tensor &updates,
                  ScatterReduction reduction) {
    const int q = indices.rank();
    int64_t k = 0;
    user_assert(q >= 1 && is_const(indices.dim(-1), &k))
        << "scatter_nd: the last extent of the indices \"" << indices.func().name()
        << "\" must be known when compiling.";
    return scatter(
        x, updates.shape(),
        [&](const Index &r) {
            Index prefix(r.begin(), r.begin() + (q - 1));
            Index p;
            for (int j = 0; j < k; j++) {
                Index ii = prefix;
                ii.push_back(j);
                p.push_back(wrap_index(indices(ii), x.dim(j)));
            }
            p.insert(p.end(), r.begin() + (q - 1), r.end());
            return p;
        },
        [&](const Index &r) { return updates(r); }, reduction, "scatter_nd");
}

Tensor expand(const Tensor &x, const Shape &shape) {
    Shape target;
    for (const Expr &e : shape)
        target.push_back(i32(e));
    Shape s = broadcast_shapes({x.shape(), target});
    return compute(unique_name("expand"), s,
                   [&](const Index &o) { return broadcast_read(x, s, o); });
}

Tensor tile(const Tensor &x, const std::vector<Expr> &repeats) {
    user_assert(static_cast<int>(repeats.size()) == x.rank())
        << "tile of \"" << x.func().name() << "\" (rank " << x.rank() << ") with " << repeats.size()
        << " repeats.";
    Shape s;
    for (int i = 0; i < x.rank(); i++)
        s.push_back(x.dim(i) * i32(repeats[static_cast<size_t>(i)]));
    return compute(unique_name("tile"), s, [&](const Index &o) {
        Index in;
        for (int i = 0; i < x.rank(); i++)
            in.push_back(o[static_cast<size_t>(i)] % x.dim(i));
        return x(in);
    });
}

Tensor pad(const Tensor &x, const std::vector<Expr> &before, const std::vector<Expr> &after,
           PadMode mode, const Expr &value) {
    const int r = x.rank();
    user_assert(static_cast<int>(before.size()) == r && static_cast<int>(after.size()) == r)
        << "pad of \"" << x.func().name() << "\" (rank " << r << ") needs one pad per axis.";
    Shape s;
    for (int i = 0; i < r; i++)
        s.push_back(x.dim(i) + i32(before[static_cast<size_t>(i)]) +
                    i32(after[static_cast<size_t>(i)]));
    Expr fill = value.defined() ? cast(x.type(), value) : make_const(x.type(), 0);
    return compute(unique_name("pad"), s, [&](const Index &o) {
        Index in;
        Expr inside = const_true();
        for (int i = 0; i < r; i++) {
            Expr d = x.dim(i);
            Expr src = o[static_cast<size_t>(i)] - i32(before[static_cast<size_t>(i)]);
            switch (mode) {
                case PadMode::Constant:
                    inside = inside && src >= 0 && src < d;
                    in.push_back(clamp(src, 0, d - 1));
                    break;
                case PadMode::Edge:
                    in.push_back(clamp(src, 0, d - 1));
                    break;
                case PadMode::Reflect: {
                    // Mirror without repeating the edge: period 2(d - 1).
                    Expr period = max(2 * (d - 1), 1);
                    Expr m = src % period;  // Euclidean: in [0, period)
                    in.push_back(clamp(select(m >= d, period - m, m), 0, d - 1));
                    break;
                }
            }
        }
        Expr v = x(in);
        return mode == PadMode::Constant ? select(inside, v, fill) : v;
    });
}

Tensor depth_to_space(const Tensor &x, int b, bool crd) {
    user_assert(x.rank() == 4) << "depth_to_space of \"" << x.func().name()
                               << "\" needs a 4-D (N, C, H, W) tensor.";
    Expr c_out = x.dim(1) / (b * b);
    Shape s{x.dim(0), c_out, x.dim(2) * b, x.dim(3) * b};
    return compute(unique_name("depth_to_space"), s, [&](const Index &o) {
        Expr bh = o[2] % b, bw = o[3] % b;
        Expr c = crd ? o[1] * (b * b) + bh * b + bw : (bh * b + bw) * c_out + o[1];
        return x({o[0], clamp(c, 0, x.dim(1) - 1), o[2] / b, o[3] / b});
    });
}

Tensor space_to_depth(const Tensor &x, int b) {
    user_assert(x.rank() == 4) << "space_to_depth of \"" << x.func().name()
                               << "\" needs a 4-D (N, C, H, W) tensor.";
    Expr c_in = x.dim(1);
    Shape s{x.dim(0), c_in * (b * b), x.dim(2) / b, x.dim(3) / b};
    return compute(unique_name("space_to_depth"), s, [&](const Index &o) {
        Expr block = o[1] / c_in;
        // Clamped as unflatten's coordinates are.
        return x({o[0], clamp(o[1] % c_in, 0, c_in - 1),
                  clamp(o[2] * b + block / b, 0, x.dim(2) - 1),
                  clamp(o[3] * b + block % b, 0, x.dim(3) - 1)});
    });
}

Tensor trilu(const Tensor &x, const Expr &k, bool upper) {
    user_assert(x.rank() >= 2) << "trilu of \"" << x.func().name() << "\" needs at least 2 axes.";
    Expr kk = clamp(i64(k), make_const(Int(64), -(int64_t(1) << 31) + 1),
                    make_const(Int(64), (int64_t(1) << 31) - 1));
    return compute(unique_name("trilu"), x.shape(), [&](const Index &o) {
        Expr diff = i64(o[o.size() - 1]) - i64(o[o.size() - 2]);
        Expr keep = upper ? diff >= kk : diff <= kk;
        return select(keep, x(o), make_const(x.type(), 0));
    });
}

Tensor eye_like(const Shape &shape, Type t, int k) {
    user_assert(shape.size() == 2) << "eye_like needs a 2-D shape.";
    return compute(unique_name("eye_like"), shape, [&](const Index &o) {
        return select(o[1] - o[0] == k, make_const(t, 1), make_const(t, 0));
    });
}

Tensor one_hot(const Tensor &indices, const Expr &depth, const Tensor &values, int axis) {
    const int r = indices.rank() + 1;
    axis = normalize_axis(axis, r, "one_hot");
    Shape s = indices.shape();
    Expr d = i32(depth);
    s.insert(s.begin() + axis, d);
    return compute(unique_name("one_hot"), s, [&](const Index &o) {
        Index ii = o;
        ii.erase(ii.begin() + axis);
        Expr idx = indices(ii);
        Expr i = idx.type().is_float() ? cast(Int(64), dsl::trunc(idx)) : i64(idx);
        i = select(i < 0, i + i64(d), i);
        Expr on = values({Expr(1)}), off = values({Expr(0)});
        return select(i == i64(o[static_cast<size_t>(axis)]), on, off);
    });
}

Tensor range(const Expr &start, const Expr &limit, const Expr &delta, Type t) {
    Expr n =
        max(dsl::ceil((cast(Float(64), limit) - cast(Float(64), start)) / cast(Float(64), delta)),
            make_const(Float(64), 0.0));
    return compute(unique_name("range"), {cast(Int(32), n)}, [&](const Index &o) {
        if (t.is_float()) return cast(t, cast(t, start) + cast(t, o[0]) * cast(t, delta));
        return cast(t, i64(start) + i64(o[0]) * i64(delta));
    });
}

Tensor shape_of(const Tensor &x, int start, int end) {
    const int r = x.rank();
    auto norm = [r](int v) { return std::clamp(v < 0 ? v + r : v, 0, r); };
    int s0 = norm(start), s1 = norm(end);
    int n = std::max(s1 - s0, 0);
    return compute(unique_name("shape"), {n}, [&](const Index &o) {
        Expr v = make_const(Int(64), 0);
        for (int i = s1 - 1; i >= s0; i--)
            v = select(o[0] == i - s0, i64(x.dim(i)), v);
        return v;
    });
}

Tensor size_of(const Tensor &x) {
    return compute(unique_name("size"), {}, [&](const Index &) { return i64(x.size()); });
}

Tensor full(const Shape &shape, const Expr &value) {
    Shape s;
    for (const Expr &e : shape)
        s.push_back(i32(e));
    return compute(unique_name("full"), s, [&](const Index &) { return value; });
}

Tensor cumsum(const Tensor &x, int axis, bool exclusive, bool reverse) {
    axis = normalize_axis(axis, x.rank(), "cumsum");
    const size_t a = static_cast<size_t>(axis);
    Expr n = x.dim(axis);
    // The running sum as a scan: element j adds element j - 1's sum (or j + 1's, reversed).
    Tensor first = compute(unique_name("cumsum"), x.shape(), [&](const Index &o) {
        Index prev = o;
        if (exclusive) {
            Expr edge = reverse ? o[a] == n - 1 : o[a] == 0;
            prev[a] = clamp(reverse ? o[a] + 1 : o[a] - 1, 0, n - 1);
            return select(edge, make_const(x.type(), 0), x(prev));
        }
        return x(o);
    });
    Func f = first.func();
    RDom r(1, max(n - 1, 0), f.name() + "_r");
    Expr j = reverse ? n - 1 - Expr(r.x) : Expr(r.x);
    Expr p = reverse ? j + 1 : j - 1;
    std::vector<Expr> at, before;
    for (int i = x.rank() - 1; i >= 0; i--) {
        Expr v = first.var(i);
        at.push_back(i == axis ? j : v);
        before.push_back(i == axis ? p : v);
    }
    f(at) = f(at) + f(before);
    return Tensor(f, x.shape());
}

Tensor max_unpool(const Tensor &x, const Tensor &indices, const Shape &shape,
                  const Shape &index_shape) {
    Shape s, is;
    for (const Expr &e : shape)
        s.push_back(i32(e));
    for (const Expr &e : index_shape.empty() ? shape : index_shape)
        is.push_back(i32(e));
    Tensor zeros = full(s, make_const(x.type(), 0));
    Expr total = 1;
    for (const Expr &e : is)
        total = total * e;
    return scatter(
        zeros, x.shape(),
        [&](const Index &r) {
            Index p = unflatten(clamp(i32(indices(r)), 0, total - 1), is);
            for (size_t a = 0; a < p.size(); a++)
                p[a] = clamp(p[a], 0, s[a] - 1);
            return p;
        },
        [&](const Index &r) { return x(r); }, ScatterReduction::None, "max_unpool");
}

Tensor window_function(WindowFunction kind, const Expr &size, Type t, bool periodic) {
    Expr n = i32(size);
    Expr denom = cast(Float(64), periodic ? n : n - 1);
    return compute(unique_name("window"), {n}, [&](const Index &o) {
        Expr phase = make_const(Float(64), 2.0 * M_PI) * cast(Float(64), o[0]) / denom;
        auto c = [](double v) { return make_const(Float(64), v); };
        Expr v;
        switch (kind) {
            case WindowFunction::Hann:
                v = c(0.5) - c(0.5) * dsl::cos(phase);
                break;
            case WindowFunction::Hamming:
                v = c(25.0 / 46.0) - c(21.0 / 46.0) * dsl::cos(phase);
                break;
            case WindowFunction::Blackman:
                v = c(0.42) - c(0.5) * dsl::cos(phase) + c(0.08) * dsl::cos(phase * c(2.0));
                break;
        }
        return cast(t, v);
    });
}

Tensor einsum(const std::string &equation_in, const std::vector<Tensor> &inputs) {
    std::string equation;
    for (char ch : equation_in) {
        if (ch != ' ') equation += ch;
    }
    size_t arrow = equation.find("->");
    std::string lhs = equation.substr(0, arrow);
    std::vector<std::string> terms;
    size_t start = 0;
    while (true) {
        size_t comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    // An ellipsis stands for the leading axes an operand has beyond its letters; they become
    // the digits '0', '1', ..., aligned at their last axes (as numpy aligns them).
    size_t ellipsis_axes = 0;
    for (size_t k = 0; k < terms.size() && k < inputs.size(); k++) {
        size_t e = terms[k].find("...");
        if (e == std::string::npos) continue;
        size_t n = static_cast<size_t>(inputs[k].rank()) - (terms[k].size() - 3);
        ellipsis_axes = std::max(ellipsis_axes, n);
    }
    auto expand = [&](const std::string &term, size_t n) {
        size_t e = term.find("...");
        if (e == std::string::npos) return term;
        std::string digits;
        for (size_t i = ellipsis_axes - n; i < ellipsis_axes; i++)
            digits += static_cast<char>('0' + i);
        return term.substr(0, e) + digits + term.substr(e + 3);
    };
    for (size_t k = 0; k < terms.size() && k < inputs.size(); k++) {
        if (terms[k].find("...") == std::string::npos) continue;
        terms[k] = expand(terms[k], static_cast<size_t>(inputs[k].rank()) - (terms[k].size() - 3));
    }
    user_assert(terms.size() == inputs.size())
        << "einsum \"" << equation_in << "\" names " << terms.size() << " operands but was given "
        << inputs.size() << ".";
    // Each letter's extent, from the first operand that has it.
    std::map<char, Expr> extent;
    std::map<char, int> count;
    for (size_t k = 0; k < terms.size(); k++) {
        user_assert(static_cast<int>(terms[k].size()) == inputs[k].rank())
            << "einsum \"" << equation_in << "\": operand " << k << " has rank " << inputs[k].rank()
            << " but its subscripts \"" << terms[k] << "\" name " << terms[k].size() << " axes.";
        for (size_t i = 0; i < terms[k].size(); i++) {
            char l = terms[k][i];
            if (!extent.count(l)) extent[l] = inputs[k].dim(static_cast<int>(i));
            count[l]++;
        }
    }
    std::string out;
    if (arrow != std::string::npos) {
        out = expand(equation.substr(arrow + 2), ellipsis_axes);
    } else {
        // Implicit: the ellipsis axes, then the letters that appear once, in alphabetical order.
        for (size_t i = 0; i < ellipsis_axes; i++)
            out += static_cast<char>('0' + i);
        for (const auto &[l, n] : count) {
            if (n == 1 && !(l >= '0' && l <= '9')) out += l;
        }
    }
    std::string summed;
    for (const auto &[l, n] : extent) {
        if (out.find(l) == std::string::npos) summed += l;
    }
    Shape s;
    for (char l : out) {
        user_assert(extent.count(l))
            << "einsum \"" << equation_in << "\": output letter '" << l << "' names no input axis.";
        s.push_back(extent[l]);
    }
    return compute(unique_name("einsum"), s, [&](const Index &o) {
        std::map<char, Expr> value;
        for (size_t i = 0; i < out.size(); i++)
            value[out[i]] = o[i];
        std::optional<RDom> r;
        if (!summed.empty()) {
            std::vector<std::pair<Expr, Expr>> ranges;
            for (char l : summed)
                ranges.push_back({0, extent[l]});
            r = RDom(ranges, unique_name("einsum_r"));
            for (size_t i = 0; i < summed.size(); i++)
                value[summed[i]] = (*r)[static_cast<int>(i)];
        }
        Expr product;
        for (size_t k = 0; k < terms.size(); k++) {
            Index idx;
            for (char l : terms[k])
                idx.push_back(value[l]);
            Expr v = inputs[k](idx);
            product = product.defined() ? product * v : v;
        }
        return r ? sum(product) : product;
    });
}

}  // namespace dsl::nn
