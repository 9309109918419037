#include <gtest/gtest.h>

#include "dsl/Buffer.h"

namespace dsl {
namespace {

TEST(Buffer, AllocatesDenseZeroFilledMemory) {
    Buffer<uint16_t> b(4, 3);
    EXPECT_EQ(b.dimensions(), 2);
    EXPECT_EQ(b.width(), 4);
    EXPECT_EQ(b.height(), 3);
    EXPECT_EQ(b.channels(), 1);
    EXPECT_EQ(b.dim(1).stride(), 4);
    EXPECT_EQ(b.type(), UInt(16));
    EXPECT_EQ(b.number_of_elements(), 12);
    EXPECT_EQ(b(3, 2), 0);
    b(3, 2) = 7;
    EXPECT_EQ(b.data()[11], 7);
}

// Every Buffer the library allocates starts on a 64-byte boundary (a cache line, an AVX-512
// register), whatever its type and size, so that vector loads and stores do not straddle lines.
TEST(Buffer, AllocationsStartOnACacheLine) {
    for (int n : {1, 3, 17, 1000, 100000, 3000000}) {
        Buffer<uint8_t> a(n);
        Buffer<float> b(n, 2);
        Buffer<double> c(n);
        Buffer<> d(Int(16), {n, 3});
        for (const void *p :
             {static_cast<const void *>(a.data()), static_cast<const void *>(b.data()),
              static_cast<const void *>(c.data()),
              static_cast<const void *>(d.raw_buffer()->host)}) {
            EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n << " elements";
        }
        EXPECT_EQ(b(n - 1, 1), 0.0f);  // still zero-filled
    }
}

TEST(Buffer, CopiesShareDataAndViewsShareMemory) {
    Buffer<int> b(10);
    for (int i = 0; i < 10; i++)
        b(i) = i;
    Buffer<int> alias = b;
    alias(0) = 100;
    EXPECT_EQ(b(0), 100);
    Buffer<int> roi = b.cropped(0, 3, 4);
    EXPECT_EQ(roi.dim(0).min(), 3);
    EXPECT_EQ(roi(3), 3);
    roi(5) = -5;
    EXPECT_EQ(b(5), -5);
    Buffer<int> moved = roi.translated(0, 10);
    EXPECT_EQ(moved(13), 3);
    EXPECT_THROW(b.cropped(0, 8, 4), RuntimeError);
}

TEST(Buffer, WrapsExternalMemoryWithMinsAndStrides) {
    std::vector<float> data(12);
    for (int i = 0; i < 12; i++)
        data[i] = static_cast<float>(i);
    // A 3x2 view of every other column, with x starting at 5 and y at -1.
    Buffer<float> b(Float(32), data.data(), {{5, 3, 2, 0}, {-1, 2, 6, 0}});
    EXPECT_EQ(b(5, -1), 0.0f);
    EXPECT_EQ(b(7, -1), 4.0f);
    EXPECT_EQ(b(6, 0), 8.0f);
    EXPECT_TRUE(b.contains({7, 0}));
    EXPECT_FALSE(b.contains({8, 0}));
    Buffer<float> t = b.transposed(0, 1);
    EXPECT_EQ(t(0, 6), 8.0f);
    Buffer<float> row = b.sliced(1, 0);
    EXPECT_EQ(row.dimensions(), 1);
    EXPECT_EQ(row(7), 10.0f);
}

TEST(Buffer, ForEachElementAndFillAndCopy) {
    Buffer<int> b(3, 2);
    b.for_each_element([&](int x, int y) { b(x, y) = x + 10 * y; });
    EXPECT_EQ(b(2, 1), 12);
    int count = 0;
    b.for_each_element([&](const int *pos) { count += pos[0] >= 0; });
    EXPECT_EQ(count, 6);
    Buffer<int> c = b.copy();
    c.fill(1);
    EXPECT_EQ(b(2, 1), 12);
    EXPECT_EQ(c(2, 1), 1);
}

TEST(Buffer, UntypedHandlesCheckTypes) {
    Buffer<uint8_t> b(2, 2);
    Buffer<> any = b;
    EXPECT_EQ(any.type(), UInt(8));
    Buffer<uint8_t> back = any;
    EXPECT_TRUE(back.same_as(b));
    try {
        Buffer<float> wrong = any;
        FAIL() << "expected an error";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("uint8"), std::string::npos) << e.what();
    }
    EXPECT_THROW(b(1), RuntimeError);  // wrong number of coordinates
    EXPECT_THROW(b.dim(2), RuntimeError);
}

TEST(Buffer, FillConvertsToTheElementType) {
    // fill(1) on bytes must write one byte per element, not an int: the neighbours stay.
    Buffer<uint8_t> whole(8);
    whole.fill(7);
    Buffer<uint8_t> middle = whole.cropped(0, 2, 3);
    middle.fill(1);
    std::vector<int> expected = {7, 7, 1, 1, 1, 7, 7, 7};
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(whole(i), expected[i]) << i;
    Buffer<float> f(3);
    f.fill(2);  // an int converted to float
    EXPECT_EQ(f(1), 2.0f);
}

}  // namespace
}  // namespace dsl
