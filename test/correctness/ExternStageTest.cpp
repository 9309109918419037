// Extern stages: Funcs whose values a C function of the program computes over buffers
// (Func::define_extern), with bounds queries, scheduling around them, and their errors.

#include <gtest/gtest.h>

#include <atomic>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace {

std::atomic<int> produced{0}, queried{0};
// The last output region asked for (dimension 0).
std::atomic<int> last_min{0}, last_extent{0};

int32_t &at(dsl_buffer_t *b, int x, int y = 0) {
    int32_t *base = reinterpret_cast<int32_t *>(b->host);
    int64_t offset = int64_t(x - b->dim[0].min) * b->dim[0].stride;
    if (b->dimensions > 1) offset += int64_t(y - b->dim[1].min) * b->dim[1].stride;
    return base[offset];
}

}  // namespace

// No inputs: fills its output with x * 1000 + y.
extern "C" int extern_test_make_data(dsl_buffer_t *out) {
    if (!out->host) return 0;  // nothing to ask for
    produced++;
    last_min = out->dim[0].min;
    last_extent = out->dim[0].extent;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at(out, x, y) = x * 1000 + y;
    }
    return 0;
}
DSL_EXTERN_STAGE(extern_test_make_data);

// out(x) = in(-x) + offset: asks for the mirror image of its output's region.
extern "C" int extern_test_mirror(dsl_buffer_t *in, int32_t offset, dsl_buffer_t *out) {
    const int min = out->dim[0].min, extent = out->dim[0].extent;
    if (!in->host) {
        queried++;
        in->dim[0].min = -(min + extent - 1);
        in->dim[0].extent = extent;
        return 0;
    }
    produced++;
    // The input holds at least what was asked for.
    if (in->dim[0].min > -(min + extent - 1) || in->dim[0].min + in->dim[0].extent < -min + 1)
        return 7;
    for (int x = min; x < min + extent; x++)
        at(out, x) = at(in, -x) + offset;
    return 0;
}
DSL_EXTERN_STAGE(extern_test_mirror);

// Copies its input (which it asks for over the output's region, by not answering), and
// writes a second output of float halves; checks the strides it is given.
extern "C" int extern_test_copy_and_halve(dsl_buffer_t *in, dsl_buffer_t *out, dsl_buffer_t *half) {
    if (!in->host) return 0;
    if (out->type.code != dsl_type_int || out->type.bits != 32 ||
        half->type.code != dsl_type_float || in->dimensions != 2)
        return 3;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
            at(out, x, y) = at(in, x, y);
            float *h = reinterpret_cast<float *>(half->host);
            h[(x - half->dim[0].min) * half->dim[0].stride +
              (y - half->dim[1].min) * half->dim[1].stride] = at(in, x, y) * 0.5f;
        }
    }
    return 0;
}
DSL_EXTERN_STAGE(extern_test_copy_and_halve);

// Written as Halide's extern stages are, with the C++ helpers of dsl_buffer_t and a Buffer
// that wraps it: out(x, y) = in(x + 1, y) * 2, asking for the shifted region.
extern "C" int extern_test_shift_double(dsl_buffer_t *in, dsl_buffer_t *out) {
    if (in->is_bounds_query()) {
        in->dim[0].min = out->dim[0].min + 1;
        in->dim[0].extent = out->dim[0].extent;
        in->dim[1] = out->dim[1];
        in->dim[1].stride = 0;
        return 0;
    }
    if (in->type != out->type || in->type.bytes() != 4) return 9;
    dsl::Buffer<int32_t> input(*in), output(*out);
    for (int y = output.dim(1).min(); y <= output.dim(1).max(); y++) {
        for (int x = output.dim(0).min(); x <= output.dim(0).max(); x++) {
            int pos[2] = {x + 1, y};
            output(x, y) = *reinterpret_cast<int32_t *>(in->address_of(pos)) * 2;
        }
    }
    out->set_host_dirty();
    return 0;
}
DSL_EXTERN_STAGE(extern_test_shift_double);

