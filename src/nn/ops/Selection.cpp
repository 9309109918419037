// NonZero and Compress: a scan counts the selected elements before each position, and a scatter
// writes each selected position at its count, so that the result's element m reads the m-th
// selected element. The result's size is a count computed before (count_nonzero).
#include "dsl/nn/Selection.h"

#include "dsl/InlineReductions.h"
#include "dsl/Math.h"
#include "dsl/RDom.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/Indexing.h"

namespace dsl::nn {

namespace {

Expr nonzero_value(const Expr &v) {
    return v != ir::make_zero(v.type());
}

/// The positions r in [0, length) where selected(r) holds, in order: element m is the m-th
/// (m < count, the number of them).
Func selected_positions(const std::function<Expr(const Expr &)> &selected, const Expr &length,
                        const Expr &count, const std::string &name) {
    // before(r): how many positions before r are selected (a scan).
    Var r("r"), m("m");
    Func before(unique_name(name + "_before"));
    before(r) = 0;
    RDom scan(1, max(length - 1, 0), unique_name(name + "_scan"));
    // (Clamped: bounds inference takes the RDom as [1, 0] when it is empty.)
    before(scan) =
        before(scan - 1) + select(selected(clamp(scan - 1, 0, max(length - 1, 0))), 1, 0);
    // position(before(q)) = q for every selected q (a scatter).
    Func position(unique_name(name + "_positions"));
    position(m) = 0;
    RDom q(0, length, unique_name(name + "_selected"));
    q.where(selected(q));
    position(clamp(before(q), 0, max(count - 1, 0))) = Expr(q);
    before.compute_root();
    position.compute_root();
    return position;
}

}  // namespace

Tensor count_nonzero(const Tensor &x, const Expr &limit) {
    Expr n = x.size();
    if (limit.defined()) n = min(n, cast(Int(32), limit));
    RDom r(0, n, unique_name("count_nonzero_r"));
    Expr in_x = x(unflatten(r, x.shape()));
    Expr total = sum(select(nonzero_value(in_x), make_const(Int(64), 1), make_const(Int(64), 0)));
    return compute(unique_name("count_nonzero"), {}, [&](const Index &) { return total; });
}

Tensor nonzero(const Tensor &x, const Expr &count_in) {
    user_assert(x.rank() >= 1) << "nonzero of the scalar \"" << x.func().name()
                               << "\": give it at least one axis.";
    const Expr count = cast(Int(32), count_in);
    Func position =
        selected_positions([&](const Expr &f) { return nonzero_value(x(unflatten(f, x.shape()))); },
                           x.size(), count, "nonzero");
    return compute(unique_name("nonzero"), {x.rank(), count}, [&](const Index &o) {
        const Index index = unflatten(position(o[1]), x.shape());
        Expr v = index.back();
        for (int a = x.rank() - 2; a >= 0; a--)
            v = select(o[0] == a, index[static_cast<size_t>(a)], v);
        return cast(Int(64), v);
    });
}

Expr selection_length(const Tensor &x, const Tensor &condition, int axis, bool flatten) {
    return min(condition.dim(0),
               flatten ? x.size() : x.dim(normalize_axis(axis, x.rank(), "compress")));
}

Tensor compress(const Tensor &x, const Tensor &condition, const Expr &count_in, int axis,
                bool flatten) {
    user_assert(condition.rank() == 1) << "compress: the condition \"" << condition.func().name()
                                       << "\" must be 1-D; it has rank " << condition.rank() << ".";
    const Expr count = cast(Int(32), count_in);
    Func position =
        selected_positions([&](const Expr &r) { return nonzero_value(condition({r})); },
                           selection_length(x, condition, axis, flatten), count, "compress");
    if (flatten) {
        return compute(unique_name("compress"), {count},
                       [&](const Index &o) { return x(unflatten(position(o[0]), x.shape())); });
    }
    const int a = normalize_axis(axis, x.rank(), "compress");
    Shape shape = x.shape();
    shape[static_cast<size_t>(a)] = count;
    return compute(unique_name("compress"), shape, [&](const Index &o) {
        Index index = o;
        index[static_cast<size_t>(a)] = position(o[static_cast<size_t>(a)]);
        return x(index);
    });
}

namespace {

/// The items unique compares: x's slices along `axis`, or its elements (axis negative).
struct Items {
    const Tensor &x;
    int axis;   ///< normalized, or -1
    Expr n;     ///< how many items
    Expr size;  ///< elements per item

    /// first_difference of slices (a, b), computed at root: n x n.
    Func difference;

