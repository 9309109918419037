// Vector loads through a clamp (src/codegen/ClampedLoads.cpp): where a loop's edge iterations
// read `clamp(ramp(b, 1, n), lo, hi) + c`, code generation loads the elements the lanes read
// densely (masked to exactly them) and permutes them, instead of gathering. Every element
// size the permutations cover, clamps on one side or both, bounds from Params in either order,
// and inputs narrower than a vector, each compared with the reference evaluator, on the host
// and, where it runs here, on AVX2.
#include <gtest/gtest.h>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

Var x("x"), y("y");

/// The targets to run on: the host, and AVX2 without AVX-512 where the host has more.
std::vector<Target> targets() {
    std::vector<Target> result = {Target::host()};
    if (Target::host().has_feature(Target::Feature::AVX512))
        result.push_back(Target("x86-64-linux-avx2-fma"));
    return result;
}

/// A 5-tap stencil of `in` through repeat_edge, vectorized by `lanes`, checked over outputs of
/// several widths and positions around the input.
void check_stencil(Type t, int lanes, int input_width) {
    Buffer<> in = random_buffer(t, {input_width, 3}, static_cast<uint64_t>(lanes + input_width));
    Func edge = BoundaryConditions::repeat_edge(in);
    Func f("cl_stencil_" + std::to_string(t.bits()) + "_" + std::to_string(lanes) + "_" +
           std::to_string(input_width));
    f(x, y) = edge(x - 2, y) + edge(x - 1, y) + edge(x, y) + edge(x + 1, y) + edge(x + 2, y);
    f.vectorize(x, lanes);
    for (const Target &target : targets()) {
        for (int width : {1, 7, lanes, 3 * lanes + 5}) {
            for (int min : {-lanes - 3, -2, 0, input_width - 3}) {
                Buffer<> out(t, {width, 3});
                out.translate(0, min);
                f.realize(out, target);
                EXPECT_TRUE(matches_reference(f, out))
                    << t << " x" << lanes << ", input " << input_width << ", output " << width
                    << " at " << min << ", " << target.to_string();
            }
        }
    }
}

TEST(ClampedLoads, RepeatEdgeStencilsOfEveryElementSize) {
    for (int input_width : {1, 5, 16, 37}) {
        check_stencil(Float(32), 16, input_width);
        check_stencil(Float(32), 8, input_width);
        check_stencil(Int(32), 32, input_width);  // two permutations of 16 lanes
        check_stencil(UInt(16), 32, input_width);
        check_stencil(UInt(16), 16, input_width);
        check_stencil(UInt(8), 64, input_width);
        check_stencil(UInt(8), 16, input_width);
        check_stencil(Float(64), 8, input_width);
    }
}

// Clamps on one side only, two clamps in a chain, and bounds given as Params (lo above hi
// included, where every lane reads one element).
TEST(ClampedLoads, OneSidedChainedAndParamBounds) {
    Buffer<> in = random_buffer(Float(32), {64}, 11);
    Param<int> lo("cl_lo"), hi("cl_hi");
    Func below("cl_below"), above("cl_above"), chained("cl_chained"), params("cl_params");
    below(x) = in(max(x - 3, 0)) + 1.0f;
    above(x) = in(min(x + 3, 63)) * 2.0f;
    chained(x) = in(min(max(min(x, 50), 2), 60));
    params(x) = in(clamp(x, lo, hi) + 1);
    for (Func *f : {&below, &above, &chained, &params})
        f->vectorize(x, 16);
    for (const Target &target : targets()) {
        Buffer<> a = below.realize({40}, target);
        EXPECT_TRUE(matches_reference(below, a)) << target.to_string();
        Buffer<> b(Float(32), {60});
        b.translate(0, 20);
        above.realize(b, target);
        EXPECT_TRUE(matches_reference(above, b)) << target.to_string();
        Buffer<> c(Float(32), {70});
        c.translate(0, -5);
        chained.realize(c, target);
        EXPECT_TRUE(matches_reference(chained, c)) << target.to_string();
        for (auto [l, h] :
             {std::pair{0, 62}, std::pair{10, 12}, std::pair{30, 30}, std::pair{40, 20}}) {
            lo.set(l);
            hi.set(h);
            Buffer<> d(Float(32), {50});
            d.translate(0, -8);
            params.realize(d, target);
            EXPECT_TRUE(matches_reference(params, d)) << "clamp to [" << l << ", " << h << "]";
        }
    }
}

