// Matrix products as reductions over the shared axis.
#include "dsl/nn/Linear.h"

#include "dsl/InlineReductions.h"
#include "dsl/nn/Movement.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/Indexing.h"
#include "nn/ops/InheritSchedule.h"
#include "nn/ops/MatrixTiles.h"
#include "nn/ops/RegisterTiles.h"

namespace dsl::nn {

void schedule_matrix_tiles(Func out, Func acc, const Target &target, int vec, bool more_rows) {
    const int tr = tile_channels(target, 2, 8);
    std::vector<Var> ov = out.args(), fv = acc.args();
    Var jo("jo"), ji("ji"), io("io"), ii("ii");
    out.split(ov[0], jo, ji, 2 * vec, TailStrategy::GuardWithIf)
        .split(ov[1], io, ii, tr, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{ji, ii};
    order.push_back(more_rows ? jo : io);
    order.push_back(more_rows ? io : jo);
    for (size_t d = 2; d < ov.size(); d++)
        order.push_back(ov[d]);
    out.reorder(order).vectorize(ji, vec).unroll(ji).unroll(ii);
    Var outer = more_rows ? io : jo;
    for (size_t d = 2; d < ov.size(); d++) {
        Var fused(outer.name() + "_" + ov[d].name());
        out.fuse(outer, ov[d], fused);
        outer = fused;
    }
    out.parallel(outer);
    acc.compute_at(out, more_rows ? jo : io)
        .bound_extent(fv[0], 2 * vec)
        .bound_extent(fv[1], tr)
        .vectorize(fv[0], vec)
        .unroll(fv[0])
        .unroll(fv[1]);
}

Tensor matmul(const Tensor &a_in, const Tensor &b_in) {
    user_assert(a_in.rank() >= 1 && b_in.rank() >= 1)
        << "matmul of a scalar (\"" << a_in.func().name() << "\" or \"" << b_in.func().name()
        << "\").";
    user_assert(a_in.type() == b_in.type())
        << "matmul: \"" << a_in.func().name() << "\" (" << a_in.type() << ") and \""
        << b_in.func().name() << "\" (" << b_in.type() << ") must have one type.";
    Tensor a = a_in.rank() == 1 ? unsqueeze(a_in, {0}) : a_in;
    Tensor b = b_in.rank() == 1 ? unsqueeze(b_in, {1}) : b_in;
    Expr k = a.dim(-1);
    int64_t ka = 0, kb = 0;
    if (is_const(k, &ka) && is_const(b.dim(-2), &kb)) {
        user_assert(ka == kb) << "matmul: \"" << a_in.func().name() << "\" has " << ka
                              << " columns but \"" << b_in.func().name() << "\" has " << kb
                              << " rows.";
    }
    Shape batch_a(a.shape().begin(), a.shape().end() - 2);
    Shape batch_b(b.shape().begin(), b.shape().end() - 2);
    Shape batch = broadcast_shapes({batch_a, batch_b});
    Shape s = batch;
    s.push_back(a.dim(-2));
    s.push_back(b.dim(-1));
    const Type acc = accumulator_type(a.type());
    // The accumulation, a Func of its own so that it can be scheduled. Rows and columns are
    // clamped where they index the operands, so that a tile may run past the last one.
    Tensor init =
        compute(unique_name("matmul_acc"), s, [&](const Index &) { return make_const(acc, 0); });
    Func f = init.func();
    RDom r(0, k, unique_name("matmul_k"));
    Index o;
    for (int d = 0; d < init.rank(); d++)
        o.push_back(init.var(d));
    const Expr rows = a.dim(-2), cols = b.dim(-1);
    Index ob(o.begin(), o.end() - 2);
    Index ia, ib;
    size_t offset_a = batch.size() - batch_a.size(), offset_b = batch.size() - batch_b.size();
    for (size_t i = 0; i < batch_a.size(); i++) {
        int64_t one = 0;
        ia.push_back(is_const(batch_a[i], &one) && one == 1
                         ? Expr(0)
                         : select(batch_a[i] == 1, 0, ob[offset_a + i]));
    }
    for (size_t i = 0; i < batch_b.size(); i++) {
        int64_t one = 0;
        ib.push_back(is_const(batch_b[i], &one) && one == 1
                         ? Expr(0)
                         : select(batch_b[i] == 1, 0, ob[offset_b + i]));
    }
    ia.push_back(clamp(o[o.size() - 2], 0, rows - 1));
    ia.push_back(r.x);
    ib.push_back(r.x);
    ib.push_back(clamp(o[o.size() - 1], 0, cols - 1));
    std::vector<Expr> args(o.rbegin(), o.rend());
    f(args) = f(args) + cast(acc, a(ia)) * cast(acc, b(ib));
    Tensor full =
        compute(unique_name("matmul"), s, [&](const Index &i) { return cast(a.type(), init(i)); });
    // B's columns run outside A's rows unless A is known to have more rows than B columns: a
    // tile of B's columns (k by two vectors) then stays in cache over every row, and B, often
    // a layer's large weights (PP-OCRv4's 120 x 6625 classifier), is read from memory once
    // (40 x 120 x 6625: 1.33 -> 0.56 ms with eight rows a tile, where four were).
    int64_t rows_const = 0, cols_const = 0;
    const bool more_rows =
        is_const(rows, &rows_const) && is_const(cols, &cols_const) && rows_const > cols_const;
    full.set_schedule([f, r, acc, more_rows](Func out, const Target &target) mutable {
        // Tiles of two vectors of columns by eight rows summed in registers over k (a
        // broadcast of A and a vector of B per term); the outer loop (with batches) in
        // parallel.
        const int vec = std::max(1, target.natural_vector_size(acc));
        schedule_matrix_tiles(out, f, target, vec, more_rows);
        std::vector<Var> fv = f.args();
        f.update().reorder(fv[0], fv[1], r.x).vectorize(fv[0], vec).unroll(fv[0]).unroll(fv[1]);
    });
    if (a_in.rank() == 1 && b_in.rank() == 1) return squeeze(full, {-2, -1});
    if (a_in.rank() == 1) return squeeze(full, {-2});
    if (b_in.rank() == 1) return squeeze(full, {-1});
    return full;
}

Tensor gemm(const Tensor &a, const Tensor &b, const Tensor &c, float alpha, float beta,
            bool trans_a, bool trans_b) {
    user_assert(a.rank() == 2 && b.rank() == 2)
        << "gemm: \"" << a.func().name() << "\" and \"" << b.func().name() << "\" must be 2-D.";
    Tensor p = matmul(trans_a ? transpose(a) : a, trans_b ? transpose(b) : b);
    const Type t = a.type();
    if (!c.defined() && alpha == 1.0f) return p;
    // The scaled product and the bias are added as the product's tiles are stored: the result
    // keeps the matrix product's schedule.
    Tensor r = compute(unique_name("gemm"), p.shape(), [&](const Index &o) {
        Expr ab = alpha == 1.0f ? p(o) : p(o) * make_const(t, alpha);
        if (!c.defined()) return ab;
        Expr cc = broadcast_read(c, p.shape(), o);
        if (cc.type() != t) cc = cast(t, cc);
        return ab + (beta == 1.0f ? cc : cc * make_const(t, beta));
    });
    inherit_schedule(r, {p});
    return r;
}

Tensor det(const Tensor &x) {
    int64_t m = 0, rows = 0;
    user_assert(x.rank() >= 2 && is_const(x.dim(-1), &m) && is_const(x.dim(-2), &rows) &&
                m == rows && m > 0)
        << "det of \"" << x.func().name() << "\": its last two axes must be one size, known when "
        << "compiling (the elimination has a step per row).";
    user_assert(x.type().is_float())
        << "det of \"" << x.func().name() << "\": it is " << x.type() << "; it must be float.";
    const Type acc = accumulator_type(x.type());
    const int n = static_cast<int>(m);
    const Shape batch(x.shape().begin(), x.shape().end() - 2);
    auto at = [](const Index &b, const Expr &i, const Expr &j) {
        Index index = b;
        index.push_back(i);
        index.push_back(j);
        return index;
    };
    auto leading = [&](const Index &o) { return Index(o.begin(), o.begin() + batch.size()); };
    Tensor a =
        compute(unique_name("det_a"), x.shape(), [&](const Index &o) { return cast(acc, x(o)); });
    a.func().compute_root();
    // Step s: the pivot row (the largest magnitude in column s from row s down, the first of
    // equals, as LAPACK takes it), its value, then rows s and p swapped and the rows below
    // eliminated.
    std::vector<Tensor> pivots, values;
    for (int s = 0; s < n; s++) {
        Tensor pivot = compute(unique_name("det_pivot"), batch, [&](const Index &b) {
            RDom r(s, n - s, unique_name("det_r"));
            return Expr(argmax(r, abs(a(at(b, r, s))))[0]);
        });
        pivot.func().compute_root();
        Tensor value = compute(unique_name("det_pivot_value"), batch, [&](const Index &b) {
            return a(at(b, clamp(pivot(b), s, n - 1), s));
        });
        value.func().compute_root();
        pivots.push_back(pivot);
        values.push_back(value);
        if (s == n - 1) break;
        Tensor next = compute(unique_name("det_a"), x.shape(), [&](const Index &o) {
            const Index b = leading(o);
            const Expr i = o[batch.size()], j = o[batch.size() + 1];
            const Expr p = clamp(pivot(b), s, n - 1);  // (bounds inference cannot bound it)
            const Expr row = select(i == s, p, i == p, s, i);
            const Expr v = a(at(b, row, j)), d = value(b);
            const Expr factor =
                select(d == make_const(acc, 0), make_const(acc, 0), a(at(b, row, s)) / d);
            return select(i > s, v - factor * a(at(b, p, j)), v);
        });
        next.func().compute_root();
        a = next;
    }
    return compute(unique_name("det"), batch, [&](const Index &b) {
        Expr d = make_const(acc, 1);
        for (int s = 0; s < n; s++)
            d = d *
                select(pivots[static_cast<size_t>(s)](b) != s, make_const(acc, -1),
                       make_const(acc, 1)) *
                values[static_cast<size_t>(s)](b);
        return cast(x.type(), d);
    });
}

}  // namespace dsl::nn
