#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"

namespace dsl {
namespace {

using namespace ir;

Expr var(Type t, const char *name) {
    return Variable::make(t, name);
}

TEST(Coercion, LiteralTakesTheOtherOperandsType) {
    Expr u8 = var(UInt(8), "p");
    EXPECT_EQ((u8 + 1).type(), UInt(8));
    EXPECT_EQ((2 * u8).type(), UInt(8));
    EXPECT_EQ(to_string(u8 + 1), "(p + uint8(1))");
    Expr f16 = var(Float(16), "h");
    EXPECT_EQ((f16 * 0.5).type(), Float(16));
    Expr i64 = var(Int(64), "w");
    EXPECT_EQ((i64 - 3).type(), Int(64));
}

TEST(Coercion, FloatLiteralTurnsIntegersIntoFloat32) {
    Expr i = var(Int(16), "i");
    Expr e = i * 0.5f;
    EXPECT_EQ(e.type(), Float(32));
    EXPECT_EQ(to_string(e), "(float32(i) * 0.5f)");
}

TEST(Coercion, LiteralThatDoesNotFitIsAnError) {
    Expr u8 = var(UInt(8), "pixel");
    try {
        (void)(u8 + 300);
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("300 does not fit in uint8"), std::string::npos) << msg;
        EXPECT_NE(msg.find("pixel"), std::string::npos) << msg;
        EXPECT_NE(msg.find("cast<int32_t>"), std::string::npos) << msg;
    }
    EXPECT_THROW((void)(u8 - (-1)), CompileError);
}

TEST(Coercion, IntegerWidening) {
    EXPECT_EQ((var(Int(8), "a") + var(Int(32), "b")).type(), Int(32));
    EXPECT_EQ((var(UInt(16), "a") + var(UInt(8), "b")).type(), UInt(16));
    // Signed meets unsigned: signed of the wider width.
    EXPECT_EQ((var(UInt(32), "a") + var(Int(8), "b")).type(), Int(32));
    EXPECT_EQ((var(Int(16), "a") * var(UInt(16), "b")).type(), Int(16));
}

TEST(Coercion, FloatWins) {
    EXPECT_EQ((var(Int(32), "a") + var(Float(16), "b")).type(), Float(16));
    EXPECT_EQ((var(Float(32), "a") + var(Float(64), "b")).type(), Float(64));
    // Of equal widths, the right operand's type (Halide's rule).
    EXPECT_EQ((var(Float(16), "a") + var(BFloat(16), "b")).type(), BFloat(16));
    EXPECT_EQ((var(BFloat(16), "a") - var(Float(16), "b")).type(), Float(16));
}

TEST(Coercion, ScalarsBroadcastToVectors) {
    Expr v = var(Int(32, 8), "v");
    EXPECT_EQ((v + var(Int(32), "s")).type(), Int(32, 8));
    EXPECT_EQ((v + 1).type(), Int(32, 8));
    EXPECT_EQ(to_string(v * 2), "(v * x8(2))");
    EXPECT_THROW((void)(v + var(Int(32, 4), "w")), CompileError);
}

TEST(Coercion, HandlesDoNotMix) {
    EXPECT_THROW((void)(var(Handle(), "h") + 1), CompileError);
    EXPECT_THROW((void)(var(Handle(), "h") + var(Int(32), "x")), CompileError);
}

TEST(Operators, ComparisonsAndLogicGiveBools) {
    Var x("x"), y("y");
    Expr c = x < y;
    EXPECT_EQ(c.type(), Bool());
    EXPECT_EQ((c && (x == 3)).type(), Bool());
    EXPECT_EQ(to_string(!(x >= y) || c), "(!(x >= y) || (x < y))");
    try {
        (void)(Expr(x) && c);
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("compare it first"), std::string::npos) << e.what();
    }
}

TEST(Operators, BitwiseAndShifts) {
    Expr a = var(UInt(8), "a");
    EXPECT_EQ(to_string(a & 15), "bitwise_and(a, uint8(15))");
    EXPECT_EQ(to_string(a << 2), "shift_left(a, 2)");
    EXPECT_EQ(to_string(~a), "bitwise_not(a)");
    EXPECT_EQ((a >> var(Int(32), "n")).type(), UInt(8));
    EXPECT_THROW((void)(var(Float(32), "f") & 1), CompileError);
    // On bools, & | ^ are logical.
    Expr b = var(Bool(), "b");
    EXPECT_EQ(to_string(b & (a > 3)), "(b && (a > uint8(3)))");
}

