// Mistakes in definitions are CompileErrors whose messages name the Func and say what to do.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

TEST(DefinitionErrors, CallingAnUndefinedFunc) {
    Func f("producer"), g("consumer");
    Var x("x");
    std::string msg = message_of([&] { g(x) = f(x) + 1; });
    EXPECT_CONTAINS(msg, "Func \"producer\" is used but has not been defined");
}

TEST(DefinitionErrors, WrongNumberOfArguments) {
    Func f("blur");
    Var x("x"), y("y");
    f(x, y) = x + y;
    std::string msg = message_of([&] { Expr e = f(x); });
    EXPECT_CONTAINS(msg, "Func \"blur\" has 2 dimensions but is called with 1 argument");
    msg = message_of([&] { f(x, y, 0) = 1; });
    EXPECT_CONTAINS(msg, "\"blur\" has 2 dimensions");
}

TEST(DefinitionErrors, UpdateOfAnotherType) {
    Func f("acc");
    Var x("x");
    f(x) = 0.0f;
    std::string msg = message_of([&] { f(x) = x * 2; });
    EXPECT_CONTAINS(msg, "has type int32, but the pure definition has type float32");
    EXPECT_CONTAINS(msg, "cast<float32>");
}

TEST(DefinitionErrors, PureVarMisplacedOnTheLeftOfAnUpdate) {
    Func f("grid");
    Var x("x"), y("y");
    f(x, y) = x + y;
    std::string msg = message_of([&] { f(y, x) = 0; });
    EXPECT_CONTAINS(msg, "uses the pure Var y, but y is not also alone at its own position");
    EXPECT_CONTAINS(msg, "Put y at its own position, or iterate over those values with an RDom");
    msg = message_of([&] { f(x + 1, y) = 0; });
    EXPECT_CONTAINS(msg, "uses the pure Var x, but x is not also alone at its own position");
    // x alone at its own position may also be used in y's coordinate; y may not.
    msg = message_of([&] { f(x, y + x) = 0; });
    EXPECT_CONTAINS(msg, "argument 1 is (y + x), which uses the pure Var y");
}

TEST(DefinitionErrors, PureVarOnlyOnTheRightOfAnUpdate) {
    Func f("row");
    Var x("x"), y("y");
    RDom r(0, 10);
    f(x) = 0;
    std::string msg = message_of([&] { f(r) = f(r) + y; });
    EXPECT_CONTAINS(msg, "uses the Var y on the right but not on the left");
}

TEST(DefinitionErrors, FreeVarInAPureDefinition) {
    Func f("free");
    Var x("x"), y("y");
    std::string msg = message_of([&] { f(x) = x + y; });
    EXPECT_CONTAINS(msg, "uses the Var y, which is not one of its arguments (x)");
}

TEST(DefinitionErrors, RVarInAPureDefinition) {
    Func f("sum_rows");
    Var x("x");
    RDom r(0, 10);
    std::string msg = message_of([&] { f(x) = x + r; });
    EXPECT_CONTAINS(msg, "Reductions need an update definition");
}

TEST(DefinitionErrors, FirstDefinitionNeedsVars) {
    Func f("first");
    Var x("x");
    std::string msg = message_of([&] { f(x + 1) = 3; });
    EXPECT_CONTAINS(msg, "its first definition must have distinct Vars");
    Func g("twice");
    msg = message_of([&] { g(x, x) = 3; });
    EXPECT_CONTAINS(msg, "appears twice");
}

TEST(DefinitionErrors, FloatCoordinates) {
    Func f("img");
    Var x("x");
    f(x) = x;
    std::string msg = message_of([&] { Expr e = f(cast<float>(x)); });
    EXPECT_CONTAINS(msg, "coordinates must be integers");
}

TEST(DefinitionErrors, TupleUsedAsASingleValue) {
    Func f("pair");
    Var x("x");
    f(x) = Tuple{x, x * 2};
    std::string msg = message_of([&] { Expr e = f(x) + 1; });
    EXPECT_CONTAINS(msg, "has 2 values per point (a Tuple)");
    EXPECT_NO_THROW((void)(f(x)[1] + 1));
}

TEST(DefinitionErrors, WhereAfterUse) {
    Func f("masked");
    Var x("x");
    RDom r(0, 8, "r");
    f(x) = 0;
    f(r) += 1;
    std::string msg = message_of([&] { r.where(r.x > 2); });
    EXPECT_CONTAINS(msg, "where() after the RDom was used");
}

TEST(DefinitionErrors, WhereConditionReadingADroppedFunc) {
    // The where() condition refers weakly to f, whose update iterates over the RDom; with the
    // RDom and f gone, only an RVar is left, and the condition cannot be evaluated.
    Var x("x");
    Expr rvar;
    {
        Func f("f");
        RDom r(0, 4, "r");
        f(x) = x;
        r.where(f(r.x) > 1);
        f(r.x) += 1;
        rvar = r.x;
    }
    Func g("g");
    g(x) = 0;
    std::string msg = message_of([&] { g(rvar) += 1; });
    EXPECT_CONTAINS(msg,
                    "the where() condition of the RDom of r.x calls the Func \"f\", which "
                    "no longer exists");
}

}  // namespace
}  // namespace dsl
