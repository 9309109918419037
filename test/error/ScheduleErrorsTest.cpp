// Illegal schedules are CompileErrors that name the Func, the stage and the loop, and list the
// loops that exist.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

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
