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

// Case 10587: a producer computed at the innermost of three nested splits of a reduction loop.
// Its last iterations ask only for points past the reduction domain; the clamp moved their region
// to the domain's edge, outside the constant-size stack storage sized from the request, and the
// producer wrote in front of it (here it changed the output, elsewhere it may go unnoticed).
TEST(FuzzRegression, ProducerStorageHoldsTheClampedRegionOfAnIterationPastTheEnd) {
    Param<int32_t> p0("fr10_p0", 0);
    ImageParam in0(Int(32), 2, "fr10_in0");
    in0.set(random_buffer(Int(32), {28, 5}, 8060595728128637214u));
    Func in0_b = BoundaryConditions::repeat_edge(in0);
    ImageParam in1(Int(32), 2, "fr10_in1");
    in1.set(random_buffer(Int(32), {21, 9}, 2088980918880510560u));
    Func in1_b = BoundaryConditions::mirror_interior(in1);
    Func f0("fr10_f0");
    f0(x, y) = select(((cast(UInt(16), p0) >= make_const(UInt(16), 2)) ||
                       (in0_b(clamp(in0_b(x, y), -3, 30), y) != make_const(Int(32), 2))),
                      select(((make_const(UInt(16), 6) % make_const(UInt(16), 5)) !=
                              min(cast(UInt(16), x), cast(UInt(16), in0_b(x + 2, y)))),
                             make_const(Float(32), -9.5),
                             cast(Float(32), cast(Int(32), cast(Float(32), in1_b(x, y))))),
                      cast(Float(32), cast(UInt(8), cast(Float(32), in0_b(x, y - 1)))));
    Func f1("fr10_f1");
    f1(x, y) = Tuple(((cast(Int(16), f0(x, y)) - cast(Int(16), x)) + make_const(Int(16), -4)),
                     max(in1_b(clamp(in1_b(x, y), -3, 30), y), in0_b(x, y)));
    RDom r1(-1, 3, "fr10_r1");
    {
        Expr v = cast(Int(16), in0_b(x + r1 - 2, y)), better = v > f1(x, y)[0];
        f1(x, y) = Tuple(select(better, v, f1(x, y)[0]), select(better, r1, f1(x, y)[1]));
    }
    Func f2("fr10_f2");
    f2(x, y) = (f1(x, y)[0] + cast(Int(16), in0_b(x + 1, y)));
    f2(x, y) = select(x % 2 == 0, f2(x, y) * make_const(Int(16), 2),
                      f2(x, y) + (cast(Int(16), in0_b(x, y)) + cast(Int(16), f0(x - 1, y + 2))));
    Func f3("fr10_f3");
    f3(x, y) = (min((cast(Float(32), f2(x, y)) + cast(Float(32), x)),
                    (cast(Float(32), f2(x - 2, y - 2)) + cast(Float(32), (x + y)))) +
                ((make_const(Float(32), -1.0) + cast(Float(32), in0_b(x, y - 1))) +
                 select(((make_const(Int(32), 9) > make_const(Int(32), 15)) &&
                         (cast(Int(16), f1(x - 2, y)[1]) == make_const(Int(16), 17))),
                        make_const(Float(32), -6.5), cast(Float(32), f1(x, y)[0]))));
    Func f4("fr10_f4");
    f4(x, y) = clamp((cast(Int(16), y) + cast(Int(16), f0(x + 2, y - 2))),
                     min(make_const(Int(16), -3), make_const(Int(16), 18)),
                     max(make_const(Int(16), -3), make_const(Int(16), 18)));
    Func f5("fr10_f5");
    f5(x, y) = (cast(Int(16), y) | cast(Int(16), f3(x, y)));
    RDom r5(1, 3, "fr10_r5");
    f5(r5, y) = f5(r5 - 1, y) + (f4(r5 - 1, y) & f2(r5 + 1, y));
    p0.set(-1);
    f1.unroll(Var("y"), 3, TailStrategy::Auto);
    f2.update(0).vectorize(Var("x"), 4, TailStrategy::GuardWithIf);
    f2.update(0).unroll(Var("x"), 4, TailStrategy::RoundUp);
    f3.split(Var("x"), Var("xo_5"), Var("xi_6"), 6, TailStrategy::RoundUp);
    f3.rename(Var("y"), Var("yr_7"));
    f3.reorder({Var("yr_7"), Var("xi_6"), Var("xo_5")});
    f3.parallel(Var("yr_7"));
    f5.unroll(Var("x"), 4, TailStrategy::ShiftInwards);
    f5.split(Var("y"), Var("yo_9"), Var("yi_10"), 7, TailStrategy::Auto);
    f5.vectorize(Var("yo_9"), 8, TailStrategy::GuardWithIf);
    f5.update(0).split(RVar("fr10_r5.x"), RVar("fr10_r5.xo_11"), RVar("fr10_r5.xi_12"), 7,
                       TailStrategy::GuardWithIf);
    f5.update(0).split(RVar("fr10_r5.xi_12"), RVar("fr10_r5.xi_12o_13"), RVar("fr10_r5.xi_12i_14"),
                       5, TailStrategy::Auto);
    f5.update(0).split(RVar("fr10_r5.xi_12o_13"), RVar("fr10_r5.xi_12o_13o_15"),
                       RVar("fr10_r5.xi_12o_13i_16"), 4, TailStrategy::Auto);
    f4.compute_at(f5, RVar("fr10_r5.xi_12o_13i_16"));
    f3.compute_root();
    Realization out = f5.realize({40, 13});
    EXPECT_TRUE(matches_reference(f5, out, 1e-4));
}

