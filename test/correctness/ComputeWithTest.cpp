// compute_with: stages of different Funcs fused into one loop nest, from the outermost loop
// down to a chosen one, with each alignment of ranges that differ; the errors for fusions that
// cannot be.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;

/// h reads f and g over shifted regions, so the two producers' ranges differ by 3 in x and 4
/// in y.
struct Shifted {
    Var x{"x"}, y{"y"}, xo{"xo"}, xi{"xi"};
    Func f, g, h;
    explicit Shifted(const std::string &prefix)
        : f(prefix + "_f"), g(prefix + "_g"), h(prefix + "_h") {
        f(x, y) = x + y;
        g(x, y) = x - 2 * y;
        h(x, y) = f(x - 1, y + 1) + g(x + 2, y - 2) * 3;
        f.compute_root();
        g.compute_root();
    }
    static int expected(int x, int y) { return (x - 1) + (y + 1) + ((x + 2) - 2 * (y - 2)) * 3; }
};

void expect_shifted(Func &h, int w, int ht) {
    Buffer<int> out = h.realize({w, ht});
    for (int y = 0; y < ht; y++) {
        for (int x = 0; x < w; x++)
            ASSERT_EQ(out(x, y), Shifted::expected(x, y)) << x << "," << y;
    }
}

TEST(ComputeWith, SplitLoopsFusedWithEachAlignment) {
    for (LoopAlignStrategy align : {LoopAlignStrategy::AlignStart, LoopAlignStrategy::AlignEnd,
                                    LoopAlignStrategy::NoAlign, LoopAlignStrategy::Auto}) {
        Shifted p("cw_split" + std::to_string(static_cast<int>(align)));
        p.f.split(p.x, p.xo, p.xi, 7);
        p.g.split(p.x, p.xo, p.xi, 7);
        p.g.compute_with(p.f, p.xo, align);
        expect_shifted(p.h, 50, 31);
        // One loop nest: g's loops inside f's y and xo.
        std::string nest = p.h.loop_nest();
        EXPECT_EQ(nest.find("for " + p.g.name() + ".s0.y"), std::string::npos) << nest;
        EXPECT_EQ(nest.find("for " + p.g.name() + ".s0.xo"), std::string::npos) << nest;
        EXPECT_CONTAINS(nest, "for " + p.g.name() + ".s0.xi");
    }
}

TEST(ComputeWith, ParallelAndVectorizedLoops) {
    Shifted p("cw_par");
    p.f.parallel(p.y).split(p.x, p.xo, p.xi, 4).vectorize(p.xi);
    p.g.parallel(p.y).split(p.x, p.xo, p.xi, 4).vectorize(p.xi);
    // Fused down to the vector loop: one vector of each per iteration.
    p.g.compute_with(p.f, p.xi);
    expect_shifted(p.h, 40, 20);
    std::string nest = p.h.loop_nest();
    EXPECT_CONTAINS(nest, "parallel for cw_par_f.s0.y");
    EXPECT_CONTAINS(nest, "vectorized for cw_par_f.s0.xi");
    EXPECT_EQ(nest.find("for cw_par_g"), std::string::npos) << nest;
}

// A vectorized fused loop whose two ranges differ is refused when the pipeline runs (a vector
// cannot skip one stage's lanes); fused outside it, the same Funcs run.
TEST(ComputeWith, VectorizedLoopsOfDifferentRanges) {
    Var x("x"), y("y");
    Func a("cw_vec_a"), b("cw_vec_b");
    a(x, y) = x + y;
    b(x, y) = x * y;
    a.bound(x, 0, 8).vectorize(x);
    b.bound(x, 0, 4).vectorize(x);
    b.compute_with(a, x);
    Buffer<int> ab(8, 5), bb(4, 5);
    std::string message = test::message_of<RuntimeError>([&] {
        Pipeline({a, b}).realize({ab, bb});
    });
    EXPECT_CONTAINS(message, "vectorized loop cw_vec_a.s0.x");
    EXPECT_CONTAINS(message, "cw_vec_b");
    b.compute_with(a, y);
    Pipeline({a, b}).realize({ab, bb});
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 8; i++)
            ASSERT_EQ(ab(i, j), i + j);
        for (int i = 0; i < 4; i++)
            ASSERT_EQ(bb(i, j), i * j);
    }
}

