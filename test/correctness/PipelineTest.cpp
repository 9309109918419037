// Pipelines through the JIT against the reference evaluator: pointwise, stencils with every
// boundary condition, chains, reductions, histograms, Tuples, inputs and outputs with unusual
// mins and strides, every scalar type.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"
#include "jit/JITModule.h"
#include "lang/Function.h"
#include "lang/Realize.h"
#include "lowering/Lower.h"
#include "runtime/Runtime.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

TEST(Definitions, UpdatesAndImplicitPureDefinitions) {
    Func hist("hist");
    RDom r(0, 16, "r");
    hist(r % 4) += 1;  // implicit pure definition hist(v) = 0
    EXPECT_TRUE(hist.defined());
    EXPECT_EQ(hist.dimensions(), 1);
    EXPECT_EQ(hist.num_update_definitions(), 1);
    EXPECT_EQ(hist.type(), Int(32));
    Func f("f");
    Var x("x");
    f(x) = x;
    f(x) = f(x) * 2;  // same Vars on the left of a defined Func: an update
    EXPECT_EQ(f.num_update_definitions(), 1);
}

TEST(Pointwise, EveryScalarType) {
    Var x("x"), y("y");
    for (Type t : {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64),
                   Float(32), Float(64), Float(16), BFloat(16)}) {
        Func f("pointwise_" + t.to_string());
        Expr e = cast(t, x * 37 - y * 11 + 5);
        f(x, y) = e * cast(t, 3) + cast(t, y) / cast(t, 2);
        Realization r = f.realize({19, 7});
        EXPECT_EQ(r[0].type(), t);
        EXPECT_TRUE(matches_reference(f, r)) << t;
    }
}

TEST(Pointwise, BoolOutputs) {
    Func f("is_odd");
    Var x("x");
    f(x) = (x % 2) == 1;
    Buffer<bool> b = f.realize({10});
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(b(i), i % 2 == 1);
}

TEST(Stencil, EveryBoundaryCondition) {
    Buffer<> in = random_buffer(Int(16), {13, 9}, 1);
    using BC = Func (*)(const Buffer<> &);
    std::vector<std::pair<std::string, BC>> conditions = {
        {"repeat_edge", BoundaryConditions::repeat_edge},
        {"repeat_image", BoundaryConditions::repeat_image},
        {"mirror_image", BoundaryConditions::mirror_image},
        {"mirror_interior", BoundaryConditions::mirror_interior},
    };
    Var x("x"), y("y");
    for (const auto &[name, condition] : conditions) {
        Func clamped = condition(in);
        Func blur("blur_" + name);
        blur(x, y) = (clamped(x - 2, y - 1) + clamped(x, y) * 2 + clamped(x + 3, y + 2)) / 4;
        Buffer<int16_t> out(13, 9);
        blur.realize(out);
        EXPECT_TRUE(matches_reference(blur, out)) << name;
    }
    Func zero = BoundaryConditions::constant_exterior(in, 7);
    Func blur("blur_constant_exterior");
    blur(x, y) = zero(x - 1, y) + zero(x + 1, y + 1);
    Buffer<int16_t> out = blur.realize({13, 9});
    EXPECT_TRUE(matches_reference(blur, out));
    EXPECT_EQ(out(0, 0), 7 + Buffer<int16_t>(in)(1, 1));
}