// Case 11001: nested ShiftInwards tiles, a parallel RoundUp split and a producer computed at a
// fused loop. The slack allowed for rounding splits was the product of every rounding factor
// of the Func (896) in every dimension, so a root Func and the histogram computed per point of it
// covered regions about 1800 wide: minutes for a 21x16 output. Each dimension now gets the
// product of its own loops' factors.
TEST(FuzzRegression, RoundingSlackIsPerDimension) {
    Param<int32_t> p0("fr11_p0", 0);
    ImageParam in0(Int(16), 2, "fr11_in0");
    in0.set(random_buffer(Int(16), {22, 25}, 3696693647667332347u));
    Func in0_b = BoundaryConditions::constant_exterior(in0, make_const(Int(16), 3));
    ImageParam in1(Int(16), 2, "fr11_in1");
    in1.set(random_buffer(Int(16), {30, 30}, 1886905953489147586u));
    Func in1_b = BoundaryConditions::mirror_interior(in1);
    Func f0("fr11_f0");
    f0(x, y) = 0;
    RDom r0(0, 9, 0, 1, "fr11_r0");
    {
        Expr v = cast(Int(32), in1_b(r0.x, r0.y)), ix = v & 3, iy = (v / 4) & 1;
        f0(ix, iy) = f0(ix, iy) + 1;
    }
    Func f1("fr11_f1");
    f1(x, y) =
        Tuple((select((make_const(Float(32), 0.5) != cast(Float(32), f0(x, y))),
                      make_const(UInt(16), 10), make_const(UInt(16), 14)) /
               make_const(UInt(16), 13)),
              clamp(make_const(Int(32), 20), min(make_const(Int(32), 16), make_const(Int(32), 20)),
                    max(make_const(Int(32), 16), make_const(Int(32), 20))));
    RDom r1(-1, 3, "fr11_r1");
    {
        Expr v = cast(UInt(16), in0_b(x + r1 - 1, y - 1)), better = v > f1(x, y)[0];
        f1(x, y) = Tuple(select(better, v, f1(x, y)[0]), select(better, r1, f1(x, y)[1]));
    }
    Func f2("fr11_f2");
    f2(x, y) = (f1(x + 1, y + 1)[0] - cast(UInt(16), x));
    f2(x, y) = select(x % 2 == 0, f2(x, y) * make_const(UInt(16), 2),
                      f2(x, y) + (make_const(UInt(16), 17) / make_const(UInt(16), 5)));
    Func f3("fr11_f3");
    f3(x, y) = cast(Int(16), f2(x + 1, y));
    f3(x, y) =
        select(x % 2 == 0, f3(x, y) * make_const(Int(16), 2), f3(x, y) + make_const(Int(16), 11));
    Func f4("fr11_f4");
    f4(x, y) = clamp(cast(Float(32), f3(x, y)),
                     min(make_const(Float(32), 7.5), make_const(Float(32), -6.0)),
                     max(make_const(Float(32), 7.5), make_const(Float(32), -6.0)));
    RDom r4(-2, 3, 0, 3, "fr11_r4");
    f4(x, y) = min(
        f4(x, y), (cast(Float(32), f3(x + r4.x, y + r4.y)) +
                   cast(Float(32),
                        in0_b(clamp(cast(Int(32), in0_b(x + r4.x, y + r4.y)), -3, 30), y + r4.y))));
    p0.set(1);
    f0.fuse(Var("x"), Var("y"), Var("xyf_0"));
    f0.split(Var("xyf_0"), Var("xyf_0o_1"), Var("xyf_0i_2"), 6, TailStrategy::Auto);
    f1.reorder({Var("x"), Var("y")});
    f1.tile(Var("x"), Var("y"), Var("xo_3"), Var("yo_5"), Var("xi_4"), Var("yi_6"), 3, 3,
            TailStrategy::ShiftInwards);
    f2.tile(Var("x"), Var("y"), Var("xo_7"), Var("yo_9"), Var("xi_8"), Var("yi_10"), 7, 2,
            TailStrategy::ShiftInwards);
    f2.tile(Var("xo_7"), Var("yo_9"), Var("xo_7o_11"), Var("yo_9o_13"), Var("xo_7i_12"),
            Var("yo_9i_14"), 8, 4, TailStrategy::ShiftInwards);
    f2.parallel(Var("xo_7o_11"), 2, TailStrategy::RoundUp);
    f2.vectorize(Var("yo_9i_14"), 2, TailStrategy::GuardWithIf);
    f3.split(Var("y"), Var("yo_15"), Var("yi_16"), 4, TailStrategy::GuardWithIf);
    f3.fuse(Var("yi_16"), Var("yo_15"), Var("yi_16yf_17"));
    f3.vectorize(Var("x"), 2, TailStrategy::RoundUp);
    f3.compute_root();
    f2.compute_at(f3, Var("yi_16yf_17"));
    f1.compute_root();
    f0.compute_at(f1, Var("xi_4"));
    Realization out = f4.realize({21, 16});
    EXPECT_TRUE(matches_reference(f4, out, 1e-4));
}

