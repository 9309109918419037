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