TEST(MultiStage, ChainOfRootAndInlinedFuncs) {
    Buffer<> in = random_buffer(Float(32), {20, 12}, 2);
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func bx("bx"), by("by"), sharpen("sharpen");
    bx(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3.0f;
    by(x, y) = (bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3.0f;
    sharpen(x, y) = clamped(x, y) * 2.0f - by(x, y);
    bx.compute_root();
    Buffer<float> out = sharpen.realize({20, 12});
    EXPECT_TRUE(matches_reference(sharpen, out));
    // Inlining everything instead gives the same result.
    bx.compute_inline();
    by.compute_root();
    Buffer<float> again = sharpen.realize({20, 12});
    EXPECT_TRUE(matches_reference(sharpen, again));
}

TEST(Reduction, OneDimensionalSum) {
    Func f("prefix"), total("total");
    Var x("x");
    RDom r(0, 10, "r");
    f(x) = x * x;
    total(x) = 0;
    total(x) += f(x + r);
    Buffer<int> out = total.realize({8});
    EXPECT_TRUE(matches_reference(total, out));
    EXPECT_EQ(out(0), 285);  // 0 + 1 + 4 + ... + 81
}

// A computed coordinate of an update may use the pure Vars that also stand alone at their own
// positions: bilateral_grid's splat as Halide writes it, each cell (x, y) summing its 4x4
// pixels into the bin their value picks. Scalar, computed per row of a consumer with the rows
// in parallel, and with the cells vectorized (the lanes write different cells).
TEST(Reduction, PureVarsInAComputedCoordinate) {
    Buffer<> in = random_buffer(Float(32), {32, 24}, 21);  // values in [-8, 8)
    for (int variant = 0; variant < 3; variant++) {
        std::string tag = std::to_string(variant);
        Func hist("pv_hist" + tag), f("pv_read" + tag);
        Var x("x"), y("y"), z("z");
        RDom r(0, 4, 0, 4, "r");
        Expr v = Func(in)(x * 4 + r.x, y * 4 + r.y);
        Expr bin = clamp(cast<int32_t>(v + 8.0f) / 2, 0, 7);
        hist(x, y, z) = 0.0f;
        hist(x, y, bin) += v;
        f(x, y) = hist(x, y, 0) + hist(x, y, 3) * 2.0f + hist(x, y, 7) * 3.0f;
        if (variant >= 1) {
            hist.compute_at(f, y);
            f.parallel(y);
        }
        if (variant == 2) hist.update().reorder(r.x, r.y, x).vectorize(x, 4);
        Buffer<float> out = f.realize({8, 6});
        EXPECT_TRUE(matches_reference(f, out)) << "variant " << variant;
        if (variant == 2) {
            EXPECT_NE(f.lowered_stmt().find("ramp("), std::string::npos)
                << "the cells were not vectorized";
        }
        if (variant == 0) {
            Buffer<float> whole = hist.realize({8, 6, 8});
            EXPECT_TRUE(matches_reference(hist, whole));
        }
    }
}

TEST(Reduction, InlineReductions) {
    Buffer<> in = random_buffer(Float(32), {16}, 4);
    Func input(in);
    Var x("x");
    RDom r(-2, 5, "r");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func s("s"), p("p"), mx("mx"), mn("mn");
    s(x) = sum(clamped(x + r));
    p(x) = product(clamped(x + r) / 4.0f + 1.0f);
    mx(x) = maximum(clamped(x + r));
    mn(x) = minimum(clamped(x + r));
    for (Func *f : {&s, &p, &mx, &mn}) {
        Buffer<float> out = f->realize({16});
        EXPECT_TRUE(matches_reference(*f, out)) << f->name();
    }
}

// As in Halide, an inline reduction's Func is computed in the innermost loop of its reader
// (outside a vectorized one), so a Func computed at an outer loop of that reader feeds it:
// Halide's lesson 9 computes the padded input per row of a local max-minus-min.
TEST(Reduction, InlineReductionsAreComputedInTheirReadersInnermostLoop) {
    Buffer<uint8_t> in(37, 29);
    in.for_each_element(
        [&](int x, int y) { in(x, y) = static_cast<uint8_t>((x * 37 + y * 101 + x * y) % 251); });
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func clamped("clamped"), spread("spread");
    clamped(x, y) = in(clamp(x, 0, in.width() - 1), clamp(y, 0, in.height() - 1));
    RDom box(-2, 5, -2, 5, "box");
    spread(x, y) = maximum(clamped(x + box.x, y + box.y)) - minimum(clamped(x + box.x, y + box.y));
    spread.split(y, yo, yi, 8).parallel(yo).vectorize(x, 16);
    clamped.store_at(spread, yo).compute_at(spread, yi);
    std::string nest = spread.loop_nest();
    // Both reductions are computed per vector of spread, inside the loop over rows.
    size_t row = nest.find("for spread.s0.yi");
    size_t vector = nest.find("for spread.s0.x:");
    size_t max_at = nest.find("produce maximum_");
    size_t min_at = nest.find("produce minimum_");
    ASSERT_NE(row, std::string::npos) << nest;
    ASSERT_NE(vector, std::string::npos) << nest;
    EXPECT_GT(max_at, vector) << nest;
    EXPECT_GT(min_at, vector) << nest;
    Buffer<uint8_t> out = spread.realize({in.width(), in.height()});
    int bad = 0;
    for (int j = 0; j < in.height(); j++) {
        for (int i = 0; i < in.width(); i++) {
            int hi = 0, lo = 255;
            for (int dy = -2; dy <= 2; dy++) {
                for (int dx = -2; dx <= 2; dx++) {
                    int v = in(std::clamp(i + dx, 0, in.width() - 1),
                               std::clamp(j + dy, 0, in.height() - 1));
                    hi = std::max(hi, v);
                    lo = std::min(lo, v);
                }
            }
            bad += out(i, j) != hi - lo;
        }
    }
    EXPECT_EQ(bad, 0);
}

// Loops inside that the reduction does not depend on do not recompute it: a softmax's sum over
// channels is computed once per pixel, outside the loop over channels.
TEST(Reduction, InlineReductionSkipsLoopsItDoesNotDependOn) {
    Buffer<float> in(5, 7);
    in.for_each_element([&](int c, int x) { in(c, x) = static_cast<float>(c + 2 * x + 1); });
    Var c("c"), x("x");
    RDom r(0, 5, "r");
    Func out("softmax");
    out(c, x) = in(c, x) / sum(in(r, x));
    std::string nest = out.loop_nest();
    size_t pixels = nest.find("for softmax.s0.x");
    size_t sum_at = nest.find("produce sum_");
    size_t channels = nest.find("for softmax.s0.c");
    ASSERT_NE(sum_at, std::string::npos) << nest;
    EXPECT_LT(pixels, sum_at) << nest;
    EXPECT_LT(sum_at, channels) << nest;
    Buffer<float> result = out.realize({5, 7});
    for (int j = 0; j < 7; j++) {
        float total = 0;
        for (int k = 0; k < 5; k++)
            total += in(k, j);
        for (int k = 0; k < 5; k++)
            EXPECT_FLOAT_EQ(result(k, j), in(k, j) / total) << k << ", " << j;
    }
}

// Read by two Funcs, an inline reduction's Func is computed once, at root.
TEST(Reduction, InlineReductionReadByTwoFuncsIsComputedAtRoot) {
    Var x("x");
    RDom r(0, 10, "r");
    Expr total = sum(x * r);
    Func a("a"), b("b"), out("out");
    a(x) = total + 1;
    b(x) = total * 2;
    a.compute_root();
    b.compute_root();
    out(x) = a(x) + b(x);
    std::string nest = out.loop_nest();
    EXPECT_LT(nest.find("produce sum_"), nest.find("produce a")) << nest;
    Buffer<int> result = out.realize({12});
    for (int i = 0; i < 12; i++)
        EXPECT_EQ(result(i), 45 * i + 1 + 90 * i) << i;
}

TEST(Reduction, ArgmaxAndArgmin) {
    Buffer<> in = random_buffer(Int(32), {7, 5}, 5);
    Func input(in);
    RDom r(0, 7, 0, 5, "r");
    Func best("best"), worst("worst");
    Tuple am = argmax(input(r.x, r.y));
    Tuple an = argmin(input(r.x, r.y));
    best() = am;
    worst() = an;
    Realization rb = best.realize(std::vector<int>{});
    Realization rw = worst.realize(std::vector<int>{});
    EXPECT_TRUE(matches_reference(best, rb));
    EXPECT_TRUE(matches_reference(worst, rw));
    // Check against a plain loop.
    Buffer<int> values(in);
    int bx = 0, by = 0;
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 7; i++) {
            if (values(i, j) > values(bx, by)) {
                bx = i;
                by = j;
            }
        }
    }
    EXPECT_EQ(Buffer<int>(rb[0])(), bx);
    EXPECT_EQ(Buffer<int>(rb[1])(), by);
    EXPECT_EQ(Buffer<int>(rb[2])(), values(bx, by));
}

