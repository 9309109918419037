// NonZero and Compress: a scan counts the selected elements before each position, and a scatter
// writes each selected position at its count, so that the result's element m reads the m-th
// selected element. The result's size is a count computed before (count_nonzero).
#include "dsl/nn/Selection.h"

#include "dsl/InlineReductions.h"
#include "dsl/Math.h"
#include "dsl/RDom.h"
#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl::nn {

namespace {

/// x's index of the element at row-major position `flat`.
Index unflatten(const Tensor &x, Expr flat) {
    Index index(static_cast<size_t>(x.rank()));
    for (int a = x.rank() - 1; a >= 0; a--) {
        index[static_cast<size_t>(a)] = clamp(flat % x.dim(a), 0, x.dim(a) - 1);
        flat = flat / x.dim(a);
    }
    return index;
}

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
    Expr in_x = x(unflatten(x, r));
    Expr total = sum(select(nonzero_value(in_x), make_const(Int(64), 1), make_const(Int(64), 0)));
    return compute(unique_name("count_nonzero"), {}, [&](const Index &) { return total; });
}

Tensor nonzero(const Tensor &x, const Expr &count_in) {
    user_assert(x.rank() >= 1) << "nonzero of the scalar \"" << x.func().name()
                               << "\": give it at least one axis.";
    const Expr count = cast(Int(32), count_in);
    Func position =
        selected_positions([&](const Expr &f) { return nonzero_value(x(unflatten(x, f))); },
                           x.size(), count, "nonzero");
    return compute(unique_name("nonzero"), {x.rank(), count}, [&](const Index &o) {
        const Index index = unflatten(x, position(o[1]));
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
                       [&](const Index &o) { return x(unflatten(x, position(o[0]))); });
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

}  // namespace dsl::nn
