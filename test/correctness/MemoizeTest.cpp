// Func::memoize and memoize_tag: realizations kept across runs in the runtime's cache, and the
// key that decides when they are reused.

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace {

std::atomic<int> memo_calls{0};
std::atomic<int> memo_row_calls[8];

}  // namespace

// Counts its calls; the value is its argument.
extern "C" int memoize_test_count(int x) {
    memo_calls++;
    return x;
}
DSL_EXTERN(int, memoize_test_count, int);

// Counts its calls per row (y), for the Funcs computed per row.
extern "C" int memoize_test_count_row(int x, int y) {
    memo_row_calls[y & 7]++;
    return x + 100 * y;
}
DSL_EXTERN(int, memoize_test_count_row, int, int);

// An extern stage: fills its output with x + 10 * y + value, counting the calls that compute.
extern "C" int memoize_test_stage(int value, dsl_buffer_t *out) {
    if (out->is_bounds_query()) return 0;
    memo_calls++;
    dsl::Buffer<int> b(*out);
    b.for_each_element([&](int x, int y) { b(x, y) = x + 10 * y + value; });
    return 0;
}
DSL_EXTERN_STAGE(memoize_test_stage);

namespace dsl {
namespace {

using test::message_of;

class Memoize : public ::testing::Test {
  protected:
    void SetUp() override {
        dsl_memoization_cache_cleanup();
        dsl_memoization_cache_set_size(0);
        memo_calls = 0;
        for (auto &c : memo_row_calls)
            c = 0;
    }
    void TearDown() override {
        dsl_memoization_cache_cleanup();
        dsl_memoization_cache_set_size(0);
    }
};

TEST_F(Memoize, ARootFuncIsComputedOncePerParamValueAndRegion) {
    Func f("memo_root_f"), g("memo_root_g");
    Var x("x"), y("y");
    Param<int> p("memo_root_p");
    f(x, y) = memoize_test_count(x) * 3 + y + p;
    g(x, y) = f(x, y) + f(x + 1, y);
    f.compute_root().memoize();
    auto check = [&](const Buffer<int> &out, int pv) {
        for (int yy = 0; yy < out.height(); yy++) {
            for (int xx = 0; xx < out.width(); xx++) {
                ASSERT_EQ(out(xx, yy), xx * 3 + yy + pv + (xx + 1) * 3 + yy + pv)
                    << "at " << xx << ", " << yy;
            }
        }
    };
    p.set(5);
    check(g.realize({10, 4}), 5);
    EXPECT_EQ(memo_calls, 11 * 4);  // f over [0, 10] x [0, 3]
    check(g.realize({10, 4}), 5);
    EXPECT_EQ(memo_calls, 11 * 4) << "the same Param and region: copied from the cache";
    p.set(6);
    check(g.realize({10, 4}), 6);
    EXPECT_EQ(memo_calls, 2 * 11 * 4) << "another Param value: computed";
    p.set(5);
    check(g.realize({10, 4}), 5);
    EXPECT_EQ(memo_calls, 2 * 11 * 4) << "the first value again: still kept";
    check(g.realize({12, 4}), 5);
    EXPECT_EQ(memo_calls, 2 * 11 * 4 + 13 * 4) << "another region: computed";
    EXPECT_GT(dsl_memoization_cache_bytes(), 0);
}

TEST_F(Memoize, RowsOfAParallelConsumerAreEachComputedOnce) {
    Func f("memo_rows_f"), g("memo_rows_g");
    Var x("x"), y("y");
    f(x, y) = memoize_test_count_row(x, y);
    g(x, y) = f(x, y) * 2 + f(x + 2, y);
    f.compute_at(g, y).memoize();
    g.parallel(y);
    for (int run = 0; run < 3; run++) {
        Buffer<int> out = g.realize({20, 8});
        for (int yy = 0; yy < 8; yy++) {
            for (int xx = 0; xx < 20; xx++)
                ASSERT_EQ(out(xx, yy), 2 * (xx + 100 * yy) + (xx + 2 + 100 * yy));
        }
    }
    for (int row = 0; row < 8; row++)
        EXPECT_EQ(memo_row_calls[row], 22) << "row " << row << ": one computation of 22 points";
}

TEST_F(Memoize, TupleValues) {
    Func f("memo_tuple_f"), g("memo_tuple_g");
    Var x("x");
    Param<float> scale("memo_tuple_scale");
    f(x) = Tuple(memoize_test_count(x) * scale, x * 2);
    g(x) = f(x)[0] + cast<float>(f(x)[1]);
    f.compute_root().memoize();
    scale.set(0.5f);
    for (int run = 0; run < 2; run++) {
        Buffer<float> out = g.realize({16});
        for (int i = 0; i < 16; i++)
            ASSERT_FLOAT_EQ(out(i), i * 0.5f + 2 * i);
    }
    EXPECT_EQ(memo_calls, 16);
}

TEST_F(Memoize, TaggedValuesKeyOnTheTagNotOnWhatTheyRead) {
    // Without a tag the float Param is in the key; with memoize_tag(cast<uint8_t>(p)) the
    // uint8 is, so 23.0 and 23.4 share a realization.
    Param<float> p("memo_tag_p");
    Var x("x");
    Func plain("memo_tag_plain"), plain_out("memo_tag_plain_out");
    plain(x) = memoize_test_count(x) + cast<uint8_t>(p);
    plain_out(x) = plain(x);
    plain.compute_root().memoize();
    Func tagged("memo_tag_tagged"), tagged_out("memo_tag_tagged_out");
    tagged(x) = memoize_test_count(x) + memoize_tag(cast<uint8_t>(p));
    tagged_out(x) = tagged(x);
    tagged.compute_root().memoize();

    for (float v : {23.0f, 23.4f}) {
        p.set(v);
        Buffer<int> a = plain_out.realize({4});
        EXPECT_EQ(a(3), 3 + 23);
    }
    EXPECT_EQ(memo_calls, 8);
    memo_calls = 0;
    for (float v : {23.0f, 23.4f}) {
        p.set(v);
        Buffer<int> a = tagged_out.realize({4});
        EXPECT_EQ(a(3), 3 + 23);
    }
    EXPECT_EQ(memo_calls, 4);
}

TEST_F(Memoize, AnInputsContentsAreKeyedByAVersionTag) {
    ImageParam input(Int(32), 1, "memo_version_input");
    Param<int> version("memo_version");
    RDom r(input);
    Func total("memo_version_total"), out("memo_version_out");
    total() = memoize_tag(sum(input(r)), version);
    out() = total() + 1;
    total.compute_root().memoize();
    Buffer<int> in(5);
    in.fill(2);
    input.set(in);
    version.set(0);
    EXPECT_EQ(Buffer<int>(out.realize())(), 11);
    in(0) = 7;
    EXPECT_EQ(Buffer<int>(out.realize())(), 11) << "same version: the kept sum, as the tag asks";
    version.set(1);
    EXPECT_EQ(Buffer<int>(out.realize())(), 16) << "a new version: computed again";
}

TEST_F(Memoize, AnInputsShapeIsInTheKey) {
    ImageParam input(UInt(8), 1, "memo_shape_input");
    Func f("memo_shape_f"), out("memo_shape_out");
    f() = memoize_test_count(Expr(0)) + input.dim(0).extent();
    out() = f();
    f.compute_root().memoize();
    Buffer<uint8_t> one(1), ten(10);
    input.set(one);
    EXPECT_EQ(Buffer<int>(out.realize())(), 1);
    EXPECT_EQ(Buffer<int>(out.realize())(), 1);
    EXPECT_EQ(memo_calls, 1);
    input.set(ten);
    EXPECT_EQ(Buffer<int>(out.realize())(), 10);
    EXPECT_EQ(Buffer<int>(out.realize())(), 10);
    EXPECT_EQ(memo_calls, 2);
}

TEST_F(Memoize, ACloneSharesTheOriginalsRealizations) {
    Func f("memo_clone_f"), g("memo_clone_g"), h("memo_clone_h");
    Var x("x"), y("y");
    f(x, y) = memoize_test_count(x) + y;
    g(x, y) = f(x, y) * 2;
    h(x, y) = f(x, y) + g(x, y);
    g.compute_root();
    f.clone_in(h).compute_at(h, y).memoize();
    f.compute_at(g, y).memoize();
    Buffer<int> out = h.realize({64, 6});
    for (int yy = 0; yy < 6; yy++) {
        for (int xx = 0; xx < 64; xx++)
            ASSERT_EQ(out(xx, yy), 3 * (xx + yy));
    }
    EXPECT_EQ(memo_calls, 64 * 6) << "each row computed for g, then copied for h";
}

TEST_F(Memoize, AnExternStage) {
    Param<int> value("memo_extern_value");
    Func stage("memo_extern_stage"), out("memo_extern_out");
    stage.define_extern("memoize_test_stage", {value}, Int(32), 2);
    Var x("x"), y("y");
    out(x, y) = stage(x, y) * 2;
    stage.compute_root().memoize();
    value.set(3);
    for (int run = 0; run < 3; run++) {
        Buffer<int> b = out.realize({8, 5});
        ASSERT_EQ(b(7, 4), 2 * (7 + 40 + 3));
    }
    EXPECT_EQ(memo_calls, 1);
}

TEST_F(Memoize, EvictionKeysDropWhatTheyTag) {
    Param<int> key("memo_evict_key");
    Var x("x");
    Func one("memo_evict_one"), two("memo_evict_two"), out("memo_evict_out");
    one(x) = memoize_test_count(x);
    two(x) = memoize_test_count(x) * 2;
    out(x) = one(x) + two(x);
    one.compute_root().memoize(EvictionKey(Expr(7)));
    two.compute_root().memoize(EvictionKey(key + 1));
    key.set(40);
    EXPECT_EQ(Buffer<int>(out.realize({4}))(3), 9);
    EXPECT_EQ(memo_calls, 8);
    EXPECT_EQ(Buffer<int>(out.realize({4}))(3), 9);
    EXPECT_EQ(memo_calls, 8);
    dsl_memoization_cache_evict(7);
    EXPECT_EQ(Buffer<int>(out.realize({4}))(3), 9);
    EXPECT_EQ(memo_calls, 12) << "only the Func tagged 7 is computed again";
    dsl_memoization_cache_evict(41);
    dsl_memoization_cache_evict(7);
    EXPECT_EQ(Buffer<int>(out.realize({4}))(3), 9);
    EXPECT_EQ(memo_calls, 20);
    EXPECT_CONTAINS(message_of([] {
                        Func f("memo_evict_float");
                        f.memoize(EvictionKey(Expr(1.5f)));
                    }),
                    "an eviction key is a scalar integer or handle");
}

TEST_F(Memoize, TheSizeLimitDropsTheLeastRecentlyUsed) {
    Param<int> p("memo_size_p");
    Var x("x");
    Func f("memo_size_f"), out("memo_size_out");
    f(x) = memoize_test_count(x) + p;
    out(x) = f(x);
    f.compute_root().memoize();
    // 1000 ints are 4000 bytes: two fit in 10000 bytes, not three.
    dsl_memoization_cache_set_size(10000);
    for (int v : {1, 2, 3})
        p.set(v), out.realize({1000});
    EXPECT_EQ(memo_calls, 3000);
    EXPECT_EQ(dsl_memoization_cache_bytes(), 8000);
    p.set(3), out.realize({1000});
    p.set(2), out.realize({1000});
    EXPECT_EQ(memo_calls, 3000) << "the two most recent are kept";
    p.set(1);
    EXPECT_EQ(Buffer<int>(out.realize({1000}))(999), 1000);
    EXPECT_EQ(memo_calls, 4000) << "the oldest was dropped";
    // Larger than the whole cache: computed every time, never kept.
    dsl_memoization_cache_set_size(1000);
    EXPECT_EQ(dsl_memoization_cache_bytes(), 0);
    out.realize({1000});
    out.realize({1000});
    EXPECT_EQ(memo_calls, 6000);
    EXPECT_EQ(dsl_memoization_cache_bytes(), 0);
}

TEST_F(Memoize, ASkippedProductionStoresNothing) {
    // f is computed only when the consumer's select needs it; a run that skips it must not
    // keep its (uncomputed) storage for the runs that need it.
    Param<bool> toggle("memo_skip_toggle");
    Func f("memo_skip_f"), g("memo_skip_g");
    Var x("x");
    f(x) = memoize_test_count(x) * 2;
    g(x) = select(toggle, f(x), 1);
    f.compute_root().memoize();
    for (bool t : {false, true, false, true}) {
        toggle.set(t);
        Buffer<int> out = g.realize({10});
        for (int i = 0; i < 10; i++)
            ASSERT_EQ(out(i), t ? 2 * i : 1);
    }
    EXPECT_EQ(memo_calls, 10);
}

TEST_F(Memoize, ErrorsNameTheFuncAndTheFix) {
    Var x("x"), y("y");
    {
        Func f("memo_err_out");
        f(x) = x;
        f.memoize();
        std::string m = message_of([&] { f.realize({4}); });
        EXPECT_CONTAINS(m, "Func \"memo_err_out\" is memoized but is an output");
        EXPECT_CONTAINS(m, "Memoize one of those");
    }
    {
        Func f("memo_err_inline"), g("memo_err_inline_g");
        f(x) = x;
        g(x) = f(x);
        f.memoize();
        std::string m = message_of([&] { g.realize({4}); });
        EXPECT_CONTAINS(m, "Func \"memo_err_inline\" is memoized but computed inline");
        EXPECT_CONTAINS(m, "Give it compute_root() or compute_at(...)");
    }
    {
        Func f("memo_err_store"), g("memo_err_store_g");
        f(x, y) = x + y;
        g(x, y) = f(x, y);
        f.compute_at(g, y).store_root().memoize();
        std::string m = message_of([&] { g.realize({4, 4}); });
        EXPECT_CONTAINS(m,
                        "Func \"memo_err_store\" is memoized, but its storage is made "
                        "outside the loop that computes it");
        EXPECT_CONTAINS(m, "Store it where it is computed");
    }
    {
        Func f("memo_err_tag"), g("memo_err_tag_g");
        f(x) = memoize_tag(x * 2);
        g(x) = f(x);
        f.compute_root().memoize();
        std::string m = message_of([&] { g.realize({4}); });
        EXPECT_CONTAINS(m, "Func \"memo_err_tag\" is memoized");
        EXPECT_CONTAINS(m, "uses x");
        EXPECT_CONTAINS(m, "Give memoize_tag keys that use only Params");
    }
    {
        ImageParam in(Int(32), 1, "memo_err_key_input");
        Func f("memo_err_key"), g("memo_err_key_g");
        f(x) = memoize_tag(x * 2, in(0));
        g(x) = f(x);
        f.compute_root().memoize();
        Buffer<int> b(4);
        in.set(b);
        std::string m = message_of([&] { g.realize({4}); });
        EXPECT_CONTAINS(m, "Func \"memo_err_key\" is memoized");
        EXPECT_CONTAINS(m, "reads a Func or an input");
        EXPECT_CONTAINS(m, "Give memoize_tag keys that use only Params");
    }
}

}  // namespace
}  // namespace dsl
