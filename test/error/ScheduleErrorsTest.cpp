// Illegal schedules are CompileErrors that name the Func, the stage and the loop, and list the
// loops that exist.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

using test::message_of;

TEST(ScheduleErrors, UnknownLoopListsTheLoops) {
    Func f("blur");
    Var x("x"), y("y"), z("z"), zo("zo"), zi("zi");
    f(x, y) = x + y;
    std::string msg = message_of([&] { f.split(z, zo, zi, 4); });
    EXPECT_CONTAINS(msg, "Func \"blur\" has no loop \"z\" (in split)");
    EXPECT_CONTAINS(msg, "Its loops, innermost first, are: x, y");
}

TEST(ScheduleErrors, FactorMustBePositive) {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x;
    EXPECT_CONTAINS(message_of([&] { f.split(x, xo, xi, 0); }),
                    "the factor is 0; it must be positive");
    EXPECT_CONTAINS(message_of([&] { f.split(x, xo, xi, -3); }), "the factor is -3");
    EXPECT_CONTAINS(message_of([&] { f.split(x, xo, xi, 2.5f); }), "must be an integer");
}

TEST(ScheduleErrors, ReorderRepeatingALoop) {
    Func f("g");
    Var x("x"), y("y");
    f(x, y) = x;
    EXPECT_CONTAINS(message_of([&] { f.reorder(x, y, x); }), "the loop \"x\" is listed twice");
}

TEST(ScheduleErrors, NameClashesAndMissingUpdates) {
    Func f("h");
    Var x("x"), y("y");
    f(x, y) = x;
    EXPECT_CONTAINS(message_of([&] { f.split(x, y, Var("xi"), 2); }),
                    "would make a second loop named \"y\"");
    EXPECT_CONTAINS(message_of([&] { f.update(0); }), "has 0 update definitions");
}

TEST(ScheduleErrors, TailStrategiesThatCannotApply) {
    Func f("tails");
    Var x("x");
    RDom r(0, 10, "r");
    f(x) = x;
    f(r) += 1;
    std::string msg =
        message_of([&] { f.update(0).split(r, r, Var("ri"), 4, TailStrategy::RoundUp); });
    EXPECT_CONTAINS(msg,
                    "Func \"tails\" update 0, split: TailStrategy::RoundUp on the "
                    "reduction loop \"r.x\" would run the update at points outside its RDom");
    Func g("tails_g");
    g(x) = x;
    g(x) += 2;
    msg = message_of([&] { g.update(0).split(x, x, Var("xi"), 4, TailStrategy::ShiftInwards); });
    EXPECT_CONTAINS(msg, "ShiftInwards computes some points of \"x\" twice");
}

TEST(ScheduleErrors, ParallelRVarOfAHistogramRaces) {
    Buffer<uint8_t> in(20);
    in.for_each_element([&](int i) { in(i) = static_cast<uint8_t>(i % 4); });
    Func hist("hist");
    Var x("x");
    RDom r(0, 20, "r");
    hist(x) = 0;
    hist(in(r)) += 1;
    hist.update().parallel(r);  // accepted here; refused when compiled
    std::string msg = message_of([&] { hist.realize({4}); });
    EXPECT_CONTAINS(msg, "Func \"hist\" update 0: the loop \"r.x\" is parallel");
    EXPECT_CONTAINS(msg, "different values of r.x may write the same point");
    EXPECT_CONTAINS(msg, "rfactor");
    EXPECT_CONTAINS(msg, "allow_race_conditions()");
}

TEST(ScheduleErrors, VectorizedRVarReadingAnotherPointRaces) {
    Func f("prefix_sum");
    Var x("x");
    RDom r(1, 15, "r");
    f(x) = x;
    f(r) = f(r - 1) + f(r);
    f.update().vectorize(r, 4);
    std::string msg = message_of([&] { f.realize({16}); });
    EXPECT_CONTAINS(msg,
                    "Func \"prefix_sum\" update 0: the loop \"r.x_vectorized\" (over the "
                    "RVar r.x) is vectorized");
    EXPECT_CONTAINS(msg, "reads prefix_sum((r.x - 1))");
    EXPECT_CONTAINS(msg, "allow_race_conditions()");
}

TEST(ScheduleErrors, ParallelRVarWhoseWriteDependsOnAnInnerRVar) {
    Func f("diagonals");
    Var x("x");
    RDom r(0, 8, 0, 8, "r");
    f(x) = 0;
    f(r.x + r.y) = f(r.x + r.y) + 1;  // r.y = 0, r.x = 1 and r.y = 1, r.x = 0 collide
    f.update().parallel(r.y);
    std::string msg = message_of([&] { f.realize({15}); });
    EXPECT_CONTAINS(msg, "the loop \"r.y\" is parallel, but different values of r.y may write");
    EXPECT_CONTAINS(msg, "the variables r.x, r.y change inside it");
}