// Two outputs of different sizes, fused with each alignment: each gets exactly its own points.
TEST(ComputeWith, OutputsOfDifferentSizes) {
    for (LoopAlignStrategy align :
         {LoopAlignStrategy::AlignStart, LoopAlignStrategy::AlignEnd, LoopAlignStrategy::NoAlign}) {
        Var x("x"), y("y");
        Func a("cw_out_a"), b("cw_out_b");
        a(x, y) = x * 100 + y;
        b(x, y) = x * 1000 - y;
        b.compute_with(a, y, align);
        Buffer<int> ab(20, 12), bb(9, 30);
        bb.set_min({3, -5});
        bb.fill(-1);
        Pipeline({a, b}).realize({ab, bb});
        for (int j = 0; j < 12; j++) {
            for (int i = 0; i < 20; i++)
                ASSERT_EQ(ab(i, j), i * 100 + j) << i << "," << j;
        }
        for (int j = -5; j < 25; j++) {
            for (int i = 3; i < 12; i++)
                ASSERT_EQ(bb(i, j), i * 1000 - j) << i << "," << j;
        }
    }
}

// Updates of two Funcs fused stage by stage; the other stages keep their order.
TEST(ComputeWith, UpdateStages) {
    Var x("x"), y("y");
    Func f("cw_upd_f"), g("cw_upd_g");
    g(x, y) = 1;
    g(x, y) = 2 + 31 * g(x, y);
    g(x, y) = 3 + 31 * g(x, y);
    f(x, y) = 5;
    f(x, y) = 6 + 31 * f(x, y);
    f(x, y) = 7 + 31 * f(x, y);
    f.update(1).compute_with(g.update(0), y);
    f.compute_with(g, x);
    Buffer<int> fb(16, 8), gb(16, 8);
    Pipeline({f, g}).realize({fb, gb});
    EXPECT_TRUE(fb.all_equal(7 + 31 * (6 + 31 * 5)));
    EXPECT_TRUE(gb.all_equal(3 + 31 * (2 + 31 * 1)));
}

// Both computed at the same loop of their consumer, fused there: each iteration of the
// consumer computes both over their regions in one loop nest.
TEST(ComputeWith, ComputedAtAConsumersLoop) {
    Shifted p("cw_at");
    p.f.compute_at(p.h, p.y);
    p.g.compute_at(p.h, p.y);
    p.g.compute_with(p.f, p.x);
    Buffer<int> out = p.h.realize({33, 17});
    EXPECT_TRUE(matches_reference(p.h, out));
    std::string nest = p.h.loop_nest();
    EXPECT_EQ(nest.find("for cw_at_g.s0.x"), std::string::npos) << nest;
}

// Fused at Var::outermost(): no loop is shared, the two run one after the other.
TEST(ComputeWith, AtTheOutermostLevel) {
    Shifted p("cw_outer");
    p.g.compute_with(p.f, Var::outermost());
    expect_shifted(p.h, 12, 9);
    std::string nest = p.h.loop_nest();
    EXPECT_CONTAINS(nest, "for cw_outer_f.s0.y");
    EXPECT_CONTAINS(nest, "for cw_outer_g.s0.y");
}

TEST(ComputeWith, RefusedFusions) {
    {
        Shifted p("cw_place");
        p.g.compute_at(p.h, p.y);
        p.g.compute_with(p.f, p.y);
        std::string message = test::message_of([&] { p.h.realize({8, 8}); });
        EXPECT_CONTAINS(message, "cw_place_g");
        EXPECT_CONTAINS(message, "same place");
    }
    {
        Shifted p("cw_loops");
        p.f.reorder(p.y, p.x);
        p.g.compute_with(p.f, p.y);
        std::string message = test::message_of([&] { p.h.realize({8, 8}); });
        EXPECT_CONTAINS(message, "same in both stages");
    }
    {
        Var x("x"), y("y");
        Func a("cw_reads_a"), b("cw_reads_b"), c("cw_reads_c");
        a(x, y) = x;
        b(x, y) = a(x, y) + 1;
        c(x, y) = b(x, y) + a(x, y);
        a.compute_root();
        b.compute_root();
        b.compute_with(a, y);
        std::string message = test::message_of([&] { c.realize({8, 8}); });
        EXPECT_CONTAINS(message, "reads \"cw_reads_a\"");
    }
    {
        Shifted p("cw_self");
        std::string message = test::message_of([&] { p.g.compute_with(p.g, p.y); });
        EXPECT_CONTAINS(message, "two different Funcs");
    }
}

}  // namespace
}  // namespace dsl
