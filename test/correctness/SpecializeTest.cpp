// specialize(condition): several schedules for one definition, chosen at run time by Params.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

TEST(Specialize, ChoosesTheScheduleByAParam) {
    Param<int> mode("mode");
    Func f("spec_f");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    f(x, y) = x * 7 + y * mode;
    f.specialize(mode == 0).parallel(y);
    f.specialize(mode == 1).vectorize(x, 8).split(y, yo, yi, 2);
    f.unroll(x, 2);  // the schedule when no condition holds
    std::string nest = f.loop_nest();
    EXPECT_CONTAINS(nest, "if (mode == 0):\n    parallel for spec_f.s0.y:");
    EXPECT_CONTAINS(nest, "else:\n    if (mode == 1):");
    EXPECT_CONTAINS(nest, "vectorized for spec_f.s0.x_vectorized");
    EXPECT_CONTAINS(nest, "unrolled for spec_f.s0.x_unrolled");
    for (int m : {0, 1, 2, -3}) {
        mode.set(m);
        Buffer<int> out = f.realize({13, 5});
        EXPECT_TRUE(matches_reference(f, out)) << "mode " << m;
    }
}

TEST(Specialize, NestedAndOnAnUpdate) {
    Param<int> width("spec_width");
    Param<bool> fast("spec_fast");
    Func f("spec_upd");
    Var x("x"), y("y");
    RDom r(0, 4, "r");
    f(x, y) = x + y;
    f(x, y) += f(x, y) * r + width;
    Stage fast_update = f.update(0).specialize(fast);
    fast_update.vectorize(x, 4);
    fast_update.specialize(width > 10).parallel(y);
    for (bool b : {false, true}) {
        for (int w : {3, 20}) {
            fast.set(b);
            width.set(w);
            Buffer<int> out = f.realize({12, 6});  // whole vectors: no scalar tail
            EXPECT_TRUE(matches_reference(f, out)) << b << " " << w;
        }
    }
}

TEST(Specialize, ProducerInsideASpecializedConsumer) {
    Buffer<> in = random_buffer(Int(16), {40, 12}, 31);
    Param<int> strip("spec_strip");
    Func g("spec_g"), f("spec_cons");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    g(x, y) = in(x, y) * 3;
    f(x, y) = g(x, y) + g(x + 1, y) + g(x, y + 1);
    g.compute_at(f, y);
    // Each specialization keeps the loop "y" g is computed at; one rounds its x loop up, so
    // g's storage must hold what either computes.
    f.specialize(strip > 0).vectorize(x, 8, TailStrategy::ShiftInwards);
    g.vectorize(x, 8);
    for (int s : {0, 1}) {
        strip.set(s);
        Buffer<int16_t> out = f.realize({27, 11});
        EXPECT_TRUE(matches_reference(f, out)) << s;
    }
    // A specialization without the loop cannot hold g.
    Func g2("spec_g2"), f2("spec_cons2");
    Var yo("yo"), yi("yi");
    g2(x, y) = x + y;
    f2(x, y) = g2(x, y) + g2(x, y + 1);
    g2.compute_at(f2, y);
    f2.specialize(strip > 0).split(y, yo, yi, 4);
    std::string msg = test::message_of([&] { f2.realize({8, 8}); });
    EXPECT_CONTAINS(msg,
                    "Func \"spec_g2\" is placed at the loop spec_cons2.y, but spec_cons2 has a "
                    "schedule that can run (its own or a specialization's) without that loop");
}

TEST(Specialize, ConditionsMustBeBooleanParams) {
    Func f("spec_bad");
    Var x("x");
    f(x) = x;
    std::string msg = test::message_of([&] { f.specialize(x > 3); });
    EXPECT_CONTAINS(msg,
                    "Func \"spec_bad\", specialize: the condition (x > 3) uses \"x\", which "
                    "is not a Param");
    Param<int> p("spec_p");
    msg = test::message_of([&] { f.specialize(p + 1); });
    EXPECT_CONTAINS(msg, "the condition must be a boolean scalar");
    // Directives on a specialization name it in their errors.
    msg = test::message_of([&] { f.specialize(p > 2).vectorize(Var("z"), 4); });
    EXPECT_CONTAINS(msg, "Func \"spec_bad\" specialized for (spec_p > 2) has no loop \"z\"");
}

TEST(Specialize, OnTheBoundsOfTheOutputBuffer) {
    // Halide's dead_realization_in_specialization: a schedule for a small output and another
    // for the rest, chosen by the output buffer's extent.
    Var x("x");
    Func f("f");
    f(x) = x * 3;
    Expr wide = f.output_buffer().dim(0).extent() >= 8;
    f.specialize(wide).vectorize(x, 8);
    for (int n : {5, 16, 21}) {
        Buffer<int> out = f.realize({n});
        for (int i = 0; i < n; i++)
            ASSERT_EQ(out(i), 3 * i) << n;
    }
    // A Func that is not an output has no output buffer to test.
    Func g("g"), h("h");
    g(x) = x;
    g.specialize(g.output_buffer().dim(0).min() == 0).vectorize(x, 4);
    h(x) = g(x) + 1;
    g.compute_root();
    std::string message = test::message_of([&] { h.realize({8}); });
    EXPECT_CONTAINS(message, "specialized on the bounds of its output buffer");
}

