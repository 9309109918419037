// The matrix product of 8-bit integers accumulated in int32 (ONNX's MatMulInteger, and the
// sums of QLinearMatMul), written for the CPU's dot-product instructions.
//
// x86's vpdpbusd multiplies unsigned bytes by signed bytes, four adjacent pairs per int32 lane,
// and adds them to the lane. So the product is computed as
//   sum_k (a - za)(b - zb) = sum_k a' b' - zb' sum_k a' - za' sum_k b' + K za' zb'
// with a' = a as unsigned bytes (an int8 a shifted by +128, its zero point with it) and b' = b
// as signed bytes (a uint8 b shifted by -128): the first sum on the dot-product instructions,
// the others per row and per column. B' is packed four k at a time per column (blocks x N x 4,
// zero past K and past N), so that the four bytes of a lane are adjacent, and A's four bytes
// of a row are one 32-bit broadcast.
#include <type_traits>

#include "dsl/InlineReductions.h"
#include "dsl/nn/Quantize.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/MatrixTiles.h"
#include "nn/ops/Quantized.h"

namespace dsl::nn {

namespace {

/// B' packed on the host, for B a constant (a layer's weights): blocks x N' x 4 with N' a
/// multiple of 64 (the widest tile of columns divides it), zero past K and N; and the sums of
/// its columns. Built once when the pipeline is built, not at every run.
struct HostPacking {
    Tensor packed, column_sums;
};

template <typename T>
HostPacking pack_on_host(const Buffer<T> &b) {
    const int n = b.dim(0).extent(), k = b.dim(1).extent();
    const int n0 = b.dim(0).min(), k0 = b.dim(1).min();
    const int blocks = (k + 3) / 4, padded = (n + 63) / 64 * 64;
    Buffer<int8_t> packed(4, padded, blocks);
    Buffer<int32_t> sums(n);
    packed.fill(0);
    sums.fill(0);
    for (int q = 0; q < k; q++) {
        for (int j = 0; j < n; j++) {
            int v = int(b(n0 + j, k0 + q)) - (std::is_unsigned<T>::value ? 128 : 0);
            packed(q % 4, j, q / 4) = static_cast<int8_t>(v);
            sums(j) += v;
        }
    }
    return {Tensor(Buffer<>(packed), unique_name("imatmul_packed")),
            Tensor(Buffer<>(sums), unique_name("imatmul_column_sums"))};
}

}  // namespace

bool is_byte(Type t) {
    return (t.is_int() || t.is_uint()) && t.bits() == 8;
}

Expr zero_point_at(const Tensor &z, const Expr &i) {
    if (!z.defined()) return Expr(0);
    if (z.rank() == 0) return cast<int32_t>(z({}));
    int64_t n = 0;
    if (is_const(z.dim(0), &n) && n == 1) return cast<int32_t>(z({Expr(0)}));
    return cast<int32_t>(z({i}));
}

Tensor integer_matmul(const Tensor &a, const Tensor &b, const Tensor &a_zero_point,
                      const Tensor &b_zero_point) {
    user_assert(a.rank() >= 2 && b.rank() == 2)
        << "integer_matmul of \"" << a.func().name() << "\" and \"" << b.func().name()
        << "\": a must have at least two dimensions and b exactly two (they have " << a.rank()
        << " and " << b.rank() << "); use matmul of subtract_zero_point for other shapes.";
    user_assert(is_byte(a.type()) && is_byte(b.type()))
        << "integer_matmul of \"" << a.func().name() << "\" and \"" << b.func().name()
        << "\": both must be uint8 or int8 (they are " << a.type() << " and " << b.type() << ").";
    const Expr k = a.dim(-1), rows = a.dim(-2), cols = b.dim(1);
    int64_t ka = 0, kb = 0;
    if (is_const(k, &ka) && is_const(b.dim(0), &kb)) {
        user_assert(ka == kb) << "integer_matmul: \"" << a.func().name() << "\" has " << ka
                              << " columns but \"" << b.func().name() << "\" has " << kb
                              << " rows.";
    }
    const bool a_signed = a.type().is_int(), b_unsigned = b.type().is_uint();
    // Symmetric int8 B (zero point 0): zb' is 0, and A's row sums are not needed.
    const bool symmetric = !b_unsigned && zero_constant(b_zero_point);
    auto a_bytes = [&](const Index &i) {
        Expr v = a(i);
        return a_signed ? cast<uint8_t>(cast<int16_t>(v) + 128) : v;
    };
    auto b_bytes = [&](const Expr &kk, const Expr &n) {
        Expr v = b({kk, n});
        return b_unsigned ? cast<int8_t>(cast<int16_t>(v) - 128) : v;
    };

    const Expr blocks = (k + 3) / 4;
    Tensor packed, column_sums;
    const bool on_host = b.data().defined();
    if (on_host) {
        HostPacking h = b_unsigned ? pack_on_host(Buffer<uint8_t>(b.data()))
                                   : pack_on_host(Buffer<int8_t>(b.data()));
        packed = h.packed;
        column_sums = h.column_sums;
    } else {
        packed =
            compute(unique_name("imatmul_packed"), {blocks, cols, Expr(4)}, [&](const Index &i) {
                Expr kk = i[0] * 4 + i[2];
                return select(kk < k && i[1] < cols, b_bytes(min(kk, k - 1), min(i[1], cols - 1)),
                              cast<int8_t>(0));
            });
        // The sums over k of B's columns, vectorized along the columns.
        column_sums = compute(unique_name("imatmul_column_sums"), {cols},
                              [](const Index &) { return Expr(0); });
        RDom rc(0, k, unique_name("imatmul_ck"));
        Func cf = column_sums.func();
        const Var n_var = column_sums.var(0);
        cf(n_var) = cf(n_var) + cast<int32_t>(b_bytes(rc.x, n_var));
    }
    // The sums over k of A's rows, vectorized along k (an atomic sum of each row's lanes).
    Shape row_shape(a.shape().begin(), a.shape().end() - 1);
    Tensor row_sums =
        compute(unique_name("imatmul_row_sums"), row_shape, [](const Index &) { return Expr(0); });
    RDom rr(0, k, unique_name("imatmul_rk"));
    Func rf = row_sums.func();
    {
        Index i;
        for (int d = 0; d < row_sums.rank(); d++)
            i.push_back(row_sums.var(d));
        std::vector<Expr> args(i.rbegin(), i.rend());
        i.push_back(rr.x);
        rf(args) = rf(args) + cast<int32_t>(a_bytes(i));
    }

    Shape s = row_shape;
    s.push_back(cols);
    Tensor init = compute(unique_name("imatmul_acc"), s, [](const Index &) { return Expr(0); });
    Func f = init.func();
    RDom r(0, 4, 0, blocks, unique_name("imatmul_k"));
    Index o;
    for (int d = 0; d < init.rank(); d++)
        o.push_back(init.var(d));
    // A tile may run past the last row (it reads the last row again) and past the last column
    // (packed B is zero there); past K, packed B is zero too, so a clamped k of A adds nothing.
    Index ia(o.begin(), o.end() - 1);
    ia.back() = min(ia.back(), rows - 1);
    Expr kk = r.y * 4 + r.x;
    ia.push_back(ka > 0 && ka % 4 == 0 ? kk : min(kk, k - 1));
    std::vector<Expr> args(o.rbegin(), o.rend());
    f(args) = f(args) + cast<int32_t>(a_bytes(ia)) * cast<int32_t>(packed({r.y, o.back(), r.x}));

    const Expr k32 = cast<int32_t>(k);
    Tensor out = compute(unique_name("imatmul"), s, [&](const Index &i) {
        const Expr &m = i[i.size() - 2], &n = i.back();
        Index ir(i.begin(), i.end() - 1);
        Expr za = zero_point_at(a_zero_point, m) + (a_signed ? 128 : 0);
        Expr zb = zero_point_at(b_zero_point, n) - (b_unsigned ? 128 : 0);
        Expr v = init(i) - za * column_sums({n}) + k32 * za * zb;
        return symmetric ? v : v - zb * row_sums(ir);
    });

    int64_t rows_const = 0, cols_const = 0;
    const bool more_rows =
        is_const(rows, &rows_const) && is_const(cols, &cols_const) && rows_const > cols_const;
    Func pf = packed.func(), cf = column_sums.func();
    out.set_schedule([f, r, pf, cf, rf, rr, on_host, symmetric, more_rows](
                         Func y, const Target &target) mutable {
        const int vec = std::max(4, target.natural_vector_size(Int(32)));
        // Packing (when B is not a constant): four rows of B interleaved, 16 columns at a
        // time, and B's column sums vectorized along its rows, each in parallel; A's row
        // sums (M x K, small next to the product) on one thread.
        if (!on_host) {
            std::vector<Var> pv = pf.args(), cv = cf.args();
            pf.compute_root()
                .bound(pv[0], 0, 4)
                .vectorize(pv[0])
                .vectorize(pv[1], 16)
                .parallel(pv[2]);
            Var cvo("cvo");
            cf.compute_root().vectorize(cv[0], vec);
            cf.update().split(cv[0], cvo, cv[0], 4 * vec).vectorize(cv[0], vec).parallel(cvo);
        }
        if (!symmetric) {
            rf.compute_root();
            rf.update().atomic().vectorize(rr.x, 4 * vec);
        }
        // Tiles of two vectors of columns by eight rows, summed in registers over the blocks
        // of four k: per block, two loads of packed B and eight broadcasts of A's four bytes
        // feed sixteen dot-product instructions. The outer loop (with batches) in parallel.
        schedule_matrix_tiles(y, f, target, vec, more_rows);
        std::vector<Var> fv = f.args();
        Var co("co"), ci("ci");
        f.update()
            .atomic()
            .split(fv[0], co, ci, vec)
            .reorder(r.x, ci, co, fv[1], r.y)
            .vectorize(r.x)
            .vectorize(ci)
            .unroll(co)
            .unroll(fv[1]);
    });
    return out;
}

}  // namespace dsl::nn