TEST(Reduction, HistogramScatter) {
    Buffer<uint8_t> in(32, 16);
    in.for_each_element(
        [&](int x, int y) { in(x, y) = static_cast<uint8_t>((x * 7 + y * 13) % 40); });
    Func hist("hist");
    Var i("i");
    RDom r(0, 32, 0, 16, "r");
    hist(i) = 0;
    hist(Func(Buffer<>(in))(r.x, r.y)) += 1;
    // The bins must cover every uint8 value: the compiler cannot know the image stays below 40.
    Buffer<int> out = hist.realize({256});
    EXPECT_TRUE(matches_reference(hist, out));
    std::vector<int> expected(256, 0);
    in.for_each_element([&](int x, int y) { expected[in(x, y)]++; });
    for (int b = 0; b < 256; b++)
        EXPECT_EQ(out(b), expected[b]) << "bin " << b;
    Buffer<int> too_small(40);
    EXPECT_THROW(hist.realize(too_small), RuntimeError);
}

TEST(Reduction, RecurrenceAlongAnRDom) {
    Func f("running");
    Var x("x");
    RDom r(1, 9, "r");
    f(x) = x;
    f(r) = f(r - 1) + f(r);  // prefix sums
    Buffer<int> out = f.realize({10});
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_EQ(out(9), 45);
}