TEST(ScheduleErrors, AllowRaceConditionsLetsARacyLoopThrough) {
    Buffer<uint8_t> in(30);
    in.for_each_element([&](int i) { in(i) = static_cast<uint8_t>((i * 7) % 5); });
    Func hist("allowed_hist");
    Var x("x");
    RDom r(0, 30, "r");
    hist(x) = 0;
    hist(in(r)) += 1;
    hist.update().parallel(r).allow_race_conditions();  // after parallel: still applies
    dsl_set_num_threads(1);  // one thread: the iterations cannot actually collide
    Buffer<int32_t> out = hist.realize({256});
    dsl_set_num_threads(0);
    std::vector<int> expected(256, 0);
    for (int i = 0; i < 30; i++)
        expected[in(i)]++;
    for (int b = 0; b < 256; b++)
        EXPECT_EQ(out(b), expected[b]) << "bin " << b;
    EXPECT_NE(hist.loop_nest().find("parallel for allowed_hist.s1.r.x"), std::string::npos);
}

TEST(ScheduleErrors, RFactorOfANonAssociativeUpdate) {
    Func f("recurrence");
    RDom r(0, 10, "r");
    f() = 1;
    f() = f() * 2 + r;
    std::string msg = message_of([&] { f.update().rfactor(r, Var("u")); });
    EXPECT_CONTAINS(msg,
                    "Func \"recurrence\" update 0 is recurrence() = ((recurrence() * 2) + "
                    "r.x), which rfactor cannot split");
    EXPECT_CONTAINS(msg, "rfactor needs an associative update");
}

TEST(ScheduleErrors, RFactorOfLoopsTheStageLacks) {
    Func f("sums");
    Var x("x"), u("u");
    RDom r(0, 10, 0, 4, "r");
    f(x) = 0;
    f(x) += r.x * x + r.y;
    EXPECT_CONTAINS(message_of([&] { f.update().rfactor(RVar("nope"), u); }),
                    "Func \"sums\" update 0 has no RVar loop \"nope\" (in rfactor(nope, u)). "
                    "Its RVar loops, innermost first, are: r.x, r.y.");
    EXPECT_CONTAINS(message_of([&] { f.update().rfactor(RVar("x"), u); }),
                    "names \"x\", a pure Var of sums; rfactor keeps RVars");
    EXPECT_CONTAINS(message_of([&] { f.update().rfactor(r.y, x); }),
                    "would give the new Func a dimension \"x\"");
    EXPECT_CONTAINS(message_of([&] {
                        f.update().rfactor({{r.x, u}, {r.x, Var("w")}});
                    }),
                    "lists the RVar r.x twice");
    EXPECT_CONTAINS(message_of([&] { Expr e = RVar("rxi") + 1; }),
                    "the RVar \"rxi\" only names a loop made by a schedule");
}

TEST(ScheduleErrors, RFactorOfArgmaxMustKeepTheOutermostRVars) {
    Buffer<int32_t> in(5, 4);
    in.fill(3);
    Func best("argmax_order");
    RDom r(0, 5, 0, 4, "r");
    best() = Tuple{0, type_min(Int(32))};
    Expr better = in(r.x, r.y) > best()[1];
    best() = Tuple{select(better, r.x, best()[0]), select(better, in(r.x, r.y), best()[1])};
    std::string msg = message_of([&] { best.update().rfactor(r.x, Var("u")); });
    EXPECT_CONTAINS(msg, "is an argmin / argmax");
    EXPECT_CONTAINS(msg, "keeps the first of equal values");
    EXPECT_CONTAINS(msg, "Keep r.y instead");
}

TEST(ScheduleWarnings, RFactorDropsEarlierLoopDirectives) {
    Func f("rescheduled");
    Var x("x"), xo("xo"), xi("xi"), u("u");
    RDom r(0, 6, 0, 4, "r");
    f(x) = 0;
    f(x) += r.x * r.y + x;
    f.update().split(x, xo, xi, 4).vectorize(xi);
    ::testing::internal::CaptureStderr();
    Func partial = f.update().rfactor(r.y, u);
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_CONTAINS(err,
                    "Func \"rescheduled\" update 0: rfactor gives this update and "
                    "rescheduled_intm default loops, so the directives on x, xi no longer "
                    "apply");
    Buffer<int32_t> out = f.realize({5});
    for (int i = 0; i < 5; i++) {
        int expected = 0;
        for (int ry = 0; ry < 4; ry++) {
            for (int rx = 0; rx < 6; rx++)
                expected += rx * ry + i;
        }
        EXPECT_EQ(out(i), expected) << i;
    }
}