// Case 102926: ShiftInwards on the outer loop of a guarded split moves by whole factors of the
// inner split (4 points here, not 1), so a producer computed per consumer point reached 4
// points before its region, past what its storage and the root Func it reads held.
TEST(FuzzRegression, ShiftInwardsOfAnOuterLoopMovesByTheInnerFactor) {
    Buffer<> in = random_buffer(Int(16), {12, 10}, 12);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func root("fr12_root"), p("fr12_p"), c("fr12_c");
    Var xo("fr12_xo"), xi("fr12_xi");
    root(x, y) = bounded(x, y) * 3 + x;
    p(x, y) = root(x, y) - y;
    c(x, y) = p(x, y) * 2 + p(x, y + 1);
    root.compute_root();
    p.split(x, xo, xi, 4, TailStrategy::GuardWithIf).vectorize(xo, 2, TailStrategy::ShiftInwards);
    p.compute_at(c, x).store_at(c, y);
    Realization out = c.realize({9, 18});
    EXPECT_TRUE(matches_reference(c, out));
}

// Case 111252: producers computed inside producers computed inside producers, with storage
// hoisted out of each. Their bounds are large expressions sharing subexpressions; the 32-bit
// overflow checks of those bounds, built as trees, reached 46 MB of IR and overflowed the
// simplifier's stack. The checks now name each intermediate value once.
TEST(FuzzRegression, OverflowChecksOfDeeplyNestedBoundsStaySmall) {
    Param<int32_t> p0("fr13_p0", 0);
    ImageParam in0(Int(32), 2, "fr13_in0");
    in0.set(random_buffer(Int(32), {10, 16}, 2347641466623331107u));
    Func in0_b = BoundaryConditions::constant_exterior(in0, make_const(Int(32), 3));
    ImageParam in1(UInt(16), 2, "fr13_in1");
    in1.set(random_buffer(UInt(16), {27, 30}, 3070927088376851644u));
    Func in1_b = BoundaryConditions::mirror_interior(in1);
    Func f0("fr13_f0");
    f0(x, y) = (cast(Float(32), in1_b(x, y)) + cast(Float(32), in0_b(x, y)));
    f0(x, y) = select(x % 2 == 0, f0(x, y) * make_const(Float(32), 1.0),
                      f0(x, y) + abs(cast(Float(32), p0)));
    Func f1("fr13_f1");
    f1(x, y) = cast(Float(32), in0_b(x, y));
    Func f2("fr13_f2");
    f2(x, y) = (cast(Int(16), p0) & cast(Int(16), (x + y)));
    f2(x, y) = select(x % 2 == 0, f2(x, y) * make_const(Int(16), 2),
                      f2(x, y) + cast(Int(16), cast(Int(32), cast(Int(16), f0(x - 2, y)))));
    Func f3("fr13_f3");
    f3(x, y) = 0;
    RDom r3(0, 7, 0, 4, "fr13_r3");
    {
        Expr v = cast(Int(32), in1_b(r3.x, r3.y)), ix = v & 3, iy = (v / 4) & 1;
        f3(ix, iy) = f3(ix, iy) + 1;
    }
    Func f4("fr13_f4");
    f4(x, y) = clamp((min(f1(x, y), cast(Float(32), f2(x, y + 2))) + make_const(Float(32), 8.0)),
                     min(make_const(Float(32), 7.5), make_const(Float(32), 7.0)),
                     max(make_const(Float(32), 7.5), make_const(Float(32), 7.0)));
    Func f5("fr13_f5");
    f5(x, y) = (cast(UInt(8), p0) % make_const(UInt(8), 3));
    f5(x, y) =
        select(x % 2 == 0, f5(x, y) * make_const(UInt(8), 2), f5(x, y) + cast(UInt(8), f3(x, y)));
    Func f6("fr13_f6");
    f6(x, y) =
        (select(
             (select((make_const(Float(32), -8.0) <= make_const(Float(32), -5.5)),
                     cast(UInt(8), f4(x - 2, y + 1)), f5(x + 1, y - 1)) == make_const(UInt(8), 7)),
             cast(UInt(16), in0_b(x, y - 1)), (cast(UInt(16), f0(x + 2, y)) + cast(UInt(16), p0))) +
         abs(abs(make_const(UInt(16), 11))));
    Func f7("fr13_f7");
    f7(x, y) = (min((in1_b(x + 2, y) % make_const(UInt(16), 12)), f6(x, y)) +
                min(select((cast(UInt(8), y) != cast(UInt(8), p0)), cast(UInt(16), (x + y)),
                           make_const(UInt(16), 17)),
                    cast(UInt(16), f5(x + 2, y))));
    p0.set(-3);
    f0.tile(Var("x"), Var("y"), Var("xo_0"), Var("yo_2"), Var("xi_1"), Var("yi_3"), 4, 5,
            TailStrategy::GuardWithIf);
    f0.update(0).unroll(Var("y"), 2, TailStrategy::Auto);
    f0.update(0).split(Var("y_unrolled"), Var("y_unrolledo_4"), Var("y_unrolledi_5"), 2,
                       TailStrategy::Auto);
    f0.update(0).split(Var("y"), Var("yo_6"), Var("yi_7"), 1, TailStrategy::GuardWithIf);
    f0.update(0).rename(Var("y_unrolledo_4"), Var("y_unrolledo_4r_8"));
    f2.tile(Var("x"), Var("y"), Var("xo_9"), Var("yo_11"), Var("xi_10"), Var("yi_12"), 7, 6,
            TailStrategy::ShiftInwards);
    f2.fuse(Var("xo_9"), Var("yo_11"), Var("xo_9yf_13"));
    f2.vectorize(Var("xi_10"));
    f2.update(0).vectorize(Var("x"), 4, TailStrategy::Auto);
    f3.fuse(Var("x"), Var("y"), Var("xyf_14"));
    f3.parallel(Var("xyf_14"));
    f3.update(0).unroll(RVar("fr13_r3.x"), 3, TailStrategy::GuardWithIf);
    f3.update(0).rename(RVar("fr13_r3.y"), RVar("fr13_r3.yr_15"));
    f4.rename(Var("x"), Var("xr_16"));
    f5.reorder({Var("y"), Var("x")});
    f5.rename(Var("y"), Var("yr_17"));
    f6.split(Var("x"), Var("xo_18"), Var("xi_19"), 7, TailStrategy::Auto);
    f6.split(Var("xo_18"), Var("xo_18o_20"), Var("xo_18i_21"), 8, TailStrategy::Auto);
    f7.unroll(Var("y"), 2, TailStrategy::GuardWithIf);
    f6.compute_at(f7, Var("x"));
    f6.store_at(f7, Var("y"));
    f5.compute_root();
    f4.compute_at(f6, Var("xi_19"));
    f4.store_root();
    f3.compute_root();
    f2.compute_at(f4, Var("xr_16"));
    f2.store_root();
    f1.compute_at(f4, Var("y"));
    f0.compute_root();
    Realization out = f7.realize({70, 2});
    EXPECT_TRUE(matches_reference(f7, out, 1e-4));
}