TEST(Tuples, TwoOutputs) {
    Func f("pair");
    Var x("x"), y("y");
    f(x, y) = Tuple{x + y, cast<float>(x) * 0.5f};
    f(x, y) = Tuple{f(x, y)[0] * 2, f(x, y)[1] + 1.0f};
    Realization r = f.realize({5, 4});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(matches_reference(f, r));
    EXPECT_EQ(Buffer<int>(r[0])(3, 2), 10);
    EXPECT_EQ(Buffer<float>(r[1])(3, 2), 2.5f);
}

TEST(Buffers, InputWithNonZeroMinsAndOddStrides) {
    std::vector<int32_t> storage(200);
    for (int i = 0; i < 200; i++)
        storage[i] = i * 3 - 100;
    // x in [10, 16) every 3rd element, y in [-2, 3) with stride 20.
    Buffer<int32_t> in(Int(32), storage.data(), {{10, 6, 3, 0}, {-2, 5, 20, 0}});
    ImageParam input(Int(32), 2, "input");
    input.set(in);
    Func f("scaled");
    Var x("x"), y("y");
    f(x, y) = input(x + 10, y - 2) * 2 + input(15, 2);
    Buffer<int> out = f.realize({6, 5});
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_EQ(out(0, 0), in(10, -2) * 2 + in(15, 2));
}

TEST(Buffers, OutputWithNonZeroMins) {
    Func f("shifted");
    Var x("x"), y("y");
    f(x, y) = x * 100 + y;
    Buffer<int> out(6, 4);
    out.translate(0, -3).translate(1, 50);
    f.realize(out);
    EXPECT_EQ(out(-3, 50), -300 + 50);
    EXPECT_EQ(out(2, 53), 200 + 53);
    EXPECT_TRUE(matches_reference(f, out));
    // A transposed output buffer: strides no longer increase with the dimension.
    Buffer<int> t = Buffer<int>(4, 6).transposed(0, 1);
    f.realize(t);
    EXPECT_EQ(t(5, 3), 503);
}

TEST(Params, ChangingParamsDoesNotRecompile) {
    Param<int> offset("offset", 0, -100, 100);
    Param<float> gain("gain", 1.0f);
    Func f("affine");
    Var x("x");
    f(x) = cast<float>(x + offset) * gain;
    Buffer<float> a = f.realize({4});
    lang::JITCounters before = lang::jit_counters();
    offset.set(10);
    gain.set(0.5f);
    Buffer<float> b = f.realize({4});
    lang::JITCounters after = lang::jit_counters();
    EXPECT_EQ(after.compilations, before.compilations) << "the second realize recompiled";
    EXPECT_EQ(after.lowerings, before.lowerings) << "the second realize lowered again";
    EXPECT_EQ(a(3), 3.0f);
    EXPECT_EQ(b(3), 6.5f);
    EXPECT_TRUE(matches_reference(f, b));
}

