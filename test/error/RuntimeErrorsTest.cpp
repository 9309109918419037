// Errors found when a pipeline runs or is lowered: each message names the buffer, Param or Func
// and says what to do.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

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

TEST(RuntimeErrors, UpdateReadsItsOutputOutsideTheBuffer) {
    // A scan that reads one point before where it writes: realized into a buffer over [0, 4)
    // it would read scan(-1), which the buffer does not hold. (realize({4}) computes into a
    // buffer over [-1, 4) and returns [0, 4) of it, as Halide's does.)
    Func scan("scan");
    Var x("x");
    RDom r(0, 4, "r");
    scan(x) = x;
    scan(r) += scan(r - 1);
    Buffer<int> four(4);
    std::string msg = message_of<RuntimeError>([&] { scan.realize(four); });
    EXPECT_CONTAINS(msg, "an update of output \"scan\" reads it at [-1, 3] in dimension 0");
    EXPECT_CONTAINS(msg, "only covers [0, 3]");
    // A buffer that starts at -1 holds that point: the scan then runs.
    Buffer<int> wide(5);
    wide.set_min({-1});
    scan.realize(wide);
    int expect = -1;
    for (int i = 0; i < 4; i++) {
        expect += i;
        EXPECT_EQ(wide(i), expect) << "at " << i;
    }
}

// require(): the value where the condition holds, else the pipeline stops with the message,
// scalar or vectorized, or the custom_error handler gets it.
TEST(RuntimeErrors, RequireStopsThePipelineWhereItsConditionFails) {
    for (int lanes : {1, 4, 8}) {
        Param<int> a("req_a"), b("req_b");
        Var x("x");
        Func s("req_sum"), f("req_checked");
        s(x) = a + b;
        f(x) = require(s(x) == 7829, s(x) * 3 + x, "the Params should add to 7829 but add to", s(x),
                       "(lanes", lanes, ")");
        if (lanes > 1) {
            s.compute_root().vectorize(x, lanes);
            f.vectorize(x, lanes);
        }
        a.set(1);
        b.set(2);
        std::string msg = message_of<RuntimeError>([&] { f.realize({16}); });
        EXPECT_CONTAINS(msg, "Requirement failed: ((req_sum(x) == 7829))");
        // A vector value prints its lanes, as print() writes it.
        EXPECT_CONTAINS(msg, lanes == 1 ? "the Params should add to 7829 but add to 3 (lanes 1 )"
                                        : "the Params should add to 7829 but add to <3, 3, 3, 3");
        // A custom_error handler receives it and realize() returns.
        static std::string handled;
        handled.clear();
        f.jit_handlers().custom_error = [](JITUserContext *, const char *m) { handled = m; };
        f.realize({16});
        EXPECT_CONTAINS(handled, "Requirement failed");
        f.jit_handlers().custom_error = nullptr;
        b.set(7828);
        Buffer<int> out = f.realize({16});
        for (int i = 0; i < 16; i++)
            EXPECT_EQ(out(i), 7829 * 3 + i) << "lanes " << lanes;
    }
    // A condition on Params only, in a boundary condition's bounds (Halide's use).
    Param<int> p("req_p"), q("req_q");
    ImageParam in(Int(32), 1, "req_in");
    Buffer<int> data(8);
    data.fill([](int i) { return i * 10; });
    in.set(data);
    Func clamped = BoundaryConditions::repeat_edge(in, {{0, require(p == q, p)}});
    Var x("x");
    Func g("req_edge");
    g(x) = clamped(x);
    p.set(8);
    q.set(7);
    std::string msg = message_of<RuntimeError>([&] { g.realize({10}); });
    EXPECT_CONTAINS(msg, "Requirement failed");
    q.set(8);
    Buffer<int> out = g.realize({10});
    EXPECT_EQ(out(9), 70);
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

TEST(RuntimeErrors, BuffersOfATupleOfDifferentShapes) {
    // Halide's multi_output_pipeline_with_bad_sizes: one region is computed for every value.
    Func f("tuple_shapes");
    Var x("x");
    f(x) = Tuple(x, sin(cast<float>(x)));
    Buffer<int> ints(100);
    Buffer<float> floats(101);
    std::string msg = message_of<RuntimeError>([&] { f.realize(Realization({ints, floats})); });
    EXPECT_CONTAINS(msg,
                    "the buffers of the Tuple values of Func \"tuple_shapes\" differ in "
                    "shape: \"tuple_shapes.1\" covers [0, 100] in dimension 0, the first "
                    "value's buffer [0, 99]");
    Buffer<float> shifted(100);
    shifted.set_min({1});
    msg = message_of<RuntimeError>([&] { f.realize(Realization({ints, shifted})); });
    EXPECT_CONTAINS(msg, "covers [1, 100]");
    // Of one shape, both are computed.
    Buffer<float> same(100);
    f.realize(Realization({ints, same}));
    EXPECT_EQ(ints(7), 7);
    EXPECT_FLOAT_EQ(same(7), std::sin(7.0f));
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

// A CompileTimeErrorReporter receives warnings in place of stderr and errors before they are
// thrown; runtime errors are not its.
class CountingReporter : public CompileTimeErrorReporter {
  public:
    std::vector<std::string> warnings, errors;
    void warning(const char *message) override { warnings.emplace_back(message); }
    void error(const char *message) override { errors.emplace_back(message); }
};

TEST(CompileErrors, CustomReporterGetsWarningsAndErrors) {
    static_assert(exceptions_enabled(), "dsl reports errors as exceptions");
    CountingReporter reporter;
    set_custom_compile_time_error_reporter(&reporter);
    Var x("x"), xo("xo"), xi("xi");
    Func inl("rep_inlined"), out("rep_out");
    inl(x) = x + 1;
    inl.split(x, xo, xi, 4);  // no effect on an inlined Func: a warning
    out(x) = inl(x) * 2;
    Buffer<int> result = out.realize({4});
    EXPECT_EQ(result(3), 8);
    ASSERT_EQ(reporter.warnings.size(), 1u);
    EXPECT_CONTAINS(reporter.warnings[0], "\"rep_inlined\" is computed inline");
    Func bad("rep_bad");
    std::string msg = message_of<CompileError>([&] { bad(x) = bad(x + 1); });
    ASSERT_EQ(reporter.errors.size(), 1u);
    EXPECT_EQ(reporter.errors[0], msg);
    // A runtime error goes to realize()'s caller only.
    Param<int> p("rep_p", 1, 0, 2);
    Func g("rep_g");
    g(x) = x * p;
    p.set(5);
    message_of<RuntimeError>([&] { g.realize({2}); });
    EXPECT_EQ(reporter.errors.size(), 1u);
    set_custom_compile_time_error_reporter(nullptr);
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
