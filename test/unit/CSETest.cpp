#include <gtest/gtest.h>

#include "common/Fibonacci.h"
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

// A value built in C++ as a DAG: about 100 distinct nodes, over 10^20 as a tree. CSE makes it a
// chain of lets without walking the tree; the value is unchanged.
TEST(CSE, ADagExponentialAsATreeIsSharedInLinearTime) {
    Expr x = Variable::make(UInt(32), "x");
    std::vector<Expr> e{x * 1u, x * 1u};
    for (int i = 2; i < 100; i++)
        e.push_back(e[i - 1] + e[i - 2]);
    Expr value = e.back();
    EXPECT_TRUE(is_blown_up(value));
    EXPECT_TRUE(tree_larger_than(value, 1e20));
    Expr shared = share_if_blown_up(value);
    EXPECT_FALSE(is_blown_up(shared));
    EXPECT_FALSE(tree_larger_than(shared, 1000)) << shared;
    Value v = evaluate(shared, {{"x", Value::of_uint(UInt(32), 3)}});
    EXPECT_EQ(v.as_uint(), test::fibonacci_times(3, 99));

    // An ordinary expression is left as it is.
    Expr small = (x + 1) * (x + 1);
    EXPECT_FALSE(is_blown_up(small));
    EXPECT_TRUE(share_if_blown_up(small).same_as(small));
}

// A swish, x * sigmoid(x) with fast_exp reading its argument a dozen times: about 70
// distinct nodes, over a thousand as a tree. Small, but unrolling copies it into every lane of
// a tile, and each pass then walked the tree: it is shared when defined. A sum of the same size
// as a tree, which shares nothing, is left as written.
TEST(CSE, AnActivationReadingItsArgumentManyTimesIsShared) {
    Expr x = Variable::make(Float(32), "x");
    Expr t = fast_exp(-abs(x));
    Expr one = make_const(Float(32), 1.0);
    Expr swish = x * select(x >= make_const(Float(32), 0.0), one / (one + t), t / (one + t));
    EXPECT_TRUE(tree_larger_than(swish, 1000));
    EXPECT_TRUE(is_blown_up(swish));
    Expr shared = share_if_blown_up(swish);
    EXPECT_FALSE(tree_larger_than(shared, 300)) << shared;
    for (float v : {-3.0f, -0.5f, 0.0f, 2.0f, 90.0f}) {
        const std::map<std::string, Value> env{{"x", Value::of_float(Float(32), v)}};
        EXPECT_TRUE(evaluate(shared, env).same_values(evaluate(swish, env))) << v;
    }

    Expr sum = x;
    for (int k = 1; k < 300; k++)
        sum = sum + Variable::make(Float(32), "y" + std::to_string(k));
    EXPECT_TRUE(tree_larger_than(sum, 500));
    EXPECT_FALSE(is_blown_up(sum));
}

// 60 lets, each using the one before twice: inlining them one into the next walked 2^60 nodes.
TEST(CSE, AChainOfLetsEachUsedTwiceIsEliminatedInLinearTime) {
    Expr x = Variable::make(UInt(32), "x");
    const int n = 60;
    Expr body = Variable::make(UInt(32), "v" + std::to_string(n - 1));
    for (int i = n - 1; i >= 1; i--) {
        Expr prev = Variable::make(UInt(32), "v" + std::to_string(i - 1));
        body = Let::make("v" + std::to_string(i), prev * prev + prev, body);
    }
    Expr chain = Let::make("v0", x * 3u, body);
    Expr c = common_subexpression_elimination(chain);
    EXPECT_FALSE(tree_larger_than(c, 20 * n)) << c;
    const std::map<std::string, Value> env{{"x", Value::of_uint(UInt(32), 5)}};
    EXPECT_TRUE(evaluate(c, env).same_values(evaluate(chain, env)));
}

// Inlining lets in one walk must not let an inner Let capture an outer value's names:
// let a = y + 1 in (let y = 2 in a * y) is (y + 1) * 2.
TEST(CSE, InlinedLetsAreNotCapturedByInnerLets) {
    Expr y = Variable::make(Int(32), "y");
    Expr a = Variable::make(Int(32), "a");
    Expr e = Let::make("a", y + 1, Let::make("y", Expr(2), a * y)) + (y + 1);
    Expr c = common_subexpression_elimination(e);
    const std::map<std::string, Value> env{{"y", Value::of_int(Int(32), 5)}};
    EXPECT_EQ(evaluate(c, env).as_int(), (5 + 1) * 2 + 6) << c;
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
