// Generators built in-process: members in declaration order, GeneratorParams set from text,
// the pipeline run through the JIT and compared with a loop.
#include <gtest/gtest.h>

#include <string>

#include "common/ErrorCheck.h"
#include "dsl/Generator.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

enum class Rounding { Down, Nearest };

// The element types are GeneratorParams: the input's given in its constructor, the output's
// chosen by `out_type`. The output is another Func assigned to it.
class ScaleGenerator : public Generator<ScaleGenerator> {
  public:
    GeneratorParam<int> shift{"shift", 1, 0, 7};
    GeneratorParam<Type> out_type{"out_type", UInt(16)};
    GeneratorParam<Rounding> rounding{
        "rounding", Rounding::Down, {{"down", Rounding::Down}, {"nearest", Rounding::Nearest}}};
    GeneratorParam<std::string> label{"label", "none"};
    Input<Buffer<>> input{"input", UInt(8), 2};
    Input<int32_t> offset{"offset", 0, -50, 50};
    Output<Buffer<>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        Expr v = cast<int32_t>(input(x, y)) << shift.value();
        if (rounding == Rounding::Nearest) v = v + 1;
        Func scaled("scaled");
        scaled(x, y) = cast(out_type, v + offset);
        output = scaled;
    }
    void schedule() {
        output.vectorize(output.args()[0], get_target().natural_vector_size(out_type));
    }
};

DSL_REGISTER_GENERATOR(ScaleGenerator, test_scale)

TEST(Generator, MembersAreListedInDeclarationOrder) {
    std::unique_ptr<GeneratorBase> g = create_generator("test_scale");
    EXPECT_EQ(g->generator_name(), "test_scale");
    std::vector<std::string> params, inputs;
    for (const auto *p : g->params())
        params.push_back(p->member_name());
    for (const auto *in : g->inputs())
        inputs.push_back(in->member_name());
    EXPECT_EQ(params, (std::vector<std::string>{"target", "autoscheduler", "auto_schedule",
                                                "machine_params", "shift", "out_type", "rounding",
                                                "label", "output.type"}));
    EXPECT_EQ(inputs, (std::vector<std::string>{"input", "offset"}));
    ASSERT_EQ(g->outputs().size(), 1u);
    std::vector<Argument> args = g->arguments();
    ASSERT_EQ(args.size(), 2u);
    EXPECT_EQ(args[0].name(), "input");
    EXPECT_TRUE(args[0].is_buffer());
    EXPECT_EQ(args[0].type(), UInt(8));
    EXPECT_EQ(args[1].name(), "offset");
    EXPECT_EQ(args[1].type(), Int(32));
}

TEST(Generator, ParamsSetFromTextChangeThePipeline) {
    ScaleGenerator g;
    g.set_param("shift", "3");
    g.set_param("out_type", "int32");
    g.set_param("rounding", "nearest");
    g.set_param("label", "any text");
    EXPECT_EQ(g.shift, 3);
    EXPECT_EQ(g.out_type.value(), Int(32));
    EXPECT_EQ(g.label.value(), "any text");
    EXPECT_EQ(g.rounding.value_string(), "nearest");

    Func f = g.build_pipeline().outputs()[0];
    EXPECT_EQ(f.name(), "scaled");
    EXPECT_EQ(f.type(), Int(32));
    Buffer<uint8_t> in(19, 5);
    for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 19; x++)
            in(x, y) = static_cast<uint8_t>(x * 13 + y * 7);
    }
    g.input.set(in);
    g.offset.set(-4);
    Buffer<int32_t> out = f.realize({19, 5});
    for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 19; x++) {
            EXPECT_EQ(out(x, y), (in(x, y) << 3) + 1 - 4) << x << ", " << y;
        }
    }
    // Built once: a second call gives the same Func.
    EXPECT_EQ(g.build_pipeline().outputs()[0].name(), "scaled");
}