    Items(const Tensor &t, int a) : x(t), axis(a < 0 ? -1 : normalize_axis(a, t.rank(), "unique")) {
        n = axis < 0 ? x.size() : x.dim(axis);
        size = axis < 0 ? Expr(1) : x.size() / max(x.dim(axis), 1);
        if (axis < 0) return;
        Var va("a"), vb("b");
        RDom e(0, size, unique_name("unique_e"));
        difference = Func(unique_name("unique_difference"));
        difference(va, vb) = minimum(select(element(va, e) != element(vb, e), Expr(e), size));
        difference.compute_root();
    }
    /// Element e (row-major over the other axes) of item `item`.
    Expr element(const Expr &item, const Expr &e) const {
        if (axis < 0) return x(unflatten(item, x.shape()));
        Shape others = x.shape();
        others.erase(others.begin() + axis);
        Index index = unflatten(e, others);
        index.insert(index.begin() + axis, clamp(item, 0, x.dim(axis) - 1));
        return x(index);
    }
    /// The first element where items a and b differ, or `size` when they are equal.
    Expr first_difference(const Expr &a, const Expr &b) const {
        if (axis < 0) return select(element(a, 0) != element(b, 0), 0, 1);
        return difference(clamp(a, 0, max(n - 1, 0)), clamp(b, 0, max(n - 1, 0)));
    }
    Expr equal(const Expr &a, const Expr &b) const { return first_difference(a, b) == size; }
    Expr less(const Expr &a, const Expr &b) const {
        const Expr d = first_difference(a, b);
        const Expr at = clamp(d, 0, max(size - 1, 0));
        return d < size && element(a, at) < element(b, at);
    }
};

/// first(i): whether item i is the first of its value; rank(i): the index in the result of a
/// first item (by value when sorted, else by position).
struct Ranks {
    Func first, rank;
};

Ranks unique_ranks(const Items &items, bool sorted) {
    Var i("i");
    RDom j(0, items.n, unique_name("unique_j"));
    Ranks r;
    r.first = Func(unique_name("unique_first"));
    r.first(i) = sum(select(j < i && items.equal(j, i), 1, 0)) == 0;
    r.first.compute_root();
    r.rank = Func(unique_name("unique_rank"));
    const Expr before = sorted ? items.less(j, i) : j < i;
    r.rank(i) = sum(select(r.first(j) && before, 1, 0));
    r.rank.compute_root();
    return r;
}

}  // namespace

Tensor unique_count(const Tensor &x, int axis) {
    Items items(x, axis);
    Ranks r = unique_ranks(items, false);
    RDom i(0, items.n, unique_name("unique_i"));
    const Expr total = sum(select(r.first(i), make_const(Int(64), 1), make_const(Int(64), 0)));
    return compute(unique_name("unique_count"), {}, [&](const Index &) { return total; });
}

UniqueResult unique(const Tensor &x, int axis, bool sorted, const Expr &count_in) {
    Items items(x, axis);
    const Expr count = cast(Int(32), count_in);
    Ranks r = unique_ranks(items, sorted);
    // position(u): the first item of the u-th value.
    Var u("u");
    Func position(unique_name("unique_positions"));
    position(u) = 0;
    RDom q(0, items.n, unique_name("unique_q"));
    q.where(r.first(q));
    position(clamp(r.rank(q), 0, max(count - 1, 0))) = Expr(q);
    position.compute_root();
    auto at = [&](const Expr &v) { return clamp(position(v), 0, max(items.n - 1, 0)); };
    UniqueResult res;
    if (items.axis < 0) {
        res.y = compute(unique_name("unique_y"), {count},
                        [&](const Index &o) { return items.element(at(o[0]), 0); });
    } else {
        Shape shape = x.shape();
        shape[static_cast<size_t>(items.axis)] = count;
        res.y = compute(unique_name("unique_y"), shape, [&](const Index &o) {
            Index index = o;
            index[static_cast<size_t>(items.axis)] = at(o[static_cast<size_t>(items.axis)]);
            return x(index);
        });
    }
    res.indices = compute(unique_name("unique_indices"), {count},
                          [&](const Index &o) { return cast(Int(64), at(o[0])); });
    RDom j(0, items.n, unique_name("unique_j"));
    res.inverse_indices = compute(unique_name("unique_inverse"), {items.n}, [&](const Index &o) {
        // The rank of the first item equal to this one.
        const Expr first = minimum(select(items.equal(j, o[0]), Expr(j), items.n));
        return cast(Int(64), r.rank(clamp(first, 0, max(items.n - 1, 0))));
    });
    res.counts = compute(unique_name("unique_counts"), {count}, [&](const Index &o) {
        return sum(
            select(items.equal(j, at(o[0])), make_const(Int(64), 1), make_const(Int(64), 0)));
    });
    return res;
}

}  // namespace dsl::nn
