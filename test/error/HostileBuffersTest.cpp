// Buffers that cannot work, passed to realize() or as inputs: too small, of the wrong type or
// rank, without memory, with negative extents, spanning more than a pipeline addresses, or
// outputs whose elements share memory. Each is a clear error naming the buffer, never a crash.
#include <gtest/gtest.h>

#include <vector>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

TEST(HostileBuffers, InputsTooSmallForTheRegionRead) {
    Buffer<float> samples({16, 4}, "samples");
    Func f("smooth");
    Var x("x"), y("y");
    f(x, y) = samples(x, y) + samples(x + 2, y);
    std::string msg = message_of<RuntimeError>([&] { f.realize({16, 4}); });
    EXPECT_CONTAINS(msg, "reads input \"samples\" at [0, 17] in dimension 0");
    EXPECT_CONTAINS(msg, "only covers [0, 15]");
    EXPECT_CONTAINS(msg, "BoundaryConditions::repeat_edge(samples)");
    // The same through an ImageParam whose buffer has other mins.
    ImageParam p(Float(32), 2, "shifted");
    Func g("shifted_sum");
    g(x, y) = p(x, y) * 2.0f;
    p.set(Buffer<float>(16, 4).translated(1, 3));  // y in [3, 6]
    msg = message_of<RuntimeError>([&] { g.realize({16, 4}); });
    EXPECT_CONTAINS(msg, "reads input \"shifted\" at [0, 3] in dimension 1");
    EXPECT_CONTAINS(msg, "only covers [3, 6]");
}

TEST(HostileBuffers, WrongTypeOrRank) {
    ImageParam p(UInt(8), 2, "pixels");
    std::string msg = message_of([&] { p.set(Buffer<float>(4, 4)); });
    EXPECT_CONTAINS(msg, "ImageParam \"pixels\" holds uint8 but was given a buffer of float32");
    msg = message_of([&] { p.set(Buffer<uint8_t>(4, 4, 3)); });
    EXPECT_CONTAINS(msg, "ImageParam \"pixels\" has 2 dimensions but was given a buffer with 3");
    msg = message_of([&] { p.set(Buffer<>()); });
    EXPECT_CONTAINS(msg, "ImageParam \"pixels\": set() with an undefined buffer");
    // A typed handle checks the element type of an untyped one.
    Buffer<> untyped = Buffer<float>({2, 2}, "floats");
    msg = message_of<RuntimeError>([&] { Buffer<uint8_t> typed(untyped); });
    EXPECT_CONTAINS(msg, "the element type is float32, but this Buffer<uint8> expects uint8");
    // A Buffer used in a definition with the wrong number of coordinates.
    Buffer<int> table({8, 8}, "table");
    Var x("x");
    msg = message_of([&] {
        Func f("lookup");
        f(x) = table(x);
    });
    EXPECT_CONTAINS(msg, "table");
    // Output buffers of the wrong type or rank are in RuntimeErrorsTest.
}

TEST(HostileBuffers, BuffersWithoutMemory) {
    Var x("x");
    Func f("fill");
    f(x) = x * 3;
    dsl_dimension_t dim{0, 8, 1, 0};
    Buffer<int32_t> no_memory(Int(32), nullptr, {dim}, "nowhere");
    std::string msg = message_of<RuntimeError>([&] { f.realize(no_memory); });
    EXPECT_CONTAINS(
        msg,
        "buffer \"fill\" has no memory (its host pointer is null)");  // the Func names its output
    // An input without memory would be a bounds query in a compiled library; realize() refuses
    // it rather than computing nothing.
    Buffer<int32_t> empty_input(Int(32), nullptr, {dim}, "hollow");
    Func g("read_hollow");
    g(x) = empty_input(x) + 1;
    msg = message_of<RuntimeError>([&] { g.realize({8}); });
    EXPECT_CONTAINS(msg, "input \"hollow\" of \"read_hollow\" has no memory");
    ImageParam p(Int(32), 1, "hollow_param");
    p.set(empty_input);
    Func h("read_hollow_param");
    h(x) = p(x) + 1;
    msg = message_of<RuntimeError>([&] { h.realize({8}); });
    EXPECT_CONTAINS(msg, "input \"hollow_param\" of \"read_hollow_param\" has no memory");
}

