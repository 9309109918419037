// A stencil's shifted taps share two loads (src/codegen/ShiftedLoads.cpp): which loads become
// shuffles, where the two loads are bound, and what is left alone. The values are checked end
// to end by Vectorize.ShiftedTapsShareTwoLoads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/ShiftedLoads.h"
#include "dsl/dsl.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"

namespace dsl {
namespace {

using namespace ir;

constexpr int kLanes = 16;

Expr var(const std::string &name) {
    return Variable::make(Int(32), name);
}

/// A dense load of `lanes` elements of `buffer` from `start`.
Expr load(const std::string &buffer, const Expr &start, Type t = Float(32, kLanes)) {
    return Load::make(t, buffer, Ramp::make(start, 1, t.lanes()), make_bool(true, t.lanes()));
}

/// The sum of the loads of `buffer` at `term + s` for each shift s.
Expr taps(const std::string &buffer, const Expr &term, const std::vector<int> &shifts,
          Type t = Float(32, kLanes)) {
    Expr sum;
    for (int s : shifts) {
        Expr tap = load(buffer, s == 0 ? term : term + s, t);
        sum = sum.defined() ? sum + tap : tap;
    }
    return sum;
}

Stmt store_of(const Expr &value) {
    return Store::make("out", value, Ramp::make(var("x"), 1, value.type().lanes()),
                       make_bool(true, value.type().lanes()));
}

int count(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        n++;
    return n;
}

TEST(ShiftedLoads, FiveTapsBecomeTwoLoadsAndThreeShuffles) {
    Expr x = var("x");
    Stmt s = codegen::share_loads_of_shifted_windows(store_of(taps("in", x, {-2, -1, 0, 1, 2})));
    const std::string text = to_string(s);
    // The two loads, at the lowest and the highest shift, bound around the value.
    const auto *store = s.as<Store>();
    ASSERT_NE(store, nullptr) << text;
    const auto *low = store->value.as<Let>();
    ASSERT_NE(low, nullptr) << text;
    EXPECT_TRUE(equal(low->value, load("in", x + -2))) << text;
    const auto *high = low->body.as<Let>();
    ASSERT_NE(high, nullptr) << text;
    EXPECT_TRUE(equal(high->value, load("in", x + 2))) << text;
    EXPECT_EQ(count(text, "in["), 2) << text;
    EXPECT_EQ(count(text, "shuffle("), 3) << text;
    // The tap at x + 1 reads x + 1 .. x + 16: lanes 3 .. 15 of the low vector (x - 2 ..), then
    // lanes 12 .. 14 of the high one (x + 2 ..), which are 28 .. 30 of the two together.
    EXPECT_NE(text.find("3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 28, 29, 30)"),
              std::string::npos)
        << text;
}

TEST(ShiftedLoads, LoadsAreBoundInsideTheLetTheirIndexNeeds) {
    // What CSE makes: the taps' common term is a let of the value.
    Expr t = var("t");
    Expr value = Let::make("t", var("x") * 16, taps("in", t, {-1, 0, 1}));
    Stmt s = codegen::share_loads_of_shifted_windows(store_of(value));
    const auto *outer = s.as<Store>()->value.as<Let>();
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->name, "t") << s;
    const auto *low = outer->body.as<Let>();
    ASSERT_NE(low, nullptr) << s;
    EXPECT_TRUE(equal(low->value, load("in", t + -1))) << s;
    EXPECT_EQ(count(to_string(s), "shuffle("), 1) << s;
}

TEST(ShiftedLoads, EachBufferAndTermIsItsOwnWindow) {
    Expr x = var("x"), y = var("y");
    Expr value = taps("a", x, {0, 1, 2}) + taps("a", y, {0, 1, 2}) + taps("b", x, {0, 1, 2});
    Stmt s = codegen::share_loads_of_shifted_windows(store_of(value));
    const std::string text = to_string(s);
    EXPECT_EQ(count(text, "shuffle("), 3) << text;
    EXPECT_EQ(count(text, "a["), 4) << text;
    EXPECT_EQ(count(text, "b["), 2) << text;
}

TEST(ShiftedLoads, LeavesAloneWhatWouldNotGain) {
    Expr x = var("x");
    const std::vector<Expr> values = {
        taps("in", x, {0, 1}),                          // two taps are two loads either way
        taps("in", x, {-9, 0, 8}),                      // more than a vector apart
        taps("in", x, {-1, 0, 1}, UInt(16, 32)),        // 16-bit lanes
        taps("in", x, {-1, 0, 1}, Float(32, kLanes)) +  // one predicated tap: a window of two
            Load::make(Float(32, kLanes), "in", Ramp::make(x + 5, 1, kLanes),
                       Ramp::make(x, 1, kLanes) < Broadcast::make(var("n"), kLanes)),
    };
    for (size_t i = 0; i < 3; i++) {
        Stmt s = store_of(values[i]);
        EXPECT_TRUE(equal(codegen::share_loads_of_shifted_windows(s), s)) << i << ": " << s;
    }
    // The predicated load stays; the three dense ones still share.
    std::string text = to_string(codegen::share_loads_of_shifted_windows(store_of(values[3])));
    EXPECT_EQ(count(text, " if "), 1) << text;
    EXPECT_EQ(count(text, "shuffle("), 1) << text;
}

}  // namespace
}  // namespace dsl