// A compute_root intermediate of 2 MiB is kept by the runtime when the pipeline frees it, and the
// next realization takes it back: the results stay right (new parameter values, the block's old
// contents overwritten), and with a limit of 0 nothing is kept.
TEST(Memory, LargeIntermediatesAreKeptForTheNextRealization) {
    constexpr uint64_t kMiB = 1 << 20;
    dsl_release_cached_memory();
    dsl_set_memory_cache_limit(64 * kMiB);
    Buffer<float> in(1025, 512);
    in.for_each_element([&](int x, int y) { in(x, y) = static_cast<float>((x * 7 + y * 3) % 50); });
    Param<float> gain("gain", 1.0f);
    Func input(in), g("kept_g"), f("kept_f");
    Var x("x"), y("y");
    g(x, y) = input(x, y) * gain;
    f(x, y) = g(x, y) + g(x + 1, y);
    g.compute_root();
    // Against a plain loop (the values are small integers times a power of two: exact).
    auto check = [&](float k) {
        Buffer<float> out = f.realize({1024, 512});
        int wrong = 0;
        out.for_each_element(
            [&](int i, int j) { wrong += out(i, j) != (in(i, j) + in(i + 1, j)) * k; });
        EXPECT_EQ(wrong, 0) << "gain " << k;
    };
    check(1.0f);
    EXPECT_GE(dsl_memory_cache_bytes(), 2 * kMiB);
    EXPECT_LT(dsl_memory_cache_bytes(), 3 * kMiB);
    gain.set(-4.0f);
    check(-4.0f);
    EXPECT_LT(dsl_memory_cache_bytes(), 3 * kMiB) << "the kept block was not taken back";
    dsl_set_memory_cache_limit(0);
    EXPECT_EQ(dsl_memory_cache_bytes(), 0u);
    gain.set(0.5f);
    check(0.5f);
    EXPECT_EQ(dsl_memory_cache_bytes(), 0u);
    dsl_set_memory_cache_limit(256 * kMiB);
}

