// Unit tests of the interval rules of bounds_of_expr_in_scope, one group per node family, and
// of the Interval helpers.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "dsl/dsl.h"
#include "ir/Bounds.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"

namespace dsl {
namespace {

using namespace ir;

Expr var(Type t, const std::string &name) {
    return Variable::make(t, name);
}

/// `[lo, hi]` as constants of `t`.
Interval range(Type t, int64_t lo, int64_t hi) {
    return Interval(make_const(t, lo), make_const(t, hi));
}
Interval frange(Type t, double lo, double hi) {
    return Interval(make_const(t, lo), make_const(t, hi));
}

std::string show(const Interval &i) {
    std::ostringstream s;
    s << i;
    return s.str();
}

/// Whether `e` is the integer (or bool) constant `v`.
bool is_value(const Expr &e, int64_t v) {
    if (auto i = as_const_int(e)) return *i == v;
    if (auto u = as_const_uint(e)) return v >= 0 && *u == static_cast<uint64_t>(v);
    return false;
}

#define EXPECT_RANGE(interval, lo, hi)                                                \
    do {                                                                              \
        Interval got_ = (interval);                                                   \
        EXPECT_TRUE(is_value(got_.min, lo) && is_value(got_.max, hi))                 \
            << "got " << show(got_) << ", expected [" << (lo) << ", " << (hi) << "]"; \
    } while (0)

#define EXPECT_FRANGE(interval, lo, hi)                                               \
    do {                                                                              \
        Interval got_ = (interval);                                                   \
        auto l_ = as_const_float(got_.min), h_ = as_const_float(got_.max);            \
        EXPECT_TRUE(l_ &&h_ &&*l_ == (lo) && *h_ == (hi))                             \
            << "got " << show(got_) << ", expected [" << (lo) << ", " << (hi) << "]"; \
    } while (0)

#define EXPECT_ENDS(interval, lo, hi)                                                  \
    do {                                                                               \
        Interval got_ = (interval);                                                    \
        EXPECT_TRUE(got_.min.defined() && equal(got_.min, lo) && got_.max.defined() && \
                    equal(got_.max, hi))                                               \
            << "got " << show(got_) << ", expected [" << (lo) << ", " << (hi) << "]";  \
    } while (0)

class BoundsTest : public ::testing::Test {
  protected:
    Scope<Interval> scope;
    Expr x = var(Int(32), "x"), y = var(Int(32), "y"), n = var(Int(32), "n");
    Expr u = var(UInt(8), "u"), s8 = var(Int(8), "s8"), f = var(Float(32), "f");

