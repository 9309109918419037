#include <gtest/gtest.h>

#include "common/RandomExpr.h"
#include "dsl/dsl.h"
#include "ir/CSE.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/ReferenceEvaluator.h"

namespace dsl {
namespace {

using namespace ir;

TEST(CSE, ExtractsRepeatedSubexpressionsOnce) {
    Var x("x"), y("y");
    Expr e = (x * y + 1) * (x * y + 1);
    EXPECT_EQ(to_string(common_subexpression_elimination(e)),
              "(let cse0 = ((x * y) + 1) in (cse0 * cse0))");
}

TEST(CSE, NestsLetsChildrenFirst) {
    Var x("x"), y("y");
    Expr a = x * y;
    Expr e = (a + 1) * (a + 1) + a;
    // x*y is used by (x*y + 1) and by the outer sum, so it gets its own let, outside.
    EXPECT_EQ(to_string(common_subexpression_elimination(e)),
              "(let cse0 = (x * y) in (let cse1 = (cse0 + 1) in ((cse1 * cse1) + cse0)))");
}

TEST(CSE, LeavesTrivialAndUniqueExpressionsAlone) {
    Var x("x");
    Expr e = (x + 1) * x;
    EXPECT_EQ(to_string(common_subexpression_elimination(e)), "((x + 1) * x)");
    Expr b = Broadcast::make(Expr(x), 4) * Broadcast::make(Expr(x), 4);
    EXPECT_EQ(to_string(common_subexpression_elimination(b)), "(x4(x) * x4(x))");
}

TEST(CSE, FindsEqualExpressionsHiddenBehindLets) {
    Var x("x");
    Expr t = Variable::make(Int(32), "t");
    Expr e = Let::make("t", Expr(x) * 3, t + 1) * ((Expr(x) * 3) + 1);
    EXPECT_EQ(to_string(common_subexpression_elimination(e)),
              "(let cse0 = ((x * 3) + 1) in (cse0 * cse0))");
}

TEST(CSE, AvoidsNamesAlreadyInUse) {
    Var y("y");
    Expr c = Variable::make(Int(32), "cse0");
    Expr e = (c * y) + (c * y);
    EXPECT_EQ(to_string(common_subexpression_elimination(e)),
              "(let cse1 = (cse0 * y) in (cse1 + cse1))");
}

// A variable times or plus a constant costs no more to repeat than a let, and stays visible in
// the indices codegen sorts into linear sums; a ramp stays in place so that a load or store
// indexed by it is still dense.
TEST(CSE, LeavesScaledVariablesAndRampsInPlace) {
    Var x("x");
    Expr e = (Expr(x) * 6) * (Expr(x) * 6) + (Expr(x) + 1) * (Expr(x) + 1);
    EXPECT_EQ(to_string(common_subexpression_elimination(e)),
              "(((x * 6) * (x * 6)) + ((x + 1) * (x + 1)))");
    Expr r = Ramp::make(Expr(x) * 4, 1, 4);
    Expr loads = Load::make(Float(32, 4), "a", r, const_true(4)) +
                 Load::make(Float(32, 4), "b", r, const_true(4));
    EXPECT_EQ(to_string(common_subexpression_elimination(loads)),
              "(a[ramp((x * 4), 1, 4)] + b[ramp((x * 4), 1, 4)])");
}

TEST(CSE, NeverSharesCallsWithSideEffects) {
    Expr call = Call::make(Int(32), "rand_int", {}, Call::CallType::Extern);
    Expr e = call + call;
    EXPECT_EQ(to_string(common_subexpression_elimination(e)), "(rand_int() + rand_int())");
}

TEST(CSE, AppliesToEveryExpressionOfAStatement) {
    Var x("x");
    Stmt s = Store::make("out", (Expr(x) * 7 + 2) / (Expr(x) * 7 + 2), Expr(x), const_true());
    EXPECT_EQ(to_string(common_subexpression_elimination(s)),
              "let cse0 = ((x * 7) + 2)\nout[x] = (cse0 / cse0)\n");
}

// An accumulator's update reads and writes one address: the value and the index of its store
// share it through a let around the store, so that both compute it once, the same way.
TEST(CSE, StoreSharesItsIndexWithItsValue) {
    Var x("x"), y("y");
    Expr index = Expr(x) * Expr(y) + 3;
    Stmt s = Store::make("acc", Load::make(Float(32), "acc", index, const_true()) * 2.0f, index,
                         const_true());
    EXPECT_EQ(to_string(common_subexpression_elimination(s)),
              "let cse0 = ((x * y) + 3)\nacc[cse0] = (acc[cse0] * 2.0f)\n");
}

// Property: CSE never changes the value of an expression (seeded, bounded; runs in CI).
TEST(CSEProperty, KeepsValuesOfRandomExpressions) {
    const uint64_t seed = 20261129;
    test::RandomExprGenerator gen(seed);
    int checked = 0, changed = 0;
    for (int i = 0; i < 20000; i++) {
        Type t = gen.type();
        Expr e = gen.expr(t, gen.uniform(1, 5));
        Expr c = common_subexpression_elimination(e);
        ASSERT_EQ(c.type(), e.type());
        if (!equal(c, e)) changed++;
        for (int p = 0; p < 3; p++) {
            auto env = gen.env_for(e);
            Value before = evaluate(e, env);
            if (before.undefined) continue;
            Value after = evaluate(c, env);
            ASSERT_TRUE(before.same_values(after))
                << "seed " << seed << " case " << i << "\n  expr: " << e << "\n  cse:  " << c
                << "\n  before: " << before.to_string() << "\n  after:  " << after.to_string();
            checked++;
        }
    }
    std::printf("CSE property: 20000 expressions, %d evaluations compared, %d rewritten\n", checked,
                changed);
    EXPECT_GT(checked, 40000);
}

}  // namespace
}  // namespace dsl
