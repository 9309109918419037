// Unit tests of the simplifier's rule families, checking exact results.
#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"

namespace dsl {
namespace {

using namespace ir;

Expr var(Type t, const std::string &name) {
    return Variable::make(t, name);
}

#define EXPECT_SIMPLIFIES(input, expected)                                                 \
    do {                                                                                   \
        Expr in_ = (input), want_ = (expected);                                            \
        Expr got_ = simplify(in_);                                                         \
        EXPECT_TRUE(equal(got_, want_))                                                    \
            << "simplify(" << in_ << ")\n  gave     " << got_ << "\n  expected " << want_; \
    } while (0)

#define EXPECT_UNCHANGED(input)                                            \
    do {                                                                   \
        Expr in_ = (input);                                                \
        Expr got_ = simplify(in_);                                         \
        EXPECT_TRUE(equal(got_, in_))                                      \
            << "simplify(" << in_ << ") should not change, gave " << got_; \
    } while (0)

const Expr x = var(Int(32), "x"), y = var(Int(32), "y"), z = var(Int(32), "z");

const Expr u8 = var(UInt(8), "u8"), i8 = var(Int(8), "i8"), u32 = var(UInt(32), "u32");
const Expr f = var(Float(32), "f"), g = var(Float(32), "g");
const Expr b1 = var(Bool(), "b1"), b2 = var(Bool(), "b2");

Expr bcast(const Expr &e, int lanes) {
    return Broadcast::make(e, lanes);
}
Expr ramp(const Expr &base, const Expr &stride, int lanes) {
    return Ramp::make(base, stride, lanes);
}

/// Simplifies with `name` known to lie in [lo, hi].
Expr simplify_with(const Expr &e,
                   std::initializer_list<std::tuple<std::string, int64_t, int64_t>> facts) {
    Scope<ConstantBounds> bounds;
    for (const auto &[name, lo, hi] : facts)
        bounds.push(name, ConstantBounds::range(lo, hi));
    return simplify(e, bounds);
}

TEST(Simplify, LeavesSimpleExpressionsUnchanged) {
    EXPECT_SIMPLIFIES(x, x);
    EXPECT_SIMPLIFIES(x + y, x + y);
    EXPECT_SIMPLIFIES(f + g, f + g);
}

TEST(Simplify, ArithmeticConstantFolding) {
    EXPECT_SIMPLIFIES(Expr(3) + 4, Expr(7));
    EXPECT_SIMPLIFIES(Expr(3) * -4 - 2, Expr(-14));
    EXPECT_SIMPLIFIES(Expr(uint8_t(250)) + uint8_t(10), Expr(uint8_t(4)));
    EXPECT_SIMPLIFIES(Expr(int8_t(127)) + int8_t(1), Expr(int8_t(-128)));
    EXPECT_SIMPLIFIES(Expr(uint32_t(0)) - uint32_t(1), Expr(uint32_t(0xffffffffu)));
    // 32-bit signed overflow is left alone rather than folded to some value.
    Expr overflow = Add::make(Expr(2147483647), Expr(1));
    EXPECT_TRUE(equal(simplify(overflow), overflow));
    // Floats round to their type.
    EXPECT_SIMPLIFIES(Expr(0.1f) + 0.2f, Expr(0.1f + 0.2f));
    Expr h = FloatImm::make(Float(16), 1.0), tiny = FloatImm::make(Float(16), 0.0001);
    EXPECT_SIMPLIFIES(Add::make(h, tiny), FloatImm::make(Float(16), 1.0 + 0.0001));
}

TEST(Simplify, DivisionAndModuloConstantFoldingIsEuclidean) {
    EXPECT_SIMPLIFIES(Expr(-7) / 2, Expr(-4));
    EXPECT_SIMPLIFIES(Expr(7) / -2, Expr(-3));
    EXPECT_SIMPLIFIES(Expr(-7) % 2, Expr(1));
    EXPECT_SIMPLIFIES(Expr(7) % -2, Expr(1));
    EXPECT_SIMPLIFIES(Expr(7) / 0, Expr(0));
    EXPECT_SIMPLIFIES(Expr(7) % 0, Expr(0));
    EXPECT_SIMPLIFIES(x / 0, Expr(0));
    EXPECT_SIMPLIFIES(x % 0, Expr(0));
    EXPECT_SIMPLIFIES(x / 1, x);
    EXPECT_SIMPLIFIES(x % 1, Expr(0));
    EXPECT_SIMPLIFIES(Expr(int8_t(-128)) / int8_t(-1), Expr(int8_t(-128)));
}

TEST(Simplify, CanonicalSums) {
    EXPECT_SIMPLIFIES(3 + x, x + 3);
    EXPECT_SIMPLIFIES(x - 3, x + (-3));
    EXPECT_SIMPLIFIES(x + 0, x);
    EXPECT_SIMPLIFIES((x + 3) + 5, x + 8);
    EXPECT_SIMPLIFIES((x + 3) - 5, x + (-2));
    EXPECT_SIMPLIFIES(x * 3 + x, x * 4);
    EXPECT_SIMPLIFIES(x + x, x * 2);
    EXPECT_SIMPLIFIES(x * 3 - x * 5, x * -2);
    EXPECT_SIMPLIFIES((x + y) - x, y);
    EXPECT_SIMPLIFIES((x + y) - y, x);
    EXPECT_SIMPLIFIES((x - y) + y, x);
    EXPECT_SIMPLIFIES(x - (x - y), y);
    EXPECT_SIMPLIFIES((x + 3) - (x + 1), Expr(2));
    EXPECT_SIMPLIFIES((x + y + 3) - (x + y), Expr(3));
    EXPECT_SIMPLIFIES(x - x, Expr(0));
    // A constant difference however the sides nest (no bounds on x and y are needed: the
    // terms are those of the original expression).
    EXPECT_SIMPLIFIES(((x + y) + 3) - (x + (y + 1)), Expr(2));
    EXPECT_SIMPLIFIES((x * 4 + (y - 2)) - (y + x * 4), Expr(-2));
    // A row of an unrolled tile less the tile's first row: the new sum is the whole value.
    EXPECT_SIMPLIFIES(((x + y * 6) + 1) - x, y * 6 + 1);
    EXPECT_SIMPLIFIES(((y * 6 + x) + 2) - x, y * 6 + 2);
    // Distributing creates x * 6, which must provably not overflow for 32-bit integers.
    EXPECT_TRUE(equal(simplify_with((x * 2 + 4) * 3, {{"x", -100, 100}}), x * 6 + 12));
    EXPECT_SIMPLIFIES((u8 * uint8_t(2) + uint8_t(4)) * uint8_t(3), u8 * uint8_t(6) + uint8_t(12));
    EXPECT_SIMPLIFIES(x * 1, x);
    EXPECT_SIMPLIFIES(x * 0, Expr(0));
    EXPECT_SIMPLIFIES((x * 2) * 3, x * 6);
    // Unsigned subtraction of a constant stays a subtraction.
    EXPECT_SIMPLIFIES(u32 - uint32_t(3), u32 - uint32_t(3));
    EXPECT_SIMPLIFIES((u32 + uint32_t(5)) - uint32_t(3), u32 + uint32_t(2));
}

TEST(Simplify, ReassociationOfBoundedTerms) {
    // Moving constants out of a 32-bit sum creates the term x + y, which must not overflow
    // where the original did not: with bounds it provably does not.
    Expr e = (x + 3) + (y + 5);
    EXPECT_TRUE(equal(simplify_with(e, {{"x", 0, 1000}, {"y", -50, 50}}), (x + y) + 8))
        << simplify_with(e, {{"x", 0, 1000}, {"y", -50, 50}});
    // Narrow types wrap, so reassociation is a ring identity there.
    EXPECT_SIMPLIFIES((u8 + uint8_t(3)) + (u8 + uint8_t(5)), u8 * uint8_t(2) + uint8_t(8));
    EXPECT_SIMPLIFIES((i8 + int8_t(3)) + (i8 + int8_t(5)), i8 * int8_t(2) + int8_t(8));
}

TEST(Simplify, DivisionAndModuloUseAlignment) {
    EXPECT_SIMPLIFIES((x * 4 + 3) % 4, Expr(3));
    EXPECT_SIMPLIFIES((x * 8) / 4, x * 2);
    EXPECT_SIMPLIFIES((x * 4) / 8, x / 2);
    EXPECT_SIMPLIFIES((x * 4 + 3) / 4, x);
    EXPECT_SIMPLIFIES((x * 6 + y) / 3, x * 2 + y / 3);
    EXPECT_SIMPLIFIES((x + 8) / 4, x / 4 + 2);
    EXPECT_SIMPLIFIES((x * 8 + 5) % 4, Expr(1));
    EXPECT_SIMPLIFIES((x + y * 8) % 4, x % 4);
    EXPECT_SIMPLIFIES((x % 8) % 4, x % 4);
    EXPECT_SIMPLIFIES((x / 2) / 3, x / 6);
    EXPECT_SIMPLIFIES(x - (x / 8) * 8, x % 8);
    EXPECT_SIMPLIFIES((x / 8) * 8 + x % 8, x);
    // A divisor that is not a constant: only where it is known to be at least 1 (y == 0 gives
    // 0 on the left). The coordinates of a point of a row of length y back to its offset.
    EXPECT_TRUE(equal(simplify_with((x / y) * y + x % y, {{"y", 1, 1000}}), x));
    EXPECT_TRUE(equal(simplify_with(x % y + (x / y) * y, {{"y", 1, 1000}}), x));
    EXPECT_FALSE(equal(simplify_with((x / y) * y + x % y, {{"y", 0, 1000}}), x));
    EXPECT_FALSE(equal(simplify((x / y) * y + x % y), x));
    EXPECT_SIMPLIFIES(i8 - (i8 / int8_t(3)) * int8_t(3), i8 % int8_t(3));
    EXPECT_SIMPLIFIES((x % 8) / 8, Expr(0));
    EXPECT_SIMPLIFIES(x % -4, x % 4);
    EXPECT_SIMPLIFIES(x / -4, 0 - x / 4);
    EXPECT_SIMPLIFIES(x / 4 < 3, x < 12);
    EXPECT_SIMPLIFIES(x / 4 <= 3, x <= 15);
    EXPECT_SIMPLIFIES(3 < x / 4, 15 < x);
    EXPECT_SIMPLIFIES(u8 / uint8_t(16) < uint8_t(2), u8 < uint8_t(32));
    // For a wrapping type (x * 4) / 4 is not x: x * 4 may have wrapped.
    Expr w = (u8 * uint8_t(4)) / uint8_t(4);
    EXPECT_FALSE(equal(simplify(w), u8)) << simplify(w);
    // But a power-of-two modulus survives wrap-around.
    EXPECT_SIMPLIFIES((u8 * uint8_t(4) + uint8_t(3)) % uint8_t(4), Expr(uint8_t(3)));
}

TEST(Simplify, MinMax) {
    EXPECT_SIMPLIFIES(min(Expr(3), Expr(5)), Expr(3));
    EXPECT_SIMPLIFIES(max(Expr(3), Expr(5)), Expr(5));
    EXPECT_SIMPLIFIES(min(x, x), x);
    EXPECT_SIMPLIFIES(min(4, x), min(x, 4));
    EXPECT_SIMPLIFIES(min(min(x, 5), 3), min(x, 3));
    EXPECT_SIMPLIFIES(max(max(x, 5), 3), max(x, 5));
    EXPECT_SIMPLIFIES(min(min(x, 5), y), min(min(x, y), 5));
    EXPECT_SIMPLIFIES(min(x, x + 1), x);
    EXPECT_SIMPLIFIES(min(x + 3, x), x);
    EXPECT_SIMPLIFIES(max(x + 3, x + 5), x + 5);
    EXPECT_SIMPLIFIES(max(min(x, y), x), x);
    EXPECT_SIMPLIFIES(min(max(x, y), x), x);
    EXPECT_SIMPLIFIES(min(x, min(x, y)), min(x, y));
    EXPECT_SIMPLIFIES(min(x + 2, y + 2), min(x, y) + 2);
    EXPECT_SIMPLIFIES(min(x / 4, y / 4), min(x, y) / 4);
    EXPECT_SIMPLIFIES(max(x * 4, y * 4), max(x, y) * 4);
    EXPECT_SIMPLIFIES(max(x * -2, y * -2), min(x, y) * -2);
    // An empty clamp.
    EXPECT_SIMPLIFIES(min(max(x, 10), 5), Expr(5));
    EXPECT_SIMPLIFIES(max(min(x, 5), 10), Expr(10));
    // Decided by bounds.
    EXPECT_SIMPLIFIES(min(x % 8, 10), x % 8);
    EXPECT_SIMPLIFIES(max(x % 8, -1), x % 8);
    EXPECT_SIMPLIFIES(min(u8, uint8_t(255)), u8);
    EXPECT_SIMPLIFIES(max(cast<int32_t>(u8), 300), Expr(300));
    // For uint8 x + 1 may wrap below x.
    Expr m = min(u8, u8 + uint8_t(1));
    EXPECT_TRUE(equal(simplify(m), m)) << simplify(m);
    // Sides that differ by a constant however they are written: a sliding window's steady
    // state, where the rules cannot reassociate without bounds on x and y.
    EXPECT_SIMPLIFIES(max(x + y, (x + (y + -1)) + 3), (x + (y + -1)) + 3);
    EXPECT_SIMPLIFIES(min(x * 4 + (y - 2), y + x * 4), x * 4 + (y + -2));
    // Not for a type that wraps: u32 + v + 1 may be 0.
    Expr wraps = max(u32 + var(UInt(32), "v"), (u32 + uint32_t(1)) + var(UInt(32), "v"));
    EXPECT_NE(simplify(wraps).as<Max>(), nullptr) << simplify(wraps);
    // A vector minimum decided by the ramp's bounds.
    EXPECT_SIMPLIFIES(min(ramp(x % 4, 1, 4), bcast(Expr(10), 4)), ramp(x % 4, 1, 4));
    EXPECT_SIMPLIFIES(max(ramp(Expr(0), Expr(1), 4), bcast(Expr(3), 4)), bcast(Expr(3), 4));
}

TEST(Simplify, ComparisonsAndBounds) {
    EXPECT_SIMPLIFIES(x < x, const_false());
    EXPECT_SIMPLIFIES(x <= x, const_true());
    EXPECT_SIMPLIFIES(x == x, const_true());
    EXPECT_SIMPLIFIES(x % 8 < 8, const_true());
    EXPECT_SIMPLIFIES(x % 8 >= 0, const_true());
    EXPECT_SIMPLIFIES(x % 8 == 9, const_false());
    EXPECT_SIMPLIFIES(x * 2 < x * 2 + 1, const_true());
    EXPECT_SIMPLIFIES(x + 1 > x, const_true());
    EXPECT_SIMPLIFIES(x > y, y < x);
    EXPECT_SIMPLIFIES(x >= y, y <= x);
    EXPECT_SIMPLIFIES(x + 3 < 10, x < 7);
    EXPECT_SIMPLIFIES(x + y < x + z, y < z);
    EXPECT_SIMPLIFIES((x + (y + -1)) + 3 <= x + y, const_false());
    EXPECT_SIMPLIFIES((x + (y + -1)) + 1 == y + x, const_true());
    EXPECT_SIMPLIFIES(x * 4 < 10, x < 3);
    EXPECT_SIMPLIFIES(x * 2 == 3, const_false());
    EXPECT_SIMPLIFIES(x + 2 == 5, x == 3);
    EXPECT_SIMPLIFIES(cast<int32_t>(u8) < 256, const_true());
    EXPECT_SIMPLIFIES(u8 <= uint8_t(255), const_true());
    // Negative: for uint8, x + 1 > x is false at 255.
    Expr wrap = u8 + uint8_t(1) > u8;
    EXPECT_FALSE(is_const(simplify(wrap))) << simplify(wrap);
    // Bounds from the caller.
    Scope<ConstantBounds> bounds;
    bounds.push("x", ConstantBounds::range(0, 15));
    EXPECT_TRUE(is_const_true(simplify(x < 16, bounds)));
    EXPECT_TRUE(is_const_false(simplify(x > 20, bounds)));
}

TEST(Simplify, LogicAndNegation) {
    EXPECT_SIMPLIFIES(b1 && const_true(), b1);
    EXPECT_SIMPLIFIES(b1 && const_false(), const_false());
    EXPECT_SIMPLIFIES(b1 || const_true(), const_true());
    EXPECT_SIMPLIFIES(b1 && !b1, const_false());
    EXPECT_SIMPLIFIES(b1 || !b1, const_true());
    EXPECT_SIMPLIFIES(b1 && b1, b1);
    EXPECT_SIMPLIFIES(!!b1, b1);
    EXPECT_SIMPLIFIES(b1 && (b1 || b2), b1);
    EXPECT_SIMPLIFIES(!(x < y), y <= x);
    EXPECT_SIMPLIFIES(!(x == y), x != y);
    EXPECT_SIMPLIFIES(!(b1 && b2), !b1 || !b2);
    EXPECT_SIMPLIFIES(!(b1 || b2), !b1 && !b2);
    EXPECT_SIMPLIFIES(x < 3 && x < 5, x < 3);
    EXPECT_SIMPLIFIES(x < 3 || x < 5, x < 5);
    // The right side knows the left side's verdict.
    EXPECT_SIMPLIFIES(x < 10 && min(x, 20) < y, x < 10 && x < y);
    EXPECT_SIMPLIFIES(x < 10 || max(x, 5) == y, x < 10 || x == y);
    // Negative: !(a < b) is not b <= a for floats (NaN).
    Expr n = !(f < g);
    EXPECT_TRUE(equal(simplify(n), n)) << simplify(n);
    EXPECT_SIMPLIFIES(!(f == g), f != g);
}

TEST(Simplify, Select) {
    EXPECT_SIMPLIFIES(select(const_true(), x, y), x);
    EXPECT_SIMPLIFIES(select(const_false(), x, y), y);
    EXPECT_SIMPLIFIES(select(b1, x, x), x);
    EXPECT_SIMPLIFIES(select(!b1, x, y), select(b1, y, x));
    EXPECT_SIMPLIFIES(select(x % 4 < 4, x, y), x);
    EXPECT_SIMPLIFIES(select(b1, select(b1, x, y), z), select(b1, x, z));
    EXPECT_SIMPLIFIES(select(b1, const_true(), const_false()), b1);
    EXPECT_SIMPLIFIES(select(b1, b2, const_false()), b1 && b2);
    EXPECT_SIMPLIFIES(select(b1, x + 1, y) + select(b1, 2, z), select(b1, x + 3, y + z));
    EXPECT_SIMPLIFIES(select(b1, 1, 2) * 3 + 1, select(b1, 4, 7));
    // Each side knows the condition's verdict.
    EXPECT_SIMPLIFIES(select(x < 10, min(x, 20), max(x, 5)), x);
    EXPECT_SIMPLIFIES(select(x < 10, min(x, 20), y), select(x < 10, x, y));
    EXPECT_SIMPLIFIES(select(x < 10, x, x) < 10, x < 10);
    // But both sides are computed in every lane: a side that reads memory keeps what makes it
    // safe where the condition has the other verdict (the clamp of a boundary condition's load,
    // which the test for the outside would otherwise remove).
    Expr clamped = Load::make(Int(32), "buf", max(min(x, 15), 0), const_true());
    EXPECT_UNCHANGED(select(x < 0 || 15 < x, 3, clamped));
    Expr image = Call::make(Int(32), "img", {max(x, 0)}, Call::CallType::Image);
    EXPECT_UNCHANGED(select(x < 0, 3, image));
}

TEST(Simplify, Vectors) {
    EXPECT_SIMPLIFIES(bcast(x, 4) + bcast(y, 4), bcast(x + y, 4));
    EXPECT_SIMPLIFIES(ramp(x, 2, 4) + bcast(y, 4), ramp(x + y, 2, 4));
    EXPECT_SIMPLIFIES(ramp(x, 2, 4) + ramp(y, 3, 4), ramp(x + y, 5, 4));
    EXPECT_SIMPLIFIES(ramp(x, 2, 4) * bcast(Expr(3), 4), ramp(x * 3, 6, 4));
    EXPECT_SIMPLIFIES(ramp(x, 0, 4), bcast(x, 4));
    EXPECT_SIMPLIFIES(ramp(x * 4, 4, 8) / bcast(Expr(4), 8), ramp(x, 1, 8));
    EXPECT_SIMPLIFIES(ramp(x * 8, 1, 4) / bcast(Expr(8), 4), bcast(x, 4));
    EXPECT_SIMPLIFIES(ramp(x * 8, 1, 4) % bcast(Expr(8), 4), ramp(Expr(0), Expr(1), 4));
    EXPECT_SIMPLIFIES(bcast(x, 4) < bcast(y, 4), bcast(x < y, 4));
    EXPECT_SIMPLIFIES(Shuffle::make_slice(ramp(x, 1, 8), 2, 2, 3), ramp(x + 2, 2, 3));
    EXPECT_SIMPLIFIES(Shuffle::make_extract_element(ramp(x, 3, 8), 2), x + 6);
    EXPECT_SIMPLIFIES(Shuffle::make_extract_element(bcast(x, 4), 1), x);
    EXPECT_SIMPLIFIES(Shuffle::make_concat({ramp(x, 1, 4), ramp(x + 4, 1, 4)}), ramp(x, 1, 8));
    EXPECT_SIMPLIFIES(Shuffle::make_concat({bcast(x, 2), bcast(x, 2)}), bcast(x, 4));
    Expr v = var(Int(32, 4), "v"), w = var(Int(32, 4), "w");
    EXPECT_SIMPLIFIES(Shuffle::make_slice(Shuffle::make_concat({v, w}), 4, 1, 4), w);
    EXPECT_SIMPLIFIES(VectorReduce::make(VectorReduce::Op::Add, bcast(x, 4), 1), x * 4);
    EXPECT_SIMPLIFIES(VectorReduce::make(VectorReduce::Op::Max, bcast(x, 8), 2), bcast(x, 2));
    EXPECT_SIMPLIFIES(VectorReduce::make(VectorReduce::Op::Add, ramp(Expr(0), Expr(1), 4), 1),
                      Expr(6));
    // A vector constant with unrelated lanes is a concatenation of constants.
    EXPECT_SIMPLIFIES(Shuffle::make_concat({Expr(3), Expr(5), Expr(4)}) * bcast(Expr(2), 3) +
                          ramp(Expr(0), Expr(1), 3),
                      Shuffle::make_concat({Expr(6), Expr(11), Expr(10)}));
    EXPECT_SIMPLIFIES(Shuffle::make_concat({Expr(3), Expr(5)}) + bcast(Expr(1), 2),
                      ramp(Expr(4), Expr(2), 2));
    // Loads of ramp indices simplify their index.
    Expr load =
        Load::make(Int(32, 4), "buf", ramp(x * 4 + 1, 1, 4) - bcast(Expr(1), 4), const_true(4));
    Expr want =
        Load::make(Int(32, 4), "buf", ramp(x * 4, 1, 4), const_true(4), ModulusRemainder{4, 0});
    Expr simplified_load = simplify(load);
    EXPECT_TRUE(equal(simplified_load, want)) << simplified_load;
    // Every lane reading one element is one scalar load, broadcast (not a gather).
    EXPECT_SIMPLIFIES(Load::make(Float(32, 8), "buf", bcast(x + 1, 8), const_true(8)),
                      bcast(Load::make(Float(32), "buf", x + 1, const_true()), 8));
    EXPECT_SIMPLIFIES(Load::make(Float(32, 8), "buf", bcast(x, 8), bcast(b1, 8)),
                      bcast(Load::make(Float(32), "buf", x, b1), 8));
    // The index's alignment is recorded.
    ASSERT_TRUE(simplified_load.as<Load>());
    EXPECT_EQ(simplified_load.as<Load>()->alignment, (ModulusRemainder{4, 0}));
}

TEST(Simplify, Casts) {
    EXPECT_SIMPLIFIES(cast<int32_t>(x), x);
    EXPECT_SIMPLIFIES(cast<uint8_t>(Expr(300)), Expr(uint8_t(44)));
    EXPECT_SIMPLIFIES(cast<int8_t>(Expr(200)), Expr(int8_t(-56)));
    EXPECT_SIMPLIFIES(cast<int32_t>(Expr(-2.7f)), Expr(-2));
    EXPECT_SIMPLIFIES(cast<bool>(Expr(5)), const_true());
    EXPECT_SIMPLIFIES(cast<float>(Expr(3)), Expr(3.0f));
    EXPECT_SIMPLIFIES(cast(Float(16), Expr(0.1)), FloatImm::make(Float(16), 0.1));
    // Out of range float to int is unspecified: not folded.
    Expr big = cast<int8_t>(Expr(1000.0f));
    EXPECT_TRUE(equal(simplify(big), big));
    // A middle type that holds every value drops out; so do two truncations.
    EXPECT_SIMPLIFIES(cast<int64_t>(cast<int32_t>(u8)), cast<int64_t>(u8));
    EXPECT_SIMPLIFIES(cast<uint8_t>(cast<int16_t>(x)), cast<uint8_t>(x));
    Expr narrowing = cast<int32_t>(cast<uint8_t>(x));
    EXPECT_TRUE(equal(simplify(narrowing), narrowing));
    EXPECT_SIMPLIFIES(cast(Int(64, 4), bcast(x, 4)), bcast(cast<int64_t>(x), 4));
    EXPECT_SIMPLIFIES(cast(Int(64, 4), ramp(x, 1, 4)), ramp(cast<int64_t>(x), Expr(int64_t(1)), 4));
}

TEST(Simplify, FloatsOnlyExactRewrites) {
    EXPECT_SIMPLIFIES(f * 1.0f, f);
    EXPECT_SIMPLIFIES(f + Expr(-0.0f), f);
    EXPECT_SIMPLIFIES(f - 0.0f, f);
    EXPECT_SIMPLIFIES(-(-f), f);
    EXPECT_SIMPLIFIES(f / 1.0f, f);
    // Not exact in IEEE arithmetic.
    for (const Expr &e : {f + 0.0f, f - f, f * 0.0f, (f + 1.0f) + 2.0f, f - Expr(-0.0f)}) {
        EXPECT_TRUE(equal(simplify(e), e)) << e << " became " << simplify(e);
    }
}

TEST(Simplify, Intrinsics) {
    EXPECT_SIMPLIFIES(x >> 2, x / 4);
    EXPECT_SIMPLIFIES(u8 << 1, u8 * uint8_t(2));
    EXPECT_SIMPLIFIES(x & 7, x % 8);
    EXPECT_SIMPLIFIES(x | 0, x);
    EXPECT_SIMPLIFIES(x ^ x, Expr(0));
    EXPECT_SIMPLIFIES(~~x, x);
    EXPECT_SIMPLIFIES(~x, -1 - x);
    EXPECT_SIMPLIFIES((x + 2) + ~x, Expr(1));
    EXPECT_SIMPLIFIES(u8 >> 9, Expr(uint8_t(0)));
    EXPECT_SIMPLIFIES(x << -2, x / 4);
    EXPECT_SIMPLIFIES((x << 4) % 8, Expr(0));
    EXPECT_SIMPLIFIES(x % x, Expr(0));
    EXPECT_SIMPLIFIES(x & -1, x);
    EXPECT_SIMPLIFIES(Expr(6) & 3, Expr(2));
    EXPECT_SIMPLIFIES(Expr(1) << 4, Expr(16));
    EXPECT_SIMPLIFIES(Expr(-16) >> 2, Expr(-4));
    EXPECT_SIMPLIFIES(sqrt(Expr(4.0f)), Expr(2.0f));
    EXPECT_SIMPLIFIES(floor(Expr(-2.5f)), Expr(-3.0f));
    EXPECT_SIMPLIFIES(abs(Expr(-5)), Expr(uint32_t(5)));
    // A 32-bit left shift wraps, so it is not a multiplication unless it provably fits.
    Expr shl = x << 3;
    EXPECT_TRUE(equal(simplify(shl), shl)) << simplify(shl);
    EXPECT_SIMPLIFIES((x % 16) << 3, (x % 16) * 8);
    // 2^31 is no int32 constant: -1 << 31 stays a shift.
    Expr top = (min(max(x, -1), 0)) << 31;
    EXPECT_FALSE(simplify(top).as<Mul>()) << simplify(top);
}

TEST(Simplify, Lets) {
    EXPECT_SIMPLIFIES(Let::make("t", Expr(3), Variable::make(Int(32), "t") + x), x + 3);
    EXPECT_SIMPLIFIES(Let::make("t", y, Variable::make(Int(32), "t") * 2), y * 2);
    EXPECT_SIMPLIFIES(Let::make("t", x * y, x), x);
    Expr t = Variable::make(Int(32), "t");
    EXPECT_SIMPLIFIES(Let::make("t", x * y, t + t), Let::make("t", x * y, t * 2));
    // A substituted variable is not captured by an inner let of the same name.
    Expr outer = Let::make("t", y, Let::make("y", x * x, t + y));
    Expr renamed = Variable::make(Int(32), "y_1");
    EXPECT_SIMPLIFIES(outer, Let::make("y_1", x * x, y + renamed));
    // Ramps of variables are substituted so that vector rules see them.
    Expr r = Variable::make(Int(32, 4), "r");
    EXPECT_SIMPLIFIES(Let::make("r", ramp(x, 1, 4), r + bcast(Expr(2), 4)), ramp(x + 2, 1, 4));
    // The value's facts are known inside the body.
    EXPECT_SIMPLIFIES(Let::make("t", x % 8, t < 8), const_true());
}

TEST(Simplify, CanProve) {
    EXPECT_TRUE(can_prove(x + 1 > x));
    EXPECT_TRUE(can_prove(x % 8 < 8));
    EXPECT_TRUE(can_prove(min(x, y) <= x));
    EXPECT_TRUE(can_prove((x * 4 + 2) % 2 == 0));
    EXPECT_FALSE(can_prove(x < y));
    EXPECT_FALSE(can_prove(u8 + uint8_t(1) > u8));
    EXPECT_FALSE(can_prove(f == f));
    Scope<ConstantBounds> bounds;
    bounds.push("x", ConstantBounds::range(0, 9));
    EXPECT_TRUE(can_prove(x * 2 < 20, bounds));
    EXPECT_FALSE(can_prove(x * 2 < 18, bounds));
}

TEST(Simplify, ConstantBoundsOfExpressions) {
    ConstantBounds b = constant_bounds(x % 8 + 2);
    EXPECT_EQ(b.min, 2);
    EXPECT_EQ(b.max, 9);
    b = constant_bounds(cast<int32_t>(u8) * 2);
    EXPECT_EQ(b.min, 0);
    EXPECT_EQ(b.max, 510);
    Scope<ConstantBounds> bounds;
    bounds.push("x", ConstantBounds::range(-3, 5));
    b = constant_bounds(min(x, 2) - 1, bounds);
    EXPECT_EQ(b.min, -4);
    EXPECT_EQ(b.max, 1);
    EXPECT_FALSE(constant_bounds(f).min.has_value());
}

TEST(Simplify, ModulusRemainderAnalysis) {
    EXPECT_EQ(modulus_remainder(x * 4 + 3), (ModulusRemainder{4, 3}));
    EXPECT_EQ(modulus_remainder(x * 6 + y * 4 + 1), (ModulusRemainder{2, 1}));
    EXPECT_EQ(modulus_remainder(Expr(17)), ModulusRemainder::constant(17));
    EXPECT_EQ(modulus_remainder((x * 8 + 4) / 4), (ModulusRemainder{2, 1}));
    EXPECT_EQ(modulus_remainder(select(b1, x * 4 + 1, x * 8 + 5)), (ModulusRemainder{4, 1}));
    EXPECT_EQ(modulus_remainder(x), ModulusRemainder::unknown());
    EXPECT_EQ(modulus_remainder(ramp(x * 8, 2, 4)), (ModulusRemainder{2, 0}));
    // uint8 wraps modulo 256: only the part of the modulus dividing 256 survives.
    EXPECT_EQ(modulus_remainder(u8 * uint8_t(12) + uint8_t(1)), (ModulusRemainder{4, 1}));
    Scope<ModulusRemainder> facts;
    facts.push("x", ModulusRemainder{3, 1});
    EXPECT_EQ(modulus_remainder(x * 2, facts), (ModulusRemainder{6, 2}));
    // The arithmetic of facts.
    EXPECT_EQ(ModulusRemainder::make(4, -1), (ModulusRemainder{4, 3}));
    EXPECT_EQ(unify(ModulusRemainder::constant(3), ModulusRemainder::constant(7)),
              (ModulusRemainder{4, 3}));
    EXPECT_EQ((ModulusRemainder{8, 5} % ModulusRemainder::constant(4)),
              ModulusRemainder::constant(1));
}

Stmt store(const Expr &value, const Expr &index) {
    return Store::make("out", value, index, const_true(value.type().lanes()));
}

TEST(Simplify, Statements) {
    Expr i = Variable::make(Int(32), "i");
    // Loop bounds are known inside the body.
    Stmt loop = For::make("i", 0, 8, ForType::Serial, DeviceAPI::None,
                          IfThenElse::make(i < 8, store(i % 8, i), store(x, i)));
    Stmt want = For::make("i", 0, 8, ForType::Serial, DeviceAPI::None, store(i, i));
    EXPECT_TRUE(equal(simplify(loop), want)) << simplify(loop);
    // Empty and single-iteration loops.
    Stmt empty = For::make("i", 0, 0, ForType::Serial, DeviceAPI::None, store(i, i));
    EXPECT_TRUE(is_const(simplify(empty).as<Evaluate>()->value));
    Stmt once = For::make("i", x, 1, ForType::Serial, DeviceAPI::None, store(i + 1, i));
    EXPECT_TRUE(equal(simplify(once), store(x + 1, x))) << simplify(once);
    // Blocks flatten and lose no-ops; asserts that hold disappear.
    Stmt block = Block::make({Evaluate::make(0),
                              Block::make(store(x, y), AssertStmt::make(x % 2 < 2, Expr("msg"))),
                              store(y, x)});
    EXPECT_TRUE(equal(simplify(block), Block::make(store(x, y), store(y, x)))) << simplify(block);
    // A branch knows its condition.
    Stmt learned = IfThenElse::make(x < 10 && 0 <= x, store(select(x < 20, y, z), x / 16),
                                    IfThenElse::make(x == 3, store(x + 1, 0)));
    Stmt want_learned =
        IfThenElse::make(x < 10 && 0 <= x, store(y, 0), IfThenElse::make(x == 3, store(4, 0)));
    EXPECT_TRUE(equal(simplify(learned), want_learned)) << simplify(learned);
    Stmt negated =
        IfThenElse::make(x < 10, store(y, 0), IfThenElse::make(x == 3, store(x, 0), store(z, 0)));
    EXPECT_TRUE(equal(simplify(negated), IfThenElse::make(x < 10, store(y, 0), store(z, 0))))
        << simplify(negated);
    // Constant conditions pick a branch.
    Stmt branch = IfThenElse::make(Expr(1) < 2, store(x, 0), store(y, 0));
    EXPECT_TRUE(equal(simplify(branch), store(x, 0)));
    // Lets of constants are substituted; unused lets vanish.
    Stmt let = LetStmt::make("t", 4, store(Variable::make(Int(32), "t") * x, 0));
    EXPECT_TRUE(equal(simplify(let), store(x * 4, 0))) << simplify(let);
    Stmt unused = LetStmt::make("t", x * y, store(x, 0));
    EXPECT_TRUE(equal(simplify(unused), store(x, 0)));
}

// A loop over a region computed per tile: its extent max - min + 1 names two lets whose values
// differ by a constant. The simplifier sees through them and makes the extent that constant, so
// that the loop can be unrolled or vectorized.
TEST(Simplify, LoopExtentsConstantThroughLets) {
    Expr i = Variable::make(Int(32), "i");
    Expr lo = Variable::make(Int(32), "f.min"), hi = Variable::make(Int(32), "f.max");
    Stmt loop = For::make("i", lo, (hi - lo) + 1, ForType::Serial, DeviceAPI::None, store(i, i));
    Stmt s = LetStmt::make("f.min", min(x * 6, y), LetStmt::make("f.max", min(x * 6, y) + 5, loop));
    Stmt simplified = simplify(s);
    const auto *outer = simplified.as<LetStmt>();
    ASSERT_TRUE(outer) << simplified;
    const auto *inner = outer->body.as<LetStmt>();
    const auto *f = inner ? inner->body.as<For>() : outer->body.as<For>();
    ASSERT_TRUE(f) << simplified;
    EXPECT_TRUE(is_const(f->extent, 6)) << simplified;
    // An extent that is not constant stays as it was.
    Stmt varying = LetStmt::make("f.min", x,
                                 LetStmt::make("f.max", y,
                                               For::make("i", lo, (hi - lo) + 1, ForType::Serial,
                                                         DeviceAPI::None, store(i, i))));
    Stmt simplified_varying = simplify(varying);
    const auto *varying_loop = simplified_varying.as<For>();
    ASSERT_TRUE(varying_loop) << simplified_varying;
    EXPECT_FALSE(is_const(varying_loop->extent)) << simplified_varying;
}

// A producer computed per iteration stores at its coordinate, a let of the region's minimum,
// minus the allocation's minimum, the same value spelled out (a row of a fused loop: n % h).
// The difference is a constant only the let's value shows; seen through, the accumulator's index
// is a constant and the allocation can live in registers.
TEST(Simplify, DifferenceOfALetAndItsValue) {
    Expr row = Variable::make(Int(32), "f.row");
    Stmt s = LetStmt::make("f.row", (x % y) + z, store(x, ((row - ((x % y) + z)) * 16) + 3));
    Stmt simplified = simplify(s);
    const auto *st = simplified.as<Store>();
    ASSERT_TRUE(st) << simplified;
    EXPECT_TRUE(is_const(st->index, 3)) << simplified;
    // A let whose value differs by a non-constant stays.
    Stmt other = LetStmt::make("f.row", (x % y) + z, store(x, row - (x % y)));
    EXPECT_TRUE(simplify(other).as<LetStmt>()) << simplify(other);
}

// Chains of LetStmts are simplified as one (SimplifyStmt.cpp): the lets the rest still uses stay,
// in order, and no others; a let shadowed by an inner one of the same name is judged by what
// sits between them; a let renamed to avoid capture keeps its renamed uses.
TEST(Simplify, LetStmtChains) {
    const int n = 400;
    auto a = [](int i) { return var(Int(32), "a" + std::to_string(i)); };
    // a_i = a_{i-2} * (i + 3) + x for even i, a_i = x * y + i for odd i; only the last even
    // one is stored, so every odd let goes.
    Stmt chain = store(a(n - 2), 0), want = chain;
    for (int i = n - 1; i >= 0; i--) {
        Expr value = i % 2 ? x * y + i : (i >= 2 ? a(i - 2) * (i + 3) + x : x * z);
        chain = LetStmt::make("a" + std::to_string(i), value, chain);
        if (i % 2 == 0) want = LetStmt::make("a" + std::to_string(i), value, want);
    }
    EXPECT_TRUE(equal(simplify(chain), want));
    // Shadowing: the inner `t` reads the outer one, which stays; an outer `t` that only an
    // inner `t` hides goes.
    Expr t = var(Int(32), "t");
    Stmt reads_outer = LetStmt::make("t", x * y, LetStmt::make("t", t * z, store(t, 0)));
    EXPECT_TRUE(equal(simplify(reads_outer), reads_outer)) << simplify(reads_outer);
    Stmt hidden = LetStmt::make("t", x * y, LetStmt::make("t", z * z, store(t, 0)));
    EXPECT_TRUE(equal(simplify(hidden), LetStmt::make("t", z * z, store(t, 0))))
        << simplify(hidden);
    // `b` is substituted by the outer `y`, so the inner `y` is renamed, and the let after it
    // reads the renamed one.
    Expr b = var(Int(32), "b"), c = var(Int(32), "c"), y1 = var(Int(32), "y_1");
    Stmt captured = LetStmt::make(
        "b", y, LetStmt::make("y", x * x, LetStmt::make("c", y * z, store(b + c, 0))));
    Stmt want_captured = LetStmt::make("y_1", x * x, LetStmt::make("c", y1 * z, store(y + c, 0)));
    EXPECT_TRUE(equal(simplify(captured), want_captured)) << simplify(captured);
}

}  // namespace
}  // namespace dsl