// The JIT compiles the version of a pipeline for buffers dense in their first dimension; the
// version for any strides only when a buffer that is not dense comes, and it keeps both: going
// back and forth compiles nothing more.
TEST(JITCache, VersionForAnyStridesCompiledWhenNeededAndKept) {
    // Counts lowerings: no disk cache, whose entries from an earlier run would save them.
    test::ScopedEnvironmentVariable no_disk_cache("DSL_CACHE_DIR", "off");
    ImageParam in(Int(32), 2, "sv_in");
    Func f("sv_f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) * 3 + x;
    f.vectorize(x, 8);
    Buffer<int32_t> dense_in(20, 6);
    dense_in.for_each_element([&](int px, int py) { dense_in(px, py) = px * 10 - py; });
    // The same values, every other element of a wider buffer: stride 2 in x.
    std::vector<int32_t> wide(40 * 6);
    for (int py = 0; py < 6; py++) {
        for (int px = 0; px < 20; px++)
            wide[static_cast<size_t>(py * 40 + 2 * px)] = px * 10 - py;
    }
    Buffer<int32_t> strided_in(Int(32), wide.data(), {{0, 20, 2, 0}, {0, 6, 40, 0}}, "sv_strided");
    auto check = [&](const Buffer<int32_t> &input, int lowerings, int compilations,
                     const char *what) {
        in.set(input);
        lang::JITCounters before = lang::jit_counters();
        Buffer<int32_t> out = f.realize({20, 6});
        lang::JITCounters after = lang::jit_counters();
        EXPECT_EQ(after.lowerings - before.lowerings, uint64_t(lowerings)) << what;
        EXPECT_EQ(after.compilations - before.compilations, uint64_t(compilations)) << what;
        int bad = 0;
        out.for_each_element(
            [&](int px, int py) { bad += out(px, py) != (px * 10 - py) * 3 + px; });
        EXPECT_EQ(bad, 0) << what;
    };
    check(dense_in, 1, 1, "dense input: the dense version");
    check(strided_in, 1, 1, "strided input: the version for any strides, compiled now");
    check(dense_in, 0, 0, "dense again: both versions are kept");
    check(strided_in, 0, 0, "strided again");
    // A transposed output is not dense either.
    in.set(dense_in);
    Buffer<int32_t> t = Buffer<int32_t>(6, 20).transposed(0, 1);
    lang::JITCounters before = lang::jit_counters();
    f.realize(t);
    EXPECT_EQ(lang::jit_counters().compilations, before.compilations);
    EXPECT_EQ(t(7, 2), (70 - 2) * 3 + 7);
}

// The dense version, called directly with a buffer that is not dense, refuses it with an error
// that names the buffer (realize() never does this; code calling the function itself might).
TEST(JITCache, DenseVersionRefusesAStridedBuffer) {
    ImageParam in(Int(32), 1, "dv_in");
    Func f("dv_f");
    Var x("x");
    f(x) = in(x) + 1;
    f.vectorize(x, 4);
    auto lowered = lowering::lower({lang::Function(f.contents())}, "dv_pipeline",
                                   lowering::StrideVersions::Dense);
    auto jit = jit::JITModule::compile(lowered.module);
    std::vector<int32_t> memory(16, 5), out_memory(8, 0);
    Buffer<int32_t> strided(Int(32), memory.data(), {{0, 8, 2, 0}}, "dv_strided");
    Buffer<int32_t> out(Int(32), out_memory.data(), {{0, 8, 1, 0}}, "dv_out");
    void *argv[] = {strided.raw_buffer(), out.raw_buffer()};
    dsl_runtime_clear_last_error();
    EXPECT_EQ(jit->argv_function("dv_pipeline")(argv), dsl_error_bad_stride);
    EXPECT_NE(std::string(dsl_runtime_last_error()).find("\"dv_in\" has stride 2"),
              std::string::npos)
        << dsl_runtime_last_error();
    EXPECT_EQ(out_memory[0], 0) << "nothing is computed";
    Buffer<int32_t> dense(Int(32), memory.data(), {{0, 8, 1, 0}}, "dv_dense");
    void *ok[] = {dense.raw_buffer(), out.raw_buffer()};
    EXPECT_EQ(jit->argv_function("dv_pipeline")(ok), 0);
    EXPECT_EQ(out_memory[7], 6);
}

// realize() reuses its compiled code without lowering while nothing changed, and sees every
// change made since: to the output's schedule, to a producer's definition or schedule, and to a
// Param's range. A change elsewhere costs the key of the definitions, not a lowering.
TEST(JITCache, RealizeSeesEveryChangeAndNothingElse) {
    test::ScopedEnvironmentVariable no_disk_cache("DSL_CACHE_DIR", "off");
    Param<int> n("jc_n", 3, 0, 100);
    Func g("jc_g"), f("jc_f");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    g(x, y) = x + y * n;
    f(x, y) = g(x, y) * 2;
    auto check = [&](int expected_lowerings, int expected_compilations, const char *what) {
        lang::JITCounters before = lang::jit_counters();
        Buffer<int> out = f.realize({37, 5});
        lang::JITCounters after = lang::jit_counters();
        EXPECT_EQ(after.lowerings - before.lowerings, uint64_t(expected_lowerings)) << what;
        if (expected_compilations >= 0) {
            EXPECT_EQ(after.compilations - before.compilations, uint64_t(expected_compilations))
                << what;
        }
        EXPECT_TRUE(matches_reference(f, out)) << what;
    };
    check(1, 1, "first realize");
    check(0, 0, "nothing changed");
    f.split(x, xo, xi, 8);
    check(1, 1, "the output's schedule changed");
    check(0, 0, "nothing changed since");
    g.compute_root();
    check(1, 1, "a producer's schedule changed");
    g(x, y) += 1;
    check(1, 1, "a producer got an update");
    f.compile_jit();
    check(0, 0, "compile_jit() compiled it already");
    n.set(7);
    check(0, 0, "a Param's value is an argument");
    n.set_range(0, 50);
    // The range is checked on entry: other code.
    check(1, 1, "a Param's range changed");
    check(0, 0, "nothing changed since");
    Func unrelated("jc_unrelated");
    unrelated(x) = x;
    check(0, 0, "another Func was defined: the key of f's definitions is the same");
    check(0, 0, "and then remembered");
    n.set_range(0, 100);
    check(1, 1, "the range changed back: the entry of that range was replaced");
}

// Param<> (Param<void>): the type is given at run time; values are set and read with the
// matching C++ type; it converts to and from Param<T> of its type, sharing the value.
TEST(Params, RuntimeTypedParams) {
    Var x("x");
    Param<> u(Int(32), "rt_u");
    Param<> scale(Float(32));
    Func f("rt_f");
    f(x) = cast<float>(u + x) * scale;
    u.set<int32_t>(17);
    scale.set(0.5f);
    EXPECT_EQ(u.get<int32_t>(), 17);
    EXPECT_EQ(u.type(), Int(32));
    Buffer<float> out = f.realize({4});
    EXPECT_EQ(out(3), 10.0f);
    Param<> alias = u;  // the same Param
    alias.set(123);
    out = f.realize({4});
    EXPECT_EQ(out(1), 62.0f);
    // Typed and runtime-typed views of one Param.
    Param<int32_t> typed = u;
    EXPECT_EQ(typed.get(), 123);
    typed.set(7);
    EXPECT_EQ(u.get<int32_t>(), 7);
    Param<uint8_t> small("rt_small");
    Param<> any = small;
    any.set<uint8_t>(200);
    EXPECT_EQ(small.get(), 200);
    // A range on a runtime-typed Param is checked when the pipeline runs.
    u.set_range(0, 100);
    u.set(500);
    std::string msg = test::message_of<RuntimeError>([&] { f.realize({4}); });
    EXPECT_CONTAINS(msg, "rt_u");
    // Another C++ type is refused, naming the Param.
    msg = test::message_of([&] { u.set(1.5f); });
    EXPECT_CONTAINS(msg,
                    "Param \"rt_u\" is of type int32, but set() gives it the C++ type "
                    "of float32");
    msg = test::message_of([&] { u.get<int16_t>(); });
    EXPECT_CONTAINS(msg, "get() gives it the C++ type of int16");
    msg = test::message_of([&] { Param<float> wrong = u; });
    EXPECT_CONTAINS(msg, "conversion to a typed Param");
}

TEST(Params, ReductionOverAParamDependentDomain) {
    Param<int> count("count", 5, 1, 64);
    Func f("partial_sums");
    Var x("x");
    RDom r(0, count, "r");
    f(x) = 0;
    f(x) += x * r;
    Buffer<int> a = f.realize({4});
    EXPECT_EQ(a(3), 3 * (0 + 1 + 2 + 3 + 4));
    count.set(10);
    Buffer<int> b = f.realize({4});
    EXPECT_EQ(b(3), 3 * 45);
    EXPECT_TRUE(matches_reference(f, b));
}

TEST(Math, LerpForFloatsAndIntegers) {
    Func f("blend"), g("blend8");
    Var x("x");
    f(x) = lerp(1.0f, 3.0f, cast<float>(x) / 4.0f);
    g(x) = lerp(cast<uint8_t>(10), cast<uint8_t>(250), cast<uint8_t>(x * 51));
    Buffer<float> a = f.realize({5});
    Buffer<uint8_t> b = g.realize({6});
    EXPECT_EQ(a(2), 2.0f);
    EXPECT_EQ(b(0), 10);
    EXPECT_EQ(b(5), 250);
    EXPECT_TRUE(matches_reference(f, a));
    EXPECT_TRUE(matches_reference(g, b));
}

TEST(Printing, LoopNestAndLoweredStatement) {
    Func g("g"), h("h");
    Var x("x"), y("y");
    g(x, y) = x + y;
    h(x, y) = g(x, y) + g(x + 1, y);
    g.compute_root();
    std::string nest = h.loop_nest();
    EXPECT_EQ(nest,
              "produce g:\n  for g.s0.y:\n    for g.s0.x:\n      g(...) = ...\n"
              "produce h:\n  for h.s0.y:\n    for h.s0.x:\n      h(...) = ...\n");
    std::string stmt = h.lowered_stmt();
    EXPECT_NE(stmt.find("allocate g[int32"), std::string::npos) << stmt;
}

}  // namespace
}  // namespace dsl
