// Pipelines the differential fuzzer (test/fuzz) found computing wrong results, crashing or
// failing inside the compiler, reduced by hand. Each is compared with the reference evaluator.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

Var x("x"), y("y");

// A producer computed at each point of its consumer and stored at root, with a split that
// shifts inwards: each iteration computes a few points before the one asked for, which the
// storage (sized from the union of what the consumer reads) did not hold. Heap corruption.
TEST(FuzzRegression, ShiftInwardsProducerStoredOutsideItsComputeLoop) {
    ImageParam in(Float(32), 2, "fr1_in");
    in.set(random_buffer(Float(32), {40, 12}, 1));
    Func bounded = BoundaryConditions::mirror_interior(in);
    Func f("fr1_f"), g("fr1_g");
    RDom r(-1, 3, "fr1_r");
    f(x, y) = Tuple(cast(UInt(16), bounded(x, y)), 7);
    Expr v = cast(UInt(16), bounded(x + r, y + 1)), better = v > f(x, y)[0];
    f(x, y) = Tuple(select(better, v, f(x, y)[0]), select(better, r, f(x, y)[1]));
    g(x, y) = cast(Float(32), f(x, y)[0]) + cast(Float(32), f(x, y)[1]);
    f.unroll(x, 3, TailStrategy::ShiftInwards);
    f.compute_at(g, x).store_root();
    Realization out = g.realize({83, 12});
    EXPECT_TRUE(matches_reference(g, out));
}

// The same at a reduction loop: everything computed at root for such a producer must cover
// what its iterations compute, or their reads of root Funcs run off the end.
TEST(FuzzRegression, RootProducersOfAShiftInwardsFuncInsideAReductionLoop) {
    Buffer<> in = random_buffer(Int(16), {30, 20}, 2);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func a("fr2_a"), b("fr2_b"), c("fr2_c");
    RDom r(-2, 1, 0, 2, "fr2_r");
    a(x, y) = bounded(x, y) * 2;
    a(x, y) = a(x, y) + 1;  // an update: computed at root
    b(x, y) = a(x, y) + a(x, y + 2);
    c(x, y) = 0;
    c(x, y) = c(x, y) + b(x + r.x, y + r.y);
    b.split(y, y, Var("fr2_yi"), 6, TailStrategy::ShiftInwards);
    b.compute_at(c, r.x);
    Realization out = c.realize({28, 47});
    EXPECT_TRUE(matches_reference(c, out));
}

// unroll(y, 2) then vectorize the unrolled loop 4 wide with RoundUp: the unrolled loop's values
// pass its extent, so the outer loop's iterations are no longer guard-free.
TEST(FuzzRegression, RoundUpSplitOfAnUnrolledInnerLoop) {
    Buffer<> in = random_buffer(Int(16), {10, 10}, 3);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func f("fr3_f"), g("fr3_g");
    f(x, y) = bounded(x, y);
    g(x, y) = f(x, y) + 1;
    f.compute_root().unroll(y, 2).vectorize(Var("y_unrolled"), 4, TailStrategy::RoundUp);
    Realization out = g.realize({8, 12});
    EXPECT_TRUE(matches_reference(g, out));
}

// unroll(y, 3) then a split of the outer loop, which keeps the name y: its guard-free main part
// was computed for the first split's outer loop, not the new one.
TEST(FuzzRegression, PartitionedLoopSplitAgain) {
    Buffer<> in = random_buffer(UInt(8), {12, 12}, 4);
    Func f("fr4_f"), g("fr4_g");
    f(x, y) = cast(Int(32), in(clamp(x, 0, 11), clamp(y, 0, 11)));
    g(x, y) = f(x, y) + f(x, y + 1);
    f.compute_root().unroll(y, 3).vectorize(y, 2, TailStrategy::RoundUp);
    Realization out = g.realize({9, 11});
    EXPECT_TRUE(matches_reference(g, out));
}

