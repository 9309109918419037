// Mistakes in generators: each a CompileError naming the generator, the member and the fix.
#include <gtest/gtest.h>

#include "common/ErrorCheck.h"
#include "dsl/Generator.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

class Undefined : public Generator<Undefined> {
  public:
    Output<Buffer<int32_t>> output{"output", 1};
    void generate() {}
};

class WrongType : public Generator<WrongType> {
  public:
    Output<Buffer<uint8_t>> output{"output", 1};
    void generate() {
        Var x;
        output(x) = x;
    }
};

class WrongDimensions : public Generator<WrongDimensions> {
  public:
    Output<Buffer<int32_t>> output{"result", 2};
    void generate() {
        Var x;
        output(x) = x;
    }
};

class TwoOutputs : public Generator<TwoOutputs> {
  public:
    Output<Buffer<int32_t>> a{"a", 1};
    Output<Buffer<int32_t, 1>> b{"b"};
    void generate() {
        Var x;
        Func f("same");
        f(x) = x;
        a = f;
        b = f;
    }
};

class NoOutput : public Generator<NoOutput> {
  public:
    GeneratorParam<int> k{"k", 1};
    void generate() {}
};

class SameName : public Generator<SameName> {
  public:
    GeneratorParam<int> k{"k", 1};
    Input<int32_t> k_again{"k"};
    void generate() {}
};

class BadRange : public Generator<BadRange> {
  public:
    GeneratorParam<int> radius{"radius", 10, 1, 8};
    void generate() {}
};

class Untyped : public Generator<Untyped> {
  public:
    Input<Buffer<>> input{"input", 1};
    Output<Buffer<>> output{"output", 1};
    void generate() {
        Var x;
        output(x) = input(x, x);  // one coordinate too many
    }
};

DSL_REGISTER_GENERATOR(Undefined, errors_undefined)

TEST(GeneratorErrors, OutputProblemsNameTheGeneratorAndTheOutput) {
    std::unique_ptr<GeneratorBase> g = create_generator("errors_undefined");
    std::string msg = message_of([&] { g->build_pipeline(); });
    EXPECT_CONTAINS(msg,
                    "Generator \"errors_undefined\": generate() did not define the Output "
                    "\"output\"");

    WrongType w;
    EXPECT_CONTAINS(message_of([&] { w.build_pipeline(); }),
                    "the Output \"output\" holds uint8 but generate() defines it with int32 "
                    "values; cast the value");
    WrongDimensions d;
    EXPECT_CONTAINS(message_of([&] { d.build_pipeline(); }),
                    "the Output \"result\" is declared with 2 dimensions");
    TwoOutputs two;
    EXPECT_CONTAINS(message_of([&] { two.build_pipeline(); }),
                    "the Outputs \"a\" and \"b\" are the same Func \"same\"; define each Output");
    NoOutput none;
    EXPECT_CONTAINS(message_of([&] { none.build_pipeline(); }), "it declares no Output");
}

TEST(GeneratorErrors, MembersAndParams) {
    EXPECT_CONTAINS(message_of([] { SameName s; }), "two members named \"k\"");
    EXPECT_CONTAINS(message_of([] { BadRange b; }),
                    "GeneratorParam \"radius\": cannot use \"10\"; give a value in [1, 8]");
    EXPECT_CONTAINS(message_of([] {
                        GeneratorParam<int> loose{"loose", 1};
                    }),
                    "GeneratorParam \"loose\" is declared outside a Generator");
    EXPECT_CONTAINS(message_of([] { create_generator("no_such_generator"); }),
                    "no generator named \"no_such_generator\". Registered generators: "
                    "errors_undefined");

    class Small : public Generator<Small> {
      public:
        GeneratorParam<uint8_t> level{"level", 1};
        Output<Buffer<int32_t>> output{"output", 1};
        void generate() {
            Var x;
            output(x) = x;
        }
    };
    Small s;
    s.set_generator_name("small");
    EXPECT_CONTAINS(message_of([&] { s.set_param("level", "300"); }),
                    "Generator \"small\": GeneratorParam \"level\": cannot use \"300\"; write a "
                    "non-negative integer of type uint8");
    EXPECT_CONTAINS(message_of([&] { s.set_param("level", "-1"); }), "cannot use \"-1\"");
    EXPECT_CONTAINS(message_of([&] { s.set_param("level", " 3"); }), "cannot use \" 3\"");
    EXPECT_CONTAINS(message_of([&] { s.set_param("levels", "3"); }),
                    "there is no GeneratorParam \"levels\". Its GeneratorParams are: target, "
                    "autoscheduler, auto_schedule, machine_params, level");
    s.build_pipeline();
    EXPECT_CONTAINS(message_of([&] { s.set_param("level", "3"); }),
                    "cannot set \"level\" after the pipeline is built");
}

TEST(GeneratorErrors, ErrorsInGenerateNameTheGenerator) {
    Untyped u;
    u.set_generator_name("untyped");
    EXPECT_CONTAINS(message_of([&] { u.build_pipeline(); }),
                    "the element type of Input \"input\" is not set; pass input.type=<type>");
    Untyped v;
    v.set_generator_name("untyped");
    v.set_param("input.type", "float32");
    std::string msg = message_of([&] { v.build_pipeline(); });
    EXPECT_CONTAINS(msg, "Error: Generator \"untyped\": ");
    EXPECT_EQ(msg.find("Error:", 1), std::string::npos) << msg;
}

// An Input<Buffer<>> without a number of dimensions needs "<name>.dim"; a Buffer<T, 2> given
// 3 dimensions in its constructor is refused where it is declared.
TEST(GeneratorErrors, DimensionsOfBufferMembers) {
    class NoDims : public Generator<NoDims> {
      public:
        Input<Buffer<uint8_t>> input{"input"};
        Output<Buffer<uint8_t, 1>> output{"output"};
        void generate() {
            Var x;
            output(x) = input(x, 0);
        }
    };
    NoDims n;
    EXPECT_CONTAINS(message_of([&] { n.build_pipeline(); }),
                    "the number of dimensions of Input \"input\" is not set; pass input.dim=");
    class Disagree : public Generator<Disagree> {
      public:
        Output<Buffer<uint8_t, 2>> output{"output", 3};
        void generate() {}
    };
    EXPECT_CONTAINS(message_of([&] { Disagree d; }),
                    "the Output \"output\" is a Buffer<T, 2> but its constructor gives 3 "
                    "dimensions; make them agree");
}

}  // namespace
}  // namespace dsl
