#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>

#include "dsl/dsl.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Substitute.h"

namespace dsl {
namespace {

using namespace ir;

TEST(IRPrinter, PrintsArithmeticReadably) {
    Var x("x"), y("y");
    EXPECT_EQ(to_string((x + 1) * y), "((x + 1) * y)");
    EXPECT_EQ(to_string(min(x, y) / 2 % 3), "((min(x, y) / 2) % 3)");
    EXPECT_EQ(to_string(select(x < y, x, y)), "select((x < y), x, y)");
    EXPECT_EQ(to_string(cast<int16_t>(x)), "int16(x)");
    EXPECT_EQ(to_string(Expr(1.5f)), "1.5f");
    EXPECT_EQ(to_string(Expr(2.0)), "2.0");
    EXPECT_EQ(to_string(Expr(uint8_t(7))), "uint8(7)");
    EXPECT_EQ(to_string(const_true()), "true");
    EXPECT_EQ(to_string(Ramp::make(Expr(x), 1, 4)), "ramp(x, 1, 4)");
    EXPECT_EQ(to_string(Broadcast::make(Expr(x), 8)), "x8(x)");
    EXPECT_EQ(to_string(Let::make("t", Expr(x) * 2, Variable::make(Int(32), "t") + 1)),
              "(let t = (x * 2) in (t + 1))");
}

TEST(IRPrinter, PrintsStatementsWithIndentation) {
    Var x("x");
    Stmt store = Store::make("out", Expr(x) * 2, Expr(x), const_true());
    Stmt loop = For::make("x", 0, 16, ForType::Parallel, DeviceAPI::None, store);
    EXPECT_EQ(to_string(loop), "parallel for (x, 0, 16) {\n  out[x] = (x * 2)\n}\n");
    Stmt ite = IfThenElse::make(Expr(x) > 0, Evaluate::make(Expr(x)), Evaluate::make(Expr(0)));
    EXPECT_EQ(to_string(ite), "if ((x > 0)) {\n  x\n}\nelse {\n  0\n}\n");
}

TEST(IREquality, StructuralEqualityAndOrder) {
    Var x("x"), y("y");
    Expr a = x + y * 2, b = x + y * 2, c = x + y * 3;
    EXPECT_TRUE(equal(a, b));
    EXPECT_FALSE(equal(a, c));
    EXPECT_EQ(hash(a), hash(b));
    EXPECT_NE(compare(a, c), 0);
    EXPECT_EQ(compare(a, c), -compare(c, a));
    // Types take part: int32 1 differs from int64 1.
    EXPECT_FALSE(equal(Expr(1), Expr(int64_t(1))));
    // Float constants compare by bits: -0 differs from +0, NaN equals NaN.
    EXPECT_FALSE(equal(Expr(0.0f), Expr(-0.0f)));
    EXPECT_TRUE(equal(Expr(NAN), Expr(NAN)));
}

TEST(Substitute, RespectsLetShadowing) {
    Var x("x");
    Expr vx = x;
    Expr e = vx + Let::make("x", 5, vx * 2);
    Expr r = substitute("x", Expr(7), e);
    EXPECT_EQ(to_string(r), "(7 + (let x = 5 in (x * 2)))");
    EXPECT_TRUE(expr_uses_var(e, "x"));
    EXPECT_FALSE(expr_uses_var(Let::make("x", 5, vx * 2), "x"));
}

// substitute_shared rewrites a node held in several places once and shares the result: a DAG
// of 80 levels, 2^80 nodes as a tree, comes back as a DAG as small (counted node by node, each
// distinct node once); shadowing still holds under a Let.
TEST(Substitute, SharedRewritesADagOnce) {
    Expr y = Variable::make(Int(32), "y");
    Expr e = y * 2;
    for (int i = 0; i < 80; i++)
        e = e + e * 3;
    Expr r = substitute_shared({{"y", Expr(Variable::make(Int(32), "x")) + 1}}, e);
    struct Count : IRVisitor {
        std::set<const BaseExprNode *> seen;
        bool uses_y = false;
        void include(const Expr &n) override {
            if (seen.insert(n.get()).second) IRVisitor::include(n);
        }
        using IRVisitor::include;
        using IRVisitor::visit;
        void visit(const Variable *op) override { uses_y |= op->name == "y"; }
    } count;
    count.include(r);
    EXPECT_LE(count.seen.size(), 300u);
    EXPECT_FALSE(count.uses_y);
    Expr vy = y;
    Expr shadowed = vy + Let::make("y", 5, vy * 2);
    EXPECT_EQ(to_string(substitute_shared({{"y", Expr(7)}}, shadowed)),
              "(7 + (let y = 5 in (y * 2)))");
}

class RenameVar : public IRMutator {
  protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        return op->name == "y" ? Variable::make(op->type, "z") : Expr(op);
    }
};

TEST(IRMutator, RebuildsOnlyWhatChanged) {
    Var x("x"), y("y");
    Expr left = Expr(x) * 3, right = Expr(y) + 1;
    Expr e = left - right;
    // Nothing to change: the very same node comes back.
    Expr same = IRMutator().mutate(e);
    EXPECT_TRUE(same.same_as(e));
    Expr renamed = RenameVar().mutate(e);
    EXPECT_EQ(to_string(renamed), "((x * 3) - (z + 1))");
    // The untouched left operand is shared, not copied.
    EXPECT_TRUE(renamed.as<Sub>()->a.same_as(left));
    EXPECT_FALSE(renamed.as<Sub>()->b.same_as(right));
}

TEST(IRMutator, BlockDropsDeletedStatements) {
    class DropFree : public IRMutator {
      protected:
        using IRMutator::visit;
        Stmt visit(const Free *) override { return Stmt(); }
    };
    Stmt s = Block::make({Free::make("a"), Evaluate::make(Expr(1)), Free::make("b")});
    EXPECT_EQ(to_string(DropFree().mutate(s)), "1\n");
}

TEST(Scope, InnerBindingsHideOuterOnes) {
    Scope<int> scope;
    scope.push("x", 1);
    {
        ScopedBinding<int> inner(scope, "x", 2);
        EXPECT_EQ(scope.get("x"), 2);
    }
    EXPECT_EQ(scope.get("x"), 1);
    EXPECT_EQ(scope.find("y"), nullptr);
    Scope<int> nested(&scope);
    EXPECT_TRUE(nested.contains("x"));
    nested.push("y", 3);
    EXPECT_EQ(*nested.find("y"), 3);
    scope.pop("x");
    EXPECT_FALSE(scope.contains("x"));
    EXPECT_THROW(scope.pop("x"), InternalError);
}

TEST(IRNodes, MakeChecksTypes) {
    EXPECT_THROW(Add::make(Expr(1), Expr(1.0f)), InternalError);
    EXPECT_THROW(Select::make(Expr(1), Expr(1), Expr(2)), InternalError);
    EXPECT_THROW(Ramp::make(Expr(0), Expr(1), 1), InternalError);
    // Constants are kept in their type's range: int8(200) wraps to -56.
    EXPECT_EQ(IntImm::make(Int(8), 200).as<IntImm>()->value, -56);
    EXPECT_EQ(to_string(Shuffle::make_interleave(
                  {Ramp::make(Expr(0), Expr(2), 2), Ramp::make(Expr(1), Expr(2), 2)})),
              "shuffle(ramp(0, 2, 2), ramp(1, 2, 2), 0, 2, 1, 3)");
}

}  // namespace
}  // namespace dsl