// Case 110113: an update vectorized over y with RoundUp, in a Func computed per point of its
// consumer. Its footprint allows for rounding over any region; one iteration's pure stage took
// that allowance on top of its own rows and read rows of a root Func past its end (a crash now
// and then; AddressSanitizer in scripts/sanitize.sh reports it every time). Each stage's region
// inside a loop is now clamped to the region the whole pipeline needs of it.
TEST(FuzzRegression, UpdateFootprintInsideALoopStaysInTheEnclosingRegion) {
    Param<int32_t> p0("fr14_p0", 0);
    ImageParam in0(UInt(8), 2, "fr14_in0");
    in0.set(random_buffer(UInt(8), {7, 4}, 4560052062782690951u));
    Func in0_b = BoundaryConditions::repeat_edge(in0);
    ImageParam in1(Float(32), 2, "fr14_in1");
    in1.set(random_buffer(Float(32), {26, 29}, 3268121006239065940u));
    Func in1_b = BoundaryConditions::constant_exterior(in1, make_const(Float(32), 3));
    Func f0("fr14_f0");
    f0(x, y) =
        select(((cast(UInt(16), in1_b(x - 2, y - 2)) > cast(UInt(16), in1_b(x - 1, y - 2))) &&
                (p0 != make_const(Int(32), 8))),
               cast(UInt(16), in1_b(x, y)), cast(UInt(16), in1_b(x, y + 2)));
    RDom r0(1, 3, "fr14_r0");
    f0(r0, y) = f0(r0 - 1, y) + (cast(UInt(16), r0) - cast(UInt(16), in0_b(r0, y)));
    Func f1("fr14_f1");
    f1(x, y) = select((make_const(UInt(8), 13) <= make_const(UInt(8), 16)),
                      cast(Int(32), f0(x + 1, y)), y);
    RDom r1(1, 2, "fr14_r1");
    f1(r1, y) = f1(r1 - 1, y) + (cast(Int(32), f0(r1, y)) + p0);
    Func f2("fr14_f2");
    f2(x, y) =
        clamp(cast(UInt(16), f1(x, y)), min(make_const(UInt(16), 13), make_const(UInt(16), 5)),
              max(make_const(UInt(16), 13), make_const(UInt(16), 5)));
    RDom r2(0, 1, 0, 3, "fr14_r2");
    f2(x, y) = min(f2(x, y), (cast(UInt(16), in0_b(x + r2.x, y + r2.y + 1)) +
                              cast(UInt(16), in0_b(x + r2.x, y + r2.y))));
    Func f3("fr14_f3");
    f3(x, y) = Tuple(
        (abs(make_const(UInt(8), 8)) + cast(UInt(8), cast(UInt(16), make_const(UInt(8), 15)))),
        cast(Int(32), in1_b(x + 2, y)));
    RDom r3(-1, 3, "fr14_r3");
    {
        Expr v = cast(UInt(8), f2(x + r3, y)), better = v > f3(x, y)[0];
        f3(x, y) = Tuple(select(better, v, f3(x, y)[0]), select(better, r3, f3(x, y)[1]));
    }
    p0.set(-3);
    f1.split(Var("y"), Var("yo_0"), Var("yi_1"), 5, TailStrategy::Auto);
    f2.split(Var("x"), Var("xo_2"), Var("xi_3"), 2, TailStrategy::Auto);
    f2.update(0).vectorize(Var("y"), 16, TailStrategy::RoundUp);
    f3.update(0).unroll(Var("x"), 2, TailStrategy::Auto);
    f2.compute_at(f3, Var("x_unrolled"));
    Realization out = f3.realize({23, 16});
    EXPECT_TRUE(matches_reference(f3, out, 1e-4));
}

