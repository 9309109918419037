// Mistakes in buffer constraints (dsl/Dimension.h) are CompileErrors that name the ImageParam or
// Func, the dimension and the constraint, and say what a constraint may use.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

TEST(ConstraintErrors, ConstraintsUseOnlyConstantsParamsAndBounds) {
    ImageParam in(Float(32), 2, "ce_in");
    Var x("x");
    RDom r(0, 4, "r");
    Func g("ce_g");
    g(x) = x;
    std::string msg = message_of([&] { in.dim(0).set_min(x); });
    EXPECT_CONTAINS(msg, "ImageParam \"ce_in\": the constraint dim(0).set_min(...) uses the Var x");
    EXPECT_CONTAINS(msg, "only constants, Params and the bounds of buffers");
    msg = message_of([&] { in.dim(1).set_extent(r.x); });
    EXPECT_CONTAINS(msg, "dim(1).set_extent(...) uses the RVar r");
    msg = message_of([&] { in.dim(1).set_stride(g(3)); });
    EXPECT_CONTAINS(msg, "dim(1).set_stride(...) reads ce_g");
    msg = message_of([&] { in.dim(0).set_extent(cast<int>(in(0, 0))); });
    EXPECT_CONTAINS(msg, "reads ce_in");
    msg = message_of([&] { in.dim(0).set_min(1.5f); });
    EXPECT_CONTAINS(msg, "is 1.5f of type float32; buffer bounds are integers");
}

TEST(ConstraintErrors, DimensionsAndOutputs) {
    ImageParam in(Float(32), 2, "ce_in2");
    std::string msg = message_of([&] { in.dim(2); });
    EXPECT_CONTAINS(msg, "ImageParam \"ce_in2\" has 2 dimensions; there is no dim(2)");
    msg = message_of([&] { in.dim(1).dim(-1); });
    EXPECT_CONTAINS(msg, "there is no dim(-1)");

    Func undefined("ce_undefined");
    msg = message_of([&] { undefined.output_buffer(); });
    EXPECT_CONTAINS(msg, "Func \"ce_undefined\": output_buffer() before the Func is defined");
    Func pair("ce_pair");
    Var x("x");
    pair(x) = Tuple(x, x + 1);
    msg = message_of([&] { pair.output_buffer(); });
    EXPECT_CONTAINS(msg, "Func \"ce_pair\" has 2 output values; use output_buffers()");
    std::vector<OutputBuffer> both = pair.output_buffers();
    ASSERT_EQ(both.size(), 2u);
    EXPECT_EQ(both[1].name(), "ce_pair.1");
    both[1].dim(0).set_min(0);
    EXPECT_TRUE(both[1].dim(0).min_constraint().defined());
    EXPECT_FALSE(both[0].dim(0).min_constraint().defined());
}

// A constraint that uses the bounds of a Func's output buffer, where that Func is not an output
// of the pipeline realized, is refused when the pipeline is lowered.
TEST(ConstraintErrors, BoundsOfABufferThePipelineDoesNotHave) {
    Func other("ce_other"), f("ce_f");
    Var x("x");
    other(x) = x;
    f(x) = x * 2;
    f.output_buffer().dim(0).set_extent(other.output_buffer().dim(0).extent());
    std::string msg = message_of([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "the output buffer of Func \"ce_f\": the constraint dim(0).set_extent(");
    EXPECT_CONTAINS(msg,
                    "uses the bounds of buffer \"ce_other\", which is not an argument of this "
                    "pipeline");
}

// A constraint that names an ImageParam which no longer exists: the pipeline cannot have its
// buffer as an argument, and says so.
TEST(ConstraintErrors, BoundsOfAnImageParamThatIsGone) {
    ImageParam in(Int(32), 1, "ce_read");
    {
        ImageParam gone(Int(32), 1, "ce_gone");
        in.dim(0).set_extent(gone.dim(0).extent());
    }
    Func f("ce_reader");
    Var x("x");
    f(x) = in(x);
    Buffer<int32_t> input(4);
    input.fill(1);
    in.set(input);
    std::string msg = message_of([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "ImageParam \"ce_read\": the constraint dim(0).set_extent(");
    EXPECT_CONTAINS(msg, "uses the bounds of buffer \"ce_gone\", which is not an argument");
}

}  // namespace
}  // namespace dsl
