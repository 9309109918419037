// Tiles that read their input transposed (src/lowering/TransposedGathers.cpp): where a tile's
// rows are unrolled and each gathers one element from as many input rows as it has lanes, the
// gathers become dense loads and a transposition in registers. The results match the reference
// evaluator for each type and lane count, with partial tiles and a prefetch, and the lowered code
// shows the rewrite where it applies and not where it does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::count_of;
using test::matches_reference;
using test::random_buffer;

Var x("x"), y("y"), c("c"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), co("co"), ci("ci");

// out(x, y) = in(y, x) in tiles of n x n, rows vectors of n lanes, unrolled: for each type, sizes
// that leave partial tiles in both directions (those keep their gathers: their rows and lanes
// are guarded).
TEST(TransposedGathers, TransposesMatchTheReference) {
    struct Case {
        Type type;
        int lanes;
    };
    for (Case k : {Case{Float(32), 16}, Case{Float(32), 8}, Case{Int(16), 8}, Case{UInt(8), 16},
                   Case{Float(64), 4}}) {
        ImageParam in(k.type, 2, "tg_in");
        in.set(random_buffer(k.type, {53, 41}, 7));
        Func f("tg_transpose");
        f(x, y) = in(y, x) + cast(k.type, 1);
        f.tile(x, y, xo, yo, xi, yi, k.lanes, k.lanes).vectorize(xi).unroll(yi);
        Buffer<> out(k.type, {41, 53});
        f.realize(out);
        EXPECT_TRUE(matches_reference(f, out)) << k.type << " x " << k.lanes;
        const std::string stmt = f.lowered_stmt();
        // The full tiles' lets in the version for dense buffers: n rows, then n shuffles a stage.
        EXPECT_GE(count_of(stmt, "let tg_in.transposed"), k.lanes * 2) << k.type << "\n" << stmt;
    }
}

// A layout change, planar to interleaved: out(c, x, y) = in(x, y, c), 8 channels a vector and 8
// pixels unrolled, with a prefetch of the next block of pixels; and tiles whose rows are a loop.
TEST(TransposedGathers, LayoutChangesAndRowLoops) {
    ImageParam in(Float(32), 3, "tg_planar");
    in.set(random_buffer(Float(32), {35, 6, 16}, 8));
    Func f("tg_interleaved");
    f(c, x, y) = in(x, y, c) * 2.0f;
    f.bound(c, 0, 16)
        .split(c, co, ci, 8)
        .split(x, xo, xi, 8)
        .reorder(ci, xi, co, xo, y)
        .vectorize(ci)
        .unroll(xi)
        .prefetch(in, xo, xo, 1);
    Buffer<> out(Float(32), {16, 35, 6});
    f.realize(out);
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_GE(count_of(f.lowered_stmt(), "let tg_planar.transposed"), 8);

    // The tile's rows a serial loop (the default): unrolled where its count is the lane count,
    // behind a test in the tiles of the last rows, which keep the loop; a tile of 8 x 4 holds
    // no block and keeps its gathers.
    ImageParam in2(Float(32), 2, "tg_serial_in");
    in2.set(random_buffer(Float(32), {35, 37}, 9));
    for (int rows : {8, 4}) {
        Func g("tg_serial");
        g(x, y) = in2(y, x);
        g.tile(x, y, xo, yo, xi, yi, 8, rows).vectorize(xi);
        Buffer<> out2(Float(32), {37, 35});
        g.realize(out2);
        EXPECT_TRUE(matches_reference(g, out2)) << rows;
        EXPECT_EQ(count_of(g.lowered_stmt(), "let tg_serial_in.transposed") > 0, rows == 8) << rows;
    }
}

// Random transposed tiles: the type, the lane count, the sizes, offsets of the read, a second
// transposed read summed in, the tail strategy, the rows unrolled or a loop, and a prefetch drawn
// at random.
TEST(TransposedGathers, RandomTransposedTilesMatchTheReference) {
    std::mt19937 rng(20261201);
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const Type types[] = {Float(32), Int(32), Int(16), UInt(8), Float(64)};
    const TailStrategy tails[] = {TailStrategy::GuardWithIf, TailStrategy::ShiftInwards,
                                  TailStrategy::RoundUp};
    int rewritten = 0;
    for (int i = 0; i < 24; i++) {
        const Type t = types[uni(0, 4)];
        const int lanes = 4 << uni(0, 2);
        const TailStrategy tail = tails[uni(0, 2)];
        // RoundUp writes whole tiles: the output must be made of them.
        const int step = tail == TailStrategy::RoundUp ? lanes : 1;
        const int w = uni(lanes / step, 3 * lanes / step + 5) * step,
                  h = uni(lanes / step, 3 * lanes / step + 5) * step;
        const int dx = uni(-2, 2), dy = uni(-2, 2);
        ImageParam in(t, 2, "tgr_in");
        // Large enough for the offsets.
        Buffer<> data =
            random_buffer(t, {std::max(h, w) + lanes + 4, std::max(h, w) + lanes + 4}, uint64_t(i));
        data.translate(0, -2).translate(1, -2);
        in.set(data);
        Func f("tgr");
        Expr v = in(y + dy, x + dx);
        if (uni(0, 1)) v = v + in(y + 1, x);
        f(x, y) = v;
        f.tile(x, y, xo, yo, xi, yi, lanes, lanes, tail).vectorize(xi);
        if (uni(0, 1)) f.unroll(yi);
        if (uni(0, 1)) f.prefetch(in, xo, xo, uni(1, 2));
        Buffer<> out(t, {w, h});
        f.realize(out);
        EXPECT_TRUE(matches_reference(f, out))
            << "case " << i << ": " << t << ", " << lanes << " lanes, " << w << " x " << h;
        rewritten += count_of(f.lowered_stmt(), ".transposed") > 0;
    }
    EXPECT_GE(rewritten, 20);
}

}  // namespace
}  // namespace dsl