namespace dsl {
namespace {

using namespace ir;

TEST(Simplify, LargeExpressionsStayCheap) {
    // Long sums, deep let chains and wide min/max trees: no rewrite may re-simplify the whole
    // tree over and over (the test would then take minutes, not milliseconds).
    Expr sum = Variable::make(Int(32), "v0");
    for (int i = 1; i < 400; i++)
        sum = (sum + Variable::make(Int(32), "v" + std::to_string(i))) + (i % 7);
    Expr s = simplify(sum);
    EXPECT_TRUE(s.defined());
    Expr u8sum = Variable::make(UInt(8), "w0");
    for (int i = 1; i < 400; i++)
        u8sum = (u8sum + Variable::make(UInt(8), "w" + std::to_string(i))) + uint8_t(1);
    EXPECT_TRUE(simplify(u8sum).defined());
    Expr body = Variable::make(Int(32), "l0");
    for (int i = 1; i < 300; i++) {
        Expr prev = Variable::make(Int(32), "l" + std::to_string(i - 1));
        body = Let::make("l" + std::to_string(i - 1), prev * 3 + i, body);
    }
    EXPECT_TRUE(simplify(body).defined());
    Expr m = Variable::make(Int(32), "m0");
    for (int i = 1; i < 400; i++)
        m = (i % 2 ? min(m, Variable::make(Int(32), "m" + std::to_string(i)) + i) : max(m, i));
    EXPECT_TRUE(simplify(m).defined());
}

}  // namespace
}  // namespace dsl
