// Fused loops over bounded dimensions, and guarded tiles whose outer loop is split into blocks
// and fused with other loops (one parallel loop of tasks): a producer computed per tile of the
// fused loop holds that tile alone, and the guard of the last tile is tested in the last block
// alone.
#include <gtest/gtest.h>

#include <string>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

/// The text of `stmt` from the first occurrence of `from` to the next "\nelse" (the other
/// version of the pipeline, for buffers of other strides) or the end.
std::string part_from(const std::string &stmt, const std::string &from) {
    size_t start = stmt.find(from);
    if (start == std::string::npos) return "";
    size_t end = stmt.find("\nelse", start);
    return stmt.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// f(x, y) reads g at y * W + x, the offset of (x, y) in rows of W: with x and y bounded to the
// map, the fused loop's coordinates (p % W, p / W) read point p of g, so g computed per tile
// of 8 fused points holds 8 points (without the bounds, a tile that crosses a row's end asked
// for a whole row more).
TEST(FusedTiles, BoundedDimensionsFusedReadTheirPointBack) {
    constexpr int W = 13, H = 7;
    Buffer<> in = random_buffer(Int(32), {W * H}, 5);
    Func g("ft_g");
    Var x("x"), y("y"), p("p"), po("po"), pi("pi"), i("i");
    g(i) = in(i)*3 + i;
    // Then into a dense output (its rows follow one another from 0): stored as dense vectors,
    // a fused point p at offset p.
    for (bool dense : {false, true}) {
        Func f(dense ? "ft_dense" : "ft_f");
        f(x, y) = g(y * W + x) + 1;
        if (dense) {
            f.output_buffer().dim(0).set_min(0).set_stride(1);
            f.output_buffer().dim(1).set_min(0).set_stride(W);
        }
        f.bound(x, 0, W)
            .bound(y, 0, H)
            .fuse(x, y, p)
            .split(p, po, pi, 8, TailStrategy::GuardWithIf)
            .vectorize(pi);
        g.compute_at(f, po).vectorize(i, 8);
        Buffer<int> out = f.realize({W, H});
        EXPECT_TRUE(matches_reference(f, out)) << f.name();
        const std::string stmt = f.lowered_stmt();
        EXPECT_CONTAINS(stmt, "allocate ft_g[int32 * 8]");
        if (dense) {
            EXPECT_EQ(stmt.find('%'), std::string::npos) << stmt;
        }
    }
}

// A split may name its outer loop after the dimension it splits (vectorize(x, 4) leaves a loop
// x of 2 iterations over a bound of 8): fused, that loop is not the bounded dimension, and its
// own extent decomposes the fused loop (fuzz case 20117: the bound's 8 did, and half of the
// output stayed 0).
TEST(FusedTiles, ALoopNamedAfterABoundedDimensionIsNotIt) {
    Func f("ftv_f");
    Var x("x"), y("y"), xy("xy");
    f(x, y) = x + y * 100;
    f.vectorize(x, 4, TailStrategy::GuardWithIf).fuse(x, y, xy);
    f.bound(x, 0, 8);
    Buffer<int> out = f.realize({8, 15});
    EXPECT_TRUE(matches_reference(f, out));
}

// What a fused loop's coordinates are substituted into is simplified only in the indices of
// calls: a value that reads a producer only inside clamp(..., 3, 3) still reads it, so the
// producer computed and stored inside the loops keeps a consumer (fuzz case 9293: simplified
// whole, the call was folded away and bounds inference found no reader).
TEST(FusedTiles, ProducerReadOnlyWhereTheValueFoldsKeepsItsReader) {
    Func g("ftc_g"), f("ftc_f");
    Var x("x"), y("y"), yo("yo"), yi("yi"), yf("yf");
    Param<int> p("ftc_p", 0);
    g(x, y) = max(p, x + y);
    const Expr three = make_const(UInt(8), 3);
    f(x, y) = clamp(cast(UInt(8), g(x / 2, y + 1)), three, three) ^ cast(UInt(8), x);
    f.split(y, yo, yi, 6, TailStrategy::ShiftInwards).fuse(yi, yo, yf);
    g.compute_at(f, x).store_at(f, yf);
    p.set(-2);
    Buffer<uint8_t> out = f.realize({37, 21});
    EXPECT_TRUE(matches_reference(f, out));
}

// Tiles of 8 points guarded at the end of x, in blocks of 3 tiles, each block of each channel a
// task of one parallel loop: the tasks of blocks before the last run without the guard, the
// last block's with it, and the loop stays one loop.
TEST(FusedTiles, GuardedTilesInBlocksFusedIntoTasks) {
    Buffer<> in = random_buffer(Int(32), {100, 3}, 9);
    for (bool parallel : {true, false}) {
        Func f(parallel ? "ftp_f" : "fts_f");
        Var x("x"), c("c"), xo("xo"), xi("xi"), xb("xb"), xt("xt"), task("task");
        f(x, c) = in(x, c) * 2 + c;
        f.split(x, xo, xi, 8, TailStrategy::GuardWithIf)
            .split(xo, xb, xt, 3, TailStrategy::GuardWithIf)
            .reorder(xi, xt, c, xb)
            .vectorize(xi)
            .fuse(c, xb, task);
        if (parallel) f.parallel(task);
        for (int width : {1, 7, 8, 23, 24, 25, 49, 100}) {
            Buffer<int> out = f.realize({width, 3});
            EXPECT_TRUE(matches_reference(f, out)) << "width " << width;
        }
        const std::string stmt = f.lowered_stmt();
        const std::string name = f.name() + ".s0.task";
        if (parallel) {
            // One parallel loop; its iterations branch on whether they are in the main part.
            const std::string loop = part_from(stmt, "parallel for (" + name);
            ASSERT_FALSE(loop.empty()) << stmt;
            EXPECT_CONTAINS(loop, "if ((" + name + " < ");
            EXPECT_EQ(loop.find("parallel for (" + name, 1), std::string::npos) << loop;
        } else {
            // A main loop of tasks without a mask, then the rest of the tasks with one.
            const std::string main = part_from(stmt, "for (" + name);
            ASSERT_FALSE(main.empty()) << stmt;
            const std::string first = main.substr(0, main.find("for (" + name, 1));
            EXPECT_EQ(first.find(" if (ramp"), std::string::npos) << first;
            EXPECT_NE(main.find("for (" + name, 1), std::string::npos) << main;
        }
    }
}

}  // namespace
}  // namespace dsl