// A producer with a rounding update, stored at root and computed inside a loop that vectorizing
// partitions into a steady state that never runs (3 points, vectors of 8). The written region
// of that empty loop came out as all of int32 in y, and realize() refused the allocation.
TEST(FuzzRegression, RoundingProducerInsideALoopThatNeverRuns) {
    Buffer<> in = random_buffer(Int(32), {32, 4}, 16);
    Func bounded = BoundaryConditions::mirror_image(in);
    Func f4("fr16_f4"), f5("fr16_f5"), f7("fr16_f7");
    f4(x, y) = cast(UInt(8), bounded(x, y));
    f4(x, y) = f4(x, y) + 1;
    f5(x, y) = f4(x, y) * 2;
    f7(x, y) = f5(x, y - 2);
    Var yo("yo"), yi("yi"), xy("xy"), xo("xo"), xi("xi"), xio("xio"), xii("xii");
    f4.vectorize(x, 16, TailStrategy::GuardWithIf);
    f4.update(0).unroll(x, 4, TailStrategy::RoundUp);
    f5.split(y, yo, yi, 5, TailStrategy::GuardWithIf).fuse(x, yi, xy);
    f7.split(x, xo, xi, 3, TailStrategy::Auto);
    f7.split(xi, xio, xii, 8, TailStrategy::GuardWithIf).vectorize(xii, 2);
    f5.compute_at(f7, xio).store_root();
    f4.compute_at(f5, xy).store_root();
    Realization out = f7.realize({18, 19});
    EXPECT_TRUE(matches_reference(f7, out));
}