extern "C" int extern_test_fails(dsl_buffer_t *out) {
    return out->host ? 42 : 0;
}
DSL_EXTERN_STAGE(extern_test_fails);

// Fills its output with 1 where it is given a user context, and keeps the last one given.
void *last_context = nullptr;
extern "C" int extern_test_fill_from_context(void *context, dsl_buffer_t *out) {
    if (!out->host) return 0;
    last_context = context;
    for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
        at(out, x) = context ? 1 : 0;
    return 0;
}
DSL_EXTERN_STAGE(extern_test_fill_from_context);

// Produces only whole tiles of 10 columns and at least 12 rows: widens the region it is asked
// for in a bounds query (Halide's extern_producer). Fills x * 1000 + y and counts the columns
// it was called over; checks that the call is over a region it could have answered.
std::atomic<int> widened_calls{0}, widened_columns{0};
int widen_to_tiles(dsl_buffer_t *out) {
    int end = out->dim[0].min + out->dim[0].extent;
    int min = out->dim[0].min - ((out->dim[0].min % 10) + 10) % 10;
    end += (10 - ((end % 10) + 10) % 10) % 10;
    out->dim[0].min = min;
    out->dim[0].extent = end - min;
    if (out->dim[1].extent < 12) out->dim[1].extent = 12;
    return 0;
}
extern "C" int extern_test_whole_tiles(dsl_buffer_t *out) {
    if (out->is_bounds_query()) return widen_to_tiles(out);
    if (out->dim[0].min % 10 != 0 || out->dim[0].extent % 10 != 0 || out->dim[1].extent < 12)
        return 5;
    widened_calls++;
    widened_columns += out->dim[0].extent;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at(out, x, y) = x * 1000 + y;
    }
    return 0;
}
DSL_EXTERN_STAGE(extern_test_whole_tiles);

// out(x) = in(x) * x over a multiple of 7 points, asking for its input over the widened
// region (Halide's extern_output_expansion).
extern "C" int extern_test_sevens(dsl_buffer_t *in, dsl_buffer_t *out) {
    if (out->is_bounds_query()) {
        out->dim[0].extent = (out->dim[0].extent + 6) / 7 * 7;
        in->dim[0].min = out->dim[0].min;
        in->dim[0].extent = out->dim[0].extent;
        return 0;
    }
    if (out->dim[0].extent % 7 != 0) return 6;
    for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
        at(out, x) = at(in, x) * x;
    return 0;
}
DSL_EXTERN_STAGE(extern_test_sevens);

// Answers a bounds query with less than it was asked for.
extern "C" int extern_test_narrows(dsl_buffer_t *out) {
    if (out->is_bounds_query()) {
        out->dim[0].extent = 1;
        return 0;
    }
    for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
        at(out, x) = x;
    return 0;
}
DSL_EXTERN_STAGE(extern_test_narrows);

// Asks for more input per row than for the whole image (it breaks the nesting Halide's
// non_nesting_extern_bounds_query tests): `shift` 50 asks a row for its own columns moved 50
// right and 100 wider, `shift` 10000 for five columns far to the right. Records what it is
// given, and copies its input's first column into every point.
std::atomic<int> given_min{0}, given_extent{0};
extern "C" int extern_test_wider_per_row(dsl_buffer_t *in, int32_t shift, dsl_buffer_t *out) {
    if (in->is_bounds_query()) {
        for (int d = 0; d < out->dimensions; d++)
            in->dim[d] = out->dim[d];
        if (out->dim[1].extent == 1) {
            in->dim[0].min += shift;
            in->dim[0].extent = shift == 50 ? in->dim[0].extent + 100 : 5;
            if (shift != 50) in->dim[0].min = shift;
        }
        return 0;
    }
    given_min = in->dim[0].min;
    given_extent = in->dim[0].extent;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++)
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at(out, x, y) = at(in, in->dim[0].min, y);
    return 0;
}
DSL_EXTERN_STAGE(extern_test_wider_per_row);

