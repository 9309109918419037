// Property: a Func whose value is a random expression of its coordinate computes the same values
// scalar, vectorized (with a tail), unrolled and parallel (seeded, bounded; DSL_TEST_SEED /
// DSL_TEST_SCALE run more by hand).
#include <gtest/gtest.h>

#include "common/PipelineCheck.h"
#include "common/RandomExpr.h"
#include "dsl/dsl.h"
#include "ir/IROperator.h"
#include "ir/Substitute.h"

namespace dsl {
namespace {

using namespace ir;

TEST(VectorizeProperty, RandomExpressionsOfTheCoordinate) {
    const uint64_t seed = test::seed_from_env(5);
    test::RandomExprOptions options;
    options.lanes = {1};  // scalar expressions; the schedule makes the vectors
    options.allow_math = false;
    test::RandomExprGenerator gen(seed, options);
    Var x("x");
    const int cases = 40 * test::scale_from_env();
    int checked = 0;
    for (int i = 0; i < cases; i++) {
        Type t = gen.scalar_type();
        Expr e = gen.expr(t, gen.uniform(2, 4));
        // Every free variable becomes a function of x, so that lanes differ.
        std::map<std::string, Expr> coords;
        for (const auto &[name, value] : gen.env_for(e)) {
            Expr v = Expr(x) * (static_cast<int>(name.size()) % 5 + 1) - 7;
            coords[name] = Cast::make(value.type, v);
        }
        Expr body = substitute(coords, e);
        Func f("random_" + std::to_string(i));
        f(x) = body;
        int width = 1 << gen.uniform(1, 4);
        switch (i % 3) {
            case 0:
                f.vectorize(x, width);
                break;
            case 1:
                f.parallel(x, 5).vectorize(x, width);
                break;
            default:
                f.unroll(x, 3);
                break;
        }
        Buffer<> out(t, {23});
        f.realize(out);
        ASSERT_TRUE(test::matches_reference(f, out))
            << "seed " << seed << " case " << i << ": " << body << " with " << f.lowered_stmt();
        checked++;
    }
    EXPECT_EQ(checked, cases);
}

}  // namespace
}  // namespace dsl
