// The associativity analysis behind rfactor: which updates it recognises, their terms and
// identities, and the shapes the library's inline reductions produce.
#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "ir/Associativity.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "lang/Function.h"

namespace dsl {
namespace {

using namespace ir;

/// The update of the hidden Func behind an inline reduction's result.
const lang::Definition &update_behind(const Expr &result) {
    const auto *call = result.as<Call>();
    EXPECT_TRUE(call && call->call_type == Call::CallType::Func);
    static lang::Function f;
    f = lang::Function(call->func.lock());
    return f.updates().at(0);
}

std::optional<AssociativeUpdate> analyse(const std::string &func, const lang::Definition &d) {
    std::string why;
    auto result = find_associative_update(func, d.args, d.values, &why);
    EXPECT_TRUE(result) << why;
    return result;
}

TEST(Associativity, RecognisesEachOperatorOnEitherSide) {
    Var x("x");
    Func f("f");
    f(x) = 0;
    Expr self = f(x), e = x * 3 + 1;
    struct Case {
        Expr value;
        AssociativeOp op;
        int64_t identity;
    };
    std::vector<Case> cases = {
        {self + e, AssociativeOp::Add, 0},
        {e + self, AssociativeOp::Add, 0},
        {self * e, AssociativeOp::Mul, 1},
        {min(e, self), AssociativeOp::Min, INT32_MAX},
        {max(self, e), AssociativeOp::Max, INT32_MIN},
        {self & e, AssociativeOp::BitwiseAnd, -1},
        {e | self, AssociativeOp::BitwiseOr, 0},
        {self ^ e, AssociativeOp::BitwiseXor, 0},
    };
    for (const Case &c : cases) {
        std::string why;
        auto update = find_associative_update("f", {x}, {c.value}, &why);
        ASSERT_TRUE(update) << c.value << ": " << why;
        EXPECT_EQ(update->ops[0], c.op) << c.value;
        EXPECT_TRUE(equal(update->terms[0], e)) << c.value << " gave the term " << update->terms[0];
        EXPECT_EQ(as_const_int(update->identities[0]), c.identity) << c.value;
        EXPECT_TRUE(update->commutative);
    }
}

TEST(Associativity, DifferenceFoldsAsASumOfNegatedTerms) {
    Var x("x");
    Func f("f");
    f(x) = 0.5f;
    std::string why;
    auto update = find_associative_update("f", {x}, {f(x) - cast<float>(x)}, &why);
    ASSERT_TRUE(update) << why;
    EXPECT_EQ(update->ops[0], AssociativeOp::Add);
    EXPECT_EQ(to_string(update->terms[0]), "(0.0f - float32(x))");
    EXPECT_EQ(to_string(update->combine({Expr(1.0f)}, {Expr(2.0f)})[0]), "(1.0f + 2.0f)");
}

TEST(Associativity, LogicalOperatorsOnBools) {
    Var x("x");
    Func f("f");
    f(x) = x > 0;
    Expr self = f(x), e = x < 5;
    for (auto [value, op, identity] : {std::tuple(self && e, AssociativeOp::And, true),
                                       std::tuple(e || self, AssociativeOp::Or, false),
                                       std::tuple(self != e, AssociativeOp::Xor, false)}) {
        std::string why;
        auto update = find_associative_update("f", {x}, {value}, &why);
        ASSERT_TRUE(update) << value << ": " << why;
        EXPECT_EQ(update->ops[0], op);
        EXPECT_EQ(is_const_true(update->identities[0]), identity);
    }
}

TEST(Associativity, InlineReductionsOfTheLibrary) {
    Var y("y");
    RDom r(0, 10, "r");
    Expr e = r * (y + 2);
    struct Case {
        Expr result;
        AssociativeOp op;
    };
    for (const Case &c : {Case{sum(e, "assoc_sum"), AssociativeOp::Add},
                          Case{product(e, "assoc_product"), AssociativeOp::Mul},
                          Case{maximum(e, "assoc_maximum"), AssociativeOp::Max},
                          Case{minimum(e, "assoc_minimum"), AssociativeOp::Min}}) {
        const lang::Definition &d = update_behind(c.result);
        auto update = analyse(c.result.as<Call>()->name, d);
        ASSERT_TRUE(update);
        EXPECT_EQ(update->ops[0], c.op);
        EXPECT_TRUE(equal(update->terms[0], e)) << update->terms[0];
    }
}

TEST(Associativity, ArgmaxAndArgminTuplesOfTheLibrary) {
    Var y("y");
    RDom r(0, 8, 0, 3, "r");
    Expr e = (r.x - 3) * (r.x - 3) + r.y * y;
    for (bool is_max : {true, false}) {
        Tuple t = is_max ? argmax(e, "assoc_argmax") : argmin(e, "assoc_argmin");
        const lang::Definition &d = update_behind(t[0]);
        auto update = analyse(t[0].as<Call>()->name, d);
        ASSERT_TRUE(update);
        ASSERT_EQ(update->ops.size(), 3u);
        for (AssociativeOp op : update->ops)
            EXPECT_EQ(op, AssociativeOp::ArgBest);
        EXPECT_EQ(update->key, 2);
        EXPECT_EQ(update->better, is_max ? IRNodeType::GT : IRNodeType::LT);
        EXPECT_FALSE(update->commutative);
        EXPECT_EQ(as_const_int(update->identities[2]), is_max ? INT32_MIN : INT32_MAX);
        // Folding b into a takes b's whole Tuple only when b's key is strictly better.
        std::vector<Expr> a = {Expr(1), Expr(2), Expr(7)}, b = {Expr(4), Expr(5), Expr(7)};
        EXPECT_EQ(to_string(update->combine(a, b)[0]),
                  is_max ? "select((7 > 7), 4, 1)" : "select((7 < 7), 4, 1)");
    }
}

TEST(Associativity, RefusesOtherShapes) {
    Var x("x");
    Func f("f");
    f(x) = 1;
    Expr self = f(x);
    for (const Expr &value : {self * 2 + x, self / (x + 1), self + f(x - 1), x - self,
                              select(x > 3, x, self), Expr(x)}) {
        std::string why;
        EXPECT_FALSE(find_associative_update("f", {x}, {value}, &why)) << value;
        EXPECT_NE(why.find("the value"), std::string::npos) << why;
    }
}

}  // namespace
}  // namespace dsl
