// Coordinates read from a Func are bounded by the values the Func can take (its definitions),
// not by its type's range: a lookup table indexed by a clamped Func is read only where the
// clamp allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

std::vector<std::string> lines;
void keep(const char *line) {
    lines.emplace_back(line);
}

TEST(FuncValueBounds, ATableIndexedByAClampedFuncIsComputedOverTheClamp) {
    Var x("x");
    Func index("index"), table("table"), out("out");
    index(x) = clamp(x - 5, 0, 9);
    table(x) = x * x;
    out(x) = table(index(x));
    index.compute_root();
    table.compute_root().trace_realizations();
    lines.clear();
    dsl_set_print_handler(keep);
    Buffer<int> r = out.realize({30});
    dsl_set_print_handler(nullptr);
    for (int i = 0; i < 30; i++) {
        int k = std::clamp(i - 5, 0, 9);
        EXPECT_EQ(r(i), k * k);
    }
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[1], "Begin realization table.0(0, 10)\n");
}

TEST(FuncValueBounds, AnInputReadThroughAFuncOfBoundedValues) {
    Var x("x"), y("y");
    ImageParam lut(UInt(8), 1, "lut");
    Func bin("bin"), out("out");
    // Each definition keeps the values in [0, 15] (the update reads the Func itself, whose
    // value may be anything, but % 16 bounds it): the input needs 16 elements only.
    bin(x, y) = cast<int>((x * 7 + y) % 16);
    RDom r(0, 3);
    bin(x, r) = (bin(x, r) + 1) % 16;
    bin.compute_root();
    out(x, y) = lut(bin(x, y));
    Buffer<uint8_t> table(16);
    for (int i = 0; i < 16; i++)
        table(i) = static_cast<uint8_t>(100 + i);
    lut.set(table);
    Buffer<uint8_t> result = out.realize({8, 5});
    EXPECT_EQ(result(2, 4), 100 + (2 * 7 + 4) % 16);
    EXPECT_EQ(result(2, 1), 100 + ((2 * 7 + 1) % 16 + 1) % 16);
}

TEST(FuncValueBounds, AFuncReadingItselfIsBoundedByItsTypeThenByTheClamp) {
    // A running sum is not bounded by its definitions: the clamp bounds the read.
    Var x("x");
    ImageParam in(Int(32), 1, "in");
    Func sum("sum"), out("out");
    RDom r(1, 9);
    sum(x) = 0;
    sum(r) = sum(r - 1) + 1;
    sum.compute_root();
    out(x) = in(clamp(sum(x), 0, 9));
    Buffer<int> b(10);
    for (int i = 0; i < 10; i++)
        b(i) = i * 10;
    in.set(b);
    Buffer<int> result = out.realize({10});
    EXPECT_EQ(result(9), 90);
    // The region of the input is the clamp's, [0, 9]: a self-read bounded by the pure
    // definition alone ([0, 0], so the sum in [1, 1]) would give [1, 1].
    in.reset();
    out.infer_input_bounds({10});
    EXPECT_EQ(in.get().min(0), 0);
    EXPECT_EQ(in.get().extent(0), 10);
}

TEST(FuncValueBounds, AClampAroundASumWithAnUnknownValueIsBoundedByTheClamp) {
    // product's values are unknown (x * y over any coordinates): their bounds are int32's
    // ends. The sum with x * y must not add to those ends (an overflowing bound, which the
    // overflow checks refused at run time): the clamp bounds the read of table to [0, 7].
    Var x("x"), y("y");
    Func product("product"), table("table"), out("out");
    product(x, y) = x * y;
    product.compute_root();
    table(x, y) = x + 100 * y;
    table.compute_root();
    out(x, y) = table(x, clamp(product(x + 1, y - 1) + x * y, 0, 7));
    Buffer<int> result = out.realize({32, 32});
    int bad = 0;
    for (int j = 0; j < 32; j++) {
        for (int i = 0; i < 32; i++)
            bad += result(i, j) != i + 100 * std::clamp((i + 1) * (j - 1) + i * j, 0, 7);
    }
    EXPECT_EQ(bad, 0);
    // table stays a Func of its own (computed at root, not inlined), so its region is what the
    // bounds below are about.
    EXPECT_NE(out.loop_nest().find("produce table"), std::string::npos);
    // The region read through the clamp is its rows [0, 7] only.
    ImageParam in(Int(32), 2, "in");
    Func reads("reads");
    reads(x, y) = in(x, clamp(product(x + 1, y - 1) + x * y, 0, 7));
    reads.infer_input_bounds({32, 32});
    EXPECT_EQ(in.get().min(1), 0);
    EXPECT_EQ(in.get().extent(1), 8);
}

}  // namespace
}  // namespace dsl
