// Loop partitioning at clamps (src/lowering/PartitionLoops.cpp): the steady state drops the
// clamps of boundary conditions. Results must not change however the steady state falls: empty,
// the whole loop, reversed coordinates, bounds at the ends of int32, outputs smaller than a
// vector or than the border. Each is compared with the reference evaluator.
#include <gtest/gtest.h>

#include <climits>
#include <iterator>
#include <regex>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

Var x("x"), y("y");

TEST(PartitionLoops, RepeatEdgeStencilEverySizeAndOffset) {
    Buffer<> in = random_buffer(Float(32), {23, 9}, 3);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func f("pl_stencil");
    f(x, y) = bounded(x - 2, y) + bounded(x + 3, y - 1) * 2.0f + bounded(x, y + 1);
    f.vectorize(x, 8);
    // Outputs inside, around and far outside the input, wider and narrower than a vector.
    for (int width : {1, 5, 8, 23, 40}) {
        for (int min : {-30, -3, 0, 4, 20}) {
            Buffer<> out(Float(32), {width, 3});
            out.translate(0, min).translate(1, -1);
            f.realize(out);
            EXPECT_TRUE(matches_reference(f, out)) << "width " << width << " at " << min;
        }
    }
    EXPECT_NE(f.lowered_stmt().find("steady"), std::string::npos) << "the loop was not partitioned";
}

// The tail of a guarded vector split runs at most one iteration: it stays one loop (with the
// clamps) beside the three parts of the main loop, instead of being partitioned too.
TEST(PartitionLoops, TheTailOfAGuardedSplitIsNotCopied) {
    Buffer<> in = random_buffer(Float(32), {37, 5}, 5);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func f("pl_tail");
    f(x, y) = bounded(x - 1, y) + bounded(x + 1, y);
    f.vectorize(x, 8);
    for (int width : {3, 8, 37, 45}) {
        Buffer<> out = f.realize({width, 5});
        EXPECT_TRUE(matches_reference(f, out)) << "width " << width;
    }
    std::string stmt = f.lowered_stmt();
    int partitioned = test::count_of(stmt, "pl_tail.s0.x.steady_first = ");
    int loops = test::count_of(stmt, "for (pl_tail.s0.x,");
    EXPECT_GE(partitioned, 1) << stmt;
    EXPECT_EQ(loops, 4 * partitioned) << stmt;
}

// The loops before and after the steady state run a few iterations: code generation tells LLVM
// not to unroll them at run time (no remainder loops to compile). The tail is a branch.
TEST(PartitionLoops, EdgeLoopsAreNotUnrolledAtRunTime) {
    Func f = test::two_tap_repeat_edge("pl_edges", Buffer<float>(40), 8);
    std::string ir = test::llvm_ir_of(f, Target("x86-64-linux-avx2-fma"));
    EXPECT_NE(ir.find("llvm.loop.unroll.runtime.disable"), std::string::npos) << ir;
}

// The tail of a guarded vector split runs at most once: code generation makes it a branch, not a
// loop (one loop left for LLVM to analyse), whether or not the tail has anything to do.
TEST(PartitionLoops, TheTailIsABranchNotALoop) {
    Buffer<> in = random_buffer(Int(32), {21}, 6);
    Func f("pl_branch");
    f(x) = in(x)*3 + x;
    f.vectorize(x, 8);
    for (int width : {3, 8, 16, 21}) {
        Buffer<> out = f.realize({width});
        EXPECT_TRUE(matches_reference(f, out)) << "width " << width;
    }
    // One loop counter and one branch per version of the loop nest (the dense one and the
    // general one).
    std::string ir = test::llvm_ir_of(f, Target("x86-64-linux-avx2-fma"));
    std::regex counter(R"(%pl_branch\.s0\.x[0-9]* = phi)"),
        branch(R"(\npl_branch\.s0\.x\.once[0-9]*:)");
    auto count = [&](const std::regex &r) {
        return std::distance(std::sregex_iterator(ir.begin(), ir.end(), r), std::sregex_iterator());
    };
    EXPECT_EQ(count(counter), 2) << ir;
    EXPECT_EQ(count(branch), 2) << ir;
}

TEST(PartitionLoops, ReversedCoordinatesAndScalarLoops) {
    Buffer<> in = random_buffer(Int(16), {17}, 4);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func f("pl_reversed"), g("pl_scalar");
    f(x) = bounded(10 - x) + bounded(3 * x - 5);
    g(x) = bounded(2 * x + 1) - bounded(-x);
    f.vectorize(x, 4);
    Buffer<> a = f.realize({29});
    EXPECT_TRUE(matches_reference(f, a));
    Buffer<> b = g.realize({29});
    EXPECT_TRUE(matches_reference(g, b));
}