// A producer folded into a circular buffer by a sliding window, in a consumer with a
// specialization whose loop covers more points per iteration (vectors of 4, unrolled by 3 in
// the specialization). The fold factor came from whichever copy of the loops was built last
// (4), and the specialization's 12 points per iteration overwrote each other (case 662019).
TEST(FuzzRegression, FoldedStorageHoldsEverySpecializationsRegion) {
    Buffer<> in = random_buffer(Int(16), {40, 9}, 17);
    Func bounded = BoundaryConditions::repeat_image(in);
    Param<int> p("fr17_p", 4);
    Func f("fr17_f"), g("fr17_g");
    f(x, y) = bounded(x - 2, y) * 3 + cast<int16_t>(x);
    g(x, y) = cast<int32_t>(f(x, y - 2)) + p;
    g.unroll(y, 3).vectorize(x, 4);
    f.compute_at(g, x).store_at(g, Var("y_unrolled"));
    g.specialize(p > 1).unroll(x, 3);
    Realization out = g.realize({39, 5});
    EXPECT_TRUE(matches_reference(g, out));
}

// An update that keeps the max of its value and a linear function of an RVar: loop
// partitioning took the stored value for a bound fixed over the RVar's loop and dropped the
// terms past the "steady state" it computed from the value before the loop (case 763053).
TEST(FuzzRegression, PartitioningDoesNotTreatAStoredValueAsABound) {
    Func f("fr18_f");
    RDom r(-2, 3, -1, 3, "fr18_r");
    r.where(r.x != r.y);
    f(x, y) = x - 40;
    f(x, y) = max(f(x, y), (x + r.x + y + r.y) * -2 - 14);
    Realization out = f.realize({9, 4});
    EXPECT_TRUE(matches_reference(f, out));
    Buffer<int> values = out[0];
    EXPECT_EQ(values(2, 0), -12);  // r = (-2, -1): -14 - 2 * (2 - 3)
}

