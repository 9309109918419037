// Errors found when a pipeline runs or is lowered: each message names the buffer, Param or Func
// and says what to do.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

TEST(RuntimeErrors, InputAccessedOutsideItsBuffer) {
    ImageParam input(UInt(8), 2, "photo");
    Buffer<uint8_t> small(10, 8);
    input.set(small);
    Func blur("blur");
    Var x("x"), y("y");
    blur(x, y) = input(x, y) + input(x + 1, y);
    std::string msg = message_of<RuntimeError>([&] { blur.realize({10, 8}); });
    EXPECT_CONTAINS(msg, "input \"photo\" at [0, 10] in dimension 0");
    EXPECT_CONTAINS(msg, "only covers [0, 9]");
    EXPECT_CONTAINS(msg, "BoundaryConditions::repeat_edge(photo)");
    // A larger input works without recompiling.
    input.set(Buffer<uint8_t>(11, 8));
    EXPECT_NO_THROW(blur.realize({10, 8}));
}

TEST(RuntimeErrors, OutputBufferOfTheWrongTypeOrRank) {
    Func f("gradient");
    Var x("x"), y("y");
    f(x, y) = x + y;
    Buffer<float> wrong_type(4, 4);
    std::string msg = message_of<CompileError>([&] { f.realize(wrong_type); });
    EXPECT_CONTAINS(msg, "Func \"gradient\" computes int32 but output buffer 0");
    EXPECT_CONTAINS(msg, "holds float32");
    Buffer<int> wrong_rank(4);
    msg = message_of<CompileError>([&] { f.realize(wrong_rank); });
    EXPECT_CONTAINS(msg, "Func \"gradient\" has 2 dimensions but output buffer 0");
    msg = message_of<CompileError>([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "has 2 dimensions, but realize() was given 1 sizes");
}

TEST(RuntimeErrors, ParamOutOfRange) {
    Param<float> gamma("gamma", 1.0f, 0.1f, 4.0f);
    Func f("tone");
    Var x("x");
    f(x) = cast<float>(x) * gamma;
    gamma.set(9.5f);
    std::string msg = message_of<RuntimeError>([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "Param \"gamma\" is 9.5, above its maximum 4");
    gamma.set(0.0f);
    msg = message_of<RuntimeError>([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "Param \"gamma\" is 0, below its minimum 0.1");
    gamma.set(2.0f);
    EXPECT_NO_THROW(f.realize({4}));
}

TEST(RuntimeErrors, MissingInputs) {
    ImageParam input(Float(32), 1, "samples");
    Param<int> n("n");
    Func f("scaled");
    Var x("x");
    f(x) = input(x) * cast<float>(n);
    input.set(Buffer<float>(4));
    std::string msg = message_of([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "Param \"n\" has no value; call n.set(...) before realizing \"scaled\"");
    n.set(2);
    ImageParam unset(Float(32), 1, "unset_samples");
    Func g("scaled_unset");
    g(x) = unset(x) * cast<float>(n);
    msg = message_of([&] { g.realize({4}); });
    EXPECT_CONTAINS(msg,
                    "ImageParam \"unset_samples\" has no buffer; call unset_samples.set(buffer)");
}

TEST(CompileErrors, CycleBetweenFuncs) {
    Func f("first"), g("second");
    Var x("x");
    f(x) = x;
    g(x) = f(x) + 1;
    f(x) = g(x) * 2;  // an update of f that reads g, which reads f
    std::string msg = message_of<CompileError>([&] { g.realize({4}); });
    EXPECT_CONTAINS(msg, "the pipeline has a cycle");
    EXPECT_CONTAINS(msg, "second -> first -> second");
}

TEST(CompileErrors, CycleBetweenFuncsWhenOneWasDropped) {
    // f's update reads g, which reads f: g refers to f weakly (so that the two can be freed), and
    // once the user dropped f, the error still names both.
    Func g("second");
    Var x("x");
    {
        Func f("first");
        f(x) = x;
        g(x) = f(x) + 1;
        f(x) = g(x) * 2;
    }
    std::string msg = message_of<CompileError>([&] { g.realize({4}); });
    EXPECT_CONTAINS(msg, "Func \"second\" calls the Func \"first\", which no longer exists");
    EXPECT_CONTAINS(msg, "\"first\" depends on \"second\" (the two form a cycle)");
}

TEST(CompileErrors, InliningAFuncWithUpdates) {
    Func f("acc"), g("out");
    Var x("x");
    f(x) = x;
    f(x) += 1;
    g(x) = f(x);
    f.compute_inline();
    std::string msg = message_of<CompileError>([&] { g.realize({4}); });
    EXPECT_CONTAINS(msg, "Func \"acc\" has update definitions, so it cannot be computed inline");
}

TEST(CompileErrors, UnboundedCoordinate) {
    Func f("table"), g("lookup");
    Var x("x");
    f(x) = x * 2;
    f.compute_root();
    g(x) = f(cast<int>(sqrt(cast<float>(x)) * 1e6f));
    // The coordinate depends on a float: bounds inference gives int32's full range, which is
    // too large to allocate; the allocation check reports it.
    std::string msg = message_of<Error>([&] { g.realize({4}); });
    EXPECT_CONTAINS(msg, "table");
}

}  // namespace
}  // namespace dsl
