// Loop transformations never change the result: every directive, with sizes that factors do not
// divide, against the reference evaluator.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "common/GuardPage.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;

Func make_gradient(const std::string &name) {
    Func f(name);
    Var x("x"), y("y");
    f(x, y) = x * 3 + y * 100 + (x * y) % 7;
    return f;
}

TEST(Schedule, SplitWithATail) {
    Func f = make_gradient("split_tail");
    Var x("x"), xo("xo"), xi("xi");
    f.split(x, xo, xi, 4);
    // The guard of the last outer iteration ends the inner loop (its extent is a min) rather
    // than testing every point.
    EXPECT_EQ(f.loop_nest(),
              "produce split_tail:\n  for split_tail.s0.y:\n    for split_tail.s0.xo:\n"
              "      for split_tail.s0.xi:\n        split_tail(...) = ...\n");
    Buffer<int> out = f.realize({13, 5});  // 13 is not a multiple of 4
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(Schedule, GuardOfASplitEndsTheInnerLoop) {
    // Serial and parallel inner loops, extents under the factor, above it and a multiple of it,
    // and a region that does not start at 0.
    for (bool parallel : {false, true}) {
        for (int width : {1, 3, 8, 13}) {
            Func f = make_gradient("guard_ends");
            Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
            f.split(x, xo, xi, 4).split(y, yo, yi, 3);
            if (parallel) f.parallel(xi).parallel(yi);
            std::string nest = f.loop_nest();
            EXPECT_EQ(nest.find("if (...)"), std::string::npos) << nest;
            Buffer<int> out(width, 7);
            out.translate(0, -5);
            out.translate(1, 2);
            f.realize(out);
            EXPECT_TRUE(matches_reference(f, out)) << "width " << width;
        }
    }
}

TEST(Schedule, GuardOfASplitStaysATestWhenTheOuterLoopIsInside) {
    // reorder(xo, xi): the guard depends on the inner loop xo, whose variable is not the
    // split's inner one, so it stays a test.
    Func f = make_gradient("guard_stays");
    Var x("x"), xo("xo"), xi("xi");
    f.split(x, xo, xi, 4).reorder(xo, xi);
    EXPECT_NE(f.loop_nest().find("if (...)"), std::string::npos) << f.loop_nest();
    Buffer<int> out = f.realize({13, 5});
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(Schedule, SplitKeepingTheOuterName) {
    Func f = make_gradient("split_same");
    Var x("x"), xi("xi");
    f.split(x, x, xi, 3).split(xi, xi, Var("xii"), 2);
    Buffer<int> out(10, 4);
    out.translate(0, -7);
    f.realize(out);
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(Schedule, SplitKeepsTheKindOfTheLoopOnTheHalfItDescribes) {
    // parallel(y) then unroll(y, 2): the strips stay parallel, the copies are unrolled.
    Func f = make_gradient("split_kinds");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    f.parallel(y).unroll(y, 2).vectorize(x).split(x, xo, xi, 4).bound(x, 0, 16);
    std::string nest = f.loop_nest();
    EXPECT_NE(nest.find("parallel for split_kinds.s0.y:"), std::string::npos) << nest;
    EXPECT_NE(nest.find("unrolled for split_kinds.s0.y_unrolled:"), std::string::npos) << nest;
    EXPECT_NE(nest.find("vectorized for split_kinds.s0.xi:"), std::string::npos) << nest;
    EXPECT_NE(nest.find("  for split_kinds.s0.xo:"), std::string::npos) << nest;
    Buffer<int> out = f.realize({16, 7});
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(Schedule, TileReorderFuseRename) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t"), z("z");
    Func tiled = make_gradient("tiled");
    tiled.tile(x, y, xo, yo, xi, yi, 4, 3);
    EXPECT_EQ(Stage(tiled.contents(), 0).loops(), "xi, yi, xo, yo");
    Buffer<int> a = tiled.realize({11, 7});
    EXPECT_TRUE(matches_reference(tiled, a));

    Func reordered = make_gradient("reordered");
    reordered.reorder(y, x);  // y innermost: column-major traversal
    Buffer<int> b = reordered.realize({6, 5});
    EXPECT_TRUE(matches_reference(reordered, b));

    Func fused = make_gradient("fused");
    fused.fuse(x, y, t).rename(t, z);
    EXPECT_EQ(Stage(fused.contents(), 0).loops(), "z");
    Buffer<int> c(5, 3);
    c.translate(1, 2);
    fused.realize(c);
    EXPECT_TRUE(matches_reference(fused, c));
}

TEST(Schedule, Unroll) {
    Var x("x"), y("y");
    Func f = make_gradient("unrolled");
    f.unroll(x, 3);  // 10 is not a multiple of 3
    std::string nest = f.loop_nest();
    EXPECT_NE(nest.find("unrolled for unrolled.s0.x_unrolled"), std::string::npos) << nest;
    Buffer<int> out = f.realize({10, 2});
    EXPECT_TRUE(matches_reference(f, out));
    std::string stmt = f.lowered_stmt();
    EXPECT_EQ(stmt.find("x_unrolled"), std::string::npos) << "the unrolled loop is still there:\n"
                                                          << stmt;

    // A loop whose extent is only known at run time cannot be unrolled.
    Func g = make_gradient("unrolled_whole");
    g.unroll(x);
    try {
        g.realize({4, 4});
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("cannot unroll the loop unrolled_whole.s0.x"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Schedule, UpdateStagesSplitAndReorderRVars) {
    Buffer<> in = test::random_buffer(Int(32), {9, 7}, 11);
    Func f("column_sums");
    Var x("x"), xo("xo"), xi("xi");
    RDom r(0, 7, "r");
    f(x) = 0;
    f(x) += Func(in)(x, r);
    f.split(x, xo, xi, 4);
    f.update(0).split(x, xo, xi, 2).reorder(xi, r, xo);
    EXPECT_EQ(f.update(0).loops(), "xi, r.x, xo");
    Buffer<int> out = f.realize({9});
    EXPECT_TRUE(matches_reference(f, out));

    Func g("split_rvar");
    RDom s(0, 10, "s");
    Var rxo("rxo"), rxi("rxi");
    g(x) = x;
    g(s) = g(s) * 2 + 1;
    g.update(0).split(RVar(s), rxo, rxi, 3);
    Buffer<int> gout = g.realize({12});
    EXPECT_TRUE(matches_reference(g, gout));
}

TEST(Schedule, DirectivesOnProducers) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func producer = make_gradient("producer");
    Func consumer("consumer");
    consumer(x, y) = producer(x, y) + producer(x + 1, y + 2);
    producer.compute_root().split(y, yo, yi, 3).reorder(yi, x, yo);
    consumer.tile(x, y, Var("cxo"), Var("cyo"), Var("cxi"), Var("cyi"), 5, 2);
    Buffer<int> out = consumer.realize({12, 9});
    EXPECT_TRUE(matches_reference(consumer, out));
}

TEST(Schedule, BoundFixesARegion) {
    Var x("x"), y("y"), c("c");
    Func producer("bounded_producer"), consumer("bounded_consumer");
    producer(x, y, c) = x + y * 10 + c * 100;
    consumer(x, y, c) = producer(x, y, c) * 2;
    producer.compute_root().bound(c, 0, 3).unroll(c);  // a constant extent: fully unrolled
    consumer.bound(c, 0, 3);
    Buffer<int> out = consumer.realize({5, 4, 3});
    EXPECT_TRUE(matches_reference(consumer, out));
    EXPECT_EQ(out(4, 3, 2), (4 + 30 + 200) * 2);
    // Asking for more than the bound is a runtime error that names the Func and the Var.
    Buffer<int> too_big(5, 4, 4);
    try {
        consumer.realize(too_big);
        FAIL() << "expected a RuntimeError";
    } catch (const RuntimeError &e) {
        EXPECT_NE(
            std::string(e.what()).find("Bounds given for bounded_consumer in c (from 0 to 2) do "
                                       "not cover required region (from 0 to 3)"),
            std::string::npos)
            << e.what();
    }
}

// A reduction per tile, with both stages' loops unrolled: bound_extent makes the tile's region
// a constant even where the image's edge clamps it (sizes that 8 and 4 do not divide).
TEST(Schedule, BoundExtentLetsATilesReductionUnroll) {
    Buffer<> in = test::random_buffer(Int(32), {30, 40}, 5);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    for (TailStrategy tail : {TailStrategy::ShiftInwards, TailStrategy::GuardWithIf}) {
        Func acc("bx_acc"), out("bx_out");
        RDom r(0, 5, "r");
        acc(x, y) = x - y;
        acc(x, y) += in(x + r, y) * (r + 1);
        out(x, y) = acc(x, y) * 3;
        out.tile(x, y, xo, yo, xi, yi, 8, 4, tail);
        acc.compute_at(out, xo).bound_extent(x, 8).bound_extent(y, 4).vectorize(x, 4).unroll(y);
        acc.update().reorder(x, y, r).vectorize(x, 4).unroll(x).unroll(y);
        Buffer<int> result = out.realize({21, 11});
        EXPECT_TRUE(matches_reference(out, result));
        // A constant-size allocation (on the stack).
        EXPECT_CONTAINS(out.lowered_stmt(), "allocate bx_acc[int32 * 8 * 4]");
    }
}

// A tile of bound_extent() windows computed per tile is computed twice: where the windows start
// at the tile (the consumer reads the storage at offsets of its own loops, which code generation
// keeps in registers) and as it is (windows slid at an edge, checks that fail). Under a
// PartialTile tail (not GuardWithIf's), a partial tile also gets a copy per smaller count of
// points along one dimension (its x tail when only x's guard applies, its y tail likewise), but
// not along a dimension the tile is vectorized in. Tails of every kind
// kinds, sizes the tile divides and does not, a region away from 0, and an input of exactly the
// size bounds inference asks for, next to a page that faults: no copy may read more.
// Then the tiles this leaves alone: one too large for registers, a region of variable size.
TEST(Schedule, BoundExtentTileAtItsConsumersTileHasACopy) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    for (TailStrategy tail :
         {TailStrategy::ShiftInwards, TailStrategy::GuardWithIf, TailStrategy::PartialTile}) {
        for (int w : {21, 24}) {
            for (int h : {11, 12}) {
                for (bool guard_before : {false, true}) {
                    // Half the cases vectorize the tile along x (then no x copies); the guard
                    // page's side varies with it, to keep the case count down.
                    const bool vector_x = guard_before;
                    Buffer<> source = test::random_buffer(Int(32), {w + 4, h}, 8);
                    source.translate(0, 3).translate(1, 2);
                    test::GuardedCopy in(source, guard_before);
                    Func acc("ew_acc"), out("ew_out");
                    RDom r(0, 5, "r");
                    acc(x, y) = x - y;
                    acc(x, y) += in.buffer()(x + r, y) * (r + 1);
                    out(x, y) = acc(x, y) * 3;
                    out.tile(x, y, xo, yo, xi, yi, 8, 4, tail);
                    acc.compute_at(out, xo).bound_extent(x, 8).bound_extent(y, 4);
                    acc.update().reorder(x, y, r).unroll(y);
                    if (vector_x) {
                        acc.vectorize(x, 4);
                        acc.update().vectorize(x, 4).unroll(x);
                    } else {
                        acc.unroll(x);
                        acc.update().unroll(x);
                    }
                    Buffer<int> result(w, h);
                    result.translate(0, 3).translate(1, 2);
                    out.realize(result);
                    EXPECT_TRUE(matches_reference(out, result)) << w << "x" << h;
                    const std::string stmt = out.lowered_stmt();
                    // The copy reads the tile at the consumer's loops, the realization as it is
                    // relative to the windows.
                    EXPECT_CONTAINS(stmt, "ew_acc[(ew_out.s0.xi + (ew_out.s0.yi * 8))]");
                    EXPECT_CONTAINS(stmt, "- ew_acc.x.window_min) + ");
                    const bool partial = tail == TailStrategy::PartialTile;
                    EXPECT_EQ(stmt.find("allocate ew_acc[int32 * 5 * 4]") != std::string::npos,
                              partial && !vector_x);
                    EXPECT_EQ(stmt.find("allocate ew_acc[int32 * 8 * 3]") != std::string::npos,
                              partial);
                }
            }
        }
    }
    Buffer<> in = test::random_buffer(Int(32), {80, 80}, 9);
    // Left alone: 64 x 32 points, more than registers hold; a region of rows that varies.
    for (int rows : {32, 0}) {
        Func p("ew_p"), out("ew_out2");
        p(x, y) = in(x, y) * 2;
        out(x, y) = p(x, y) + p(x, y + 1);
        out.tile(x, y, xo, yo, xi, yi, 64, 31, TailStrategy::GuardWithIf);
        p.compute_at(out, xo).bound_extent(x, 64);
        if (rows) p.bound_extent(y, rows);
        Buffer<int> result = out.realize({50, 37});
        EXPECT_TRUE(matches_reference(out, result)) << rows;
        const std::string stmt = out.lowered_stmt();
        EXPECT_CONTAINS(stmt, "- ew_p.x.window_min)");
        EXPECT_EQ(stmt.find("ew_p[(ew_out2.s0.xi"), std::string::npos) << rows;
    }
}

TEST(Schedule, BoundExtentStoredFurtherOutAndAtRoot) {
    Buffer<> in = test::random_buffer(Int(32), {40, 40}, 6);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    // Stored at the row of tiles, computed per tile: the storage holds every tile's window.
    // Each tile reads 8 columns; a window of 11 slides too, in a larger circular buffer.
    for (int extent : {8, 11}) {
        Func p("bs_p"), out("bs_out");
        p(x, y) = in(x, y) + in(x + 1, y);
        out(x, y) = p(x, y) + p(x + 2, y + 1);
        out.tile(x, y, xo, yo, xi, yi, 6, 5, TailStrategy::GuardWithIf);
        p.compute_at(out, xo).store_at(out, yo).bound_extent(x, extent).bound_extent(y, 6);
        p.unroll(y);
        Buffer<int> result = out.realize({23, 17});
        EXPECT_TRUE(matches_reference(out, result)) << extent;
    }
    // At root: exactly the extent, from where the needs start.
    Func q("br_q"), out2("br_out");
    q(x, y) = in(x, y) * 2;
    out2(x, y) = q(x, y) - q(x + 1, y);
    q.compute_root().bound_extent(x, 12).unroll(x);
    Buffer<int> result2 = out2.realize({11, 3});
    EXPECT_TRUE(matches_reference(out2, result2));
}

TEST(Schedule, BoundExtentTooSmallOrOnAnOutput) {
    Buffer<> in = test::random_buffer(Int(32), {40, 40}, 7);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func p("bt_p"), out("bt_out");
    p(x, y) = in(x, y);
    out(x, y) = p(x, y) + p(x + 3, y);
    out.tile(x, y, xo, yo, xi, yi, 8, 2);
    p.compute_at(out, xo).bound_extent(x, 8);  // each tile needs 11 columns
    std::string msg = test::message_of<RuntimeError>([&] { out.realize({16, 4}); });
    EXPECT_CONTAINS(msg,
                    "Bounds given for bt_p in x (from 0 to 7) do not cover required region "
                    "(from 0 to 10)");
    EXPECT_CONTAINS(msg, "bound_extent()");
    // Also where the tile is of constant size (and computed twice: see the test above).
    Func p2("bt_p2"), out2("bt_out2");
    p2(x, y) = in(x, y);
    out2(x, y) = p2(x, y) + p2(x + 3, y);
    out2.tile(x, y, xo, yo, xi, yi, 8, 2, TailStrategy::PartialTile);
    p2.compute_at(out2, xo).bound_extent(x, 8).bound_extent(y, 2);
    EXPECT_CONTAINS(out2.lowered_stmt(), "allocate bt_p2[int32 * 7 * 2]");
    msg = test::message_of<RuntimeError>([&] { out2.realize({16, 4}); });
    EXPECT_CONTAINS(msg,
                    "Bounds given for bt_p2 in x (from 0 to 7) do not cover required "
                    "region (from 0 to 10)");
    Func o("bo_out");
    o(x, y) = x + y;
    o.bound_extent(x, 8);
    msg = test::message_of([&] { o.realize({8, 2}); });
    EXPECT_CONTAINS(msg, "Func \"bo_out\" is an output: bound_extent(x, ...)");
    msg = test::message_of([&] { o.bound_extent(Var("z"), 4); });
    EXPECT_CONTAINS(msg, "bound_extent() of \"z\", which is not one of its pure Vars");
    msg = test::message_of([&] { o.bound_extent(x, 0); });
    EXPECT_CONTAINS(msg, "must compute at least one point");
}

// The regions of Func `align_func` that its realizations begin over (min, extent of x).
std::string align_func;
std::vector<std::pair<int, int>> aligned_regions;
int32_t record_region(JITUserContext *, const dsl_trace_event_t *e) {
    if (e->event == dsl_trace_begin_realization && align_func == e->func)
        aligned_regions.push_back({e->coordinates[0], e->coordinates[1]});
    return 0;
}

// align_bounds(x, m, r) widens the region computed to start at r modulo m and span a multiple
// of m; align_extent(x, m) only rounds the extent up. Halide's align_bounds test's numbers.
TEST(Schedule, AlignBoundsAndExtent) {
    Var x("x");
    for (int variant = 0; variant < 3; variant++) {
        Func f("al_f"), g("al_g"), h("al_h");
        Param<int> p("al_p");
        f(x) = 3;
        g(x) = select(x % 2 == 0, f(x + 1), f(x - 1) + 8);
        h(x) = g(x - p) + g(x + p);
        f.compute_root();
        g.compute_root().trace_realizations();
        if (variant == 0) g.align_bounds(x, 2).unroll(x, 2);
        if (variant == 1) g.align_bounds(x, 2, 1).unroll(x, 2);
        if (variant == 2) g.align_extent(x, 32);
        h.jit_handlers().custom_trace = record_region;
        align_func = "al_g";
        // (min, extent) of g for p = 3, 4, 5: g is needed over [-p, 9 + p].
        const std::vector<std::pair<int, int>> expected[3] = {{{-4, 18}, {-4, 18}, {-6, 22}},
                                                              {{-3, 16}, {-5, 20}, {-5, 20}},
                                                              {{-3, 32}, {-4, 32}, {-5, 32}}};
        aligned_regions.clear();
        for (int pv : {3, 4, 5}) {
            p.set(pv);
            Buffer<int> out = h.realize({10});
            for (int i = 0; i < 10; i++)
                ASSERT_EQ(out(i), ((i + pv) & 1) ? 22 : 6) << variant << " " << pv << " " << i;
        }
        EXPECT_EQ(aligned_regions, expected[variant]) << variant;
    }
    // Inside a loop: each tile's region is aligned too.
    Var xo("xo"), xi("xi");
    Func a("al_in"), b("al_out");
    a(x) = x * 5;
    b(x) = a(x + 1) + a(x + 2);
    b.split(x, xo, xi, 3);
    a.compute_at(b, xo).align_bounds(x, 4).trace_realizations();
    b.jit_handlers().custom_trace = record_region;
    align_func = "al_in";
    aligned_regions.clear();
    Buffer<int> out = b.realize({9});
    for (int i = 0; i < 9; i++)
        ASSERT_EQ(out(i), 5 * (2 * i + 3)) << i;
    // Tiles need [1, 4], [4, 7], [7, 10]: aligned to 4, [0, 7], [4, 11], [4, 11].
    EXPECT_EQ(aligned_regions, (std::vector<std::pair<int, int>>{{0, 8}, {4, 8}, {4, 8}}));
    // Refusals.
    Func o("al_o");
    o(x) = x;
    o.align_bounds(x, 4);
    std::string msg = test::message_of([&] { o.realize({8}); });
    EXPECT_CONTAINS(msg, "Func \"al_o\" is an output: align_bounds / align_extent(x, ...)");
    Param<int> q("al_q");
    msg = test::message_of([&] { a.align_bounds(x, q); });
    EXPECT_CONTAINS(msg, "align_bounds of \"x\": the modulus al_q must be a positive integer");
    msg = test::message_of([&] { a.align_extent(x, 0); });
    EXPECT_CONTAINS(msg, "align_extent of \"x\": the modulus 0 must be a positive integer");
    msg = test::message_of([&] { a.align_bounds(Var("z"), 2); });
    EXPECT_CONTAINS(msg, "Func \"al_in\", align_bounds: \"z\" is not one of its pure Vars (x)");
}

}  // namespace
}  // namespace dsl