// The edge iterations of a repeat_edge stencil load densely and permute on AVX-512 (the
// version for inputs of other strides still gathers).
TEST(ClampedLoads, EdgeLoadsAreMaskedLoadsAndPermutations) {
    Func f = test::two_tap_repeat_edge("cl_assembly", Buffer<float>(100), 16);
    std::string ir = test::llvm_ir_of(f, Target("x86-64-linux-avx512"));
    EXPECT_NE(ir.find("llvm.x86.avx512.permvar.si.512"), std::string::npos) << "no permutation";
    EXPECT_NE(ir.find("llvm.masked.load.v16f32"), std::string::npos) << "no masked dense load";
}

// Clamped ramps of strides 2 and 3 (a deinterleave's `2x + 1` through repeat_edge): up to
// `stride` dense loads per chunk of lanes and a permutation of each. Every element size,
// outputs inside, across and far outside the input, on the host and AVX2.
TEST(ClampedLoads, StridedClampsOfEveryElementSize) {
    for (int stride : {2, 3}) {
        for (auto [t, lanes] :
             {std::pair{UInt(8), 16}, std::pair{UInt(16), 16}, std::pair{Float(32), 16},
              std::pair{Float(32), 8}, std::pair{Int(32), 32}}) {
            for (int input_width : {3, 21, 70}) {
                Buffer<> in = random_buffer(t, {input_width, 2},
                                            static_cast<uint64_t>(stride * 100 + input_width));
                Func edge = BoundaryConditions::repeat_edge(in);
                Func f("cl_strided_" + std::to_string(stride) + "_" + std::to_string(t.bits()) +
                       "_" + std::to_string(lanes) + "_" + std::to_string(input_width));
                f(x, y) = edge(stride * x - 1, y) + edge(stride * x + 1, y);
                f.vectorize(x, lanes);
                for (const Target &target : targets()) {
                    for (int width : {5, lanes, 2 * lanes + 3}) {
                        for (int min : {-lanes, -1, input_width / stride - 2}) {
                            Buffer<> out(t, {width, 2});
                            out.translate(0, min);
                            f.realize(out, target);
                            EXPECT_TRUE(matches_reference(f, out))
                                << "stride " << stride << ", " << t << " x" << lanes << ", input "
                                << input_width << ", output " << width << " at " << min << ", "
                                << target.to_string();
                        }
                    }
                }
            }
        }
    }
    // On AVX-512 the edge copies of a stride-2 load of 16 uint16 lanes permute two vectors
    // each instead of gathering.
    Buffer<uint16_t> in(50);
    Func edge = BoundaryConditions::repeat_edge(in);
    Func f("cl_strided_ir");
    f(x) = edge(2 * x + 1);
    f.vectorize(x, 16);
    std::string ir = test::llvm_ir_of(f, Target("x86-64-linux-avx512"));
    EXPECT_NE(ir.find("llvm.x86.avx512.permvar.hi.256"), std::string::npos) << ir;
}

// A clamp that several loads share (the same column of three rows) is bound by a let after
// CSE; the loads still see through it. Every load of the two edge copies of the loop (five
// loads each) is a dense load and a permutation (`pshufb` for 16 bytes) instead of a gather
// (there were none before), and the results match the reference on the host and AVX2.
TEST(ClampedLoads, ClampsSharedThroughLets) {
    Buffer<> in = random_buffer(UInt(8), {45, 7}, 12);
    Func edge = BoundaryConditions::repeat_edge(in);
    Func f("cl_shared");
    Expr column = edge(x - 1, y - 1) + edge(x - 1, y) * 2 + edge(x - 1, y + 1);
    f(x, y) = cast<uint8_t>(column + edge(x + 1, y - 1) + edge(x + 1, y + 1));
    f.vectorize(x, 16);
    for (const Target &target : targets()) {
        for (int width : {9, 16, 45, 60}) {
            Buffer<> out(UInt(8), {width, 7});
            out.translate(0, -6);
            f.realize(out, target);
            EXPECT_TRUE(matches_reference(f, out)) << width << ", " << target.to_string();
        }
    }
    std::string ir = test::llvm_ir_of(f, Target("x86-64-linux-avx512"));
    EXPECT_GE(test::count_of(ir, "call <16 x i8> @llvm.x86.ssse3.pshuf.b.128"), 10) << ir;
}

}  // namespace
}  // namespace dsl