// A producer computed per point of a tile and stored per strip of tiles slides over two loops:
// down the strip's tiles (rows) and along its tiles (columns). Inside each column of tiles a
// loop walks the tile's rows, so a row computed for one column must survive until the next
// column reuses it: the rows were folded into one slot and overwritten (case 777065).
TEST(FuzzRegression, NoFoldWhereALoopInsideTheSlideMovesTheFoldedDimension) {
    Buffer<> in = random_buffer(Int(16), {30, 20}, 19);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func f("fr19_f"), g("fr19_g");
    Var yo("yo"), yi("yi"), xo("xo"), xi("xi"), yio("yio"), yii("yii");
    f(x, y) = cast<int32_t>(bounded(x, y)) * 3 - x;
    g(x, y) = f(x - 3, y) + f(x - 1, y) * 2 + f(x + 2, y);
    g.split(y, yo, yi, 3).tile(x, yi, xo, yio, xi, yii, 3, 8);
    f.compute_at(g, xi).store_at(g, yo);
    Realization out = g.realize({19, 11});
    EXPECT_TRUE(matches_reference(g, out));
}

// A producer stored at root and computed per vector of a consumer whose loops are fused: the
// coordinates of a fused loop are a quotient and a remainder, whose bounds over one vector can
// pass the consumer's region. Computing that region unclamped wrote past the producer's
// storage (heap corruption, case 914817).
TEST(FuzzRegression, ProducerPerVectorOfAFusedLoopStaysInItsStorage) {
    Buffer<> in = random_buffer(Int(16), {34, 16}, 20);
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func f("fr20_f"), g("fr20_g");
    Var xy("xy");
    f(x, y) = cast<int32_t>(bounded(x, y)) * 5 + y;
    g(x, y) = f(x - 2, y + 1) + f(x + 4, y + 1) * 3;
    g.fuse(x, y, xy).vectorize(xy, 4, TailStrategy::PartialTile);
    f.compute_at(g, xy).store_root().reorder_storage(y, x);
    Realization out = g.realize({34, 13});
    EXPECT_TRUE(matches_reference(g, out));
}

}  // namespace
}  // namespace dsl