TEST(Generator, DefaultsAndTheTarget) {
    ScaleGenerator g;
    EXPECT_EQ(g.get_target(), Target::host());
    g.set_param("target", "x86-64-linux-avx2");
    EXPECT_TRUE(g.get_target().has_feature(Target::Feature::AVX2));
    EXPECT_EQ(g.target.value_string(), "x86-64-linux-avx2");
    EXPECT_EQ(g.shift.describe(), "int32, default 1, in [0, 7]");
    EXPECT_EQ(g.out_type.describe(), "type, default uint16");
    EXPECT_EQ(g.rounding.describe(), "one of down nearest, default down");
    Func f = g.build_pipeline().outputs()[0];
    EXPECT_EQ(f.type(), UInt(16));
}

TEST(Generator, NumberParamsParseTheWholeText) {
    class Numbers : public Generator<Numbers> {
      public:
        GeneratorParam<float> scale{"scale", 1.0f};
        GeneratorParam<double> precise{"precise", 0.0};
        GeneratorParam<uint8_t> small{"small", 4};
        GeneratorParam<int64_t> big{"big", 0};
        GeneratorParam<bool> flag{"flag", false};
        Output<Buffer<float>> output{"output", 1};
        void generate() {
            Var x;
            output(x) = cast<float>(x) * scale.value();
        }
    };
    Numbers n;
    n.set_param("scale", "0.25");
    n.set_param("precise", "-1e-3");
    n.set_param("small", "255");
    n.set_param("big", "-9000000000");
    n.set_param("flag", "true");
    EXPECT_EQ(n.scale.value(), 0.25f);
    EXPECT_EQ(n.precise.value(), -1e-3);
    EXPECT_EQ(n.small.value(), 255);
    EXPECT_EQ(n.big.value(), -9000000000LL);
    EXPECT_TRUE(n.flag.value());
    Buffer<float> out = n.build_pipeline().realize({4});
    EXPECT_EQ(out(3), 0.75f);
}

TEST(Generator, ParamsInExpressions) {
    class Offsets : public Generator<Offsets> {
      public:
        GeneratorParam<int> radius{"radius", 2};
        GeneratorParam<Rounding> rounding{
            "rounding", Rounding::Down, {{"down", Rounding::Down}, {"nearest", Rounding::Nearest}}};
        Output<Buffer<int32_t>> output{"output", 1};
        void generate() {
            Var x;
            const int width = 2 * radius + 1;  // an int
            Expr e = x + radius;               // an Expr
            if (rounding == Rounding::Nearest && radius > 1) e = e * width;
            output(x) = e - radius.value();
        }
    };
    Offsets o;
    o.set_param("rounding", "nearest");
    o.set_param("radius", "3");
    Buffer<int32_t> out = o.build_pipeline().realize({5});
    for (int x = 0; x < 5; x++)
        EXPECT_EQ(out(x), (x + 3) * 7 - 3);
}

// Constraints in a generator: on an Input's buffer and, once it is defined, on the Output's. A
// buffer that breaks one is refused when the pipeline runs.
TEST(Generator, InputsAndOutputsTakeConstraints) {
    class Constrained : public Generator<Constrained> {
      public:
        Input<Buffer<int32_t>> input{"input", 1};
        Output<Buffer<int32_t>> output{"output", 1};
        void generate() {
            Var x;
            output(x) = input(x) * 2;
        }
        void schedule() {
            input.dim(0).set_stride(1);
            output.dim(0).set_bounds(0, input.dim(0).extent());
        }
    };
    Constrained g;
    Func f = g.build_pipeline().outputs()[0];
    EXPECT_TRUE(g.output.dim(0).min_constraint().defined());
    Buffer<int32_t> in(6);
    in.for_each_element([&](int i) { in(i) = i + 1; });
    g.input.set(in);
    Buffer<int32_t> out = f.realize({6});
    EXPECT_EQ(out(5), 12);
    try {
        f.realize({5});
        ADD_FAILURE() << "an output of 5 against an input of 6 must be refused";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("has extent 5 in dimension 0"), std::string::npos)
            << e.what();
    }
}

