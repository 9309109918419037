// A Func computed at root is computed where its consumers use it: a call in a branch of a
// select is needed only where the branch is taken (lowering/Regions.h, box_of_calls with
// through_selects). Its storage still holds everything the consumers load, since both branches
// are loaded. Each case counts the points computed and compares the values with the reference
// evaluator.
#include <gtest/gtest.h>

#include <array>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace {

std::array<int, 2> computed;

}  // namespace

extern "C" int select_bounds_count(int value, int counter) {
    computed[counter]++;
    return value;
}
DSL_EXTERN(int, select_bounds_count, int, int);

namespace dsl {
namespace {

using test::matches_reference;

Var x("x"), y("y");

// Halide's concat: each input of a concatenation is computed over its own part only, in
// vectors whose lanes load both (the output's lanes 96..103 read f at 100..103 too).
TEST(SelectBounds, EachPartOfAConcatenationIsComputedOnce) {
    Func f("sb_f"), g("sb_g"), h("sb_h");
    f(x) = select_bounds_count(x + 1, 0);
    g(x) = select_bounds_count(x + 2, 1);
    h(x) = select(x < 100, f(x), g(x));
    f.compute_root();
    g.compute_root();
    h.vectorize(x, 8);
    computed = {0, 0};
    Buffer<int> out = h.realize({200});
    EXPECT_EQ(computed[0], 100);
    EXPECT_EQ(computed[1], 100);
    EXPECT_TRUE(matches_reference(h, out));
    // An output window that starts inside the second part needs nothing of the first.
    Buffer<int> tail(50);
    tail.set_min({120});
    computed = {0, 0};
    h.realize(tail);
    EXPECT_EQ(computed[0], 0);
    EXPECT_EQ(computed[1], 50);
    EXPECT_TRUE(matches_reference(h, tail));
}

// A constant exterior: outside [0, 50) the value is 0, and f is computed inside only; the
// condition's negation (a conjunction) narrows the other branch from both ends.
TEST(SelectBounds, AConstantExteriorComputesTheInteriorOnly) {
    Func f("sb_inner"), h("sb_exterior");
    f(x, y) = select_bounds_count(x * 3 + y, 0);
    h(x, y) = select(x < 0 || x >= 50 || y < 2, 0, f(x, y));
    f.compute_root();
    h.tile(x, y, Var("xo"), Var("yo"), Var("xi"), Var("yi"), 16, 4).vectorize(Var("xi"), 8);
    Buffer<int> out(70, 10);
    out.set_min({-10, 0});
    computed = {0, 0};
    h.realize(out);
    EXPECT_EQ(computed[0], 50 * 8);
    EXPECT_TRUE(matches_reference(h, out));
}

// A Func also used outside any select is computed over all that use reads, even where the
// two uses are one expression node.
TEST(SelectBounds, AUseOutsideTheSelectKeepsTheWholeRegion) {
    Func f("sb_both"), h("sb_both_out");
    f(x) = select_bounds_count(x, 0);
    Expr fx = f(x);
    h(x) = select(x < 10, fx, 0) + fx;
    f.compute_root();
    computed = {0, 0};
    Buffer<int> out = h.realize({40});
    EXPECT_EQ(computed[0], 40);
    EXPECT_TRUE(matches_reference(h, out));
}

// Both branches reading the same Func at different points: the union of what each uses.
TEST(SelectBounds, BranchesReadingOneFuncAtDifferentPoints) {
    Func f("sb_shift"), h("sb_shift_out");
    f(x) = select_bounds_count(x * 2, 0);
    h(x) = select(x >= 30, f(x - 30), f(x + 100));
    f.compute_root();
    computed = {0, 0};
    Buffer<int> out = h.realize({60});
    // f(100..129) for x < 30 and f(0..29) for x >= 30.
    EXPECT_EQ(computed[0], 130);
    EXPECT_TRUE(matches_reference(h, out));
}

}  // namespace
}  // namespace dsl
