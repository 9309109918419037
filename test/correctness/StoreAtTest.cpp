// store_at / store_root: producers stored outside the loop they are computed in, sliding
// windows (each iteration computes only new points) and storage folding (circular buffers).
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

/// The 3x3 box blur of the scheduling tutorials, with names prefixed per test.
struct Blur {
    Func clamped, blur_x, blur_y;
    Blur(const Buffer<> &in, const std::string &prefix)
        : clamped(BoundaryConditions::repeat_edge(in)),
          blur_x(prefix + "_bx"),
          blur_y(prefix + "_by") {
        Var x("x"), y("y");
        blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
        blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    }
};

TEST(StoreAt, SlidingWindowOverRowsFoldsToFourRows) {
    Buffer<> in = random_buffer(UInt(16), {37, 29}, 7);
    Blur b(in, "rows");
    Var y("y");
    b.blur_x.store_root().compute_at(b.blur_y, y);
    Buffer<uint16_t> out = b.blur_y.realize({37, 29});
    EXPECT_TRUE(matches_reference(b.blur_y, out));
    std::string nest = b.blur_y.loop_nest();
    EXPECT_CONTAINS(nest, "store rows_bx (folded: y mod 4):");
    EXPECT_CONTAINS(nest, "produce rows_bx (sliding window over rows_by.s0.y):");
    // Four rows of the output's width: blur_x is read at x only.
    std::string stmt = b.blur_y.lowered_stmt();
    EXPECT_CONTAINS(stmt, "allocate rows_bx[uint16 * rows_bx.x.extent_realized * 4]");
    // After the first row, each iteration starts past the rows the previous one computed.
    EXPECT_CONTAINS(stmt, "select(likely((rows_by.min.1 < rows_by.s0.y))");
    // That test is likely: the first row is peeled off, and in the steady state each row of
    // the output computes one row of rows_bx, with no loop over its rows.
    const std::string steady = "for (rows_by.s0.y, rows_by.s0.y.steady_first";
    size_t at = stmt.find(steady);
    ASSERT_NE(at, std::string::npos) << stmt;
    for (; at != std::string::npos; at = stmt.find(steady, at + 1)) {
        const size_t first_row = stmt.find("for (rows_by.s0.y, rows_by.min.1", at);
        EXPECT_EQ(stmt.substr(at, first_row - at).find("for (rows_bx.s0.y"), std::string::npos)
            << stmt;
    }

    // Output windows that do not start at 0 and a translated input.
    Buffer<uint16_t> shifted(20, 11);
    shifted.translate(0, 5).translate(1, -4);
    b.blur_y.realize(shifted);
    EXPECT_TRUE(matches_reference(b.blur_y, shifted));
}

TEST(StoreAt, SlidingWindowInsideStripsOfATile) {
    Buffer<> in = random_buffer(UInt(16), {41, 35}, 8);
    Blur b(in, "strip");
    Var x("x"), y("y"), yo("yo"), yi("yi"), xo("xo"), xi("xi");
    b.blur_y.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);  // 35 rows: a short last strip
    b.blur_x.store_at(b.blur_y, yo).compute_at(b.blur_y, yi).vectorize(x, 8);
    Buffer<uint16_t> out = b.blur_y.realize({41, 35});
    EXPECT_TRUE(matches_reference(b.blur_y, out));
    std::string nest = b.blur_y.loop_nest();
    EXPECT_CONTAINS(nest, "store strip_bx (folded: y mod 4):");
    EXPECT_CONTAINS(nest, "sliding window over strip_by.s0.yi");
}

TEST(StoreAt, SlidingWindowOverColumns) {
    Buffer<> in = random_buffer(Int(32), {23, 13}, 9);
    Func g("cols_g"), f("cols_f");
    Var x("x"), y("y");
    g(x, y) = in(x, y) * 3 + in(x + 1, y + 1);
    f(x, y) = g(x - 1, y) + g(x, y) * 2 + g(x + 1, y) + g(x, y + 1);
    g.store_root().compute_at(f, x);
    Buffer<int> out(20, 11);
    out.translate(0, 1);  // g reads in(x + 1, y + 1) and f reads g(x - 1, y)
    f.realize(out);
    EXPECT_TRUE(matches_reference(f, out));
    // Down the rows (one new row per row of f), and along each new row a column at a time:
    // every point of g once. The storage keeps two rows of every column.
    EXPECT_CONTAINS(f.loop_nest(), "sliding window over cols_f.s0.y and cols_f.s0.x");
    EXPECT_CONTAINS(f.loop_nest(), "folded: y mod 2");
}

