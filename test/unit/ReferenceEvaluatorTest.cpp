#include <gtest/gtest.h>

#include <cmath>

#include "common/RandomExpr.h"
#include "dsl/dsl.h"
#include "ir/Float16.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/ReferenceEvaluator.h"

namespace dsl {
namespace {

using namespace ir;

int64_t eval_int(const Expr &e) {
    Value v = evaluate(e);
    EXPECT_FALSE(v.undefined) << e;
    return v.type.is_int() ? v.as_int() : static_cast<int64_t>(v.as_uint());
}

double eval_float(const Expr &e) {
    return evaluate(e).as_float();
}

TEST(ReferenceEvaluator, DivisionIsEuclidean) {
    EXPECT_EQ(eval_int(Expr(-7) / 2), -4);
    EXPECT_EQ(eval_int(Expr(-7) % 2), 1);
    EXPECT_EQ(eval_int(Expr(7) / -2), -3);
    EXPECT_EQ(eval_int(Expr(7) % -2), 1);
    EXPECT_EQ(eval_int(Expr(-7) / -2), 4);
    EXPECT_EQ(eval_int(Expr(-7) % -2), 1);
    EXPECT_EQ(eval_int(Expr(6) / -3), -2);
    EXPECT_EQ(eval_int(Expr(int8_t(-128)) / int8_t(-1)), -128);  // narrow types wrap
}

TEST(ReferenceEvaluator, DivisionByZeroGivesZero) {
    EXPECT_EQ(eval_int(Expr(7) / 0), 0);
    EXPECT_EQ(eval_int(Expr(-7) % 0), 0);
    EXPECT_EQ(eval_int(Expr(uint8_t(9)) / uint8_t(0)), 0);
    EXPECT_TRUE(std::isinf(eval_float(Expr(1.0f) / 0.0f)));
}

TEST(ReferenceEvaluator, NarrowIntegersWrapAndWideOverflowIsUndefined) {
    EXPECT_EQ(eval_int(Expr(uint8_t(250)) + uint8_t(10)), 4);
    EXPECT_EQ(eval_int(Expr(int8_t(127)) + int8_t(1)), -128);
    EXPECT_EQ(eval_int(Expr(int16_t(300)) * int16_t(300)), 90000 - 65536 * 1);  // wraps mod 2^16
    EXPECT_TRUE(evaluate(Expr(2147483647) + 1).undefined);
    EXPECT_TRUE(evaluate(Expr(int64_t(INT64_MAX)) * int64_t(2)).undefined);
    EXPECT_FALSE(evaluate(Expr(uint32_t(0xffffffffu)) + uint32_t(1)).undefined);
    EXPECT_EQ(eval_int(Expr(uint32_t(0xffffffffu)) + uint32_t(1)), 0);
}

TEST(ReferenceEvaluator, CastsFollowTheSemantics) {
    EXPECT_EQ(eval_int(cast<uint8_t>(Expr(300))), 44);
    EXPECT_EQ(eval_int(cast<int8_t>(Expr(200))), -56);
    EXPECT_EQ(eval_int(cast<int32_t>(Expr(-2.7f))), -2);
    EXPECT_EQ(eval_int(cast<bool>(Expr(5))), 1);
    EXPECT_EQ(eval_int(cast<bool>(Expr(0.0f))), 0);
    EXPECT_TRUE(evaluate(cast<int8_t>(Expr(1000.0f))).undefined);
    EXPECT_EQ(eval_float(cast(Float(16), Expr(0.1))), round_to_float(0.1, 16, false));
    EXPECT_EQ(eval_float(cast(Float(16), Expr(70000.0))), INFINITY);
    // 2^24 + 1 is not a float32; it rounds to even.
    EXPECT_EQ(eval_float(cast<float>(Expr(16777217))), 16777216.0);
}

TEST(ReferenceEvaluator, Float16ArithmeticRoundsEachStep) {
    Expr a = cast(Float(16), Expr(1.0f)), b = cast(Float(16), Expr(0.0001f));
    // 1 + 0.0001 is 1 in float16 (ulp at 1 is 2^-10).
    EXPECT_EQ(eval_float(a + b), 1.0);
    EXPECT_EQ(eval_float(cast(BFloat(16), Expr(1.0f)) + cast(BFloat(16), Expr(0.001f))), 1.0);
}

TEST(ReferenceEvaluator, ShiftsHandleLargeAndNegativeAmounts) {
    EXPECT_EQ(eval_int(Expr(uint8_t(1)) << 3), 8);
    EXPECT_EQ(eval_int(Expr(uint8_t(1)) << 8), 0);
    EXPECT_EQ(eval_int(Expr(int8_t(-64)) >> 10), -1);
    EXPECT_EQ(eval_int(Expr(int8_t(64)) >> 10), 0);
    EXPECT_EQ(eval_int(Expr(16) << -2), 4);
    EXPECT_EQ(eval_int(Expr(-16) >> 2), -4);
}

TEST(ReferenceEvaluator, AbsAndAbsdAreUnsigned) {
    Value v = evaluate(abs(Expr(int8_t(-128))));
    EXPECT_EQ(v.type, UInt(8));
    EXPECT_EQ(v.as_uint(), 128u);
    EXPECT_EQ(eval_int(absd(Expr(int8_t(-100)), Expr(int8_t(100)))), 200);
}

TEST(ReferenceEvaluator, VectorsLaneByLane) {
    Expr r = Ramp::make(Expr(3), Expr(2), 4);
    Value v = evaluate(r * 2);
    ASSERT_EQ(v.lanes.size(), 4u);
    EXPECT_EQ(v.as_int(3), 18);
    Value s = evaluate(Shuffle::make_slice(r, 1, 2, 2));
    EXPECT_EQ(s.as_int(0), 5);
    EXPECT_EQ(s.as_int(1), 9);
    Value red = evaluate(VectorReduce::make(VectorReduce::Op::Add, r, 2));
    EXPECT_EQ(red.as_int(0), 3 + 5);
    EXPECT_EQ(red.as_int(1), 7 + 9);
    Value bits = evaluate(reinterpret(UInt(8, 4), Expr(uint32_t(0x04030201))));
    EXPECT_EQ(bits.as_uint(0), 1u);
    EXPECT_EQ(bits.as_uint(3), 4u);
}

TEST(ReferenceEvaluator, LetsAndVariables) {
    Var x("x");
    Expr e = Let::make("t", Expr(x) * 3, Variable::make(Int(32), "t") + Expr(x));
    EXPECT_EQ(evaluate(e, {{"x", Value::of_int(Int(32), 5)}}).as_int(), 20);
}

TEST(RandomExpr, GeneratesEvaluableExpressions) {
    test::RandomExprGenerator gen(1234);
    int evaluated = 0;
    for (int i = 0; i < 2000; i++) {
        Type t = gen.type();
        Expr e = gen.expr(t, 4);
        ASSERT_EQ(e.type(), t) << e;
        Value v = evaluate(e, gen.env_for(e));
        EXPECT_EQ(v.type, t);
        evaluated++;
    }
    EXPECT_EQ(evaluated, 2000);
}

}  // namespace
}  // namespace dsl
