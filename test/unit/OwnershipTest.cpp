// Funcs and RDoms are freed when the user's last handle to them goes, also when they refer to
// each other in cycles (src/lang/FunctionReferences.h). Each test watches what it builds through
// weak references, drops its handles and checks that everything is gone. The leak checker of
// scripts/sanitize.sh finds the same leaks; these tests find them in every build.
#include <gtest/gtest.h>

#include <memory>

#include "dsl/dsl.h"
#include "ir/IR.h"
#include "lang/Function.h"

namespace dsl {
namespace {

std::weak_ptr<lang::FunctionContents> watch(const Func &f) {
    return f.contents();
}

ir::ReductionDomain watch(const RVar &r) {
    Expr e = r;
    return e.as<ir::Variable>()->reduction_domain.weakened();
}

TEST(Ownership, RDomWithWhereIsFreedWithItsLastHandle) {
    ir::ReductionDomain domain;
    {
        RDom r(0, 4, 0, 4, "r");
        r.where(r.x < r.y);
        r.where(r.x + r.y < 5);
        domain = watch(r.x);
        EXPECT_FALSE(domain.expired());
    }
    EXPECT_TRUE(domain.expired());
}

TEST(Ownership, WhereConditionGivesStrongReferencesToDefinitions) {
    RDom r(0, 4, 0, 4, "r");
    r.where(r.x < r.y);
    Func f("f");
    Var x("x");
    f(x) = 0;
    f(x) += r.x;
    const lang::Definition &update = lang::Function(f.contents()).updates()[0];
    const auto *lt = update.predicate.as<ir::LT>();
    ASSERT_NE(lt, nullptr);
    const auto *rx = lt->a.as<ir::Variable>();
    ASSERT_NE(rx, nullptr);
    EXPECT_FALSE(rx->reduction_domain.is_weak());
    EXPECT_TRUE(rx->reduction_domain.same_as(update.rdom));
}

TEST(Ownership, UpdateOverAnRDomWithWhereIsFreed) {
    std::weak_ptr<lang::FunctionContents> func;
    ir::ReductionDomain domain;
    {
        Func f("f");
        Var x("x");
        RDom r(0, 4, 0, 4, "r");
        r.where(r.x <= r.y);
        f(x) = x;
        f(x) += r.x * r.y;
        Buffer<int> out = f.realize({2});
        // The sum of x * y over 0 <= x <= y < 4 is 1 + 6 + 18.
        EXPECT_EQ(out(0), 25);
        EXPECT_EQ(out(1), 26);
        func = watch(f);
        domain = watch(r.x);
    }
    EXPECT_TRUE(func.expired());
    EXPECT_TRUE(domain.expired());
}

TEST(Ownership, WhereConditionReadingTheFuncItUpdatesIsFreed) {
    std::weak_ptr<lang::FunctionContents> func;
    ir::ReductionDomain domain;
    {
        Func f("f");
        Var x("x");
        RDom r(0, 6, "r");
        f(x) = x;
        r.where(f(r.x) % 2 == 0);
        f(r.x) = f(r.x) * 10;
        Buffer<int> out = f.realize({6});
        const int expected[] = {0, 1, 20, 3, 40, 5};
        for (int i = 0; i < 6; i++)
            EXPECT_EQ(out(i), expected[i]) << i;
        func = watch(f);
        domain = watch(r.x);
    }
    EXPECT_TRUE(func.expired());
    EXPECT_TRUE(domain.expired());
}

TEST(Ownership, RDomKeepsTheFuncsOfItsConditionsAlive) {
    std::weak_ptr<lang::FunctionContents> func, other;
    ir::ReductionDomain domain;
    {
        Var x("x");
        RDom r(0, 6, "r");
        {
            Func f("f");
            f(x) = x;
            r.where(f(r.x) % 2 == 0);
            f(r.x) = f(r.x) * 10;
            func = watch(f);
        }
        // The domain's own condition refers to f weakly (f's update iterates over it), but the
        // RDom still holds f, so another Func can iterate over the domain.
        EXPECT_FALSE(func.expired());
        Func g("g");
        g(x) = 0;
        g(r.x) += 1;
        Buffer<int> out = g.realize({6});
        const int expected[] = {1, 0, 1, 0, 1, 0};  // where f's final values are even
        for (int i = 0; i < 6; i++)
            EXPECT_EQ(out(i), expected[i]) << i;
        other = watch(g);
        domain = watch(r.x);
    }
    EXPECT_TRUE(func.expired());
    EXPECT_TRUE(other.expired());
    EXPECT_TRUE(domain.expired());
}

TEST(Ownership, FuncsThatCallEachOtherAreFreed) {
    std::weak_ptr<lang::FunctionContents> first, second;
    {
        Func f("first"), g("second");
        Var x("x");
        f(x) = x;
        g(x) = f(x) + 1;
        f(x) = g(x) * 2;
        first = watch(f);
        second = watch(g);
        // With f the output, g is inlined into f's update, which then reads f itself.
        Buffer<int> out = f.realize({4});
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(out(i), (i + 1) * 2) << i;
        EXPECT_THROW(g.realize({4}), CompileError);  // f is computed before g and reads g
    }
    EXPECT_TRUE(first.expired());
    EXPECT_TRUE(second.expired());
}

TEST(Ownership, AnUpdateKeepsATemporaryFuncThatReadsItsFuncAlive) {
    std::weak_ptr<lang::FunctionContents> first, helper;
    {
        Func f("first");
        Var x("x");
        f(x) = x;
        auto plus_one = [&](const Func &in) {
            Func g("plus_one");
            g(x) = in(x) + 1;
            helper = watch(g);
            return g;
        };
        f(x) = plus_one(f)(x) * 2;
        EXPECT_FALSE(helper.expired());
        Buffer<int> out = f.realize({4});
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(out(i), (i + 1) * 2) << i;
        first = watch(f);
    }
    EXPECT_TRUE(first.expired());
    EXPECT_TRUE(helper.expired());
}

TEST(Ownership, ThreeFuncsOnACycleAreFreed) {
    std::weak_ptr<lang::FunctionContents> first, second, third;
    {
        Func f("first"), g("second"), h("third");
        Var x("x");
        f(x) = x;
        g(x) = f(x) + 1;
        h(x) = g(x) * 2;
        f(x) = h(x) - 1;  // first -> third -> second -> first
        first = watch(f);
        second = watch(g);
        third = watch(h);
        EXPECT_THROW(h.realize({4}), CompileError);
    }
    EXPECT_TRUE(first.expired());
    EXPECT_TRUE(second.expired());
    EXPECT_TRUE(third.expired());
}

TEST(Ownership, RFactorOfAnUpdateWithWhereIsFreed) {
    std::weak_ptr<lang::FunctionContents> total_func, partial_func;
    ir::ReductionDomain domain;
    {
        Buffer<int> in(8, 8);
        int expected = 0;
        for (int y = 0; y < 8; y++) {
            for (int x = 0; x < 8; x++) {
                in(x, y) = x * 8 + y;
                if (x < y) expected += in(x, y);
            }
        }
        Func total("total");
        RDom r(0, 8, 0, 8, "r");
        r.where(r.x < r.y);
        total() = 0;
        total() += in(r.x, r.y);
        Var u("u");
        Func partial = total.update().rfactor(r.y, u);
        partial.compute_root();
        Buffer<int> out = total.realize(std::vector<int>{});
        EXPECT_EQ(out(), expected);
        total_func = watch(total);
        partial_func = watch(partial);
        domain = watch(r.x);
    }
    EXPECT_TRUE(total_func.expired());
    EXPECT_TRUE(partial_func.expired());
    EXPECT_TRUE(domain.expired());
}

}  // namespace
}  // namespace dsl