namespace dsl {
namespace {

// user_context_value(): the JITUserContext given to realize(), or dsl's own for the call.
TEST(ExternStage, UserContextValueIsTheContextOfTheCall) {
    Func f("from_context"), g("from_context_reader");
    Var x("x");
    f.define_extern("extern_test_fill_from_context", {user_context_value()}, Int(32), 1);
    g(x) = f(x) + x;
    JITUserContext context;
    Buffer<int> out = g.realize(&context, {5});
    EXPECT_EQ(last_context, static_cast<void *>(&context));
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(out(i), 1 + i);
    // Without one, the function still gets a context (dsl's, with the Func's handlers).
    last_context = nullptr;
    out = g.realize({5});
    EXPECT_NE(last_context, nullptr);
    EXPECT_EQ(out(4), 5);
}

TEST(ExternStage, ProducerWithoutInputsFillsWhatItsConsumerReads) {
    Func source("source"), sink("sink");
    Var x("x"), y("y");
    source.define_extern("extern_test_make_data", {}, Int(32), 2);
    sink(x, y) = source(x + 1, y) - source(x, y);
    produced = 0;
    Buffer<int> out = sink.realize({10, 4});
    EXPECT_EQ(produced.load(), 1);
    EXPECT_EQ(last_min.load(), 0);
    EXPECT_EQ(last_extent.load(), 11);
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 10; i++)
            ASSERT_EQ(out(i, j), 1000);
    }
    EXPECT_TRUE(source.is_extern());
    EXPECT_EQ(source.extern_function_name(), "extern_test_make_data");
}

TEST(ExternStage, ProducerComputedPerTileOfItsConsumer) {
    Func source("tiled_source"), sink("tiled_sink");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    source.define_extern("extern_test_make_data", {}, Int(32), {x, y});
    sink(x, y) = source(x, y) * 2;
    sink.tile(x, y, xi, yi, 8, 8);
    source.compute_at(sink, x);
    produced = 0;
    Buffer<int> out = sink.realize({20, 16});
    EXPECT_EQ(produced.load(), 3 * 2);
    for (int j = 0; j < 16; j++) {
        for (int i = 0; i < 20; i++)
            ASSERT_EQ(out(i, j), 2 * (i * 1000 + j)) << i << ", " << j;
    }
}

TEST(ExternStage, BoundsQueryDecidesTheRegionOfItsInput) {
    Func f("squares"), g("mirrored"), h("h");
    Var x("x");
    f(x) = x * x;
    g.define_extern("extern_test_mirror", {f, 5}, Int(32), {x});
    h(x) = g(x) + g(x + 2);
    queried = produced = 0;
    Buffer<int> out = h.realize({30});
    EXPECT_GT(queried.load(), 0);
    EXPECT_EQ(produced.load(), 1);
    for (int i = 0; i < 30; i++)
        ASSERT_EQ(out(i), (i * i + 5) + ((i + 2) * (i + 2) + 5)) << i;
}

TEST(ExternStage, ExternAndItsInputComputedInsideAParallelLoop) {
    Func f("par_squares"), g("par_mirrored"), h("par_h");
    Var x("x"), xo("xo"), xi("xi");
    Param<int32_t> offset("offset");
    f(x) = x * x;
    g.define_extern("extern_test_mirror", {f, offset}, Int(32), {x});
    h(x) = g(x) * 2;
    h.split(x, xo, xi, 8).parallel(xo).vectorize(xi, 4);
    f.compute_at(h, xo);
    g.compute_at(h, xo);
    offset.set(-3);
    produced = 0;
    Buffer<int> out = h.realize({50});
    EXPECT_EQ(produced.load(), 7);  // one call per tile of 8
    for (int i = 0; i < 50; i++)
        ASSERT_EQ(out(i), 2 * (i * i - 3)) << i;
}

