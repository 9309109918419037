// Constraints on buffer arguments (dsl/Dimension.h): each is assumed by the code (the lowered
// statement shows the constrained field gone), checked when the pipeline runs (a buffer that
// breaks one is refused before anything is computed), and part of the compiled pipeline's key.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/GuardPage.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"
#include "jit/JITModule.h"
#include "lang/DefinitionKey.h"
#include "lang/Realize.h"
#include "lowering/Lower.h"
#include "runtime/Runtime.h"

namespace dsl {
namespace {

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

/// The text of the RuntimeError realize() throws, or "" when it throws none.
template <typename F>
std::string runtime_error_of(F &&run) {
    try {
        run();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "";
}

// A stride of 1 on an input is assumed (no stride variable left in the loops, no version for
// other strides) and checked: a strided buffer is refused with the ImageParam named.
TEST(BufferConstraints, InputStrideOfOneIsAssumedAndChecked) {
    ImageParam in(Int(32), 2, "bc_in");
    in.dim(0).set_stride(1);
    Func f("bc_f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) * 3 + in(x + 1, y);
    f.vectorize(x, 8);

    // Versions for dense and strided buffers: only the output's stride is tested.
    std::string stmt = f.lowered_stmt();
    EXPECT_TRUE(contains(stmt, "if ((bc_f.stride.0 == 1))")) << stmt;
    // The input's first stride appears only in the checks before the loops.
    std::istringstream lines(stmt);
    int checks = 0;
    for (std::string line; std::getline(lines, line);) {
        if (!contains(line, "bc_in.stride.0")) continue;
        EXPECT_EQ(line.substr(line.find_first_not_of(' '), 7), "assert(") << line;
        checks++;
    }
    EXPECT_GT(checks, 0) << "the constraint's own check names the stride:\n" << stmt;

    Buffer<int32_t> input(21, 5);
    input.for_each_element([&](const int *p) { input(p[0], p[1]) = p[0] * 10 + p[1]; });
    in.set(input);
    Buffer<int32_t> out(20, 5);
    f.realize(out);
    for (int yy = 0; yy < 5; yy++) {
        for (int xx = 0; xx < 20; xx++)
            ASSERT_EQ(out(xx, yy), input(xx, yy) * 3 + input(xx + 1, yy)) << xx << ", " << yy;
    }

    // Every other column of a wider buffer: stride 2.
    Buffer<int32_t> wide(42, 5);
    Buffer<int32_t> strided(Int(32), wide.data(), {{0, 21, 2, 0}, {0, 5, 42, 0}}, "bc_strided");
    in.set(strided);
    std::string error = runtime_error_of([&] { f.realize(out); });
    EXPECT_TRUE(contains(error, "\"bc_in\" has stride 2 in dimension 0")) << error;
    EXPECT_TRUE(contains(error, "ImageParam \"bc_in\" requires 1")) << error;
    EXPECT_TRUE(contains(error, "dim(0).set_stride")) << error;
}

// An output whose first coordinate is constrained to start at 0: the loops start at 0 (the
// buffer's min is gone from the statement), and a buffer that starts elsewhere is refused
// before anything is written.
TEST(BufferConstraints, OutputMinIsAssumedAndChecked) {
    Func f("bc_g");
    Var x("x"), y("y");
    f(x, y) = x * 100 + y;
    f.output_buffer().dim(0).set_min(0).dim(1).set_min(0);
    std::string stmt = f.lowered_stmt();
    EXPECT_FALSE(contains(stmt, "for (bc_g.s0.y, bc_g.min.1")) << stmt;
    // The computation assumes the min (a bounds query's answer reports the region asked for,
    // with the constraint applied to it).
    std::string computed;
    std::istringstream lines(stmt);
    for (std::string line; std::getline(lines, line);) {
        if (!contains(line, "buffer_set_bounds")) computed += line + "\n";
    }
    EXPECT_FALSE(contains(computed, "bc_g.min.0 +")) << stmt;
    EXPECT_TRUE(
        contains(stmt, "buffer_set_bounds(bc_g.buffer, 0, 0, (bc_g.min.0 + bc_g.extent.0))"))
        << stmt;

    Realization r = f.realize({9, 4});
    Buffer<int32_t> out = r[0];
    EXPECT_EQ(out(8, 3), 803);

    Buffer<int32_t> shifted(9, 4);
    shifted.fill(-1);
    shifted.translate(0, 2);
    std::string error = runtime_error_of([&] { f.realize(shifted); });
    EXPECT_TRUE(contains(error, "\"bc_g\" has min 2 in dimension 0")) << error;
    EXPECT_TRUE(contains(error, "the output buffer of Func \"bc_g\" requires 0")) << error;
    EXPECT_EQ(shifted(2, 0), -1) << "nothing is written";
}

// The case constraints exist for: packed data read at (c % 16, c / 16) in vectors of 16 along
// c. With the output's channels constrained to start at 0 and to a multiple of 16, every
// vector starts at a multiple of 16, and the reads are dense vector loads (ramps), not
// gathers. Without the constraints they stay per-lane.
TEST(BufferConstraints, AlignedStartsMakePackedReadsDense) {
    for (bool constrained : {false, true}) {
        SCOPED_TRACE(constrained ? "constrained" : "free");
        ImageParam packed(Float(32), 2, "bc_packed");  // (c % 16, c / 16)
        Func f("bc_unpack");
        Var c("c"), n("n");
        f(c, n) = packed(c % 16, c / 16) * cast<float>(n + 1);
        Var co("co"), ci("ci");
        f.split(c, co, ci, 16, TailStrategy::ShiftInwards).vectorize(ci);
        if (constrained) {
            OutputBuffer o = f.output_buffer();
            o.dim(0).set_min(0).set_extent((o.dim(0).extent() / 16) * 16);
        }
        std::string stmt = f.lowered_stmt();
        // Dense: a ramp of stride 1 (in the version for dense buffers) from the block's start
        // (which the store's index shares through a let).
        EXPECT_EQ(contains(stmt, "bc_packed[ramp(((((cse0 / 16)") &&
                      contains(stmt,
                               "let cse0 = min((bc_unpack.s0.co * 16), "
                               "(bc_unpack.s0.c.max + -15))"),
                  constrained)
            << stmt;
        EXPECT_EQ(contains(stmt, " % x16(16)"), !constrained) << stmt;

        Buffer<float> data(16, 3);
        data.for_each_element([&](const int *p) { data(p[0], p[1]) = p[0] + 16.0f * p[1]; });
        packed.set(data);
        Buffer<float> out(48, 2);
        f.realize(out);
        for (int nn = 0; nn < 2; nn++) {
            for (int cc = 0; cc < 48; cc++)
                ASSERT_EQ(out(cc, nn), float(cc) * float(nn + 1)) << cc << ", " << nn;
        }
        if (constrained) {
            Buffer<float> ragged(40, 2);
            std::string error = runtime_error_of([&] { f.realize(ragged); });
            EXPECT_TRUE(contains(error, "has extent 40 in dimension 0")) << error;
            EXPECT_TRUE(contains(error, "requires 32")) << error;
        }
    }
}

// With constant bounds, a boundary condition's test and its clamp compare against the same
// constants; the clamp must stay (both sides of a select are computed). The input lies next to
// pages that fault, on either side, and is read from 5 before its start to 5 past its end.
TEST(BufferConstraints, BoundaryConditionOverConstantBoundsReadsInside) {
    for (bool vectorized : {false, true}) {
        for (bool guard_before : {false, true}) {
            SCOPED_TRACE(std::string(vectorized ? "vectorized" : "scalar") +
                         (guard_before ? ", guard page before" : ", guard page after"));
            ImageParam in(UInt(16), 1, "bce_in");
            in.dim(0).set_bounds(0, 16);
            Func padded = BoundaryConditions::constant_exterior(in, cast<uint16_t>(3));
            Func f("bce_f");
            Var x("x");
            f(x) = padded(x - 5) + padded(x + 5) * 2;
            if (vectorized) f.vectorize(x, 8);
            Buffer<uint16_t> source(16);
            source.for_each_element([&](int i) { source(i) = static_cast<uint16_t>(i * 7 + 1); });
            test::GuardedCopy guarded(source, guard_before);
            in.set(guarded.buffer());
            Buffer<uint16_t> out(26);
            f.realize(out);
            auto at = [&](int i) { return i < 0 || i > 15 ? 3 : source(i); };
            for (int i = 0; i < 26; i++)
                ASSERT_EQ(out(i), static_cast<uint16_t>(at(i - 5) + at(i + 5) * 2)) << i;
        }
    }
}

// A constraint may use a Param that nothing else uses (it becomes an argument) and the bounds
// of another buffer of the pipeline.
TEST(BufferConstraints, ConstraintsUseParamsAndOtherBuffers) {
    ImageParam a(Int(32), 1, "bc_a"), b(Int(32), 1, "bc_b");
    Param<int> width("bc_width");
    a.dim(0).set_bounds(0, width);
    b.dim(0).set_bounds(a.dim(0).min(), a.dim(0).extent());
    Func f("bc_sum");
    Var x("x");
    f(x) = a(x) + b(x);
    f.output_buffer().dim(0).set_extent(a.dim(0).extent());

    Buffer<int32_t> av(12), bv(12);
    av.for_each_element([&](const int *p) { av(p[0]) = p[0]; });
    bv.for_each_element([&](const int *p) { bv(p[0]) = 100 * p[0]; });
    a.set(av);
    b.set(bv);
    width.set(12);
    Buffer<int32_t> out(12);
    f.realize(out);
    EXPECT_EQ(out(11), 1111);

    width.set(10);
    std::string error = runtime_error_of([&] { f.realize(out); });
    EXPECT_TRUE(contains(error, "\"bc_a\" has extent 12 in dimension 0")) << error;
    EXPECT_TRUE(contains(error, "requires 10")) << error;

    width.set(12);
    Buffer<int32_t> short_b(11);
    b.set(short_b);
    error = runtime_error_of([&] { f.realize(out); });
    EXPECT_TRUE(contains(error, "\"bc_b\" has extent 11 in dimension 0")) << error;
    b.set(bv);
    Buffer<int32_t> short_out(11);
    error = runtime_error_of([&] { f.realize(short_out); });
    EXPECT_TRUE(contains(error, "\"bc_sum\" has extent 11 in dimension 0")) << error;
}

// A compiled library's header lists the constraints its buffers must meet.
TEST(BufferConstraints, TheHeaderListsThem) {
    ImageParam in(Float(32), 2, "hd_in");
    in.dim(0).set_stride(1);
    Func f("hd_f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) + 1.0f;
    f.output_buffer().dim(1).set_extent(in.dim(1).extent());
    test::TempDirectory dir;
    f.compile_to_header(dir.path() + "/hd.h", {in}, "hd");
    std::string header = test::read_file(dir.path() + "/hd.h");
    EXPECT_TRUE(contains(header, "The buffers must meet these constraints")) << header;
    EXPECT_TRUE(contains(header, " *   hd_in: dim(0).stride == 1\n")) << header;
    EXPECT_TRUE(contains(header, " *   hd_f: dim(1).extent == hd_in.extent.1")) << header;
}

// An ImageParam whose bounds a constraint uses is an argument of the pipeline even where the
// pipeline does not read it (its buffer must be set), and two ImageParams may constrain each
// other (neither holds the other: the sanitizers' leak check runs this test).
TEST(BufferConstraints, AnImageParamNamedByAConstraintIsAnArgument) {
    ImageParam in(Int(32), 1, "na_in"), shape(Int(32), 1, "na_shape");
    in.dim(0).set_extent(shape.dim(0).extent());
    shape.dim(0).set_extent(in.dim(0).extent());
    Func f("na_f");
    Var x("x");
    f(x) = in(x) + 1;
    Buffer<int32_t> input(4), four(4), five(5);
    input.fill(2);
    in.set(input);
    shape.set(four);
    Buffer<int32_t> out = f.realize({4});
    EXPECT_EQ(out(3), 3);
    shape.set(five);
    std::string error = runtime_error_of([&] { f.realize({4}); });
    EXPECT_TRUE(contains(error, "\"na_in\" has extent 4 in dimension 0")) << error;
    EXPECT_TRUE(contains(error, "requires 5")) << error;
    // Ahead of time, it is an argument to list.
    test::TempDirectory dir;
    try {
        f.compile_to_header(dir.path() + "/na.h", {in}, "na");
        ADD_FAILURE() << "the argument list lacks na_shape";
    } catch (const CompileError &e) {
        EXPECT_TRUE(contains(e.what(), "\"na_shape\", which is not in the argument list"))
            << e.what();
    }
    EXPECT_NO_THROW(f.compile_to_header(dir.path() + "/na.h", {in, shape}, "na"));
}

// A bounds query (an input without memory) reports a region that meets the input's
// constraints: its min where the constraint puts it, its extent a multiple asked for.
TEST(BufferConstraints, BoundsQueryMeetsTheConstraints) {
    ImageParam in(Int(32), 1, "bq_in");
    in.dim(0).set_min(0).set_extent((in.dim(0).extent() + 7) / 8 * 8);
    Func f("bq_f");
    Var x("x");
    f(x) = in(x + 5);
    auto lowered = lowering::lower({lang::Function(f.contents())}, "bq_pipeline",
                                   lowering::StrideVersions::Any);
    auto jit = jit::JITModule::compile(lowered.module);

    dsl_dimension_t in_dim = {0, 0, 1, 0};
    dsl_buffer_t query = {};
    query.type = {static_cast<uint8_t>(dsl_type_int), 32, 1};
    query.dimensions = 1;
    query.dim = &in_dim;
    std::vector<int32_t> out_memory(10, 0);
    Buffer<int32_t> out(Int(32), out_memory.data(), {{10, 10, 1, 0}}, "bq_out");
    void *argv[] = {&query, out.raw_buffer()};
    ASSERT_EQ(jit->argv_function("bq_pipeline")(argv), 0) << dsl_runtime_last_error();
    // Reads [15, 24]: from 0 (the constraint) to 24 is 25 elements, rounded up to 32.
    EXPECT_EQ(in_dim.min, 0);
    EXPECT_EQ(in_dim.extent, 32);

    std::vector<int32_t> memory(32);
    for (int i = 0; i < 32; i++)
        memory[i] = i * i;
    Buffer<int32_t> input(Int(32), memory.data(), {{0, 32, 1, 0}}, "bq_input");
    void *run[] = {input.raw_buffer(), out.raw_buffer()};
    ASSERT_EQ(jit->argv_function("bq_pipeline")(run), 0) << dsl_runtime_last_error();
    EXPECT_EQ(out_memory[0], 15 * 15);
    EXPECT_EQ(out_memory[9], 24 * 24);
}

// The constraints are part of what is compiled: changing one compiles again, in this process
// (realize sees it) and in the disk cache's key.
TEST(BufferConstraints, ConstraintsArePartOfTheKey) {
    ImageParam in(Int(32), 1, "key_in");
    Func f("key_f");
    Var x("x");
    f(x) = in(x) + 1;
    auto key = [&] { return lang::definition_key(lang::Function(f.contents()))->text; };
    std::string plain = key();
    in.dim(0).set_min(0);
    std::string input_min = key();
    EXPECT_NE(plain, input_min);
    f.output_buffer().dim(0).set_stride(1);
    std::string output_stride = key();
    EXPECT_NE(input_min, output_stride);
    in.dim(0).set_min(Expr());
    f.output_buffer().dim(0).set_stride(Expr());
    EXPECT_EQ(key(), plain) << "removing them gives the key without them";

    Buffer<int32_t> input(8), out(8);
    input.fill(4);
    in.set(input);
    f.realize(out);
    EXPECT_EQ(out(0), 5);
    lang::JITCounters before = lang::jit_counters();
    f.output_buffer().dim(0).set_min(1);
    std::string error = runtime_error_of([&] { f.realize(out); });
    EXPECT_TRUE(contains(error, "requires 1")) << error;
    EXPECT_GT(lang::jit_counters().compilations, before.compilations);
}

// A Buffer the pipeline reads directly is part of its definition: its layout is compiled in
// (no field of it is read at run time, so its addresses fold), and a Buffer of another layout
// is another key.
TEST(BufferConstraints, ABufferReadDirectlyHasItsLayoutCompiledIn) {
    Buffer<int32_t> table({5, 3}, "layout_table");
    table.for_each_element([&](int i, int j) { table(i, j) = i * 10 + j; });
    Func f("layout_f");
    Var x("x"), y("y");
    f(x, y) = table(x % 5, y % 3) * 2;
    // Its fields are read by the checks on entry only, not where it is loaded from.
    const std::string stmt = f.lowered_stmt();
    std::istringstream lines(stmt);
    int loads = 0;
    for (std::string line; std::getline(lines, line);) {
        if (!contains(line, "layout_table[")) continue;
        loads++;
        EXPECT_FALSE(contains(line, "layout_table.")) << line;
    }
    EXPECT_GT(loads, 0) << stmt;
    EXPECT_TRUE(contains(stmt, "layout_table.stride.1 == 5")) << stmt;
    Buffer<int32_t> out = f.realize({7, 4});
    int bad = 0;
    out.for_each_element([&](int i, int j) { bad += out(i, j) != ((i % 5) * 10 + j % 3) * 2; });
    EXPECT_EQ(bad, 0);
    auto key = [](const Func &g) {
        return lang::definition_key(lang::Function(g.contents()))->text;
    };
    Buffer<int32_t> wider({6, 3}, "layout_table");
    Func g("layout_f");
    g(x, y) = wider(x % 5, y % 3) * 2;
    Func h("layout_f");
    Buffer<int32_t> same({5, 3}, "layout_table");
    h(x, y) = same(x % 5, y % 3) * 2;
    EXPECT_NE(key(f), key(g)) << "another layout is another key";
    EXPECT_EQ(key(f), key(h)) << "another Buffer of the same layout is the same key";
}

}  // namespace
}  // namespace dsl