// A producer computed per iteration of a split RVar: its region moves with the inner loop only
// through the RVar's value (r = ro * 6 + ri + 1, a name bound inside), so stepping the loop
// variable back does not give the previous iteration's region. That loop must not slide (it
// computed no new column after the first, fuzz case 22142); the rows still slide.
TEST(StoreAt, RegionMovingThroughASplitRVarSlidesOnlyTheRows) {
    Func g("rv_g"), f("rv_f");
    Var x("x"), y("y");
    g(x, y) = cast(UInt(16), x * 7 + y * 13);
    RDom r(1, 6, "rv_r");
    f(x, y) = cast(UInt(16), 5);
    f(r, y) = f(r - 1, y) + g(r - 2, y - 1) + g(r + 2, y - 1) + g(r, y) * 3;
    f.update(0).split(RVar(r.x), RVar("ro"), RVar("ri"), 6);
    g.compute_at(f, RVar("ri")).store_root();
    f.bound(x, 0, 24);
    Buffer<uint16_t> out = f.realize({24, 4});
    EXPECT_TRUE(matches_reference(f, out));
    std::string nest = f.loop_nest();
    EXPECT_CONTAINS(nest, "sliding window over rv_f.s1.y)");
    EXPECT_EQ(nest.find("and rv_f.s1.ri"), std::string::npos) << nest;
}