TEST(ExternStage, TwoOutputsAndAnInputOfReorderedStorage) {
    Buffer<int> in(12, 6);
    for (int y = 0; y < 6; y++) {
        for (int x = 0; x < 12; x++)
            in(x, y) = x + 100 * y;
    }
    Func staged("staged"), both("both"), out("out");
    Var x("x"), y("y");
    staged(x, y) = in(x, y) + 1;
    staged.compute_root().reorder_storage(y, x);
    both.define_extern("extern_test_copy_and_halve", {staged}, {Int(32), Float(32)}, {x, y});
    out(x, y) = cast<float>(both(x, y)[0]) + both(x, y)[1];
    Buffer<float> result = out.realize({12, 6});
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 12; i++)
            ASSERT_EQ(result(i, j), 1.5f * (i + 100 * j + 1)) << i << ", " << j;
    }
}

TEST(ExternStage, InputBufferAndImageParamArguments) {
    Buffer<int> data(40);
    for (int i = 0; i < 40; i++)
        data(i) = 3 * i;
    data.set_min(-20);
    Func from_buffer("from_buffer");
    Var x("x");
    from_buffer.define_extern("extern_test_mirror", {data, 1}, Int(32), {x});
    Buffer<int> out = from_buffer.realize({10});
    for (int i = 0; i < 10; i++)
        ASSERT_EQ(out(i), data(-i) + 1) << i;

    ImageParam image(Int(32), 1, "image");
    Func from_param("from_param");
    from_param.define_extern("extern_test_mirror", {image, 2}, Int(32), {x});
    image.set(data);
    Buffer<int> out2 = from_param.realize({10});
    for (int i = 0; i < 10; i++)
        ASSERT_EQ(out2(i), data(-i) + 2) << i;
}

TEST(ExternStage, OutputOfAPipelineThatAnotherOutputReads) {
    Func f("out_squares"), g("out_mirrored"), h("out_doubled");
    Var x("x");
    f(x) = x * x;
    g.define_extern("extern_test_mirror", {f, 0}, Int(32), {x});
    h(x) = g(x) * 2;
    Buffer<int> hb(20), gb(20);
    Pipeline({h, g}).realize({hb, gb});
    for (int i = 0; i < 20; i++) {
        ASSERT_EQ(gb(i), i * i) << i;
        ASSERT_EQ(hb(i), 2 * i * i) << i;
    }
}

TEST(ExternStage, HalideStyleFunctionWithBufferHelpers) {
    Func f("ramp2d"), g("shifted"), h("shifted_sum");
    Var x("x"), y("y");
    f(x, y) = x + 10 * y;
    g.define_extern("extern_test_shift_double", {f}, Int(32), {x, y});
    h(x, y) = g(x, y) + 1;
    Buffer<int> out = h.realize({9, 4});
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 9; i++)
            ASSERT_EQ(out(i, j), 2 * (i + 1 + 10 * j) + 1) << i << ", " << j;
    }
}

TEST(ExternStage, BufferCopyFromCopiesTheOverlap) {
    // What extern functions use to copy an input into their output (Halide's copy_from).
    Buffer<int> src(6, 4), dst(4, 6);
    src.fill([](int x, int y) { return x + 10 * y; });
    dst.fill(-1);
    dst.set_min({2, 1});
    dst.copy_from(src);
    for (int y = 1; y < 7; y++) {
        for (int x = 2; x < 6; x++)
            ASSERT_EQ(dst(x, y), y < 4 ? x + 10 * y : -1) << x << ", " << y;
    }
    Buffer<float> other(6, 4);
    std::string message = test::message_of<RuntimeError>([&] { dst.copy_from(other); });
    EXPECT_CONTAINS(message, "another type");
}

