// Constant upper bounds of region sizes (lowering/ConstantUpperBound.h): the footprints of a
// tile clamped at an image's edges, which GPU kernels need as constants.
#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "ir/IROperator.h"
#include "ir/Substitute.h"
#include "lowering/ConstantUpperBound.h"

namespace dsl {
namespace {

using namespace ir;

class ConstantUpperBoundTest : public ::testing::Test {
  protected:
    std::optional<int64_t> bound(const Expr &e) {
        return lowering::constant_upper_bound(e, loops_);
    }
    Expr c = Variable::make(Int(32), "c"), m = Variable::make(Int(32), "m");
    Expr lo = Variable::make(Int(32), "lo");
    Scope<ConstantBounds> loops_;
};

TEST_F(ConstantUpperBoundTest, AClampedRegion) {
    // [min(c, m), min(c + 17, m)]: 18 points inside, fewer at the edge, none past it.
    EXPECT_EQ(bound(min(c + 17, m) - min(c, m) + 1), 18);
    // Clamped below too.
    EXPECT_EQ(bound(min(max(c + 9, lo), m) - min(max(c, lo), m) + 1), 10);
}

TEST_F(ConstantUpperBoundTest, TighterThanTheSidesApart) {
    // A step of 16 of a reduction of 200, the last one partial: with i in [0, 12] the sides
    // bounded apart give 200; taken apart, the step is at most 16.
    Expr i = Variable::make(Int(32), "i");
    loops_.push("i", ConstantBounds::range(0, 12));
    EXPECT_EQ(bound(min(i * 16 + 15, 199) - i * 16 + 1), 16);
    loops_.pop("i");
}

TEST_F(ConstantUpperBoundTest, OffsetsOutsideTheClamp) {
    // min(a, m + 2) - (min(c, m) + 2): the constant moves inside to meet the common m.
    Expr hi = min(max(c + 9, min(max(c, min(c, m)), m) + 2), m + 2);
    EXPECT_EQ(bound(hi - (min(c, m) + 2) + 1), 8);
}

TEST_F(ConstantUpperBoundTest, NestedClampsOfTheSameRegion) {
    Expr inner = min(max(c + 1, lo), m);
    Expr hi = min(max(c + 8, min(max(c + 1, inner), m)), m);
    EXPECT_EQ(bound(hi - inner + 1), 8);
}

TEST_F(ConstantUpperBoundTest, ScaledTerms) {
    // (c + 7) / 2 - c / 2 is 3 or 4; (c + 8) / 2 - c / 2 is 4 (the simplifier takes the 4 out
    // of the division); 3 * (c + 4) - 3 * c is 12.
    EXPECT_EQ(bound((c + 7) / 2 - c / 2), 4);
    EXPECT_EQ(bound((c + 8) / 2 - c / 2), 4);
    EXPECT_EQ(bound((c + 4) * 3 - c * 3), 12);
}

TEST_F(ConstantUpperBoundTest, ASizeDividedByAConstant) {
    // The thread loop of a footprint split by 4 runs (max - min) / 4 + 1 times: 33 points in 9.
    EXPECT_EQ(bound((min(c + 32, m) - min(c, m)) / 4 + 1), 9);
    EXPECT_EQ(bound((c + 3 - c) / 4 - 1), -1);
    EXPECT_EQ(bound((c - 5 - c) / 4), -2);  // floor(-5 / 4)
    EXPECT_FALSE(bound((m - c) / 4).has_value());
}

TEST_F(ConstantUpperBoundTest, BoundsTheHostKnowsBeforeALaunch) {
    // A tile of t points (t from a Param, known to the host) clamped at the image's end m: its
    // footprint has no constant bound, but at most max(t, 0) + 1 points whatever c and m are.
    Expr t = Variable::make(Int(32), "t");
    auto known = [](const Expr &e) {
        for (const char *inner : {"c", "m"})
            if (expr_uses_var(e, inner)) return false;
        return true;
    };
    Expr size = min(c + t, m) - min(c, m) + 1;
    EXPECT_FALSE(bound(size).has_value());
    std::optional<Expr> b = lowering::host_upper_bound(size, loops_, known);
    ASSERT_TRUE(b.has_value());
    for (int tv : {0, 1, 16, 37}) {
        Expr at = simplify(substitute("t", Expr(tv), *b));
        EXPECT_EQ(as_const_int(at), std::optional<int64_t>(std::max(tv, 0) + 1)) << *b;
    }
    // Constants where they are; nothing where the size grows with what the host cannot know.
    EXPECT_EQ(
        as_const_int(*lowering::host_upper_bound(min(c + 17, m) - min(c, m) + 1, loops_, known)),
        std::optional<int64_t>(18));
    EXPECT_FALSE(lowering::host_upper_bound(m - c + t, loops_, known).has_value());
}

TEST_F(ConstantUpperBoundTest, NoBoundWhereNoneExists) {
    // A footprint from c / 3 to c grows with c.
    EXPECT_FALSE(bound(max(c, c / 3 + 5) - min(c, c / 3 + 5) + 1).has_value());
    EXPECT_FALSE(bound(m - c).has_value());
}

}  // namespace
}  // namespace dsl
