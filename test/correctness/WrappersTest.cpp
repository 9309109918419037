// Func::in(), Func::clone_in() and ImageParam::in(): the wrapped calls read the wrapper or the
// clone, which are scheduled apart from the Func they stand in for; the values never change.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "common/ErrorCheck.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

TEST(Wrappers, InOneConsumerIsScheduledAlone) {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h"), out("out");
    f(x, y) = x + 2 * y;
    g(x, y) = f(x, y) * 3;
    h(x, y) = f(x, y) + 1;
    out(x, y) = g(x, y) + h(x, y);
    Func f_in_g = f.in(g);
    EXPECT_EQ(f_in_g.name(), "f_in_g");
    EXPECT_TRUE(f.in(g).contents() == f_in_g.contents());  // the same wrapper again
    f.compute_root();
    f_in_g.compute_at(out, y).vectorize(x, 4);
    std::string nest = out.loop_nest();
    EXPECT_TRUE(contains(nest, "produce f_in_g")) << nest;
    EXPECT_TRUE(contains(nest, "produce f:")) << nest;
    Buffer<int> r = out.realize({9, 5});
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 9; i++)
            ASSERT_EQ(r(i, j), (i + 2 * j) * 4 + 1);
    }
}

TEST(Wrappers, GlobalWrapperReplacesEveryOtherCall) {
    Var x("x");
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = x * x;
    g(x) = f(x) + 1;
    h(x) = f(x + 1) * 2;
    out(x) = g(x) + h(x);
    Func global = f.in();
    EXPECT_EQ(global.name(), "f_global_wrapper");
    f.compute_root();
    global.compute_root();
    std::string nest = out.loop_nest();
    EXPECT_TRUE(contains(nest, "produce f_global_wrapper")) << nest;
    Buffer<int> r = out.realize({6});
    for (int i = 0; i < 6; i++)
        EXPECT_EQ(r(i), i * i + 1 + (i + 1) * (i + 1) * 2);
}

TEST(Wrappers, ProducerComputedAtItsWrapper) {
    // Halide's lesson 19: f computed per row of the wrapper that g reads.
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x + y;
    g(x, y) = 2 * f(x, y) + 3;
    f.in(g).compute_root();
    f.compute_at(f.in(g), y);
    std::string nest = g.loop_nest();
    EXPECT_TRUE(contains(nest, "produce f_in_g")) << nest;
    Buffer<int> r = g.realize({5, 4});
    EXPECT_EQ(r(4, 3), 2 * 7 + 3);
}

TEST(Wrappers, TupleValuedFuncsWrapEveryValue) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = Tuple(x, x * 2);
    g(x) = f(x)[0] + f(x)[1];
    f.compute_root();
    f.in(g).compute_root();
    Buffer<int> r = g.realize({4});
    EXPECT_EQ(r(3), 9);
}

TEST(Clones, EachConsumerComputesItsOwnCopy) {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h"), out("out");
    f(x, y) = x - y;
    g(x, y) = f(x, y) + 1;
    h(x, y) = f(x, y) * 2;
    out(x, y) = g(x, y) + h(x, y);
    f.compute_root();
    Func f_clone = f.clone_in(g);
    EXPECT_EQ(f_clone.name(), "f_clone_in_g");
    f_clone.compute_at(g, y);
    g.compute_root();
    h.compute_root();
    std::string nest = out.loop_nest();
    EXPECT_TRUE(contains(nest, "produce f_clone_in_g")) << nest;
    Buffer<int> r = out.realize({7, 3});
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 7; i++)
            ASSERT_EQ(r(i, j), (i - j) + 1 + (i - j) * 2);
    }
}

TEST(Clones, UpdatesOfTheCloneReadTheClone) {
    Var x("x");
    RDom r(1, 5);
    Func f("f"), g("g"), h("h");
    f(x) = x;
    f(r) = f(r - 1) + f(r);  // a running sum
    g(x) = f(x);
    h(x) = f(x) + g(x);
    Func fc = f.clone_in({g});
    fc.compute_root();
    Buffer<int> out = h.realize({6});
    int sum = 0;
    for (int i = 0; i < 6; i++) {
        sum += i;
        EXPECT_EQ(out(i), 2 * sum);
    }
    // The original is untouched: f alone gives the same sums.
    Buffer<int> alone = f.realize({6});
    EXPECT_EQ(alone(5), 15);
}

TEST(Clones, ConsumersListedTwiceWithDifferentCopiesAreRefused) {
    Var x("x");
    Func f("f"), g("g"), h("h");
    f(x) = x;
    g(x) = f(x);
    h(x) = f(x) + g(x);
    f.clone_in(g);
    f.clone_in(h);
    std::string message = test::message_of([&] { f.clone_in({g, h}); });
    EXPECT_CONTAINS(message, "f_clone_in_g");
    EXPECT_CONTAINS(message, "f_clone_in_h");
}

