// Code generation and the JIT against the reference evaluator: every expression compiled to
// machine code must compute exactly what the evaluator computes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "codegen/LoopHints.h"
#include "common/RandomExpr.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"
#include "ir/Float16.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "jit/JITModule.h"
#include "runtime/Runtime.h"

namespace dsl {
namespace {

using namespace ir;

/// The bytes of one lane in memory.
void store_lane(Type t, const Scalar &v, uint8_t *dst) {
    uint64_t bits = scalar_bits(t, v);
    std::memcpy(dst, &bits, t.bytes());
}

Scalar load_lane(Type t, const uint8_t *src) {
    uint64_t bits = 0;
    std::memcpy(&bits, src, t.bytes());
    return scalar_from_bits(t, bits);
}

/// A 1-D buffer of `lanes` elements of `t`.
struct TestBuffer {
    Type type;
    std::vector<uint8_t> bytes;
    dsl_dimension_t dim{0, 0, 1, 0};
    dsl_buffer_t buffer{};

    TestBuffer(Type t, int lanes)
        : type(t.element_of()), bytes(static_cast<size_t>(lanes) * t.bytes() + 8) {
        dim.extent = lanes;
        buffer.host = bytes.data();
        buffer.type = {static_cast<uint8_t>(type.code()), static_cast<uint8_t>(type.bits()), 1};
        buffer.dimensions = 1;
        buffer.dim = &dim;
    }
};

/// A function `f(scalars..., vector inputs..., out)` that stores `e` into `out`; vector
/// variables arrive as buffers and are loaded into lets.
struct CompiledCase {
    Expr expr;
    LoweredFunc func;
    std::vector<std::pair<std::string, Type>> vars;
};

class FreeVariables : public IRVisitor {
  public:
    std::map<std::string, Type> vars;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (!bound_.count(op->name)) vars[op->name] = op->type;
    }
    void visit(const Let *op) override {
        include(op->value);
        bool was = bound_.count(op->name);
        bound_.insert(op->name);
        include(op->body);
        if (!was) bound_.erase(op->name);
    }