// A producer computed at a consumer loop that runs outside the loop splitting y: iterations
// whose rows all lie past the end (skipped by the guard) asked for an inverted region, and its
// storage had a negative size.
TEST(FuzzRegression, IterationOutsideTheRegionGetsOrderedBounds) {
    Func p("fr5_p"), c("fr5_c"), out("fr5_out");
    Var yo("fr5_yo"), yi("fr5_yi");
    p(x, y) = x * 3 - y;
    c(x, y) = p(x, y) + p(x + 1, y);
    out(x, y) = c(x, y - 2) * 2;
    c.split(y, yo, yi, 4).reorder(yo, x, yi);
    p.compute_at(c, yi);
    c.compute_at(out, y);
    Realization r = out.realize({15, 18});
    EXPECT_TRUE(matches_reference(out, r));
}

// A sliding window folded into a circular buffer of the extent each iteration reads, for a
// producer whose vectorized loop rounds up: the points written past that extent landed on the
// slot of a point still read.
TEST(FuzzRegression, FoldedStorageHoldsWhatARoundUpSplitWrites) {
    Buffer<> in = random_buffer(Int(16), {20, 4}, 8);
    Func p("fr8_p"), c("fr8_c");
    p(x, y) = cast(Int(32), in(clamp(x, 0, 19), clamp(y, 0, 3))) * 3 + x;
    c(x, y) = p(x - 1, y) - p(x, y);
    p.vectorize(x, 2, TailStrategy::RoundUp).compute_at(c, x).store_root();
    Realization r = c.realize({16, 3});
    EXPECT_TRUE(matches_reference(c, r));
}

// An update that rounds up, computed per vector of its consumer and stored a loop further out:
// the storage, sized from the consumer's bounded region, was narrower than the loops computing
// each vector (fuzzer case 2080, heap corruption).
TEST(FuzzRegression, RoundingUpdateStoredOutsideAVectorLoop) {
    Buffer<> in = random_buffer(Int(16), {20, 30}, 9);
    Func bounded = BoundaryConditions::mirror_image(in);
    Func f("fr9_f"), out("fr9_out");
    RDom r(-2, 1, -2, 2, "fr9_r");
    f(x, y) = bounded(x, y - 2) - 12;
    f(x, y) = min(f(x, y), cast(Int(16), bounded(x + r.x, y + r.y) + y + r.y));
    out(x, y) = cast(UInt(16), f(x, y));
    out(x, y) = select(x % 2 == 0, out(x, y) * 2, out(x, y) + cast(UInt(16), y));
    f.update(0).unroll(y, 3, TailStrategy::RoundUp);
    out.vectorize(x, 16);
    f.compute_at(out, x).store_at(out, y);
    out.bound(x, 0, 15);
    Realization r2 = out.realize({15, 23});
    EXPECT_TRUE(matches_reference(out, r2));
}

// A specialization that moves the storage loop inside the compute loop is refused (it failed
// inside the compiler).
TEST(FuzzRegression, SpecializationMovingTheStorageLoopInside) {
    Param<int> p("fr6_p", 1);
    Func g("fr6_g"), f("fr6_f");
    Var xo("fr6_xo"), xi("fr6_xi");
    g(x, y) = x + y;
    f(x, y) = g(x, y) + g(x + 1, y);
    f.split(x, xo, xi, 4);
    g.compute_at(f, xi).store_at(f, y);
    f.specialize(p > 0).reorder(y, xi, xo);
    std::string msg = test::message_of([&] { f.realize({8, 8}); });
    EXPECT_CONTAINS(msg,
                    "Func \"fr6_g\" is scheduled compute_at(fr6_f, fr6_xi) and store_at(fr6_f, y)");
    EXPECT_CONTAINS(msg, "also in every specialization of fr6_f");
}

// RoundUp on the inner loop of a split in an update would apply the update twice.
TEST(FuzzRegression, RoundUpOnAnInnerLoopOfAnUpdateIsRefused) {
    Func f("fr7_f");
    Var yo("fr7_yo"), yi("fr7_yi");
    f(x, y) = x;
    f(x, y) = f(x, y) + 1;
    std::string msg = test::message_of([&] {
        f.update(0).split(y, yo, yi, 4).split(yi, yi, Var("fr7_yii"), 3, TailStrategy::RoundUp);
    });
    EXPECT_CONTAINS(msg, "TailStrategy::RoundUp on \"fr7_yi\", the inner loop of another split");
}

}  // namespace
}  // namespace dsl