TEST(ScheduleWarnings, LoopDirectivesOnAnInlinedFunc) {
    Func g("inlined_g"), f("uses_g");
    Var x("x");
    g(x) = x * 2;
    f(x) = g(x) + 1;
    g.vectorize(x, 8);  // g stays inlined: this cannot apply
    ::testing::internal::CaptureStderr();
    Buffer<int> out = f.realize({16});
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_CONTAINS(err,
                    "dsl: warning: Func \"inlined_g\" is computed inline, so its loop directives");
    EXPECT_EQ(out(5), 11);
}

TEST(ScheduleErrors, PrefetchesThatCannotApply) {
    ImageParam in(Float(32), 2, "pfe_in"), unused(Float(32), 2, "pfe_unused");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    auto make = [&](Func &f, Func &g) {
        g(x, y) = in(x, y) * 2.0f;
        f(x, y) = g(x, y) + g(x, y + 1);
        f.split(x, xo, xi, 8);
    };
    {
        Func f("pfe_f"), g("pfe_g");
        make(f, g);
        EXPECT_CONTAINS(message_of([&] { f.prefetch(in, y, xo, 1); }),
                        "Func \"pfe_f\", prefetch of \"pfe_in\": the loop \"xo\" that the offset "
                        "applies to is inside the loop \"y\" where the prefetch goes");
        EXPECT_CONTAINS(message_of([&] { f.prefetch(in, Var("z"), y, 1); }),
                        "Func \"pfe_f\" has no loop \"z\" (in prefetch)");
        EXPECT_CONTAINS(message_of([&] { f.prefetch(in, xo, y, 0.5f); }), "must be an integer");
    }
    auto compile_message = [&](Func &f) { return message_of([&] { f.realize({16, 4}); }); };
    {
        Func f("pfe_unread"), g("pfe_g2");
        make(f, g);
        f.prefetch(unused, xo, y, 1);
        EXPECT_CONTAINS(compile_message(f),
                        "Func \"pfe_unread\" prefetches \"pfe_unused\" at its loop \"xo\", but "
                        "the pipeline never reads \"pfe_unused\"");
    }
    {
        Func f("pfe_inlined"), g("pfe_g3");
        make(f, g);
        f.prefetch(g, xo, y, 1);
        EXPECT_CONTAINS(compile_message(f), "a Func that is inlined has no storage to prefetch");
    }
    {
        Func f("pfe_inside"), g("pfe_g4");
        make(f, g);
        g.compute_at(f, xo);
        f.prefetch(g, xo, y, 1);
        EXPECT_CONTAINS(compile_message(f), "\"pfe_g4\" is computed inside that loop");
    }
    {
        Func f("pfe_vector"), g("pfe_g5");
        make(f, g);
        f.prefetch(in, xi, y, 1).vectorize(xi);
        EXPECT_CONTAINS(compile_message(f),
                        "Func \"pfe_vector\" prefetches \"pfe_in\" at its loop \"xi\", but that "
                        "loop is the vectorized loop \"xi\"");
    }
    {
        Func f("pfe_split"), g("pfe_g6");
        make(f, g);
        f.prefetch(in, xo, y, 1).split(xo, Var("xoo"), Var("xoi"), 2);
        EXPECT_CONTAINS(compile_message(f), "it has no loop \"xo\"");
    }
    {
        Func f("pfe_reorder"), g("pfe_g7");
        make(f, g);
        f.prefetch(in, xo, y, 1).reorder(xi, y, xo);
        EXPECT_CONTAINS(compile_message(f), "a later reorder put \"y\" inside it");
    }
}

TEST(ScheduleWarnings, StorageDirectivesThatCannotApply) {
    Func g("inl_store_g"), f("inl_store_f");
    Var x("x"), y("y");
    g(x, y) = x * 2 + y;
    f(x, y) = g(x, y) + 1;
    g.store_root().bound(x, 0, 16).reorder_storage(y, x);  // g stays inlined
    f.reorder_storage(y, x);                               // an output's layout is its buffer's
    ::testing::internal::CaptureStderr();
    Buffer<int> out = f.realize({16, 2});
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_CONTAINS(err,
                    "Func \"inl_store_g\" is computed inline, so store_at / store_root has "
                    "no effect");
    EXPECT_CONTAINS(err,
                    "Func \"inl_store_g\" is computed inline, so bound(x, ...) has no "
                    "effect");
    EXPECT_CONTAINS(err,
                    "Func \"inl_store_g\" is computed inline, so it has no storage: "
                    "reorder_storage has no effect");
    EXPECT_CONTAINS(err,
                    "Func \"inl_store_f\" is an output, so its layout is its buffer's: "
                    "reorder_storage has no effect");
    EXPECT_EQ(out(3, 1), 3 * 2 + 1 + 1);
}

}  // namespace
}  // namespace dsl