TEST(HostileBuffers, NegativeExtents) {
    std::vector<int32_t> memory(64);
    std::string msg = message_of<RuntimeError>([&] {
        Buffer<int32_t>(Int(32), memory.data(), {{0, -3, 1, 0}}, "backwards");
    });
    EXPECT_CONTAINS(msg, "Buffer \"backwards\": the extent -3 is negative");
    msg = message_of<RuntimeError>([&] { Buffer<int32_t>(std::vector<int>{4, -2}, "neg"); });
    EXPECT_CONTAINS(msg, "Buffer \"neg\": the size -2 is negative");
    Func f("sized");
    Var x("x"), y("y");
    f(x, y) = x;
    msg = message_of<RuntimeError>([&] { f.realize({-1, 4}); });
    EXPECT_CONTAINS(msg, "the size -1 is negative");
    // A raw struct edited afterwards (as C code might pass one) is caught by the pipeline.
    Buffer<int32_t> out({4, 4}, "edited");
    out.raw_buffer()->dim[1].extent = -7;
    msg = message_of<RuntimeError>([&] { f.realize(out); });
    EXPECT_CONTAINS(msg,
                    "buffer \"sized\" has extent -7 in dimension 1; extents cannot be "
                    "negative");
    Buffer<int32_t> in({4, 4}, "edited_input");
    Func g("reads_edited");
    g(x, y) = in(x, y);
    in.raw_buffer()->dim[0].extent = -1;
    msg = message_of<RuntimeError>([&] { g.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "buffer \"edited_input\" has extent -1 in dimension 0");
}

TEST(HostileBuffers, BuffersSpanningMoreThanAPipelineAddresses) {
    // Strides that reach 3 * 2^30 elements past the start: 32-bit offsets would wrap. Refused
    // before any element is touched (the memory behind it is only 16 bytes).
    std::vector<uint8_t> memory(16);
    Buffer<uint8_t> wide(UInt(8), memory.data(), {{0, 4, 1, 0}, {0, 4, 1 << 30, 0}}, "wide");
    Func f("read_wide");
    Var x("x"), y("y");
    f(x, y) = wide(x, y);
    std::string msg = message_of<RuntimeError>([&] { f.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "buffer \"wide\" spans 3221225475 elements");
    EXPECT_CONTAINS(msg, "more than the 2^31 - 1 a pipeline addresses");
    Buffer<uint8_t> wide_out(UInt(8), memory.data(), {{0, 4, 1, 0}, {0, 4, 1 << 30, 0}}, "w");
    Func g("write_wide");
    g(x, y) = cast<uint8_t>(x);
    msg = message_of<RuntimeError>([&] { g.realize(wide_out); });
    EXPECT_CONTAINS(msg, "buffer \"write_wide\" spans 3221225475 elements");
}

TEST(HostileBuffers, OutputsWhoseElementsShareMemory) {
    Func f("overlapping");
    Var x("x"), y("y");
    f(x, y) = x + y * 10;
    std::vector<int32_t> memory(64);
    // Stride 0: every x writes the same element.
    Buffer<int32_t> repeated(Int(32), memory.data(), {{0, 4, 0, 0}, {0, 4, 4, 0}}, "repeated");
    std::string msg = message_of<RuntimeError>([&] { f.realize(repeated); });
    EXPECT_CONTAINS(msg, "output buffer \"overlapping\" has stride 0 in dimension 0 (extent 4)");
    EXPECT_CONTAINS(msg, "needs its own memory");
    // Rows two elements apart but four wide: row y + 1 starts inside row y.
    Buffer<int32_t> interleaved(Int(32), memory.data(), {{0, 4, 1, 0}, {0, 4, 2, 0}}, "rows");
    msg = message_of<RuntimeError>([&] { f.realize(interleaved); });
    EXPECT_CONTAINS(
        msg,
        "output buffer \"overlapping\" may have elements that share memory: dimension 0 "
        "(stride 1, extent 4) and dimension 1 (stride 2, extent 4)");
    // Stride 0 over an extent of 1 shares nothing, and a negative stride is fine.
    Buffer<int32_t> single(Int(32), memory.data(), {{0, 4, 1, 0}, {0, 1, 0, 0}}, "single");
    EXPECT_NO_THROW(f.realize(single));
    EXPECT_EQ(memory[3], 3);
    Buffer<int32_t> flipped(Int(32), memory.data() + 15, {{0, 4, -1, 0}, {0, 4, -4, 0}}, "flip");
    EXPECT_NO_THROW(f.realize(flipped));
    EXPECT_EQ(memory[15], 0);
    EXPECT_EQ(memory[0], 33);
}

}  // namespace
}  // namespace dsl
