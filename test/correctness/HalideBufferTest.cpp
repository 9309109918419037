// The runtime Buffer's API that Halide programs use: Buffer<T, Dims>, the raw pointer it
// converts to, iteration over its memory and its coordinates, shapes given as arrays, Buffers
// without memory, crops by ranges and interleaved copies, const elements, slices, embeds,
// transposes, reset(), as<T>() and for_each_value over several buffers. Each checked against
// plain loops.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

// A C function of the kind AOT pipelines and extern stages are: it takes the raw struct.
int sum_of_dense_int_buffer(const dsl_buffer_t *b) {
    int64_t n = 1;
    for (int d = 0; d < b->dimensions; d++)
        n *= b->dim[d].extent;
    int sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += reinterpret_cast<const int *>(b->host)[i];
    return sum;
}

TEST(HalideBuffer, FixedNumberOfDimensions) {
    Buffer<int, 2> a(5, 3);
    static_assert(decltype(a)::static_dimensions() == 2);
    static_assert(Buffer<int>::static_dimensions() == AnyDims);
    a.for_each_element([&](int x, int y) { a(x, y) = x + 10 * y; });
    Buffer<int> any = a;  // to any number of dimensions and back
    Buffer<int, 2> back = any;
    EXPECT_EQ(back(4, 2), 24);
    // A slice has one dimension fewer, in its type too.
    auto row = a.sliced(1, 2);
    static_assert(std::is_same_v<decltype(row), Buffer<int, 1>>);
    EXPECT_EQ(row(3), 23);
    auto any_row = any.sliced(0, 1);
    static_assert(std::is_same_v<decltype(any_row), Buffer<int>>);
    EXPECT_EQ(any_row(2), 21);
    EXPECT_CONTAINS(message_of<RuntimeError>([&] { Buffer<int, 3> three = any; }),
                    "has 2 dimensions, but this Buffer<T, 3> has 3");
    EXPECT_CONTAINS(message_of<RuntimeError>([&] { Buffer<float, 1> wrong(4, 4); }),
                    "Buffer<T, 1> has 1");
}

TEST(HalideBuffer, ConvertsToTheRawStructAndIteratesItsMemory) {
    Buffer<int> b(4, 3);
    int want = 0, i = 0;
    for (int y : b.dim(1)) {
        for (int x : b.dim(0)) {
            b(x, y) = ++i * 3;
            want += i * 3;
        }
    }
    EXPECT_EQ(sum_of_dense_int_buffer(b), want);
    dsl_buffer_t *raw = b;
    EXPECT_EQ(raw, b.raw_buffer());
    EXPECT_EQ(b.get(), &b);
    int sum = 0;
    for (int v : b)
        sum += v;
    EXPECT_EQ(sum, want);
    // A view with a negative stride spans the same memory: begin() is its lowest address.
    dsl_dimension_t flipped[2] = {{0, 4, -1, 0}, {0, 3, 4, 0}};
    Buffer<int> f(&b(3, 0), 2, flipped);
    EXPECT_EQ(f(0, 0), b(3, 0));
    EXPECT_EQ(f(3, 2), b(0, 2));
    EXPECT_EQ(f.begin(), &b(0, 0));
    EXPECT_EQ(f.end(), &b(3, 2) + 1);
    // Coordinates as a pointer, as for_each_element gives them.
    b.for_each_element([&](const int *pos) { b(pos) += 1; });
    EXPECT_EQ(b(3, 2), 37);
}

TEST(HalideBuffer, ShapesFromArraysAndBuffersWithoutMemory) {
    dsl_dimension_t shape[] = {{100, 10, 1, 0}, {300, 10, 10, 0}, {500, 10, 100, 0}};
    Buffer<int> b(nullptr, 3, shape);
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_EQ(b.min(1), 300);
    b.allocate();
    ASSERT_NE(b.data(), nullptr);
    b.data()[0] = 17;
    b.data()[10 * 2 + 100 * 3 + 1] = 5;
    EXPECT_EQ(b(100, 300, 500), 17);
    EXPECT_EQ(b(101, 302, 503), 5);
    b.deallocate();
    EXPECT_EQ(b.data(), nullptr);

    // A bounds query: realize-side inference into a Buffer made from nullptr shapes it.
    ImageParam in(Float(32), 2, "in");
    Func out("out");
    Var x("x"), y("y");
    out(x, y) = in(x + 1, y) + in(x - 1, y);
    Buffer<float> query(nullptr, 7, 8);
    query.set_min(2, 2);
    out.infer_input_bounds(query);
    EXPECT_EQ(query.data(), nullptr);
    // The output's own answer: the region it writes, where it was asked (no constraints here).
    EXPECT_EQ(query.dim(0).min(), 2);
    EXPECT_EQ(query.dim(0).extent(), 7);
    EXPECT_EQ(query.dim(1).min(), 2);
    EXPECT_EQ(query.dim(1).extent(), 8);
    EXPECT_EQ(in.get().dim(0).min(), 1);
    EXPECT_EQ(in.get().dim(0).extent(), 9);
    EXPECT_EQ(in.get().dim(1).min(), 2);
    EXPECT_EQ(in.get().dim(1).extent(), 8);

    // Memory and a shape from a vector.
    std::vector<float> mem(6, 1.5f);
    Buffer<float> v(mem.data(), std::vector<dsl_dimension_t>{{0, 3, 2, 0}, {0, 2, 1, 0}});
    EXPECT_EQ(v(2, 1), 1.5f);
    EXPECT_EQ(&v(1, 1), &mem[3]);
}