TEST(ExternStage, WhatItAsksOfAnInputIsCheckedAndInferred) {
    ImageParam image(Int(32), 2, "asked_image");
    Func g("asks_image");
    Var x("x"), y("y");
    g.define_extern("extern_test_shift_double", {image}, Int(32), {x, y});
    // infer_input_bounds: the region the function asked for (one column to the right).
    g.infer_input_bounds({8, 3});
    Buffer<int> inferred = image.get();
    ASSERT_TRUE(inferred.defined());
    EXPECT_EQ(inferred.dim(0).min(), 1);
    EXPECT_EQ(inferred.dim(0).extent(), 8);
    EXPECT_EQ(inferred.dim(1).extent(), 3);
    // An input smaller than that is a runtime error naming it.
    Buffer<int> small(8, 3);
    image.set(small);
    std::string message = test::message_of<RuntimeError>([&] { g.realize({8, 3}); });
    EXPECT_CONTAINS(message, "asked_image");
}

// A function that widens its outputs' region in a bounds query computes the wider region,
// stored whole: per tile of its consumer (8 x 8 tiles of a 20 x 16 image: 3 x 2 tiles, each
// widened to whole tiles of 10 columns and 12 rows), and at root.
TEST(ExternStage, AnOutputRegionWidenedByTheQueryIsComputed) {
    for (bool per_tile : {true, false}) {
        Func source("widened_source"), sink("widened_sink");
        Var x("x"), y("y"), xi("xi"), yi("yi");
        source.define_extern("extern_test_whole_tiles", {}, Int(32), {x, y});
        sink(x, y) = source(x, y) * 2;
        sink.tile(x, y, xi, yi, 8, 8);
        if (per_tile) source.compute_at(sink, x);
        widened_calls = widened_columns = 0;
        Buffer<int> out = sink.realize({20, 16});
        EXPECT_EQ(widened_calls.load(), per_tile ? 3 * 2 : 1) << per_tile;
        // Per tile, x in [0, 7] becomes [0, 9], [8, 15] [0, 19] and [16, 19] [10, 19], in each
        // row of tiles; at root, [0, 19].
        EXPECT_EQ(widened_columns.load(), per_tile ? 2 * (10 + 20 + 10) : 20) << per_tile;
        for (int j = 0; j < 16; j++) {
            for (int i = 0; i < 20; i++)
                ASSERT_EQ(out(i, j), 2 * (i * 1000 + j)) << i << ", " << j;
        }
    }
}

// The input of such a stage is computed over what the function asks for the widened region.
TEST(ExternStage, TheInputOfAWidenedStageCoversTheWiderRegion) {
    for (bool per_tile : {true, false}) {
        Func f("sevens_input"), g("sevens"), h("sevens_sink");
        Var x("x"), xo("xo"), xi("xi");
        f(x) = x * x;
        g.define_extern("extern_test_sevens", {f}, Int(32), {x});
        h(x) = g(x) * 2;
        h.split(x, xo, xi, 10);
        f.compute_root();
        if (per_tile) g.compute_at(h, xo);
        Buffer<int> out = h.realize({100});
        for (int i = 0; i < 100; i++)
            ASSERT_EQ(out(i), i * i * i * 2) << i << (per_tile ? " per tile" : " at root");
    }
}

TEST(ExternStage, AQueryAnsweredWithLessThanItAskedIsARuntimeError) {
    Func f("narrowed"), g("narrowed_sink");
    Var x("x");
    f.define_extern("extern_test_narrows", {}, Int(32), {x});
    g(x) = f(x) + 1;
    std::string message = test::message_of<RuntimeError>([&] { g.realize({10}); });
    EXPECT_CONTAINS(message, "extern_test_narrows");
    EXPECT_CONTAINS(message, "narrowed");
    EXPECT_CONTAINS(message, "[0, 9]");
    EXPECT_CONTAINS(message, "never narrow");
}

