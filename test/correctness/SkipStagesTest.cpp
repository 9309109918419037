// Funcs read only under conditions known before their storage is made are computed only when
// those conditions hold (lowering/SkipStages.h); the values are those of the pipeline without
// skipping.
#include <gtest/gtest.h>

#include <array>

#include "dsl/dsl.h"

namespace {

std::array<int, 4> calls;

}  // namespace

extern "C" int skip_stages_count(int value, int counter) {
    calls[counter]++;
    return value;
}
DSL_EXTERN(int, skip_stages_count, int, int);

namespace dsl {
namespace {

void reset() {
    calls.fill(0);
}

// A select on a Param between two Funcs computes the one it picks.
TEST(SkipStages, ASelectOnAParamComputesTheSideItPicks) {
    Var x("x");
    Param<bool> toggle("toggle");
    Func f1("f1"), f2("f2"), f3("f3"), f4("f4");
    f1(x) = x;
    f2(x) = skip_stages_count(f1(x) + 1, 0);
    f3(x) = skip_stages_count(f1(x) + 2, 1);
    f4(x) = select(toggle, f2(x), f3(x));
    f1.compute_root();
    f2.compute_root();
    f3.compute_root();
    for (bool t : {true, false}) {
        reset();
        toggle.set(t);
        Buffer<int> out = f4.realize({10});
        for (int i = 0; i < 10; i++)
            ASSERT_EQ(out(i), i + (t ? 1 : 2));
        EXPECT_EQ(calls[0], t ? 10 : 0);
        EXPECT_EQ(calls[1], t ? 0 : 10);
    }
}

// f4 = select(t1, f2, 0) + select(t2, f3, 0), f2 and f3 reading f1: the values and what was
// computed, for each pair of toggles.
void check_both_toggles(Func &f4, Param<bool> &t1, Param<bool> &t2) {
    for (bool a : {true, false}) {
        for (bool b : {true, false}) {
            reset();
            t1.set(a);
            t2.set(b);
            Buffer<int> out = f4.realize({10});
            for (int i = 0; i < 10; i++)
                ASSERT_EQ(out(i), (a ? i + 1 : 0) + (b ? i + 1 : 0));
            EXPECT_EQ(calls[0], a || b ? 10 : 0) << a << b;
            EXPECT_EQ(calls[1], a ? 10 : 0) << a << b;
            EXPECT_EQ(calls[2], b ? 10 : 0) << a << b;
        }
    }
}

// A Func read only by skipped Funcs is skipped with them; one read by either is computed when
// either is. At root, and computed in tiles of the consumer with storage at several levels.
TEST(SkipStages, ProducersOfSkippedFuncsAreSkipped) {
    for (bool tiled : {false, true}) {
        Var x("x"), xo("xo"), xi("xi");
        Param<bool> t1("t1"), t2("t2");
        Func f1("f1"), f2("f2"), f3("f3"), f4("f4");
        f1(x) = skip_stages_count(x, 0);
        f2(x) = skip_stages_count(f1(x) + 1, 1);
        f3(x) = skip_stages_count(f1(x) + 1, 2);
        f4(x) = select(t1, f2(x), 0) + select(t2, f3(x), 0);
        if (tiled) {
            f4.split(x, xo, xi, 5);
            f1.compute_at(f4, xo);
            f2.store_root().compute_at(f4, xo);
            f3.store_at(f4, xo).compute_at(f4, xi);
        } else {
            f1.compute_root();
            f2.compute_root();
            f3.compute_root();
        }
        check_both_toggles(f4, t1, t2);
    }
}

// A Func whose production holds the production of another stored outside it (f stored at
// root, computed per x of g, so that what one x computed serves the next) is not skipped where
// its reader does not need it: f is computed as often as without the select.
TEST(SkipStages, AProductionThatFillsAnOuterStorageIsNotSkipped) {
    int computed[2];
    for (bool masked : {false, true}) {
        Var x("x");
        Func f("f"), g("g"), h("h");
        f(x) = skip_stages_count(x, 0);
        g(x) = f(x) + f(x - 1);
        h(x) = masked ? select(x == 5, 0, g(x)) : g(x);
        f.store_root().compute_at(g, x);
        g.compute_at(h, x);
        reset();
        Buffer<int> out = h.realize({10});
        for (int i = 0; i < 10; i++)
            ASSERT_EQ(out(i), masked && i == 5 ? 0 : 2 * i - 1);
        computed[masked] = calls[0];
    }
    EXPECT_EQ(computed[1], computed[0]);
    EXPECT_GE(computed[0], 11);
}

// A condition that reads a Func (here one computed beside f, per x of g) never guards f: its
// storage need not exist where f is computed. (dsl_fuzz --atomic --seed 14010 met a guard that
// read a Func outside its storage.)
TEST(SkipStages, AConditionThatReadsAFuncGuardsNothing) {
    Var x("x");
    Func f("f"), h("h"), g("g");
    f(x) = skip_stages_count(x * 3, 0);
    h(x) = x % 4;
    g(x) = select(h(x) > 1, f(x), -1);
    f.compute_at(g, x);
    h.compute_at(g, x);
    reset();
    Buffer<int> out = g.realize({16});
    for (int i = 0; i < 16; i++)
        ASSERT_EQ(out(i), i % 4 > 1 ? 3 * i : -1);
    EXPECT_EQ(calls[0], 16);
}

// A condition that reads an input, under no other condition, guards a producer computed per
// tile of its consumer (Halide's process_some_tiles): only the tiles the bitmap marks compute
// it. Under another condition (one that keeps x inside the mask), the read of the mask there
// is not the consumer's, and nothing is guarded.
TEST(SkipStages, AConditionThatReadsAnInputGuardsPerTile) {
    constexpr int kTile = 8;
    Var x("x"), y("y"), xi("xi"), yi("yi");
    ImageParam mask(Bool(), 2, "mask");
    Func tiled("tiled"), bright("bright"), out_tiles("out_tiles"), out("out");
    tiled(xi, yi, x, y) = xi + yi * 10 + x * 100 + y * 1000;
    bright(xi, yi, x, y) = skip_stages_count(tiled(xi, yi, x, y) * 2, 0);
    out_tiles(xi, yi, x, y) = select(mask(x, y), bright(xi, yi, x, y), tiled(xi, yi, x, y));
    out(x, y) = out_tiles(x % kTile, y % kTile, x / kTile, y / kTile);
    out.bound(x, 0, 4 * kTile).bound(y, 0, 3 * kTile).tile(x, y, xi, yi, kTile, kTile);
    bright.compute_at(out_tiles, x);
    out_tiles.compute_at(out, x);
    Buffer<bool> m(4, 3);
    m(1, 2) = true;
    m(3, 0) = true;
    mask.set(m);
    reset();
    Buffer<int> result = out.realize({4 * kTile, 3 * kTile});
    for (int j = 0; j < 3 * kTile; j++) {
        for (int i = 0; i < 4 * kTile; i++) {
            int v = i % kTile + (j % kTile) * 10 + (i / kTile) * 100 + (j / kTile) * 1000;
            ASSERT_EQ(result(i, j), m(i / kTile, j / kTile) ? 2 * v : v) << i << ", " << j;
        }
    }
    EXPECT_EQ(calls[0], 2 * kTile * kTile);

    // The flags read only where x is inside them: the guard is x < 4 alone (1 call with the
    // flags in it, 4 without).
    Func f("f"), g("g");
    f(x) = skip_stages_count(x, 1);
    ImageParam flags(Bool(), 1, "flags");
    g(x) = select(x < 4, select(flags(min(x, 3)), f(x), 0), 0);
    f.compute_at(g, x);
    Buffer<bool> fl(4);
    fl(2) = true;
    flags.set(fl);
    reset();
    Buffer<int> r2 = g.realize({6});
    EXPECT_EQ(r2(2), 2);
    EXPECT_EQ(r2(3), 0);
    EXPECT_EQ(calls[1], 4);
}

// One element of a Tuple read unconditionally keeps the whole Func computed.
TEST(SkipStages, AnUnconditionalReadOfOneTupleElementKeepsTheFunc) {
    Var x("x");
    Param<bool> toggle("toggle");
    Func f1("f1"), f2("f2");
    f1(x) = Tuple(skip_stages_count(x, 0), skip_stages_count(x + 1, 1));
    f2(x) = select(toggle, f1(x)[0], 0) + f1(x)[1];
    f1.compute_root();
    for (bool t : {true, false}) {
        reset();
        toggle.set(t);
        Buffer<int> out = f2.realize({10});
        for (int i = 0; i < 10; i++)
            ASSERT_EQ(out(i), (t ? i : 0) + i + 1);
        EXPECT_EQ(calls[0], 10);
        EXPECT_EQ(calls[1], 10);
    }
}

// Computed per row of its consumer, a Func read under a condition on that row's loop is
// computed for the rows where it holds; a condition on a loop inside its storage (x here)
// cannot skip it, and with storage outside the row loop (store_root) the row is not known
// where the storage is made, so nothing is skipped either.
TEST(SkipStages, ConditionsOnLoopsAroundTheStorage) {
    Var x("x"), y("y");
    for (int variant = 0; variant < 3; variant++) {
        Func f("f"), g("g");
        f(x, y) = skip_stages_count(x + y, 0);
        if (variant == 1) {
            g(x, y) = select(x > 3, f(x, y), -1);
        } else {
            g(x, y) = select(y > 3, f(x, y), -1);
        }
        f.compute_at(g, y);
        if (variant == 2) f.store_root();
        reset();
        Buffer<int> out = g.realize({8, 10});
        for (int j = 0; j < 10; j++) {
            for (int i = 0; i < 8; i++) {
                bool picked = variant == 1 ? i > 3 : j > 3;
                ASSERT_EQ(out(i, j), picked ? i + j : -1) << variant;
            }
        }
        EXPECT_EQ(calls[0], variant == 0 ? 8 * 6 : 8 * 10) << "variant " << variant;
    }
}

// A specialization whose branch reads a Func only under the specialized condition: the Func is
// computed only when that condition holds.
TEST(SkipStages, ASpecializationThatDoesNotReadAFuncSkipsIt) {
    Var x("x");
    Param<int> n("n");
    Func f("f"), g("g");
    f(x) = skip_stages_count(x * 2, 0);
    g(x) = select(n > 5, f(x), x);
    f.compute_root();
    g.specialize(n > 5).vectorize(x, 4);
    for (int value : {9, 2}) {
        reset();
        n.set(value);
        Buffer<int> out = g.realize({12});
        for (int i = 0; i < 12; i++)
            ASSERT_EQ(out(i), value > 5 ? 2 * i : i);
        EXPECT_EQ(calls[0], value > 5 ? 12 : 0);
    }
}

}  // namespace
}  // namespace dsl