// Clamps to bounds at the ends of int32: the steady state's limits are computed in 64 bits. Each
// clamp is in a Func of its own, since the steady state of a loop with several is where all of
// them hold, and one could hide another's error: a lower bound near INT32_MAX with a negative
// offset, an upper bound near INT32_MIN with a positive one.
TEST(PartitionLoops, BoundsAtTheEndsOfInt32) {
    Param<int> lo("pl_lo"), hi("pl_hi");
    Func above("pl_above"), below("pl_below"), both("pl_both");
    above(x) = max(x - 7, lo) % 5;
    below(x) = min(x + 3, hi) % 7;
    both(x) = clamp(x - 10, lo, hi) / 1024;
    for (Func *f : {&above, &below, &both})
        f->vectorize(x, 8);
    for (auto [l, h] : {std::pair<int, int>{INT_MIN, INT_MAX},
                        {INT_MAX - 3, INT_MAX},
                        {INT_MIN, INT_MIN + 1},
                        {INT_MIN, INT_MIN + 40},
                        {0, 12},
                        {-5, -1}}) {
        lo.set(l);
        hi.set(h);
        for (Func *f : {&above, &below, &both}) {
            Buffer<> out = f->realize({37});
            EXPECT_TRUE(matches_reference(*f, out))
                << f->name() << ", clamp to [" << l << ", " << h << "]";
        }
    }
}

// A clamp whose bound is read from a table (local_laplacian's look-up of a pyramid level): the
// loop never writes the table, so the bound is fixed over the loop and the loop is partitioned.
// Were the loop to store to the table (an update reading its own values), it would not be (see
// FuzzRegression.PartitioningDoesNotTreatAStoredValueAsABound).
TEST(PartitionLoops, BoundReadFromATableTheLoopDoesNotWrite) {
    Buffer<int> table(4);
    for (int i = 0; i < 4; i++)
        table(i) = 5 + 3 * i;
    Buffer<> in = random_buffer(Int(32), {40, 4}, 6);
    Func f("pl_table");
    Expr last = clamp(table(y), 0, 39);
    f(x, y) = in(clamp(x - 1, 0, last), y) + in(clamp(x + 2, 0, last), y);
    f.vectorize(x, 8);
    for (int width : {3, 40}) {
        Buffer<> out(Int(32), {width, 4});
        f.realize(out);
        EXPECT_TRUE(matches_reference(f, out)) << "width " << width;
    }
    EXPECT_NE(f.lowered_stmt().find("steady"), std::string::npos) << "the loop was not partitioned";
}

// A histogram's update over pixels with its channels innermost (bilateral_grid's splat): the
// loop over the channels is short (2 iterations), so the loop over pixels around it is
// partitioned at the clamps of the pixel's coordinate; a loop over channels that is not short
// keeps the loop around it whole. Inputs narrower than the border, and as wide as the domain.
TEST(PartitionLoops, LoopAroundAShortChannelLoop) {
    for (int channels : {2, 9}) {
        for (int width : {1, 3, 37, 60}) {
            // An ImageParam: with a Buffer's bounds known, the simplifier would resolve the
            // partition into constant loops and no steady state would be named.
            ImageParam in(Float(32), 1, "pl_splat_in");
            in.set(random_buffer(Float(32), {width}, 11));
            Func clamped = BoundaryConditions::repeat_edge(in);
            Func h("pl_splat_" + std::to_string(channels) + "_" + std::to_string(width));
            Var c("c");
            RDom r(-5, 50, "r");
            Expr v = clamped(r.x);
            Expr cell = clamp(cast<int32_t>(v + 8.0f) / 2, 0, 7);
            h(x, c) = 0.0f;
            h(cell, c) += select(c == 0, v, cast<float>(c));
            h.compute_root();
            h.update().reorder(c, r.x);
            // The output reads channels 0 and channels - 1: a loop of constant count.
            Func f("pl_read_" + std::to_string(channels) + "_" + std::to_string(width));
            f(x) = h(x, 0) + h(x, channels - 1) * 3.0f;
            Buffer<float> out = f.realize({8});
            EXPECT_TRUE(matches_reference(f, out)) << h.name();
            bool steady = f.lowered_stmt().find(h.name() + ".s1.r.x.steady") != std::string::npos;
            EXPECT_EQ(steady, channels == 2) << h.name();
        }
    }
}

}  // namespace
}  // namespace dsl
