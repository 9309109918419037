// print(), print_when() and Func::trace_stores() / trace_loads() / trace_realizations(): the
// lines they write, captured through the runtime's print handler.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

std::mutex lines_mutex;
std::vector<std::string> lines;

void collect(const char *line) {
    std::lock_guard<std::mutex> lock(lines_mutex);
    lines.emplace_back(line);
}

/// Installs the collecting handler for the life of a test.
class Captured : public ::testing::Test {
  protected:
    void SetUp() override {
        lines.clear();
        dsl_set_print_handler(collect);
    }
    void TearDown() override { dsl_set_print_handler(nullptr); }
    static bool has(const std::string &line) {
        return std::find(lines.begin(), lines.end(), line + "\n") != lines.end();
    }
    static int count_starting(const std::string &prefix) {
        int n = 0;
        for (const std::string &l : lines)
            n += l.compare(0, prefix.size(), prefix) == 0;
        return n;
    }
};

using Print = Captured;
using Trace = Captured;

TEST_F(Print, PrintsItsArgumentsAndKeepsTheFirstValue) {
    Var x("x");
    Func f("f");
    f(x) = print(x * 2, "is twice", x, "and a float:", cast<float>(x) / 4) + 1;
    Buffer<int> out = f.realize({3});
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(out(i), 2 * i + 1);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_TRUE(has("0 is twice 0 and a float: 0.000000"));
    EXPECT_TRUE(has("4 is twice 2 and a float: 0.500000"));
}

TEST_F(Print, PrintWhenPrintsOnlyWhereTheConditionHolds) {
    Var x("x"), y("y");
    Func f("f");
    Expr e = cast<uint8_t>(x + y);
    f(x, y) = print_when(x == 3 && y == 1, e, "at {3, 1}");
    Buffer<uint8_t> out = f.realize({5, 3});
    EXPECT_EQ(out(4, 2), 6);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "4 at {3, 1}\n");
}

TEST_F(Print, VectorsPrintTheirLanes) {
    Var x("x");
    Func f("f");
    f(x) = print(x * 3);
    f.vectorize(x, 4);
    f.realize({8});
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_TRUE(has("<0, 3, 6, 9>"));
    EXPECT_TRUE(has("<12, 15, 18, 21>"));
}

TEST_F(Print, WritesToStderrWithoutAHandler) {
    dsl_set_print_handler(nullptr);
    Var x("x");
    Func f("f");
    f(x) = print(x, "from stderr");
    testing::internal::CaptureStderr();
    f.realize({2});
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("1 from stderr\n"), std::string::npos) << err;
}

TEST_F(Trace, StoresInTheOrderTheScheduleComputes) {
    Var x("x"), y("y");
    Func g("gradient");
    g(x, y) = x + y;
    g.trace_stores();
    g.realize({2, 2});
    std::vector<std::string> expected = {
        "Store gradient.0(0, 0) = 0\n", "Store gradient.0(1, 0) = 1\n",
        "Store gradient.0(0, 1) = 1\n", "Store gradient.0(1, 1) = 2\n"};
    EXPECT_EQ(lines, expected);

    // Reordered: columns first.
    lines.clear();
    Func h("h");
    h(x, y) = x + y;
    h.reorder(y, x).trace_stores();
    h.realize({2, 2});
    expected = {"Store h.0(0, 0) = 0\n", "Store h.0(0, 1) = 1\n", "Store h.0(1, 0) = 1\n",
                "Store h.0(1, 1) = 2\n"};
    EXPECT_EQ(lines, expected);
}

TEST_F(Trace, VectorizedStoresPrintVectors) {
    Var x("x"), y("y");
    Func g("g");
    g(x, y) = x + y;
    g.vectorize(x, 4).trace_stores();
    g.realize({4, 2});
    std::vector<std::string> expected = {"Store g.0(<0, 1, 2, 3>, 0) = <0, 1, 2, 3>\n",
                                         "Store g.0(<0, 1, 2, 3>, 1) = <1, 2, 3, 4>\n"};
    EXPECT_EQ(lines, expected);
}

TEST_F(Trace, LoadsAndTupleStores) {
    Var x("x");
    Func p("producer"), c("consumer");
    p(x) = Tuple(x * 10, cast<float>(x) + 0.5f);
    c(x) = p(x)[0] + cast<int>(p(x)[1]);
    p.compute_root().trace_stores().trace_loads();
    Buffer<int> out = c.realize({2});
    EXPECT_EQ(out(1), 11);
    EXPECT_TRUE(has("Store producer.0(1) = 10"));
    EXPECT_TRUE(has("Store producer.1(1) = 1.500000"));
    EXPECT_TRUE(has("Load producer.0(1) = 10"));
    EXPECT_TRUE(has("Load producer.1(0) = 0.500000"));
    EXPECT_EQ(count_starting("Load producer."), 4);
    EXPECT_EQ(count_starting("Store producer."), 4);
}

TEST_F(Trace, RealizationsShowRegionsPerTile) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func p("p"), c("c");
    p(x, y) = x * y;
    c(x, y) = p(x, y) + p(x + 1, y);
    c.tile(x, y, xo, yo, xi, yi, 2, 2);
    p.compute_at(c, xo).trace_realizations();
    c.realize({4, 2});
    // Two tiles, each needing a 3x2 region of p.
    EXPECT_TRUE(has("Begin realization p.0(0, 3, 0, 2)")) << ::testing::PrintToString(lines);
    EXPECT_TRUE(has("Produce p.0(2, 3, 0, 2)")) << ::testing::PrintToString(lines);
    EXPECT_TRUE(has("End realization p.0(2, 3, 0, 2)")) << ::testing::PrintToString(lines);
    EXPECT_EQ(count_starting("Begin realization p.0"), 2);
    EXPECT_EQ(count_starting("End produce p.0"), 2);
}

TEST_F(Trace, TracingChangesNoValue) {
    Var x("x"), y("y");
    Func a("a"), b("b");
    a(x, y) = x * 3 + y;
    b(x, y) = a(x - 1, y) + a(x + 1, y);
    a.compute_at(b, y).vectorize(x, 4).trace_loads().trace_stores().trace_realizations();
    b.parallel(y).vectorize(x, 8).trace_stores();
    Buffer<int> out = b.realize({16, 4});
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 16; i++)
            ASSERT_EQ(out(i, j), 6 * i + 2 * j);
    }
    EXPECT_EQ(count_starting("Store b.0"), 8);
    EXPECT_EQ(count_starting("Begin realization a.0"), 4);
}

}  // namespace
}  // namespace dsl