TEST(Operators, ArithmeticOnBoolsIsRejected) {
    Expr b = var(Bool(), "flag");
    EXPECT_THROW((void)(b + b), CompileError);
}

TEST(Operators, SelectClampAbsCastAndMath) {
    Var x("x");
    Expr s = select(x > 0, Expr(x), 0.5f);
    EXPECT_EQ(s.type(), Float(32));
    EXPECT_EQ(to_string(select(x<0, -1, x> 0, 1, 0)), "select((x < 0), -1, select((x > 0), 1, 0))");
    EXPECT_EQ(to_string(clamp(var(UInt(8), "p"), 10, 200)), "min(max(p, uint8(10)), uint8(200))");
    EXPECT_EQ(abs(var(Int(16), "i")).type(), UInt(16));
    EXPECT_EQ(abs(var(Float(32), "f")).type(), Float(32));
    EXPECT_EQ(absd(var(Int(8), "a"), var(Int(8), "b")).type(), UInt(8));
    // Of bools: whether they differ (Halide's vector_reductions compares bool Funcs so).
    EXPECT_EQ(to_string(absd(var(Bool(), "p"), var(Bool(), "q"))), "(p != q)");
    EXPECT_TRUE(evaluate<bool>(absd(const_true(), const_false())));
    EXPECT_FALSE(evaluate<bool>(absd(const_true(), const_true())));
    EXPECT_EQ(cast<uint8_t>(Expr(x)).type(), UInt(8));
    EXPECT_EQ(cast(UInt(8), var(Int(32, 4), "v")).type(), UInt(8, 4));
    EXPECT_EQ(sqrt(x).type(), Float(32));
    EXPECT_EQ(to_string(floor(var(Float(64), "d"))), "floor(d)");
    EXPECT_EQ(pow(x, 2.0).type(), Float(64));
    EXPECT_EQ(to_string(-var(Float(32), "f")), "(-0.0f - f)");
    EXPECT_EQ(reinterpret(UInt(32), var(Float(32), "f")).type(), UInt(32));
    EXPECT_THROW(reinterpret(UInt(16), var(Float(32), "f")), CompileError);
}

TEST(Operators, UndefinedOperandIsAClearError) {
    Expr undefined;
    try {
        (void)(undefined + 1);
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("undefined Expr"), std::string::npos) << e.what();
    }
}

TEST(Types, NamesAndRanges) {
    EXPECT_EQ(Int(32).to_string(), "int32");
    EXPECT_EQ(UInt(8, 16).to_string(), "uint8x16");
    EXPECT_EQ(Bool().to_string(), "bool");
    EXPECT_EQ(BFloat(16).to_string(), "bfloat16");
    EXPECT_EQ(type_of<uint16_t>(), UInt(16));
    EXPECT_EQ(type_of<double>(), Float(64));
    EXPECT_EQ(type_of<float *>(), Handle());
    EXPECT_EQ(Int(8).int_min(), -128);
    EXPECT_EQ(UInt(16).uint_max(), 65535u);
    EXPECT_TRUE(Int(32).can_represent(UInt(16)));
    EXPECT_FALSE(Int(32).can_represent(UInt(32)));
    EXPECT_TRUE(Float(32).can_represent(Int(16)));
    EXPECT_FALSE(Float(32).can_represent(Int(32)));
    EXPECT_TRUE(Float(16).can_represent(2048.0));
    EXPECT_FALSE(Float(16).can_represent(2049.0));
    EXPECT_FALSE(Int(64).can_represent(9223372036854775808.0));
    EXPECT_TRUE(Type(TypeCode::UInt, 1).is_valid());
    EXPECT_FALSE(Float(8).is_valid());
    EXPECT_EQ(to_string(type_max(UInt(8))), "uint8(255)");
    EXPECT_EQ(to_string(type_min(Int(16))), "int16(-32768)");
}

}  // namespace
}  // namespace dsl
