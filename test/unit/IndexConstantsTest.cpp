// Index constants move to the outside of load and store indices (src/lowering/IndexConstants.cpp):
// the shapes it produces, what it leaves alone, and that no index changes its value.
#include <gtest/gtest.h>

#include <random>

#include "dsl/dsl.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/ReferenceEvaluator.h"
#include "lowering/IndexConstants.h"

namespace dsl {
namespace {

using namespace ir;

Expr var(const std::string &name) {
    return Variable::make(Int(32), name);
}

/// The index of the one load in `value` after the pass, through a store of it.
Expr index_after(const Expr &index) {
    Stmt s =
        Store::make("out", Load::make(Int(32), "in", index, const_true()), Expr(0), const_true());
    Stmt t = lowering::move_index_constants_out(s);
    return t.as<Store>()->value.as<Load>()->index;
}

TEST(IndexConstants, StencilTapsShareAllButTheirConstant) {
    Expr x = var("x"), m = var("m"), row = var("row");
    EXPECT_EQ(to_string(index_after(((x + 1) - m) + row)), "(((x - m) + row) + 1)");
    EXPECT_EQ(to_string(index_after(((x + -1) - m) + row)), "(((x - m) + row) + -1)");
    EXPECT_EQ(to_string(index_after((x - m) + row)), "((x - m) + row)");
    // Constants add up, wherever they were; a negated one counts negated.
    EXPECT_EQ(to_string(index_after((3 + x) - (m - 2) + 4)), "((x - m) + 9)");
    EXPECT_EQ(to_string(index_after((x + 2) - 2)), "x");
    // The first term added starts the sum.
    EXPECT_EQ(to_string(index_after((0 - m) + (x + 5))), "((x - m) + 5)");
}

TEST(IndexConstants, LeavesOtherIndicesAlone) {
    Expr x = var("x"), m = var("m");
    for (Expr e : {x + 1,                // already in shape
                   x - m,                // no constant
                   (0 - x) - (m + 1),    // no term is added
                   (x + (1 << 21)) - m,  // a constant too large to move
                   (x + 1) * 3}) {       // not a sum
        Expr after = index_after(e);
        EXPECT_TRUE(after.same_as(e)) << e << " became " << after;
    }
    // A vector index other than a ramp is not an address of dense lanes.
    Expr lanes = Broadcast::make(x + 1, 4) - Broadcast::make(m, 4);
    EXPECT_TRUE(lowering::move_index_constants_out(
                    Store::make("out", Load::make(Int(32, 4), "in", lanes, const_true(4)),
                                Ramp::make(Expr(0), 1, 4), const_true(4)))
                    .as<Store>()
                    ->value.as<Load>()
                    ->index.same_as(lanes));
}

TEST(IndexConstants, RampBasesAndStoreIndices) {
    Expr x = var("x"), m = var("m");
    Stmt s = Store::make("out", Broadcast::make(Expr(7), 8), Ramp::make((x + 1) - m, 1, 8),
                         const_true(8));
    EXPECT_EQ(to_string(lowering::move_index_constants_out(s)),
              "out[ramp(((x - m) + 1), 1, 8)] = x8(7)\n");
    Stmt scalar = Store::make("out", Expr(7), (x + 4) - (m + 1), const_true());
    EXPECT_EQ(to_string(lowering::move_index_constants_out(scalar)), "out[((x - m) + 3)] = 7\n");
}

// Property: random sums and differences of variables and constants keep their values.
TEST(IndexConstantsProperty, KeepsTheValueOfRandomSums) {
    std::mt19937 rng(20261201);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const std::vector<std::string> names = {"a", "b", "c", "d"};
    std::function<Expr(int)> sum = [&](int depth) -> Expr {
        if (depth == 0 || pick(4) == 0) {
            if (pick(3) == 0) return Expr(pick(41) - 20);
            return var(names[pick(4)]);
        }
        Expr l = sum(depth - 1), r = sum(depth - 1);
        switch (pick(3)) {
            case 0:
                return l + r;
            case 1:
                return l - r;
            default:
                return l * (pick(2) ? Expr(3) : r);  // a term the pass does not enter
        }
    };
    int rewritten = 0;
    for (int i = 0; i < 5000; i++) {
        Expr e = sum(1 + pick(5));
        Expr after = index_after(e);
        if (!after.same_as(e)) rewritten++;
        std::map<std::string, Value> env;
        for (const std::string &n : names)
            env[n] = Value::of_int(Int(32), pick(2001) - 1000);
        ASSERT_TRUE(evaluate(e, env).same_values(evaluate(after, env)))
            << "case " << i << ": " << e << " became " << after;
    }
    EXPECT_GT(rewritten, 1000);
}

}  // namespace
}  // namespace dsl