  private:
    std::set<std::string> bound_;
};

Expr dense_index(int lanes) {
    return lanes == 1 ? Expr(0) : Ramp::make(Expr(0), Expr(1), lanes);
}

CompiledCase make_case(const std::string &name, const Expr &e) {
    CompiledCase c;
    c.expr = e;
    c.func.name = name;
    FreeVariables fv;
    fv.include(e);
    Type t = e.type();
    Stmt body = Store::make("out", e, dense_index(t.lanes()), const_true(t.lanes()));
    for (const auto &[var, type] : fv.vars) {
        c.vars.push_back({var, type});
        if (type.is_scalar()) {
            c.func.args.push_back({var, LoweredArgument::Kind::Scalar, type, 0});
        } else {
            std::string buf = var + "_buf";
            c.func.args.push_back({buf, LoweredArgument::Kind::InputBuffer, type.element_of(), 1});
            body = LetStmt::make(
                var, Load::make(type, buf, dense_index(type.lanes()), const_true(type.lanes())),
                body);
        }
    }
    c.func.args.push_back({"out", LoweredArgument::Kind::OutputBuffer, t.element_of(), 1});
    c.func.body = body;
    return c;
}

/// Runs a compiled case with the variable values of `env`; returns the stored result.
Value run_case(const jit::JITModule &jit, const CompiledCase &c,
               const std::map<std::string, Value> &env) {
    std::vector<std::unique_ptr<TestBuffer>> buffers;
    std::vector<std::vector<uint8_t>> scalars;
    std::vector<void *> argv;
    for (const auto &[var, type] : c.vars) {
        const Value &v = env.at(var);
        if (type.is_scalar()) {
            scalars.emplace_back(8);
            store_lane(type, v.lanes[0], scalars.back().data());
            argv.push_back(scalars.back().data());
        } else {
            buffers.push_back(std::make_unique<TestBuffer>(type, type.lanes()));
            for (int i = 0; i < type.lanes(); i++) {
                store_lane(type.element_of(), v.lanes[i],
                           buffers.back()->bytes.data() + i * type.bytes());
            }
            argv.push_back(&buffers.back()->buffer);
        }
    }
    Type t = c.expr.type();
    TestBuffer out(t, t.lanes());
    argv.push_back(&out.buffer);
    int status = jit.argv_function(c.func.name)(argv.data());
    EXPECT_EQ(status, 0);
    Value result;
    result.type = t;
    for (int i = 0; i < t.lanes(); i++)
        result.lanes.push_back(load_lane(t.element_of(), out.bytes.data() + i * t.bytes()));
    return result;
}

std::string describe(const std::map<std::string, Value> &env) {
    std::string s;
    for (const auto &[name, value] : env)
        s += name + " = " + value.to_string() + "; ";
    return s;
}

// The loops code generation keeps LLVM from unrolling at run time: a split's tail and the two
// edges of a partitioned loop, not its steady state or an ordinary loop.
TEST(CodeGen, LoopsThatRunAFewIterations) {
    const std::string x = "f.s0.x";
    Expr n = Variable::make(Int(32), "n");
    Expr first = Variable::make(Int(32), names::steady_first(x));
    Expr end = Variable::make(Int(32), names::steady_end(x));
    Stmt body = Evaluate::make(0);
    auto loop = [&](const Expr &min, const Expr &extent) {
        return For::make(x, min, extent, ForType::Serial, DeviceAPI::None, body);
    };
    EXPECT_TRUE(codegen::runs_few_iterations(loop(n, min(n - 3, 1)).as<For>()));
    // The same tail after common subexpression elimination wrapped its extent in a let.
    Expr c = Variable::make(Int(32), "cse0");
    EXPECT_TRUE(
        codegen::runs_few_iterations(loop(n, Let::make("cse0", n - 3, min(c, 1))).as<For>()));
    EXPECT_TRUE(codegen::runs_few_iterations(loop(0, first - 0).as<For>()));
    EXPECT_TRUE(codegen::runs_few_iterations(loop(end, n - end).as<For>()));
    EXPECT_FALSE(codegen::runs_few_iterations(loop(first, end - first).as<For>()));
    EXPECT_FALSE(codegen::runs_few_iterations(loop(0, n).as<For>()));
    // The names of another loop's steady state say nothing about this one.
    Expr other = Variable::make(Int(32), names::steady_end("g.s0.x"));
    EXPECT_FALSE(codegen::runs_few_iterations(loop(other, n).as<For>()));
}

TEST(CodeGen, LoopOverABufferWithItsMinAndStride) {
    // out[x] = in[x] * 3 + x for x in the output's range, through the buffer fields.
    Expr x = Variable::make(Int(32), "x");
    Expr out_min = Variable::make(Int(32), names::buffer_min("out", 0));
    Expr in_min = Variable::make(Int(32), names::buffer_min("in", 0));
    Expr in_stride = Variable::make(Int(32), names::buffer_stride("in", 0));
    Expr out_extent = Variable::make(Int(32), names::buffer_extent("out", 0));
    Expr value = Load::make(Int(32), "in", (x - in_min) * in_stride, const_true()) * 3 + x;
    Stmt loop = For::make("x", out_min, out_extent, ForType::Serial, DeviceAPI::None,
                          Store::make("out", value, x - out_min, const_true()));
    LoweredFunc f{"scale",
                  {{"in", LoweredArgument::Kind::InputBuffer, Int(32), 1},
                   {"out", LoweredArgument::Kind::OutputBuffer, Int(32), 1}},
                  loop,
                  {}};
    auto jit = jit::JITModule::compile(Module{"m", {f}, {}});

    std::vector<int32_t> in_data(20), out_data(5, -1);
    for (int i = 0; i < 20; i++)
        in_data[i] = i * 10;
    dsl_dimension_t in_dim{10, 10, 2, 0}, out_dim{12, 5, 1, 0};  // in: x in [10, 20) every 2nd
    dsl_buffer_t in{}, out{};
    in.host = reinterpret_cast<uint8_t *>(in_data.data());
    in.dimensions = 1;
    in.dim = &in_dim;
    out.host = reinterpret_cast<uint8_t *>(out_data.data());
    out.dimensions = 1;
    out.dim = &out_dim;
    void *argv[] = {&in, &out};
    // Without the element type set, the entry checks refuse the buffers.
    EXPECT_EQ(jit->argv_function("scale")(argv), dsl_error_bad_type);
    EXPECT_NE(std::string(dsl_runtime_last_error())
                  .find("buffer \"in\" holds int0, but the pipeline needs int32"),
              std::string::npos)
        << dsl_runtime_last_error();
    in.type = out.type = {dsl_type_int, 32, 1};
    in.dimensions = 2;
    EXPECT_EQ(jit->argv_function("scale")(argv), dsl_error_bad_dimensions);
    EXPECT_NE(std::string(dsl_runtime_last_error())
                  .find("buffer \"in\" has 2 dimensions, but the pipeline needs 1"),
              std::string::npos)
        << dsl_runtime_last_error();
    in.dimensions = 1;
    ASSERT_EQ(jit->argv_function("scale")(argv), 0);
    for (int i = 0; i < 5; i++) {
        int x_val = 12 + i;
        EXPECT_EQ(out_data[i], in_data[(x_val - 10) * 2] * 3 + x_val) << "x = " << x_val;
    }
}

TEST(CodeGen, HeapAllocationAndAssertion) {
    // allocate tmp[n]; tmp[i] = i*i; out[0] = tmp[n-1]; assert(n > 0) first.
    Expr n = Variable::make(Int(32), "n"), i = Variable::make(Int(32), "i");
    Stmt fill = For::make("i", 0, n, ForType::Serial, DeviceAPI::None,
                          Store::make("tmp", i * i, i, const_true()));
    Stmt use =
        Store::make("out", Load::make(Int(32), "tmp", n - 1, const_true()), Expr(0), const_true());
    Stmt body = Block::make(AssertStmt::make(n > 0, Expr(int32_t(dsl_error_param_too_small))),
                            Allocate::make("tmp", Int(32), MemoryType::Auto, {n}, const_true(),
                                           Block::make(fill, use)));
    LoweredFunc f{"squares",
                  {{"n", LoweredArgument::Kind::Scalar, Int(32), 0},
                   {"out", LoweredArgument::Kind::OutputBuffer, Int(32), 1}},
                  body,
                  {}};
    auto jit = jit::JITModule::compile(Module{"m", {f}, {}});
    TestBuffer out(Int(32), 1);
    int32_t size = 20000;  // 80 KB: large enough for the heap
    void *argv[] = {&size, &out.buffer};
    ASSERT_EQ(jit->argv_function("squares")(argv), 0);
    int32_t result;
    std::memcpy(&result, out.bytes.data(), 4);
    EXPECT_EQ(result, 19999 * 19999);
    int32_t zero = 0;
    void *argv_bad[] = {&zero, &out.buffer};
    EXPECT_EQ(jit->argv_function("squares")(argv_bad), dsl_error_param_too_small);
}

// Property: for random expressions of every type (vectors, lets, selects, casts, division by
// negative / zero / positive values...), the JIT computes what the evaluator computes.
TEST(CodeGenProperty, MatchesTheReferenceEvaluator) {
    // DSL_TEST_SEED / DSL_TEST_SCALE run other seeds and longer runs by hand.
    const uint64_t seed = test::seed_from_env(7);
    test::RandomExprOptions options;
    options.allow_math = false;  // transcendental functions are checked with a tolerance below
    test::RandomExprGenerator gen(seed, options);
    const int kModules = 4 * test::scale_from_env(), kPerModule = 150, kPoints = 8;
    int compared = 0;
    for (int m = 0; m < kModules; m++) {
        std::vector<CompiledCase> cases;
        Module module{"random" + std::to_string(m), {}, {}};
        for (int i = 0; i < kPerModule; i++) {
            Expr e = gen.expr(gen.type(), gen.uniform(1, 4));
            cases.push_back(make_case("f" + std::to_string(i), e));
            module.functions.push_back(cases.back().func);
        }
        auto jit = jit::JITModule::compile(module);
        for (const CompiledCase &c : cases) {
            for (int p = 0; p < kPoints; p++) {
                auto env = gen.env_for(c.expr);
                Value expected = evaluate(c.expr, env);
                if (expected.undefined) continue;
                Value actual = run_case(*jit, c, env);
                ASSERT_TRUE(expected.same_values(actual))
                    << "seed " << seed << ", module " << m << ", " << c.func.name << ": " << c.expr
                    << "\n  expected " << expected.to_string() << "\n  actual   "
                    << actual.to_string() << "\n  with " << describe(env);
                compared++;
            }
        }
    }
    std::printf("codegen property: %d random expressions, %d evaluations compared\n",
                kModules * kPerModule, compared);
    EXPECT_GT(compared, kModules * kPerModule * kPoints / 2);
}

TEST(CodeGen, ConversionsAtTheEdgesMatchTheEvaluator) {
    std::vector<Type> ints = {Int(8),  Int(16),  Int(32),  Int(64),
                              UInt(8), UInt(16), UInt(32), UInt(64)};
    std::vector<Type> floats = {Float(16), BFloat(16), Float(32), Float(64)};
    Module module{"conversions", {}, {}};
    std::vector<CompiledCase> cases;
    for (Type from : ints) {
        for (Type to : floats) {
            cases.push_back(make_case("c" + std::to_string(cases.size()),
                                      Cast::make(to, Variable::make(from, "v"))));
            module.functions.push_back(cases.back().func);
        }
    }
    auto jit = jit::JITModule::compile(module);
    for (const CompiledCase &c : cases) {
        Type from = c.vars[0].second;
        for (uint64_t v : {uint64_t(0), uint64_t(1), uint64_t(65519), uint64_t(65520),
                           uint64_t(1) << 31, (uint64_t(1) << 31) + 1, uint64_t(0x7fffffff),
                           uint64_t(0xffffffff), (uint64_t(1) << 53) + 1, ~uint64_t(0)}) {
            Value in = from.is_int() ? Value::of_int(from, static_cast<int64_t>(v))
                                     : Value::of_uint(from, v);
            std::map<std::string, Value> env{{"v", in}};
            Value expected = evaluate(c.expr, env), actual = run_case(*jit, c, env);
            EXPECT_TRUE(expected.same_values(actual))
                << c.expr << " of " << in.to_string() << ": expected " << expected.to_string()
                << ", got " << actual.to_string();
        }
    }
}

// Found by the property test (seed 2): LLVM folded fpext(uitofp(a << 31) to half) into a single
// conversion that forgot float16's overflow to infinity.
TEST(CodeGen, IntegerToFloat16OverflowSurvivesFloat16Arithmetic) {
    Expr u = Variable::make(UInt(32), "u"), h = Variable::make(Float(16), "h");
    Expr e =
        Cast::make(Float(16), Call::make(UInt(32), Call::Intrinsic::ShiftLeft, {u, Expr(31)})) + h;
    CompiledCase c = make_case("overflow", e);
    auto jit = jit::JITModule::compile(Module{"m", {c.func}, {}});
    std::map<std::string, Value> env{{"u", Value::of_uint(UInt(32), 7)},
                                     {"h", Value::of_float(Float(16), -INFINITY)}};
    Value expected = evaluate(e, env), actual = run_case(*jit, c, env);
    EXPECT_TRUE(std::isnan(expected.as_float()));
    EXPECT_TRUE(expected.same_values(actual)) << actual.to_string();
}

// fma rounds once: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24, which a product rounded first loses.
TEST(CodeGen, FmaRoundsOnce) {
    Expr f = Variable::make(Float(32), "f"), g = Variable::make(Float(32), "g");
    Expr d = Variable::make(Float(64), "d"), h = Variable::make(Float(16), "h");
    Expr v = Variable::make(Float(32, 8), "v");
    std::vector<Expr> exprs = {fma(f, f, g), fma(d, d, -d), fma(h, h, -h), fma(v, v, g), f * f + g};
    Module module{"fma", {}, {}};
    std::vector<CompiledCase> cases;
    for (size_t i = 0; i < exprs.size(); i++) {
        cases.push_back(make_case("fma" + std::to_string(i), exprs[i]));
        module.functions.push_back(cases.back().func);
    }
    auto jit = jit::JITModule::compile(module);
    const double a = 1.0 + std::ldexp(1.0, -12);
    Value vec = Value::of_float(Float(32, 8), a);
    std::map<std::string, Value> env{
        {"f", Value::of_float(Float(32), a)},
        {"g", Value::of_float(Float(32), -(1.0 + std::ldexp(1.0, -11)))},
        {"d", Value::of_float(Float(64), 0.1)},
        {"h", Value::of_float(Float(16), 1.5)},
        {"v", vec}};
    for (const CompiledCase &c : cases) {
        Value expected = evaluate(c.expr, env), actual = run_case(*jit, c, env);
        for (int i = 0; i < c.expr.type().lanes(); i++)
            EXPECT_EQ(actual.lanes[i].f, expected.lanes[i].f) << c.expr << " lane " << i;
    }
    EXPECT_EQ(evaluate(exprs[0], env).lanes[0].f, std::ldexp(1.0, -24));
    EXPECT_EQ(evaluate(exprs[4], env).lanes[0].f, 0.0);  // the product rounded to 1 + 2^-11
    EXPECT_EQ(evaluate(exprs[1], env).lanes[0].f, std::fma(0.1, 0.1, -0.1));
}

TEST(CodeGen, MathFunctionsWithinTolerance) {
    Expr f = Variable::make(Float(32), "f"), d = Variable::make(Float(64), "d");
    std::vector<Expr> exprs = {
        sqrt(f),  exp(f),       log(f),   pow(f, f), sin(f),  cos(f), tan(f), atan2(f, f + 1.0f),
        floor(f), ceil(f),      round(f), trunc(f),  sqrt(d), exp(d), sin(d), atan2(d, d),
        round(d), is_nan(f / f)};
    Module module{"math", {}, {}};
    std::vector<CompiledCase> cases;
    for (size_t i = 0; i < exprs.size(); i++) {
        cases.push_back(make_case("m" + std::to_string(i), exprs[i]));
        module.functions.push_back(cases.back().func);
    }
    auto jit = jit::JITModule::compile(module);
    for (double v : {0.0, 0.5, 1.25, 2.5, 3.0, 7.75, -2.5}) {
        std::map<std::string, Value> env{{"f", Value::of_float(Float(32), v)},
                                         {"d", Value::of_float(Float(64), v)}};
        for (const CompiledCase &c : cases) {
            Value expected = evaluate(c.expr, env), actual = run_case(*jit, c, env);
            double a = actual.as_double(), b = expected.as_double();
            if ((std::isnan(a) && std::isnan(b)) || a == b) continue;  // equal infinities too
            EXPECT_NEAR(a, b, 1e-5 * std::max(1.0, std::fabs(b))) << c.expr << " at " << v;
        }
    }
}

}  // namespace
}  // namespace dsl