    Interval bounds(const Expr &e) { return bounds_of_expr_in_scope(e, scope); }
    void bind(const std::string &name, Interval i) { scope.push(name, std::move(i)); }
};

// ---------------------------------------------------------------------------------------------
// Interval helpers

TEST(Interval, HelpersDescribeTheirShape) {
    Interval all = Interval::everything();
    EXPECT_TRUE(all.is_everything());
    EXPECT_FALSE(all.is_bounded());
    EXPECT_FALSE(all.has_upper_bound());
    Interval none = Interval::nothing();
    EXPECT_TRUE(none.is_empty());
    EXPECT_FALSE(none.is_everything());
    Interval p = Interval::single_point(Expr(3));
    EXPECT_TRUE(p.is_single_point());
    EXPECT_TRUE(p.is_single_point(Expr(3)));
    EXPECT_TRUE(p.is_bounded());
    Interval half(Expr(), Expr(5));
    EXPECT_TRUE(half.has_upper_bound());
    EXPECT_FALSE(half.has_lower_bound());
    EXPECT_EQ(show(half), "[-inf, 5]");
    EXPECT_EQ(show(none), "[]");
}

TEST(Interval, UnionIsTheHullAndNothingIsItsIdentity) {
    Interval a = range(Int(32), 0, 4), b = range(Int(32), 10, 12);
    EXPECT_RANGE(Interval::make_union(a, b), 0, 12);
    EXPECT_RANGE(Interval::make_union(a, Interval::nothing()), 0, 4);
    EXPECT_RANGE(Interval::make_union(Interval::nothing(), b), 10, 12);
    Interval u = Interval::make_union(a, Interval(Expr(2), Expr()));
    EXPECT_TRUE(is_value(u.min, 0) && !u.max.defined()) << show(u);
    Var v("v");
    Interval sym = Interval::make_union(Interval::single_point(v), Interval::single_point(v));
    EXPECT_TRUE(sym.is_single_point(Expr(v)));
}

TEST(Interval, IntersectionKeepsTheCommonPartOrIsEmpty) {
    Interval a = range(Int(32), 0, 10), b = range(Int(32), 5, 20);
    EXPECT_RANGE(Interval::make_intersection(a, b), 5, 10);
    EXPECT_TRUE(Interval::make_intersection(a, range(Int(32), 11, 12)).is_empty());
    EXPECT_RANGE(Interval::make_intersection(a, Interval::everything()), 0, 10);
    EXPECT_TRUE(Interval::make_intersection(a, Interval::nothing()).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Leaves

TEST_F(BoundsTest, ConstantsAreSinglePoints) {
    EXPECT_RANGE(bounds(Expr(7)), 7, 7);
    EXPECT_RANGE(bounds(Expr(uint8_t(200))), 200, 200);
    EXPECT_FRANGE(bounds(Expr(1.5f)), 1.5, 1.5);
    EXPECT_TRUE(bounds(FloatImm::make(Float(32), INFINITY)).is_everything());
}

TEST_F(BoundsTest, VariablesComeFromTheScopeOrStandForThemselves) {
    bind("x", range(Int(32), -3, 9));
    EXPECT_RANGE(bounds(x), -3, 9);
    EXPECT_TRUE(bounds(y).is_single_point(y));
    // A free vector is bounded by its own smallest and largest lanes.
    Expr v = var(Int(32, 4), "v");
    Interval i = bounds(v);
    EXPECT_ENDS(i, VectorReduce::make(VectorReduce::Op::Min, v, 1),
                VectorReduce::make(VectorReduce::Op::Max, v, 1));
    Expr vmin = VectorReduce::make(VectorReduce::Op::Min, v, 1);
    Expr vmax = VectorReduce::make(VectorReduce::Op::Max, v, 1);
    EXPECT_ENDS(bounds(Add::make(v, Broadcast::make(Expr(1), 4))), vmin + 1, vmax + 1);
    // Where the type wraps, a vector of free symbols is its own bound, exactly.
    Expr w = var(UInt(8, 4), "w");
    Expr w1 = Add::make(w, Broadcast::make(Expr(uint8_t(1)), 4));
    EXPECT_ENDS(bounds(w1), VectorReduce::make(VectorReduce::Op::Min, w1, 1),
                VectorReduce::make(VectorReduce::Op::Max, w1, 1));
}

TEST_F(BoundsTest, ScopeEndsOfTheWrongTypeAreReported) {
    bind("u", range(Int(32), 0, 10));  // u is uint8
    EXPECT_THROW(bounds(u + uint8_t(1)), InternalError);
}

TEST_F(BoundsTest, LoadsAndUnknownCallsAreTheirTypeRange) {
    Expr load = Load::make(UInt(8), "buf", x, const_true());
    EXPECT_RANGE(bounds(load), 0, 255);
    Expr call = Call::make(Int(16), "f", {x}, Call::CallType::Func);
    EXPECT_RANGE(bounds(call), -32768, 32767);
    EXPECT_TRUE(bounds(Load::make(Float(32), "fb", x, const_true())).is_everything());
}

// ---------------------------------------------------------------------------------------------
// Add, Sub, Mul

TEST_F(BoundsTest, AddAndSubCombineOppositeEnds) {
    bind("x", range(Int(32), 0, 10));
    bind("y", range(Int(32), -3, 5));
    EXPECT_RANGE(bounds(x + y), -3, 15);
    EXPECT_RANGE(bounds(x - y), -5, 13);
    // The same expression on both sides is seen; other correlations are lost.
    EXPECT_RANGE(bounds(x - x), 0, 0);
    EXPECT_RANGE(bounds((x + 1) - x), -9, 11);
}

TEST_F(BoundsTest, AddOfSymbolicEndsStaysSymbolic) {
    bind("x", Interval(Expr(0), n));
    EXPECT_ENDS(bounds(x + 1), Expr(1), n + 1);
    EXPECT_ENDS(bounds(x - 1), Expr(-1), n + -1);
    EXPECT_ENDS(bounds(x + y), y, n + y);
    // Constant offsets fold into the symbolic end.
    EXPECT_ENDS(bounds((x + 2) + 3), Expr(5), n + 5);
}

TEST_F(BoundsTest, WrappingAddGivesTheFullRangeOrTheWrappedRange) {
    bind("u", range(UInt(8), 0, 100));
    EXPECT_RANGE(bounds(u + uint8_t(200)), 0, 255);  // 200..300 crosses 256
    scope.pop("u");
    bind("u", range(UInt(8), 100, 150));
    EXPECT_RANGE(bounds(u + uint8_t(200)), 44, 94);  // 300..350, all wrapped once
    EXPECT_RANGE(bounds(u - uint8_t(100)), 0, 50);
    EXPECT_RANGE(bounds(u - uint8_t(151)), 205, 255);  // -51..-1 wraps to 205..255
    bind("s8", range(Int(8), 100, 120));
    EXPECT_RANGE(bounds(s8 + int8_t(10)), -128, 127);
    EXPECT_RANGE(bounds(s8 + int8_t(7)), 107, 127);
}

TEST_F(BoundsTest, WrappingTypesWithSymbolicEndsGetTheFullRange) {
    Expr m = var(UInt(8), "m");
    bind("u", Interval(make_const(UInt(8), int64_t(0)), m));
    EXPECT_RANGE(bounds(u + uint8_t(1)), 0, 255);
    // But a single point is exact even if it wraps.
    EXPECT_TRUE(bounds(m + uint8_t(1)).is_single_point(m + uint8_t(1)));
}

TEST_F(BoundsTest, SignedOverflowOf32BitsIsAssumedAway) {
    bind("x", range(Int(32), 0, 2147483647));
    EXPECT_RANGE(bounds(x + 1), 1, 2147483647);
    bind("z", range(Int(64), 0, 10));
    EXPECT_RANGE(bounds(var(Int(64), "z") * Expr(int64_t(1) << 40)), 0, int64_t(10) << 40);
}

TEST_F(BoundsTest, MulTakesTheExtremeCorners) {
    bind("x", range(Int(32), -2, 3));
    bind("y", range(Int(32), 4, 5));
    EXPECT_RANGE(bounds(x * y), -10, 15);
    EXPECT_RANGE(bounds(x * x), -6, 9);
    EXPECT_RANGE(bounds(x * -3), -9, 6);
    bind("u", range(UInt(8), 10, 20));
    EXPECT_RANGE(bounds(u * u), 0, 255);  // 100..400
    Expr w = var(UInt(16), "w");
    bind("w", range(UInt(16), 10, 20));
    EXPECT_RANGE(bounds(w * w), 100, 400);
}

TEST_F(BoundsTest, MulOfSymbolicEndsUsesTheSigns) {
    bind("x", Interval(Expr(0), n));
    EXPECT_ENDS(bounds(x * 3), Expr(0), n * 3);
    EXPECT_ENDS(bounds(x * -3), n * -3, Expr(0));
    Expr a = var(Int(32), "a"), b = var(Int(32), "b"), c = var(Int(32), "c"), d = var(Int(32), "d");
    bind("y", Interval(c, d));
    // x >= 0 but the sign of y is unknown: the products of the corners decide.
    Interval i = bounds(x * y);
    EXPECT_TRUE(i.is_bounded()) << show(i);
    scope.pop("x");
    bind("x", Interval(a, b));
    Interval j = bounds(x * y);
    EXPECT_ENDS(j, Min::make(Min::make(a * c, a * d), Min::make(b * c, b * d)),
                Max::make(Max::make(a * c, a * d), Max::make(b * c, b * d)));
}

// ---------------------------------------------------------------------------------------------
// Div and Mod (Euclidean)

TEST_F(BoundsTest, DivByAConstantOfEitherSign) {
    bind("x", range(Int(32), -7, 7));
    EXPECT_RANGE(bounds(x / 2), -4, 3);
    EXPECT_RANGE(bounds(x / -2), -3, 4);
    EXPECT_RANGE(bounds(x / 1), -7, 7);
    EXPECT_RANGE(bounds(x / 0), 0, 0);
}

TEST_F(BoundsTest, DivByAnIntervalHoldingZeroIncludesZero) {
    bind("x", range(Int(32), 10, 20));
    bind("y", range(Int(32), -2, 3));
    EXPECT_RANGE(bounds(x / y), -20, 20);
    scope.pop("y");
    bind("y", range(Int(32), 0, 4));
    EXPECT_RANGE(bounds(x / y), 0, 20);
    scope.pop("y");
    bind("y", range(Int(32), 2, 4));
    EXPECT_RANGE(bounds(x / y), 2, 10);
}

TEST_F(BoundsTest, NarrowDivisionWrapsAtMinusOne) {
    bind("s8", range(Int(8), -128, -128));
    EXPECT_RANGE(bounds(s8 / int8_t(-1)), -128, -128);  // 128 wraps back to -128
    scope.pop("s8");
    bind("s8", range(Int(8), -128, -100));
    EXPECT_RANGE(bounds(s8 / int8_t(-1)), -128, 127);
}

TEST_F(BoundsTest, DivOfSymbolicEnds) {
    bind("x", Interval(Expr(0), n));
    EXPECT_ENDS(bounds(x / 4), Expr(0), n / 4);
    EXPECT_ENDS(bounds(x / -4), n / -4, Expr(0));
}

TEST_F(BoundsTest, DivAndModByARowLengthAtLeastOne) {
    // A loop over rows joined divides by the row's length w, written max(w, 1) so that it is
    // known positive: the quotient then grows with x, and the remainder stays below it.
    bind("x", Interval(Expr(0), n));
    Expr w = max(var(Int(32), "w"), 1);
    EXPECT_ENDS(bounds(x / w), Div::make(Expr(0), w), Div::make(n, w));
    EXPECT_ENDS(bounds(x % w), Expr(0), Min::make(Add::make(w, Expr(-1)), n));
    // Without the max, w may be 0 or negative: only |x / w| <= |x| is known.
    Interval any = bounds(x / var(Int(32), "w"));
    EXPECT_FALSE(any.min.defined() && equal(any.min, Div::make(Expr(0), var(Int(32), "w"))))
        << show(any);
}

TEST_F(BoundsTest, ModIsNeverNegativeAndBelowTheDivisor) {
    bind("x", range(Int(32), -100, 100));
    EXPECT_RANGE(bounds(x % 8), 0, 7);
    EXPECT_RANGE(bounds(x % -8), 0, 7);
    EXPECT_RANGE(bounds(x % 0), 0, 0);
    bind("y", range(Int(32), -5, 3));
    EXPECT_RANGE(bounds(x % y), 0, 4);
    bind("z", range(Int(32), 3, 5));
    EXPECT_RANGE(bounds(var(Int(32), "z") % 8), 3, 5);
    EXPECT_RANGE(bounds((var(Int(32), "z") + 3) % 8), 0, 7);   // 6..8 wraps around 8
    EXPECT_RANGE(bounds((var(Int(32), "z") - 10) % 8), 1, 3);  // -7..-5
    EXPECT_RANGE(bounds(var(Int(32), "z") % y), 0, 4);
}

TEST_F(BoundsTest, ModOfSymbolicEnds) {
    bind("x", Interval(Expr(0), n));
    EXPECT_ENDS(bounds(x % 8), Expr(0), Min::make(n, 7));
    Expr m = var(Int(32), "m");
    bind("y", Interval(Expr(1), m));
    Interval i = bounds(Mod::make(Expr(-5), y));
    EXPECT_TRUE(is_value(i.min, 0) && i.max.defined()) << show(i);
}

// ---------------------------------------------------------------------------------------------
// Min, Max, comparisons, logic, Select

TEST_F(BoundsTest, MinAndMaxCombineEnds) {
    bind("x", range(Int(32), 0, 10));
    bind("y", range(Int(32), 5, 20));
    EXPECT_RANGE(bounds(min(x, y)), 0, 10);
    EXPECT_RANGE(bounds(max(x, y)), 5, 20);
    EXPECT_RANGE(bounds(clamp(x * 3, 2, 12)), 2, 12);
    scope.pop("y");
    bind("y", Interval(Expr(5), Expr()));  // unbounded above
    Interval mn = bounds(min(x, y));
    EXPECT_RANGE(mn, 0, 10);
    Interval mx = bounds(max(x, y));
    EXPECT_TRUE(is_value(mx.min, 5)) << show(mx);
}

TEST_F(BoundsTest, ComparisonsAreExactWhenTheIntervalsAreOrdered) {
    bind("x", range(Int(32), 0, 10));
    EXPECT_RANGE(bounds(x < 20), 1, 1);
    EXPECT_RANGE(bounds(x < 5), 0, 1);
    EXPECT_RANGE(bounds(x > 10), 0, 0);
    EXPECT_RANGE(bounds(x >= 0), 1, 1);
    EXPECT_RANGE(bounds(x == 20), 0, 0);
    EXPECT_RANGE(bounds(x != 20), 1, 1);
    EXPECT_RANGE(bounds(x == 5), 0, 1);
    bind("y", range(Int(32), 3, 3));
    EXPECT_RANGE(bounds(y == 3), 1, 1);
    EXPECT_RANGE(bounds(y != 3), 0, 0);
}

TEST_F(BoundsTest, ComparisonsOfSymbolicIntervalsAreConditions) {
    bind("x", Interval(Expr(0), n));
    Interval i = bounds(x < 10);
    EXPECT_ENDS(i, LT::make(n, Expr(10)), const_true());
}

TEST_F(BoundsTest, FloatComparisonsNeedConstantEnds) {
    bind("f", frange(Float(32), 0.5, 2.0));
    EXPECT_RANGE(bounds(f < 3.0f), 1, 1);
    EXPECT_RANGE(bounds(f > 1.0f), 0, 1);
    // x / y may be NaN-free or not; with an unbounded operand nothing is claimed.
    Expr g = var(Float(32), "g");
    bind("g", Interval(make_const(Float(32), 0.0), Expr()));
    EXPECT_RANGE(bounds(g < 3.0f), 0, 1);
}

TEST_F(BoundsTest, LogicCombinesBoolEnds) {
    bind("x", range(Int(32), 0, 10));
    EXPECT_RANGE(bounds(x < 20 && x < 5), 0, 1);
    EXPECT_RANGE(bounds(x < 20 && x > 10), 0, 0);
    EXPECT_RANGE(bounds(x < 5 || x >= 0), 1, 1);
    EXPECT_RANGE(bounds(!(x < 20)), 0, 0);
    EXPECT_RANGE(bounds(!(x < 5)), 0, 1);
}

TEST_F(BoundsTest, SelectTakesTheKnownSideOrTheUnion) {
    bind("x", range(Int(32), 0, 10));
    EXPECT_RANGE(bounds(select(x < 20, x, 100)), 0, 10);
    EXPECT_RANGE(bounds(select(x > 10, x, 100)), 100, 100);
    EXPECT_RANGE(bounds(select(x < 5, x, 100)), 0, 100);
    // A condition that is a single (symbolic) value picks the ends with it.
    Expr c = var(Bool(), "c");
    EXPECT_ENDS(bounds(select(c, x, 100)), Select::make(c, Expr(0), Expr(100)),
                Select::make(c, Expr(10), Expr(100)));
}

TEST_F(BoundsTest, SelectSidesKnowTheirCondition) {
    bind("x", range(Int(32), -10, 10));
    EXPECT_RANGE(bounds(select(x < 0, 0, x)), 0, 10);
    EXPECT_RANGE(bounds(select(x > 5 && x < 8, x, 0)), 0, 7);
    EXPECT_RANGE(bounds(select(!(x >= 3), x, 3)), -10, 3);
    EXPECT_RANGE(bounds(select(x < 0 || x > 4, 2, x)), 0, 4);
    EXPECT_RANGE(bounds(select(3 <= x, x - 3, 0)), 0, 7);
    EXPECT_RANGE(bounds(select(x == 4, x * 2, 8)), 8, 8);
    EXPECT_RANGE(bounds(select(x >= 20, x, 1)), 1, 1);  // the true side never happens
    // A vector condition narrows nothing: a lane may read another lane of x.
    Expr v = var(Int(32, 2), "v");
    bind("v", range(Int(32), -10, 10));
    Expr swapped = Shuffle::make({v}, {1, 0});
    EXPECT_RANGE(bounds(select(v < Broadcast::make(Expr(0), 2), swapped, v)), -10, 10);
}

// ---------------------------------------------------------------------------------------------
// Cast

TEST_F(BoundsTest, WideningCastsKeepTheInterval) {
    bind("u", range(UInt(8), 3, 200));
    EXPECT_RANGE(bounds(cast<int32_t>(u)), 3, 200);
    Expr m = var(UInt(8), "m");
    EXPECT_ENDS(bounds(cast<int32_t>(m)), Cast::make(Int(32), m), Cast::make(Int(32), m));
    bind("w", Interval(make_const(UInt(8), int64_t(0)), m));
    EXPECT_ENDS(bounds(cast<int32_t>(var(UInt(8), "w"))), Expr(0), Cast::make(Int(32), m));
}

TEST_F(BoundsTest, NarrowingCastsWrapOrFallBackToTheTypeRange) {
    bind("x", range(Int(32), 0, 300));
    EXPECT_RANGE(bounds(cast<uint8_t>(x)), 0, 255);
    scope.pop("x");
    bind("x", range(Int(32), 256, 300));
    EXPECT_RANGE(bounds(cast<uint8_t>(x)), 0, 44);
    EXPECT_RANGE(bounds(cast<int8_t>(x)), 0, 44);
    scope.pop("x");
    bind("x", range(Int(32), -1, 1));
    EXPECT_RANGE(bounds(cast<uint8_t>(x)), 0, 255);  // -1 becomes 255
    EXPECT_RANGE(bounds(cast<int8_t>(x)), -1, 1);
    // Symbolic ends cannot be proven to fit.
    bind("y", Interval(Expr(0), n));
    EXPECT_RANGE(bounds(cast<uint8_t>(y)), 0, 255);
    // Int casts wrap even into 32 bits.
    Expr big = var(Int(64), "big");
    bind("big", range(Int(64), 0, int64_t(1) << 32));
    EXPECT_RANGE(bounds(cast<int32_t>(big)), -2147483648LL, 2147483647);
}

TEST_F(BoundsTest, FloatCastsRoundOrTruncateMonotonically) {
    bind("f", frange(Float(32), -1.5, 3.75));
    EXPECT_RANGE(bounds(cast<int32_t>(f)), -1, 3);
    EXPECT_FRANGE(bounds(cast<double>(f)), -1.5, 3.75);
    EXPECT_RANGE(bounds(cast<bool>(f)), 0, 1);
    bind("g", frange(Float(64), 1e300, 1e300));
    Interval narrowed = bounds(cast<float>(var(Float(64), "g")));
    EXPECT_FALSE(narrowed.min.defined() || narrowed.max.defined()) << show(narrowed);  // inf
    bind("x", range(Int(32), 1, 16777217));
    EXPECT_FRANGE(bounds(cast<float>(x)), 1.0, 16777216.0);
    bind("z", range(Int(32), 1, 5));
    EXPECT_RANGE(bounds(cast<bool>(var(Int(32), "z"))), 1, 1);
}

// ---------------------------------------------------------------------------------------------
// Vectors: Ramp, Broadcast, Shuffle, VectorReduce

TEST_F(BoundsTest, RampCoversEveryLane) {
    bind("x", range(Int(32), 0, 10));
    EXPECT_RANGE(bounds(Ramp::make(x, Expr(2), 4)), 0, 16);
    EXPECT_RANGE(bounds(Ramp::make(x, Expr(-3), 4)), -9, 10);
    bind("y", range(Int(32), -1, 1));
    EXPECT_RANGE(bounds(Ramp::make(x, y, 5)), -4, 14);
    EXPECT_RANGE(bounds(Ramp::make(Expr(uint8_t(250)), Expr(uint8_t(2)), 4)), 0, 255);
    EXPECT_ENDS(bounds(Ramp::make(n, Expr(2), 4)), n, n + 6);
    EXPECT_RANGE(bounds(Broadcast::make(x, 8)), 0, 10);
}

TEST_F(BoundsTest, ShuffleUsesOnlyTheLanesItReads) {
    bind("x", range(Int(32), 0, 1));
    bind("y", range(Int(32), 5, 6));
    Expr a = Broadcast::make(x, 2), b = Broadcast::make(y, 2);
    EXPECT_RANGE(bounds(Shuffle::make_concat({a, b})), 0, 6);
    EXPECT_RANGE(bounds(Shuffle::make({a, b}, {2, 3})), 5, 6);
    // Lanes are followed through nested shuffles.
    EXPECT_RANGE(bounds(Shuffle::make_extract_element(Shuffle::make_concat({a, b}), 0)), 0, 1);
    EXPECT_RANGE(bounds(Shuffle::make_slice(Shuffle::make_interleave({a, b}), 1, 2, 2)), 5, 6);
}

TEST_F(BoundsTest, VectorReduceScalesAddsAndKeepsMinMax) {
    bind("v", range(Int(32), -1, 3));
    Expr v = var(Int(32, 8), "v");
    EXPECT_RANGE(bounds(VectorReduce::make(VectorReduce::Op::Add, v, 2)), -4, 12);
    EXPECT_RANGE(bounds(VectorReduce::make(VectorReduce::Op::Min, v, 1)), -1, 3);
    EXPECT_RANGE(bounds(VectorReduce::make(VectorReduce::Op::Max, v, 4)), -1, 3);
    EXPECT_RANGE(bounds(VectorReduce::make(VectorReduce::Op::Mul, v, 4)), -3, 9);
    Expr w = var(UInt(8, 4), "w");
    bind("w", range(UInt(8), 0, 100));
    EXPECT_RANGE(bounds(VectorReduce::make(VectorReduce::Op::Add, w, 2)), 0, 200);
    EXPECT_RANGE(bounds(VectorReduce::make(VectorReduce::Op::Add, w, 1)), 0, 255);
}

// ---------------------------------------------------------------------------------------------
// Intrinsics

TEST_F(BoundsTest, AbsAndAbsdAreUnsignedMagnitudes) {
    bind("s8", range(Int(8), -128, 5));
    EXPECT_RANGE(bounds(abs(s8)), 0, 128);
    bind("t8", range(Int(8), -20, -10));
    Expr t8 = var(Int(8), "t8");
    EXPECT_RANGE(bounds(abs(t8)), 10, 20);
    EXPECT_RANGE(bounds(absd(s8, t8)), 0, 118);
    EXPECT_RANGE(bounds(absd(t8, Expr(int8_t(100)))), 110, 120);
    bind("f", frange(Float(32), -3, 2));
    EXPECT_FRANGE(bounds(abs(f)), 0.0, 3.0);
}

TEST_F(BoundsTest, BitwiseOpsOfNonNegativeValues) {
    bind("x", range(Int(32), 0, 10));
    bind("y", range(Int(32), 4, 6));
    EXPECT_RANGE(bounds(x & y), 0, 6);
    EXPECT_RANGE(bounds(x | y), 4, 15);
    EXPECT_RANGE(bounds(x ^ y), 0, 15);
    EXPECT_RANGE(bounds(~x), -11, -1);
    bind("z", range(Int(32), -8, -1));
    Expr z = var(Int(32), "z");
    EXPECT_RANGE(bounds(z & x), 0, 10);
    EXPECT_RANGE(bounds(z | x), -8, -1);
    EXPECT_RANGE(bounds(z ^ x), -16, 15);
    bind("u", range(UInt(8), 3, 5));
    EXPECT_RANGE(bounds(~u), 250, 252);
    EXPECT_RANGE(bounds(Expr(uint8_t(12)) & Expr(uint8_t(10))), 8, 8);
    // x & y with y >= 0 is in [0, y] even when x is unknown.
    EXPECT_ENDS(bounds(n & x), Expr(0), Expr(10));
}

TEST_F(BoundsTest, ShiftsByConstantAmounts) {
    bind("x", range(Int(32), -3, 5));
    EXPECT_RANGE(bounds(x << 2), -12, 20);
    EXPECT_RANGE(bounds(x >> 1), -2, 2);
    EXPECT_RANGE(bounds(x >> -2), -12, 20);  // a negative amount shifts the other way
    EXPECT_RANGE(bounds(x >> 40), -1, 0);
    EXPECT_RANGE(bounds(x << 40), 0, 0);
    bind("u", range(UInt(8), 0, 100));
    EXPECT_RANGE(bounds(u << uint8_t(2)), 0, 255);
    EXPECT_RANGE(bounds(u >> uint8_t(3)), 0, 12);
    bind("s", range(Int(32), 1, 2));
    EXPECT_RANGE(bounds(x << var(Int(32), "s")), -12, 20);
    bind("y", Interval(Expr(0), n));
    EXPECT_ENDS(bounds(y >> 2),
                Call::make(Int(32), Call::Intrinsic::ShiftRight, {Expr(0), Expr(2)}),
                Call::make(Int(32), Call::Intrinsic::ShiftRight, {n, Expr(2)}));
}

TEST_F(BoundsTest, MonotonicMathFunctions) {
    bind("f", frange(Float(32), -1.5, 2.5));
    EXPECT_FRANGE(bounds(floor(f)), -2.0, 2.0);
    EXPECT_FRANGE(bounds(ceil(f)), -1.0, 3.0);
    EXPECT_FRANGE(bounds(round(f)), -2.0, 2.0);
    EXPECT_FRANGE(bounds(trunc(f)), -1.0, 2.0);
    EXPECT_TRUE(bounds(sqrt(f)).is_everything());  // sqrt of a negative is NaN
    EXPECT_FRANGE(bounds(sin(f)), -1.0, 1.0);
    bind("g", frange(Float(32), 4.0, 9.0));
    EXPECT_FRANGE(bounds(sqrt(var(Float(32), "g"))), 2.0, 3.0);
    Interval e = bounds(exp(var(Float(32), "g")));
    EXPECT_TRUE(e.is_bounded()) << show(e);
    EXPECT_RANGE(bounds(is_nan(var(Float(32), "g"))), 0, 0);
}

TEST_F(BoundsTest, FloatDivisionByAnIntervalHoldingZeroIsUnbounded) {
    bind("f", frange(Float(32), 1, 2));
    bind("g", frange(Float(32), -1, 1));
    EXPECT_TRUE(bounds(f / var(Float(32), "g")).is_everything());
    bind("h", frange(Float(32), 0.5, 4));
    EXPECT_FRANGE(bounds(f / var(Float(32), "h")), 0.25, 4.0);
}

TEST_F(BoundsTest, AnExpressionMetByItselfIsKnown) {
    bind("x", range(Int(32), -3, 9));
    EXPECT_RANGE(bounds(x % x), 0, 0);
    EXPECT_RANGE(bounds(x / x), 0, 1);  // 0 / 0 == 0
    EXPECT_RANGE(bounds((x + 10) / (x + 10)), 1, 1);
    EXPECT_RANGE(bounds(x < x), 0, 0);
    EXPECT_RANGE(bounds(x <= x), 1, 1);
    EXPECT_RANGE(bounds(x ^ x), 0, 0);
    EXPECT_RANGE(bounds(x & x), -3, 9);
    bind("u", range(UInt(8), 0, 5));
    EXPECT_RANGE(bounds(u - u), 0, 0);
    bind("f", frange(Float(32), 1, 2));
    EXPECT_FRANGE(bounds(f / f), 1.0, 1.0);
    // An extern call may differ from one call to the next.
    Expr r = Call::make(Int(32), "rand", {}, Call::CallType::Extern);
    EXPECT_RANGE(bounds(r - r), -2147483648LL, 2147483647);
}

TEST_F(BoundsTest, AFloatZeroOfUnknownSignIsNotASinglePoint) {
    // -2 * -0.0 is +0.0 and 3 * -0.0 is -0.0: the interval must not claim one of them.
    bind("f", frange(Float(32), -2, 3));
    Interval z = bounds(f * -0.0f);
    EXPECT_FALSE(z.is_single_point()) << show(z);
    // So 1 / that is not a single (infinite) value either.
    EXPECT_FALSE(bounds(1.0f / (f * -0.0f)).is_bounded());
    // min/max of equal constants follow the semantics: the second operand.
    Expr m = Min::make(Expr(-0.0f), Expr(0.0f));
    Interval i = bounds(Expr(1.0f) / m);
    EXPECT_FALSE(i.is_bounded()) << show(i);
}

TEST_F(BoundsTest, TypicalAccessPatternsOfBoundsInference) {
    // x runs over [x_min, x_max]; a stencil reads around it and clamps to the image.
    Expr x_min = var(Int(32), "x_min"), x_max = var(Int(32), "x_max"), w = var(Int(32), "w");
    bind("x", Interval(x_min, x_max));
    EXPECT_ENDS(bounds(x * 2 + 1), x_min * 2 + 1, x_max * 2 + 1);
    EXPECT_ENDS(bounds(x / 2), x_min / 2, x_max / 2);
    EXPECT_ENDS(bounds(x - 1), x_min + -1, x_max + -1);
    EXPECT_ENDS(bounds(clamp(x - 1, 0, w - 1)), Min::make(Max::make(x_min + -1, 0), w + -1),
                Min::make(Max::make(x_max + -1, 0), w + -1));
    EXPECT_ENDS(bounds(select(x > 0, x - 1, x)), x_min + -1, x_max);
    // A vectorized loop: x = ramp(x0 * 8, 1, 8) with x0 in [0, n - 1].
    bind("x0", Interval(Expr(0), n - 1));
    Expr x0 = var(Int(32), "x0");
    EXPECT_ENDS(bounds(Ramp::make(x0 * 8, Expr(1), 8)), Expr(0), (n - 1) * 8 + 7);
}

TEST_F(BoundsTest, OtherIntrinsics) {
    bind("f", frange(Float(32), 0.5, 2));
    Expr g = var(Float(32), "g");
    EXPECT_RANGE(bounds(Call::make(Bool(), Call::Intrinsic::IsNan, {f})), 0, 0);
    bind("g", Interval(make_const(Float(32), 0.0), Expr()));
    EXPECT_RANGE(bounds(Call::make(Bool(), Call::Intrinsic::IsNan, {g})), 0, 1);
    bind("x", range(Int(32), 3, 4));
    EXPECT_RANGE(bounds(Call::make(Int(32), Call::Intrinsic::Likely, {x})), 3, 4);
    EXPECT_RANGE(bounds(reinterpret(UInt(16), Expr(int16_t(-1)))), 0, 65535);
    EXPECT_TRUE(bounds(pow(f, f)).is_everything());
    Interval l = bounds(log(f));
    EXPECT_TRUE(l.is_bounded() && is_const(l.min)) << show(l);
    EXPECT_TRUE(bounds(log(f - 1.0f)).is_everything());  // log of a negative is NaN
}

TEST_F(BoundsTest, VectorReduceOfFloatsRoundsLikeTheEvaluator) {
    Expr v = var(Float(16, 4), "v");
    bind("v", frange(Float(16), 1000, 2000));
    // Four lanes of at most 2000 sum to at most 8000 (float16 has 11 significant bits).
    EXPECT_FRANGE(bounds(VectorReduce::make(VectorReduce::Op::Add, v, 1)), 4000.0, 8000.0);
}

TEST_F(BoundsTest, RampOfASymbolicStride) {
    bind("s", Interval(Expr(0), n));
    Expr s = var(Int(32), "s");
    EXPECT_ENDS(bounds(Ramp::make(Expr(5), s, 4)), Expr(5), n * 3 + 5);
    // A constant stride whose steps would not fit gives up rather than clamping them.
    bind("big", range(Int(32), 0, 1 << 30));
    EXPECT_RANGE(bounds(Ramp::make(y, var(Int(32), "big"), 4)), -2147483648LL, 2147483647);
}

// ---------------------------------------------------------------------------------------------
// Let

TEST_F(BoundsTest, LetBindsTheValueInterval) {
    bind("x", range(Int(32), 0, 10));
    Expr t = var(Int(32), "t");
    EXPECT_RANGE(bounds(Let::make("t", x * 2, t + 1)), 1, 21);
    // Shadowing an outer name.
    bind("t", range(Int(32), 100, 200));
    EXPECT_RANGE(bounds(Let::make("t", x, t * 3)), 0, 30);
    EXPECT_RANGE(bounds(t), 100, 200);
}

TEST_F(BoundsTest, LetOfASymbolicRangeNamesBothEnds) {
    Expr a = var(Int(32), "a"), b = var(Int(32), "b");
    bind("x", Interval(a * 2, b * 2));
    Expr t = var(Int(32), "t");
    Interval i = bounds(Let::make("t", x + 1, t * 3));
    Expr tmin = var(Int(32), "t.min"), tmax = var(Int(32), "t.max");
    EXPECT_ENDS(i, Let::make("t.min", a * 2 + 1, tmin * 3),
                Let::make("t.max", b * 2 + 1, tmax * 3));
}

TEST_F(BoundsTest, LetOfASymbolicValueNamesItInTheResult) {
    // t = y * y (a free, single value): the result refers to it through a Let, not the name t.
    Expr t = var(Int(32), "t");
    Interval i = bounds(Let::make("t", y * y, t + 1));
    ASSERT_TRUE(i.is_single_point()) << show(i);
    EXPECT_TRUE(equal(i.min, Let::make("t.min", y * y, var(Int(32), "t.min") + 1))) << show(i);
    // A cheap value is substituted instead.
    EXPECT_ENDS(bounds(Let::make("t", n, t + 1)), n + 1, n + 1);
}

}  // namespace
}  // namespace dsl