TEST(HalideBuffer, CropsByRangesAndInterleavedCopies) {
    Buffer<uint8_t> planar(5, 4, 3);
    planar.fill([](int x, int y, int c) { return x + 5 * y + 20 * c; });
    Buffer<uint8_t> roi = planar.cropped({{1, 3}, {2, 2}});
    EXPECT_EQ(roi.min(0), 1);
    EXPECT_EQ(roi.extent(0), 3);
    EXPECT_EQ(roi.min(1), 2);
    EXPECT_EQ(roi.extent(2), 3);
    roi.crop({{2, 1}});
    EXPECT_EQ(roi.extent(0), 1);
    EXPECT_EQ(roi(2, 3, 1), 2 + 15 + 20);

    Buffer<uint8_t> inter = planar.copy_to_interleaved();
    EXPECT_EQ(inter.stride(2), 1);
    EXPECT_EQ(inter.stride(0), 3);
    EXPECT_EQ(inter.stride(1), 15);
    Buffer<uint8_t> back = inter.copy_to_planar();
    EXPECT_EQ(back.stride(0), 1);
    planar.for_each_element([&](int x, int y, int c) {
        EXPECT_EQ(inter(x, y, c), planar(x, y, c));
        EXPECT_EQ(back(x, y, c), planar(x, y, c));
    });
}

// Halide::Runtime::Buffer is the same class; fill() takes a callable of no arguments too.
TEST(HalideBuffer, RuntimeBufferAndFillFromAGenerator) {
    Runtime::Buffer<int, 2> r(3, 2);
    static_assert(std::is_same_v<decltype(r), Buffer<int, 2>>);
    int next = 0;
    r.fill([&]() { return next++; });
    EXPECT_EQ(next, 6);
    EXPECT_EQ(r(2, 1), 5);  // dimension 0 innermost

    // A callable of fewer coordinates than dimensions walks the first ones.
    Buffer<int> im(3, 2, 4);
    int calls = 0;
    im.for_each_element([&](int x, int y) {
        calls++;
        for (int c = 0; c < 4; c++)
            im(x, y, c) += x + 10 * y + 100 * c;
    });
    EXPECT_EQ(calls, 6);
    EXPECT_EQ(im(2, 1, 3), 312);
}

// Buffers of const elements, and what the type says statically.
TEST(HalideBuffer, ConstElementsAndStaticFacts) {
    int data[6] = {1, 2, 3, 4, 5, 6};
    const int *cdata = data;
    Buffer<const int> c(cdata, 3, 2);
    EXPECT_EQ(c(2, 1), 6);
    static_assert(std::is_same_v<decltype(c(0, 0)), const int &>);
    Buffer<int> copy = c.copy();  // a copy may be written
    copy(0, 0) = 10;
    EXPECT_EQ(c(0, 0), 1);
    Buffer<const void> erased = c;
    Buffer<const int> back = erased;  // checked at run time
    EXPECT_EQ(back(1, 1), 5);
    static_assert(Buffer<const float>::has_static_halide_type);
    static_assert(!Buffer<const void>::has_static_halide_type);
    static_assert(Buffer<float>::static_halide_type() == dsl_type_of<float>());
    static_assert(Buffer<float, 2>::has_static_dimensions);
    static_assert(!Buffer<float>::has_static_dimensions);
    static_assert(std::is_same_v<Runtime::Buffer<float, Runtime::AnyDims>, Buffer<float>>);
    EXPECT_CONTAINS(message_of<RuntimeError>([&] { Buffer<const float> wrong = erased; }),
                    "expects float32");
}

