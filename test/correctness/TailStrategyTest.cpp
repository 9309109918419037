// Split tails: RoundUp, ShiftInwards and PartialTile (GuardWithIf is covered by ScheduleTest),
// alone, nested, under vectorize / unroll / tile and for producers inside a consumer's loops.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

/// The first "produce <func> { ... }" of a lowered statement (up to the next consume or the
/// end), where a split's guard would be.
std::string produce_part(const std::string &stmt, const std::string &func) {
    size_t start = stmt.find("produce " + func + " {");
    if (start == std::string::npos) return "(no produce " + func + ")";
    // Up to its consumer, or to the pipeline's other version (for buffers of any strides),
    // whose own test of an empty output is not part of the produce.
    size_t end = std::min(stmt.find("consume", start), stmt.find("\nelse", start));
    return stmt.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(TailStrategy, RoundUpGrowsTheProducersStorage) {
    Buffer<> in = random_buffer(Int(32), {40, 9}, 21);
    Func g("ru_g"), f("ru_f");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    g(x, y) = in(x, y) * 5 - x;
    f(x, y) = g(x, y) + g(x + 2, y);
    // 13 + 2 columns of g are needed; RoundUp computes 16 (no test in the loop).
    g.compute_root().vectorize(x, 8, TailStrategy::RoundUp);
    Buffer<int> out = f.realize({13, 9});
    EXPECT_TRUE(matches_reference(f, out));
    // The storage holds what the rounded loop writes, not just the 15 columns f reads.
    std::string stmt = f.lowered_stmt();
    size_t at = stmt.find("let ru_g.x.max_realized = ");
    ASSERT_NE(at, std::string::npos) << stmt;
    std::string line = stmt.substr(at, stmt.find('\n', at) - at);
    EXPECT_CONTAINS(line, "/ 8) * 8)");  // the rounded-up end
    EXPECT_CONTAINS(line, "max(");
    EXPECT_EQ(produce_part(f.lowered_stmt(), "ru_g").find("if ("), std::string::npos)
        << "RoundUp needs no guard:\n"
        << f.lowered_stmt();
    // Unrolled, nested in another split, and inside a tile with a guard in y.
    Func g2("ru_g2"), f2("ru_f2");
    g2(x, y) = in(x, y) + y;
    f2(x, y) = g2(x, y) * g2(x + 1, y + 1);
    g2.compute_root()
        .split(x, xo, xi, 4, TailStrategy::RoundUp)
        .split(xo, xo, Var("xoo"), 3, TailStrategy::RoundUp)
        .unroll(xi);
    f2.tile(x, y, xo, Var("yo"), xi, Var("yi"), 8, 3, TailStrategy::GuardWithIf).vectorize(xi);
    Buffer<int> out2 = f2.realize({11, 7});
    EXPECT_TRUE(matches_reference(f2, out2));
}

TEST(TailStrategy, RoundUpOnAnOutputNeedsARoundBuffer) {
    Func f("ru_out");
    Var x("x"), y("y");
    f(x, y) = x * 3 + y;
    f.vectorize(x, 8, TailStrategy::RoundUp);
    Buffer<int> fits = f.realize({16, 3});
    EXPECT_TRUE(matches_reference(f, fits));
    Buffer<int> small(13, 3);
    std::string msg = test::message_of<RuntimeError>([&] { f.realize(small); });
    EXPECT_CONTAINS(msg,
                    "writes output \"ru_out\" at [0, 15] in dimension 0, but the buffer only "
                    "covers [0, 12]");
}

TEST(TailStrategy, ShiftInwardsRecomputesTheLastVector) {
    Func f("si_out");
    Var x("x"), y("y");
    f(x, y) = x * x - y;
    f.vectorize(x, 8, TailStrategy::ShiftInwards);
    Buffer<int> out = f.realize({13, 4});  // the last vector covers 5..12
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_EQ(produce_part(f.lowered_stmt(), "si_out").find("if ("), std::string::npos)
        << "ShiftInwards needs no guard:\n"
        << f.lowered_stmt();
    Buffer<int> shifted(21, 2);
    shifted.translate(0, -7);
    f.realize(shifted);
    EXPECT_TRUE(matches_reference(f, shifted));
    // Fewer points than the factor: the output cannot hold the 8 it would compute.
    Buffer<int> tiny(5, 2);
    std::string msg = test::message_of<RuntimeError>([&] { f.realize(tiny); });
    EXPECT_CONTAINS(msg, "writes output \"si_out\" at [-3, 4] in dimension 0");
}

TEST(TailStrategy, ShiftInwardsProducerInsideATile) {
    Buffer<> in = random_buffer(UInt(16), {50, 40}, 22);
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func bx("si_bx"), by("si_by");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    bx(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    by(x, y) = (bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3;
    by.tile(x, y, xo, yo, xi, yi, 16, 8, TailStrategy::ShiftInwards).vectorize(xi, 8).parallel(yo);
    bx.compute_at(by, xo).vectorize(x, 8, TailStrategy::ShiftInwards);
    Buffer<uint16_t> out = by.realize({45, 37});
    EXPECT_TRUE(matches_reference(by, out));
    // A producer narrower than its vector: it computes a few columns before the start.
    Func g("si_g"), f("si_f");
    g(x, y) = x * 7 + y;
    f(x, y) = g(x, y) + g(x + 1, y);
    g.compute_at(f, y).vectorize(x, 16, TailStrategy::ShiftInwards);
    Buffer<int> narrow = f.realize({5, 3});
    EXPECT_TRUE(matches_reference(f, narrow));
}

TEST(TailStrategy, RoundUpOnAPureVarOfAnUpdate) {
    Func g("upd_ru_g"), f("upd_ru_f");
    Var x("x"), y("y");
    g(x, y) = x + y;
    g(x, y) = g(x, y) * 2 + 1;
    f(x, y) = g(x, y) - g(x + 1, y);
    g.compute_root();
    g.update(0).vectorize(x, 8, TailStrategy::RoundUp);
    Buffer<int> out = f.realize({9, 4});
    EXPECT_TRUE(matches_reference(f, out));
}

// PartialTile is GuardWithIf for the split itself (the copies it adds for Funcs computed in the
// partial tile: ScheduleTest): the same lowered statement, on a pure Var, an update's Var and an
// RVar.
TEST(TailStrategy, PartialTileSplitsAsGuardWithIf) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, 11, "pt_r");
    std::string nests[2];
    for (int i = 0; i < 2; i++) {
        TailStrategy tail = i == 0 ? TailStrategy::GuardWithIf : TailStrategy::PartialTile;
        Func f("pt_f");
        f(x, y) = x * 3 + y;
        f(x, y) = f(x, y) + f(x, y) * r;
        f.split(x, xo, xi, 4, tail).unroll(xi);
        f.update(0).split(x, xo, xi, 4, tail).vectorize(xi);
        f.update(0).split(r, Var("ro"), Var("ri"), 3, tail);
        nests[i] = f.lowered_stmt();
        Buffer<int> out = f.realize({13, 3});
        EXPECT_TRUE(matches_reference(f, out)) << i;
    }
    EXPECT_EQ(nests[0], nests[1]);
}

}  // namespace
}  // namespace dsl