// Halide's spellings: the number of dimensions in the Buffer type, an Input whose element type
// and number of dimensions are GeneratorParams ("input.type", "input.dim"), an Output whose
// type is one ("scaled.type", read in generate() as scaled.type()), and two Outputs, realized
// together into buffers of different shapes.
TEST(Generator, BufferDimensionsInTheTypeAndSeveralOutputs) {
    class TwoOutputs : public Generator<TwoOutputs> {
      public:
        Input<Buffer<>> input{"input"};
        Output<Buffer<void, 2>> scaled{"scaled"};
        Output<Buffer<int32_t, 1>> sums{"sums"};
        void generate() {
            scaled(x, y) = cast(scaled.type(), input(x, y)) * 3;
            RDom r(0, 4);
            sums(y) = sum(cast<int32_t>(input(r, y)));
        }

      private:
        Var x{"x"}, y{"y"};
    };
    TwoOutputs g;
    std::vector<std::string> params;
    for (const auto *p : g.params())
        params.push_back(p->member_name());
    EXPECT_EQ(std::vector<std::string>(params.begin() + 4, params.end()),
              (std::vector<std::string>{"input.dim", "input.type", "scaled.type"}));
    g.set_param("input.type", "uint8");
    g.set_param("input.dim", "2");
    g.set_param("scaled.type", "int16");
    Pipeline p = g.build_pipeline();
    ASSERT_EQ(p.outputs().size(), 2u);
    EXPECT_EQ(g.scaled.type(), Int(16));
    Buffer<uint8_t, 2> in(4, 3);
    in.fill([](int x, int y) { return x + 10 * y; });
    g.input.set(in);
    Buffer<int16_t, 2> scaled(4, 3);
    Buffer<int32_t, 1> sums(3);
    p.realize({scaled, sums});
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 4; x++)
            EXPECT_EQ(scaled(x, y), 3 * (x + 10 * y));
        EXPECT_EQ(sums(y), 6 + 40 * y);
    }
}

// Halide's Output<Func> and Input<Func>, and generators run in this process through a
// GeneratorContext (create, set GeneratorParams, apply the Inputs, realize).
class FuncMembersGenerator : public Generator<FuncMembersGenerator> {
  public:
    GeneratorParam<float> factor{"factor", 1.0f, 0.0f, 100.0f};
    Input<Func> image{"image", UInt(8), 2};
    Input<float> gain{"gain", 1.0f};
    Input<int> offset{"offset", 0};
    Output<Func> output{"output", Int(32), 3};

    void generate() {
        Func in = image;  // an Input<Func> reads as a Func
        output(x, y, c) = cast(output.type(), in(x, y) * c * factor.value() * gain + offset);
    }
    void schedule() { output.bound(c, 0, 3).unroll(c); }

  private:
    Var x{"x"}, y{"y"}, c{"c"};
};

TEST(Generator, FuncMembersAndApplyInThisProcess) {
    Buffer<uint8_t> in(8, 5);
    in.fill([](int x, int y) { return x + 10 * y; });
    auto check = [&](const Buffer<int32_t> &out, float factor) {
        ASSERT_EQ(out.dimensions(), 3);
        out.for_each_element([&](int x, int y, int c) {
            ASSERT_EQ(out(x, y, c), static_cast<int32_t>(in(x, y) * c * factor * 2.0f + 7))
                << "at " << x << ", " << y << ", " << c;
        });
    };
    GeneratorContext context(get_jit_target_from_environment());
    auto g = context.apply<FuncMembersGenerator>(in, 2.0f, 7);
    EXPECT_EQ(g->output.type(), Int(32));
    check(g->realize({8, 5, 3}), 1.0f);

    auto h = context.create<FuncMembersGenerator>();
    h->factor.set(2.5f);
    h->apply(in, 2.0f, 7);
    check(h->realize({8, 5, 3}), 2.5f);
    EXPECT_EQ(h->get_target(), context.get_target());

    auto wrong = context.create<FuncMembersGenerator>();
    EXPECT_CONTAINS(message_of([&] { wrong->apply(in, 2.0f); }),
                    "apply() gives 2 values for its 3 Inputs (image, gain, offset)");
    auto swapped = context.create<FuncMembersGenerator>();
    EXPECT_CONTAINS(message_of([&] { swapped->apply(2.0f, in, 7); }),
                    "the Input \"image\" is a buffer, but apply() gives it a float32");
    EXPECT_CONTAINS(message_of([] {
                        class Tuples : public Generator<Tuples> {
                          public:
                            Output<Func> out{"out", {Int(32), Float(32)}, 1};
                            void generate() {}
                        };
                        Tuples t;
                    }),
                    "is declared with 2 types");
}

}  // namespace
}  // namespace dsl
