// A tile of sums over k, written as Halide schedules write it (the update of a Func computed per
// tile, its pure loops vectorized and unrolled inside the loop over k), is kept in registers
// across that loop: the optimised LLVM IR of the loop over k stores nothing, and its loads of
// the row operand are scalar loads broadcast, not gathers.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

constexpr int kSize = 64;
constexpr int kLanes = 8;

struct PackedGemm {
    ImageParam a{Float(32), 2, "acc_a"}, b{Float(32), 2, "acc_b"};
    Func packed{"acc_packed"}, prod{"acc_prod"}, out{"acc_out"};
};

/// C = A B with B packed into panels of 2 vectors, the panel's product `prod(xr, y, xb)`
/// computed per tile of C and summed over k in a 2 x 4 tile of vectors (8 accumulators).
PackedGemm packed_gemm(const std::string &suffix) {
    PackedGemm g;
    g.packed = Func("acc_packed" + suffix);
    g.prod = Func("acc_prod" + suffix);
    g.out = Func("acc_out" + suffix);
    constexpr int panel = 2 * kLanes;
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xr("xr"), xb("xb"), yb("yb"),
        yr("yr"), k("k");
    RDom r(0, kSize, "r");
    g.packed(xr, k, xb) = g.b(xb * panel + xr, k);
    g.prod(xr, y, xb) = 0.0f;
    g.prod(xr, y, xb) += g.a(r, y) * g.packed(xr, r, xb);
    g.out(x, y) = g.prod(x % panel, y, x / panel);

    g.out.tile(x, y, xo, yo, xi, yi, 2 * panel, 16).vectorize(xi, kLanes);
    g.prod.compute_at(g.out, xo).vectorize(xr, kLanes);
    g.prod.update()
        .split(y, yb, yr, 4)
        .vectorize(xr, kLanes)
        .unroll(xr)
        .unroll(yr)
        .reorder(xr, yr, r, yb, xb);
    g.packed.compute_root().vectorize(xr, kLanes);
    return g;
}

/// The text of the basic block `label` (up to the next blank line) in `ir`, or "".
std::string block(const std::string &ir, const std::string &label) {
    size_t start = ir.find("\n" + label + ":");
    if (start == std::string::npos) return "";
    size_t end = ir.find("\n\n", start + 1);
    return ir.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(Accumulators, TileOfSumsStaysInRegistersAcrossTheReductionLoop) {
    PackedGemm g = packed_gemm("_ir");
    std::string ir = test::llvm_ir_of(g.out, Target("x86-64-linux-avx2"));
    std::string loop = block(ir, "acc_prod_ir.s1.r.x.loop");
    ASSERT_FALSE(loop.empty()) << "no block for the loop over r in:\n" << ir;
    EXPECT_EQ(test::count_of(loop, "store "), 0) << "the accumulators are stored in the loop:\n"
                                                 << loop;
    EXPECT_GE(test::count_of(loop, "fadd <8 x float>"), 8) << loop;
    EXPECT_EQ(test::count_of(loop, "masked.gather"), 0) << "a row of A gathered:\n" << loop;
}

// The gate sums of a recurrent cell (nn/ops/Recurrent.cpp): a Tuple's elements summed over j
// for a vector of units, each sequence (batch element b and direction d, fused) on a thread.
// The elements are read and written through one index, which CSE binds in lets (quotients and
// remainders of the fused loop) around the values but not around the stores. Code generation
// looks through those lets, so that the load and the store of each element have one address
// and stay in a register over j.
TEST(Accumulators, TupleSumsStayInRegistersThoughTheirIndexIsALet) {
    ImageParam w(Float(32), 3, "tuple_w"), h(Float(32), 3, "tuple_h");
    Func f("tuple_sums");
    Var k("k"), b("b"), d("d"), ko("ko"), ki("ki"), sequence("sequence");
    RDom j(0, 32, "j");
    // Element 3 holds h, read at (j, b, d) as the cell reads its last state: that index
    // shares terms with the sums' own, which CSE then binds in lets.
    f(k, b, d) = Tuple(0.0f, 0.0f, 0.0f, h(k, b, d));
    Expr hj = f(j, b, d)[3];
    f(k, b, d) = Tuple(f(k, b, d)[0] + w(k, j, 0) * hj, f(k, b, d)[1] + w(k, j, 1) * hj,
                       f(k, b, d)[2] + w(k, j, 2) * hj, f(k, b, d)[3]);
    // An intermediate (its elements are allocations of their own, which do not alias).
    Func out("tuple_total");
    out(k, b, d) = f(k, b, d)[0] + 10.0f * f(k, b, d)[1] + 100.0f * f(k, b, d)[2];
    f.bound(k, 0, 64).compute_root();
    f.update()
        .split(k, ko, ki, kLanes)
        .reorder(ki, j, ko, b, d)
        .vectorize(ki)
        .fuse(b, d, sequence)
        .parallel(sequence);
    std::string ir = test::llvm_ir_of(out, Target("x86-64-linux-avx2"));
    std::string loop = block(ir, "tuple_sums.s1.j.x.loop");
    ASSERT_FALSE(loop.empty()) << "no block for the loop over j in:\n" << ir;
    EXPECT_EQ(test::count_of(loop, "store "), 0) << "the sums are stored in the loop:\n" << loop;
    EXPECT_GE(test::count_of(loop, "fadd <8 x float>"), 3) << loop;
    // And the sums are right.
    Buffer<float> wb(64, 32, 3), hb(64, 5, 2);
    wb.fill([](int x, int y, int z) { return float((x * 3 + y * 5 + z * 7) % 13) - 6.0f; });
    hb.fill([](int x, int y, int z) { return float((x * 11 + y + 5 * z) % 7) - 3.0f; });
    w.set(wb);
    h.set(hb);
    Buffer<float> got = out.realize({64, 5, 2});
    got.for_each_element([&](int kk, int bb, int dd) {
        float sums[3] = {0.0f, 0.0f, 0.0f};
        for (int e = 0; e < 3; e++)
            for (int jj = 0; jj < 32; jj++)
                sums[e] += wb(kk, jj, e) * hb(jj, bb, dd);
        ASSERT_EQ(got(kk, bb, dd), sums[0] + 10.0f * sums[1] + 100.0f * sums[2])
            << "at (" << kk << ", " << bb << ", " << dd << ")";
    });
}

TEST(Accumulators, PackedGemmMatchesPlainLoop) {
    PackedGemm g = packed_gemm("_run");
    Buffer<float> a(kSize, kSize), b(kSize, kSize);
    for (int j = 0; j < kSize; j++) {
        for (int i = 0; i < kSize; i++) {
            a(i, j) = static_cast<float>((i * 7 + j * 3) % 11) - 5.0f;
            b(i, j) = static_cast<float>((i * 5 + j * 13) % 9) - 4.0f;
        }
    }
    g.a.set(a);
    g.b.set(b);
    Buffer<float> c = g.out.realize({kSize, kSize});
    for (int j = 0; j < kSize; j++) {
        for (int i = 0; i < kSize; i++) {
            float sum = 0.0f;
            for (int k = 0; k < kSize; k++)
                sum += a(k, j) * b(i, k);
            ASSERT_EQ(c(i, j), sum) << "at (" << i << ", " << j << ")";
        }
    }
}

}  // namespace
}  // namespace dsl