// Stored at root and computed per tile, a widening stage's storage comes from one query over
// the whole region; an iteration that widens past it is a runtime error that says to store it
// where it is computed (here the last tile, [16, 19], widens to [10, 19] and fits; the tiles
// of 7 rows at y = 7 widen to 12 rows, past the 16 rows stored).
TEST(ExternStage, AWidenedRegionOutsideItsStorageIsARuntimeError) {
    Func source("widened_stored"), sink("widened_stored_sink");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    source.define_extern("extern_test_whole_tiles", {}, Int(32), {x, y});
    sink(x, y) = source(x, y);
    sink.tile(x, y, xi, yi, 8, 7);
    source.store_root().compute_at(sink, x);
    std::string message = test::message_of<RuntimeError>([&] { sink.realize({20, 14}); });
    EXPECT_CONTAINS(message, "widened_stored");
    EXPECT_CONTAINS(message, "outside its storage");
    EXPECT_CONTAINS(message, "store_at");
}

TEST(ExternStage, FailureIsARuntimeErrorNamingTheFunction) {
    Func f("failing");
    f.define_extern("extern_test_fails", {}, Int(32), 1);
    std::string message = test::message_of<RuntimeError>([&] { f.realize({4}); });
    EXPECT_CONTAINS(message, "extern_test_fails");
    EXPECT_CONTAINS(message, "failing");
    EXPECT_CONTAINS(message, "42");
}

TEST(ExternStage, SchedulesItCannotHaveAreErrors) {
    Var x("x"), xo("xo"), xi("xi");
    {
        Func f("inlined_input"), g("reads_inlined");
        f(x) = x;
        f.compute_inline();
        g.define_extern("extern_test_mirror", {f, 0}, Int(32), {x});
        std::string message = test::message_of([&] { g.realize({4}); });
        EXPECT_CONTAINS(message, "inlined_input");
        EXPECT_CONTAINS(message, "compute_root");
    }
    {
        Func g("split_extern");
        g.define_extern("extern_test_make_data", {}, Int(32), {x});
        g.split(x, xo, xi, 4);
        std::string message = test::message_of([&] { g.realize({8}); });
        EXPECT_CONTAINS(message, "split_extern");
        EXPECT_CONTAINS(message, "extern stage");
    }
    {
        Func f("at_extern"), g("has_no_loops");
        f(x) = x;
        g.define_extern("extern_test_mirror", {f, 0}, Int(32), {x});
        f.compute_at(g, x);
        std::string message = test::message_of([&] { g.realize({4}); });
        EXPECT_CONTAINS(message, "has_no_loops");
        EXPECT_CONTAINS(message, "no loops");
    }
    {
        Func g("updated_extern");
        g.define_extern("extern_test_make_data", {}, Int(32), {x});
        std::string message = test::message_of([&] { g(x) += 1; });
        EXPECT_CONTAINS(message, "updated_extern");
    }
    {
        Func g("mangled");
        std::string message = test::message_of([&] {
            g.define_extern("extern_test_make_data", {}, Int(32), 1, NameMangling::CPlusPlus);
        });
        EXPECT_CONTAINS(message, "extern \"C\"");
    }
}

// Computed per row of its consumer, the extern stage's input covers what it asks for per row
// clamped into what it asks for over the whole image: the intersection where the two overlap,
// the nearest edge where they do not, as in Halide.
TEST(ExternStage, ARowAskingForMoreThanTheImageGetsTheIntersection) {
    for (int shift : {50, 10000}) {
        Var x("x"), y("y");
        Func in("wider_in"), e("wider_extern"), out("wider_out");
        in(x, y) = x + 1000 * y;
        e.define_extern("extern_test_wider_per_row", {in, Expr(shift)}, Int(32), 2);
        out(x, y) = e(x, y);
        e.compute_at(out, y);
        in.compute_at(out, y);
        Buffer<int> r = out.realize({200, 7});
        if (shift == 50) {
            EXPECT_EQ(given_min.load(), 50);
            EXPECT_EQ(given_extent.load(), 150);
        } else {
            EXPECT_EQ(given_min.load(), 199);
            EXPECT_EQ(given_extent.load(), 1);
        }
        EXPECT_EQ(r(3, 6), given_min.load() + 6000) << shift;
    }
}

}  // namespace
}  // namespace dsl