// A region that moves backward (Halide's sliding_backwards) slides too: each iteration
// computes the row in front of the last one, 16 rows in all rather than 30; it is not folded.
int back_rows = 0;
}  // namespace
}  // namespace dsl
extern "C" int store_at_count_row(int v) {
    dsl::back_rows++;
    return v;
}
DSL_EXTERN(int, store_at_count_row, int);
namespace dsl {
namespace {

TEST(StoreAt, RegionMovingBackwardsSlides) {
    Buffer<> in = random_buffer(Int(32), {16, 16}, 10);
    Func g("back_g"), f("back_f");
    Var x("x"), y("y");
    g(x, y) = in(x, y) + 1;
    f(x, y) = g(x, 15 - y) + g(x, 14 - y);  // rows read move down as y grows
    g.store_root().compute_at(f, y);
    Buffer<int> out = f.realize({16, 15});
    EXPECT_TRUE(matches_reference(f, out));
    std::string nest = f.loop_nest();
    EXPECT_CONTAINS(nest, "produce back_g (sliding window over back_f.s0.y):");
    EXPECT_CONTAINS(nest, "store back_g:");

    // Computed once per point: a call per row of one column.
    Func h("back_h"), k("back_k");
    h(y) = store_at_count_row(y * 3);
    k(y) = h(100 - y) + h(101 - y);
    h.store_root().compute_at(k, y);
    back_rows = 0;
    Buffer<int> r = k.realize({10});
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(r(i), (100 - i) * 3 + (101 - i) * 3);
    EXPECT_EQ(back_rows, 11);
}

// A producer with updates slides where every stage covers the same rows (Halide's
// sliding_reduction): each update loops over y as a pure Var and reads g only at the point it
// writes, so every iteration runs all three stages over the one new row. Its last stage counts
// its points: 2 x (9 + 2) rows, where computing the three rows of each iteration made 2 x 27.
TEST(StoreAt, ProducerWithUpdatesSlidesWhereEveryStageCoversTheRow) {
    Buffer<> in = random_buffer(Int(32), {2, 12}, 11);
    Func g("upd_g"), f("upd_f");
    Var x("x"), y("y");
    g(x, y) = in(x, y);
    g(0, y) += g(1, y) + g(0, y);
    g(x, y) = store_at_count_row(g(x, y));
    f(x, y) = g(x, y) + g(x, y + 1) + g(x, y + 2);
    g.store_root().compute_at(f, y);
    back_rows = 0;
    Buffer<int> out = f.realize({2, 9});
    EXPECT_EQ(back_rows, 2 * 11);
    Buffer<int32_t> iv = in.as<int32_t>();
    auto gv = [&](int i, int j) { return i == 0 ? iv(1, j) + 2 * iv(0, j) : iv(1, j); };
    for (int j = 0; j < 9; j++) {
        for (int i = 0; i < 2; i++)
            ASSERT_EQ(out(i, j), gv(i, j) + gv(i, j + 1) + gv(i, j + 2)) << i << ", " << j;
    }
    EXPECT_CONTAINS(f.loop_nest(), "produce upd_g (sliding window over upd_f.s0.y)");
}

// An update of one row (as Halide's f(x, x) += f(x, 0) + f(x, 1) updates a diagonal) does not
// loop over the rows: the first stage's region holds that row in every iteration, not the
// same region as the update's. No sliding, the same values.
TEST(StoreAt, ProducerWhoseUpdateReadsOtherRowsIsNotSlid) {
    Buffer<> in = random_buffer(Int(32), {12, 10}, 11);
    Func g("upd_rows_g"), f("upd_rows_f");
    Var x("x"), y("y");
    g(x, y) = in(x, y);
    g(x, 0) += g(x, 1) * 3;
    f(x, y) = g(x, y) + g(x, y + 1);
    g.store_root().compute_at(f, y);
    Buffer<int> out = f.realize({12, 9});
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_EQ(f.loop_nest().find("sliding"), std::string::npos) << f.loop_nest();
}

// Stages that would run again over finished rows are not slid (fuzz cases 1382 and 1456): a
// first stage split over y with ShiftInwards (its last tile moves back over rows the update
// already changed), an update split with RoundUp (its last tile runs past the new rows), a
// bound_extent() window on y (each iteration's window overlaps the last), and the first split
// in a specialization. Each gives the reference's values.
TEST(StoreAt, ProducerWithUpdatesOverRowsItWouldRecomputeIsNotSlid) {
    Buffer<> in = random_buffer(Int(32), {6, 14}, 12);
    Param<int> split_rows("upd_again_split_rows");
    split_rows.set(1);
    for (int variant = 0; variant < 4; variant++) {
        const std::string name = "upd_again_" + std::to_string(variant);
        Func g(name + "_g"), f(name + "_f");
        Var x("x"), y("y"), yo("yo"), yi("yi");
        g(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
        g(x, y) = select(x % 2 == 0, g(x, y) * 2, g(x, y) + x);
        f(x, y) = g(x, y) + g(x, y + 1) + g(x, y + 2);
        g.store_root().compute_at(f, y);
        if (variant == 0) g.split(y, yo, yi, 3, TailStrategy::ShiftInwards);
        if (variant == 1) g.update(0).split(y, yo, yi, 3, TailStrategy::RoundUp);
        if (variant == 2) g.bound_extent(y, 4);
        if (variant == 3)
            g.specialize(split_rows > 0).split(y, yo, yi, 3, TailStrategy::ShiftInwards);
        Buffer<int> out = f.realize({6, 10});
        EXPECT_TRUE(matches_reference(f, out)) << variant;
        EXPECT_EQ(f.loop_nest().find("sliding"), std::string::npos) << f.loop_nest();
    }
}

TEST(StoreAt, ChainOfSlidingWindows) {
    Buffer<> in = random_buffer(UInt(8), {30, 26}, 12);
    Func a("chain_a"), b("chain_b"), c("chain_c");
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::constant_exterior(in, 7);
    a(x, y) = cast<int>(clamped(x, y - 1)) + clamped(x, y + 1);
    b(x, y) = a(x, y - 1) * 2 - a(x, y + 2);
    c(x, y) = b(x, y) + b(x, y + 1) + b(x, y - 1);
    b.store_root().compute_at(c, y);
    a.store_root().compute_at(b, y);
    Buffer<int> out = c.realize({30, 26});
    EXPECT_TRUE(matches_reference(c, out));
    // The same with the storage at the compute loop (no sliding): same answer.
    b.store_at(c, y);
    a.store_at(b, y);
    Buffer<int> again = c.realize({30, 26});
    EXPECT_TRUE(matches_reference(c, again));
}

TEST(StoreAt, StoreRootComputeRootAndInline) {
    Buffer<> in = random_buffer(Int(16), {9, 9}, 13);
    Func g("plain_g"), f("plain_f");
    Var x("x"), y("y");
    g(x, y) = in(x, y) * 2;
    f(x, y) = g(x, y) + g(x + 1, y);
    g.compute_root().store_root();
    Buffer<int16_t> out = f.realize({8, 9});
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_EQ(f.loop_nest().find("store"), std::string::npos) << f.loop_nest();
}

TEST(StoreAt, IllegalStorageLocations) {
    Func g("bad_g"), f("bad_f"), h("bad_h");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    g(x, y) = x + y;
    f(x, y) = g(x, y) + g(x, y + 1);
    h(x, y) = f(x, y);
    // Inside the compute loop.
    g.compute_at(f, y).store_at(f, x);
    std::string msg = test::message_of([&] { f.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "Func \"bad_g\" is scheduled compute_at(bad_f, y) and store_at(bad_f, x)");
    EXPECT_CONTAINS(msg, "Legal storage locations for bad_g are: root, bad_f.y.");
    // Stored in a loop, computed at root.
    g.compute_root().store_at(f, y);
    msg = test::message_of([&] { f.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "is stored at bad_f.y but computed at root");
    // A parallel loop between the storage and the computation would race.
    f.split(y, yo, yi, 2).parallel(yo);
    g.compute_at(f, yi).store_root();
    msg = test::message_of([&] { f.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "computed inside the parallel loop bad_f.yo");
    // ... also when the consumer itself is computed inside a parallel loop.
    f.serial(yo).compute_at(h, y);
    h.parallel(y);
    msg = test::message_of([&] { h.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "computed inside the parallel loop bad_h.y");
    // A parallel loop that is split stays parallel (fuzzer case 5048234).
    h.serial(y);
    f.compute_root().parallel(yo).unroll(yo, 2);
    g.compute_at(f, yi).store_root();
    msg = test::message_of([&] { h.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "computed inside the parallel loop bad_f.yo");
    // Storing inside the parallel loop is fine.
    f.compute_at(h, y);
    h.parallel(y);
    g.store_at(f, yo);
    Buffer<int> out = h.realize({4, 4});
    EXPECT_TRUE(matches_reference(h, out));
    // Stored at a loop of a Func whose loops do not hold the computation (bad_f is computed at
    // root, not inside bad_h).
    h.serial(y);
    f.compute_root().serial(yo);
    g.compute_at(f, yi).store_at(h, y);
    msg = test::message_of([&] { h.realize({4, 4}); });
    EXPECT_CONTAINS(msg,
                    "store_at(bad_h, y), but that loop is not around the loop where it is "
                    "computed. Legal storage locations for bad_g are: root, bad_f.yo, "
                    "bad_f.yo_unrolled, bad_f.yi.");
}

// Halide's reduction_chain: a producer stored at a loop of its consumer's consumer (the loop
// that the consumer is computed in), computed in the consumer's loop. Every stage of the
// consumer that reads it, an update included, computes it there.
TEST(StoreAt, AtALoopOfAConsumerFurtherOut) {
    Func f("outer_store_f"), g("outer_store_g"), out("outer_store_out");
    Var x("x"), y("y");
    RDom r(0, 3, "outer_store_r");
    f(x, y) = x * 3 + y * y;
    g(x, y) = f(x, y - 1) + f(x, y + 1);
    g(x, y) += f(x + r, y);
    out(x, y) = g(x - 1, y) + g(x + 1, y) * 2;
    g.compute_at(out, y);
    f.compute_at(g, x).store_at(out, y);
    Buffer<int> result = out.realize({9, 7});
    EXPECT_TRUE(matches_reference(out, result));
    // The storage is in the loop over rows of the output, outside g's loops.
    const std::string nest = out.loop_nest();
    const size_t rows = nest.find("for outer_store_out.s0.y"),
                 stored = nest.find("store outer_store_f"),
                 g_loops = nest.find("for outer_store_g.s0.y");
    EXPECT_TRUE(rows < stored && stored < g_loops) << nest;
    // With g's loops split and reordered, f computed at the innermost.
    Var xo("xo"), xi("xi");
    g.split(x, xo, xi, 4).reorder(xi, y, xo);
    g.update().split(x, xo, xi, 4).reorder(xi, y, xo);
    f.compute_at(g, xi);
    result = out.realize({9, 7});
    EXPECT_TRUE(matches_reference(out, result));
}

// fold_storage: the factor chosen, where the footprint is not a constant (no automatic fold),
// checked at run time, and refused where there is no loop to fold over.
TEST(FoldStorage, ExplicitFactorWithARuntimeCheck) {
    Var x("x"), y("y");
    Param<int> reach("fold_reach");
    Func f("fold_f"), g("fold_g");
    f(x, y) = x * 7 + y * 3;
    g(x, y) = f(x, y) + f(x, y + reach);
    f.store_root().compute_at(g, y).fold_storage(y, 5);
    reach.set(3);
    Buffer<int> out = g.realize({9, 12});
    for (int j = 0; j < 12; j++) {
        for (int i = 0; i < 9; i++)
            ASSERT_EQ(out(i, j), (i * 7 + j * 3) + (i * 7 + (j + 3) * 3)) << i << ", " << j;
    }
    EXPECT_CONTAINS(g.loop_nest(), "store fold_f (folded: y mod 5):");
    EXPECT_CONTAINS(g.lowered_stmt(), "allocate fold_f[int32 * fold_f.x.extent_realized * 5]");
    // Seven rows at once do not fit in five.
    reach.set(6);
    std::string message = test::message_of<RuntimeError>([&] { g.realize({9, 12}); });
    EXPECT_CONTAINS(message,
                    "Func \"fold_f\" is stored folded along y into 5 points "
                    "(fold_storage), but one of its computations needs 7 points");

    // A region moving backwards: no sliding, each row computed where needed, folded.
    Func p("fold_back"), c("fold_back_reader");
    p(x, y) = x + 10 * y;
    c(x, y) = p(x, 20 - y) + p(x, 21 - y);
    p.store_root().compute_at(c, y).fold_storage(y, 2, false);
    Buffer<int> back = c.realize({4, 10});
    for (int j = 0; j < 10; j++) {
        for (int i = 0; i < 4; i++)
            ASSERT_EQ(back(i, j), (i + 10 * (20 - j)) + (i + 10 * (21 - j))) << i << ", " << j;
    }
    EXPECT_TRUE(matches_reference(c, back));
    EXPECT_CONTAINS(c.loop_nest(), "store fold_back (folded: y mod 2):");

    Func r("fold_root"), rc("fold_root_reader");
    r(x, y) = x + y;
    rc(x, y) = r(x, y) * 2;
    r.compute_root().fold_storage(y, 4);
    message = test::message_of([&] { rc.realize({4, 4}); });
    EXPECT_CONTAINS(message,
                    "Func \"fold_root\", fold_storage of \"y\": the Func is stored "
                    "where it is computed");
    message = test::message_of([&] { r.fold_storage(y, 0); });
    EXPECT_CONTAINS(message, "must be a positive integer constant");
}

TEST(ReorderStorage, ColumnMajorProducer) {
    Buffer<> in = random_buffer(Int(32), {11, 7}, 14);
    Func g("colmajor_g"), f("colmajor_f");
    Var x("x"), y("y"), c("c");
    g(x, y, c) = in(x, y) * (c + 1);
    f(x, y) = g(x, y, 0) + g(x + 1, y, 1) - g(x, y + 1, 2);
    g.compute_root().reorder_storage(c, x, y);
    Buffer<int> out = f.realize({10, 6});
    EXPECT_TRUE(matches_reference(f, out));
    // c is innermost: its stride is 1 and x's is the number of channels.
    std::string stmt = f.lowered_stmt();
    EXPECT_CONTAINS(stmt,
                    "allocate colmajor_g[int32 * 3 * colmajor_g.x.extent_realized * "
                    "colmajor_g.y.extent_realized]");
    g.store_root().compute_at(f, y).reorder_storage(y, x);  // with a sliding window too
    Buffer<int> again = f.realize({10, 6});
    EXPECT_TRUE(matches_reference(f, again));
    std::string msg = test::message_of([&] { g.reorder_storage(x, Var("w")); });
    EXPECT_CONTAINS(msg, "\"w\" is not one of its pure Vars (x, y, c)");
    msg = test::message_of([&] { g.reorder_storage(x, x); });
    EXPECT_CONTAINS(msg, "\"x\" is listed twice");
}

}  // namespace
}  // namespace dsl