// ImageParam::in(): a Func that reads the input, scheduled apart, in place of the input in every
// consumer's calls (or one consumer's); the values never change.
TEST(ImageWrappers, GlobalWrapperCopiesTheInputOnce) {
    Buffer<int> data(12, 6);
    data.fill([](int u, int v) { return u * 5 - v * 3; });
    ImageParam input(Int(32), 2, "iw_in");
    input.set(data);
    Var x("x"), y("y");
    Func f("iw_f");
    f(x, y) = input(x, y) * 2 + input(x + 1, y);
    Func copy = input.in();
    EXPECT_EQ(copy.name(), "iw_in_global_wrapper");
    EXPECT_TRUE(input.in().contents() == copy.contents());  // the same Func again
    copy.compute_root();
    Buffer<int> out = f.realize({11, 6});
    for (int v = 0; v < 6; v++) {
        for (int u = 0; u < 11; u++)
            ASSERT_EQ(out(u, v), data(u, v) * 2 + data(u + 1, v)) << u << ", " << v;
    }
    std::string nest = f.loop_nest();
    EXPECT_TRUE(contains(nest, "produce iw_in_global_wrapper")) << nest;
    // A copy of the ImageParam refers to the same wrappers.
    ImageParam same = input;
    EXPECT_TRUE(same.in().contents() == copy.contents());
}

TEST(ImageWrappers, OneConsumerStagesItsTileTheOtherReadsTheInput) {
    Buffer<float> data(20, 9);
    data.fill([](int u, int v) { return 0.5f * u + v; });
    ImageParam input(Float(32), 2, "iw2_in");
    input.set(data);
    Var x("x"), y("y");
    Func a("iw2_a"), b("iw2_b"), out("iw2_out");
    a(x, y) = input(x, y) + input(x, y + 1);
    b(x, y) = input(x + 2, y) * 3.0f;
    out(x, y) = a(x, y) - b(x, y);
    a.compute_root();
    b.compute_root();
    Func staged = input.in(a);
    EXPECT_EQ(staged.name(), "iw2_in_in_iw2_a");
    staged.compute_at(a, y).vectorize(_0, 4);
    Buffer<float> result = out.realize({18, 8});
    for (int v = 0; v < 8; v++) {
        for (int u = 0; u < 18; u++) {
            float want = data(u, v) + data(u, v + 1) - data(u + 2, v) * 3.0f;
            ASSERT_FLOAT_EQ(result(u, v), want) << u << ", " << v;
        }
    }
    std::string nest = out.loop_nest();
    size_t a_at = nest.find("produce iw2_a"), b_at = nest.find("produce iw2_b");
    size_t staged_at = nest.find("produce iw2_in_in_iw2_a");
    ASSERT_NE(staged_at, std::string::npos) << nest;
    EXPECT_LT(a_at, staged_at) << nest;  // inside a's loops
    EXPECT_EQ(nest.find("produce iw2_in_in_iw2_a", staged_at + 1), std::string::npos) << nest;
    EXPECT_NE(b_at, std::string::npos);
}

/// Counts the lines realize() prints that store into `func` (a JITUserContext's custom_print).
struct StoreLines : JITUserContext {
    std::string func;
    int stores = 0;
};
void count_stores(JITUserContext *context, const char *line) {
    auto *c = static_cast<StoreLines *>(context);
    c->stores += std::string(line).rfind("Store " + c->func + ".", 0) == 0;
}

TEST(ImageWrappers, CompiledAgainAfterInIsAsked) {
    Buffer<int> data(8);
    data.fill([](int u) { return u * u; });
    ImageParam input(Int(32), 1, "iw3_in");
    input.set(data);
    Var x("x");
    Func f("iw3_f");
    f(x) = input(x) + 1;
    StoreLines seen;
    seen.func = "iw3_in_global_wrapper";
    seen.handlers.custom_print = count_stores;
    Buffer<int> before = f.realize(&seen, {8});
    EXPECT_FALSE(contains(f.loop_nest(), "iw3_in_global_wrapper"));
    EXPECT_EQ(seen.stores, 0);
    // The code realize() runs next is compiled again: it computes the wrapper, whose stores
    // it traces.
    input.in().compute_root().trace_stores();
    EXPECT_TRUE(contains(f.loop_nest(), "produce iw3_in_global_wrapper"));
    Buffer<int> after = f.realize(&seen, {8});
    EXPECT_EQ(seen.stores, 8);
    for (int u = 0; u < 8; u++)
        EXPECT_EQ(after(u), before(u));
}

TEST(StoreIn, HeapStackAndRegisterGiveTheSameValues) {
    Var x("x"), y("y");
    for (MemoryType m : {MemoryType::Heap, MemoryType::Stack, MemoryType::Register}) {
        Func p("p"), c("c");
        p(x, y) = x * 7 + y;
        c(x, y) = p(x, y) + p(x + 1, y);
        p.compute_at(c, y).store_in(m);
        Buffer<int> r = c.realize({10, 3});
        for (int j = 0; j < 3; j++) {
            for (int i = 0; i < 10; i++)
                ASSERT_EQ(r(i, j), 14 * i + 7 + 2 * j);
        }
    }
}

TEST(StoreIn, StackOfASizeKnownAtRunTime) {
    Var x("x");
    Param<int> width("width");
    Func p("p"), c("c");
    p(x) = x * 2;
    c(x) = p(x) + p(x + width);
    p.compute_root().store_in(MemoryType::Stack);
    width.set(5);
    Buffer<int> r = c.realize({4});
    EXPECT_EQ(r(3), 6 + 16);
    std::string ir = c.lowered_stmt();
    EXPECT_NE(ir.find("in stack"), std::string::npos) << ir;
    // Code generation allocates it on the stack, released after its scope.
    test::TempDirectory dir;
    c.compile_to_llvm_ir(dir.path() + "/c.ll");
    std::ifstream in(dir.path() + "/c.ll");
    std::string llvm((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(llvm.find("llvm.stacksave"), std::string::npos);
    EXPECT_NE(llvm.find("llvm.stackrestore"), std::string::npos);
}

}  // namespace
}  // namespace dsl