// Slices at the minimum, added dimensions, reordering, reset() and as<T>().
TEST(HalideBuffer, SlicesEmbedsTransposesAndResets) {
    Buffer<int, 2> a(4, 3);
    a.for_each_element([&](int x, int y) { a(x, y) = x + 10 * y; });
    a.set_min(1, 5);
    Buffer<int, 1> column = a.sliced(0);  // at x = 1
    EXPECT_EQ(column.dim(0).min(), 5);
    EXPECT_EQ(column(7), 20);
    Buffer<int, 0> point = column.sliced(0);
    EXPECT_EQ(point(), 0);

    auto raised = a.embedded(2, 9);
    static_assert(std::is_same_v<decltype(raised), Buffer<int, 3>>);
    EXPECT_EQ(raised.dim(2).min(), 9);
    EXPECT_EQ(raised.dim(2).extent(), 1);
    EXPECT_EQ(raised(4, 7, 9), 23);
    Buffer<int> any = a;
    any.embed(0);
    EXPECT_EQ(any.dimensions(), 3);
    EXPECT_EQ(any(0, 4, 7), 23);
    any.slice(0);
    EXPECT_EQ(any(4, 7), 23);

    Buffer<uint8_t> planar(2, 3, 4, 5);
    planar.fill([](int x, int y, int c, int w) { return x + 2 * y + 6 * c + 24 * w; });
    Buffer<uint8_t> moved = planar.transposed({2, 3, 0, 1});
    EXPECT_EQ(moved.dim(0).extent(), 4);
    EXPECT_EQ(moved.dim(3).extent(), 3);
    EXPECT_EQ(moved(3, 4, 1, 2), planar(1, 2, 3, 4));
    EXPECT_CONTAINS(message_of<RuntimeError>([&] {
                        planar.transposed({0, 0, 1, 2});
                    }),
                    "names dimension 0 twice");

    // Storage order: the channels innermost.
    Buffer<uint8_t> inter({5, 4, 3}, {2, 0, 1});
    EXPECT_EQ(inter.dim(2).stride(), 1);
    EXPECT_EQ(inter.dim(0).stride(), 3);
    EXPECT_EQ(inter.dim(1).stride(), 15);

    Buffer<> erased(Float(32), 6, 7);
    EXPECT_EQ(erased.dimensions(), 2);
    EXPECT_EQ(erased.as<float>().dim(1).extent(), 7);
    EXPECT_CONTAINS(message_of<RuntimeError>([&] { erased.as<int>(); }), "expects int32");
    erased.reset();
    EXPECT_EQ(erased.dimensions(), 0);
    EXPECT_EQ(erased.number_of_elements(), 1);
    EXPECT_EQ(erased.type(), UInt(8));
    Buffer<float> typed(3, 3);
    typed.reset();
    EXPECT_EQ(typed.type(), Float(32));
}

// for_each_value over several buffers in memory order, and the chained forms.
TEST(HalideBuffer, ForEachValueOverSeveralBuffers) {
    const int W = 5, H = 4, C = 3;
    Buffer<float> in = Buffer<float>::make_interleaved(W, H, C);
    int counter = 0;
    in.for_each_value([&](float &v) { v = static_cast<float>(++counter); });
    // Memory order: the interleaved channels count fastest.
    EXPECT_EQ(in(0, 0, 1), 2.0f);
    EXPECT_EQ(in(1, 0, 0), 4.0f);
    Buffer<float> out(W, H, C);
    out.set_min(10, 20, 0);  // coordinates relative to each buffer's mins
    Buffer<int> extra(W, H, C);
    out.for_each_value(
        [](float &o, float i, int &e) {
            o = 2 * i;
            e = static_cast<int>(i);
        },
        in, extra);
    EXPECT_EQ(out(11, 20, 0), 8.0f);
    EXPECT_EQ(extra(1, 0, 0), 4);
    const Buffer<const int> done = Buffer<int>(2, 2).fill(7);
    EXPECT_TRUE(done.all_equal(7));
    const Buffer<const int> twice = Buffer<int>(2, 2).for_each_value([](int &v) { v = 2; });
    EXPECT_TRUE(twice.all_equal(2));
    EXPECT_CONTAINS(
        message_of<RuntimeError>([&] { out.for_each_value([](float &, int) {}, Buffer<int>(2)); }),
        "for_each_value over buffers of other extents");
}

}  // namespace
}  // namespace dsl