// specialize_fail(message): the cases no specialization covers stop the pipeline with the
// message; a specialization asked for again is the same one, a new one after it is refused.
TEST(Specialize, FailWhereNoSpecializationHolds) {
    Param<int> p("spec_fail_p");
    Var x("x"), xo("xo"), xi("xi");
    Func g("spec_fail_g"), f("spec_fail_f");
    g(x) = x * 2;
    f(x) = g(x) + g(x + 1);
    g.compute_at(f, xo);
    f.split(x, xo, xi, 4);
    f.specialize(p == 0).vectorize(xi);
    f.specialize(p == 1).unroll(xi);
    f.specialize_fail("spec_fail_p must be 0 or 1");
    // The same condition again: the existing specialization, which may still be scheduled.
    f.specialize(p == 0).parallel(xo);
    EXPECT_CONTAINS(f.loop_nest(), "parallel for spec_fail_f.s0.xo");
    for (int v : {0, 1}) {
        p.set(v);
        Buffer<int> out = f.realize({12});
        for (int i = 0; i < 12; i++)
            ASSERT_EQ(out(i), 4 * i + 2) << v;
    }
    p.set(2);
    std::string msg = test::message_of<RuntimeError>([&] { f.realize({12}); });
    EXPECT_CONTAINS(msg, "spec_fail_p must be 0 or 1 (Func \"spec_fail_f\", pure definition");
    // Refusals.
    msg = test::message_of([&] { f.specialize(p == 3); });
    EXPECT_CONTAINS(msg,
                    "specialize((spec_fail_p == 3)) comes after specialize_fail(\"spec_fail_p "
                    "must be 0 or 1\")");
    msg = test::message_of([&] { f.specialize_fail("again"); });
    EXPECT_CONTAINS(msg, "specialize_fail() was already called");
    msg = test::message_of([&] {
        Func h("spec_fail_h");
        h(x) = x;
        h.specialize_fail("");
    });
    EXPECT_CONTAINS(msg, "specialize_fail() needs a message");
}

// A producer computed at a loop that only the specializations have: the schedule without it
// never runs (specialize_fail), so the producer needs that loop in the others alone (Halide's
// issue 3926). Where a schedule that can run lacks the loop, it is an error naming the legal
// places.
TEST(Specialize, ComputeAtALoopOfTheSpecializationsAlone) {
    Param<bool> p("spec_only_p");
    Var x("x"), y("y"), tx("tx"), ty("ty");
    Func f("spec_only_f"), g("spec_only_g");
    f(x) = x * 3;
    g(x, y) = f(x) + select(p, 1, 2);
    g.specialize(p).tile(x, y, tx, ty, 8, 8, TailStrategy::GuardWithIf);
    g.specialize(!p).tile(x, y, tx, ty, 4, 4, TailStrategy::GuardWithIf);
    g.specialize_fail("spec_only_p is a bool");
    f.compute_at(g, tx);
    EXPECT_CONTAINS(g.loop_nest(), "produce spec_only_f");
    for (bool v : {false, true}) {
        p.set(v);
        Buffer<int> out = g.realize({13, 10});
        int wrong = 0;
        out.for_each_element([&](int i, int j) { wrong += out(i, j) != 3 * i + (v ? 1 : 2); });
        EXPECT_EQ(wrong, 0) << v;
    }

    Func f2("spec_only_f2"), g2("spec_only_g2");
    f2(x) = x * 3;
    g2(x, y) = f2(x) + 1;
    g2.specialize(p).tile(x, y, tx, ty, 8, 8);
    f2.compute_at(g2, tx);
    const std::string msg = test::message_of([&] { g2.realize({16, 16}); });
    EXPECT_CONTAINS(msg,
                    "Func \"spec_only_f2\" is placed at the loop spec_only_g2.tx, but "
                    "spec_only_g2 has a schedule that can run (its own or a specialization's) "
                    "without that loop");
}

// On an update: the message names the update.
TEST(Specialize, FailOnAnUpdate) {
    Param<bool> fast("spec_fail_fast");
    Var x("x");
    Func f("spec_fail_upd");
    f(x) = x;
    f(x) += 1;
    f.update(0).specialize(fast).vectorize(x, 4);
    f.update(0).specialize_fail("no slow path");
    fast.set(true);
    Buffer<int> out = f.realize({8});
    EXPECT_EQ(out(7), 8);
    fast.set(false);
    std::string msg = test::message_of<RuntimeError>([&] { f.realize({8}); });
    EXPECT_CONTAINS(msg, "no slow path (Func \"spec_fail_upd\", update 0");
}

}  // namespace
}  // namespace dsl
