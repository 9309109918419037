// NonZero, Compress and Unique, whose result's size depends on their input's values, against
// plain C++ loops: sparse and empty selections, conditions shorter and longer than the axis,
// flattened inputs, repeated rows; and an ONNX model that runs selections of different sizes
// from one compile.
#include <algorithm>
#include <random>

#include "NNTestUtil.h"
#include "OnnxModels.h"
#include "common/TempDirectory.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/Selection.h"

namespace dsl::test {
namespace {

/// A buffer of `sizes` whose elements are nonzero with probability `p`.
Buffer<float> sparse(const std::vector<int> &sizes, double p, unsigned seed) {
    Buffer<float> b(sizes);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    b.for_each_value([&](float &v) { v = u(rng) < p ? float(1 + rng() % 9) : 0.0f; });
    return b;
}

int64_t count_of(const nn::Tensor &t) {
    Buffer<int64_t> c = Func(t.func()).realize({});
    return c();
}

TEST(NNSelection, NonZeroListsTheIndicesInRowMajorOrder) {
    for (double p : {0.3, 0.0, 1.0}) {
        Buffer<float> x = sparse({5, 4, 3}, p, 11);  // shape [3, 4, 5]
        nn::Tensor t(x, "x");
        const int64_t count = count_of(nn::count_nonzero(t));
        std::vector<std::array<int, 3>> want;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 4; b++)
                for (int c = 0; c < 5; c++)
                    if (x(c, b, a) != 0) want.push_back({a, b, c});
        ASSERT_EQ(count, int64_t(want.size())) << "p = " << p;
        if (want.empty()) continue;
        Buffer<int64_t> got = realize<int64_t>(nn::nonzero(t, Expr(count)));
        ASSERT_EQ(got.extent(0), count);
        ASSERT_EQ(got.extent(1), 3);
        for (size_t m = 0; m < want.size(); m++)
            for (int d = 0; d < 3; d++)
                ASSERT_EQ(got(int(m), d), want[m][d]) << "index " << m << ", axis " << d;
    }
}

TEST(NNSelection, CompressAlongAnAxisAndFlattened) {
    Buffer<float> x = random_buffer({3, 6, 2}, 5);  // shape [2, 6, 3]
    for (int length : {1, 4, 6, 9}) {
        Buffer<float> cond = sparse({length}, 0.5, 20 + length);
        nn::Tensor xt(x, "x"), ct(cond, "cond");
        // Along axis 1 (extent 6): the condition's elements past 6 are ignored.
        const int64_t count =
            count_of(nn::count_nonzero(ct, nn::selection_length(xt, ct, 1, false)));
        std::vector<int> kept;
        for (int i = 0; i < std::min(length, 6); i++)
            if (cond(i) != 0) kept.push_back(i);
        ASSERT_EQ(count, int64_t(kept.size()));
        if (!kept.empty()) {
            Buffer<float> got = realize(nn::compress(xt, ct, Expr(count), 1, false));
            ASSERT_EQ(got.extent(1), count);
            for (int a = 0; a < 2; a++)
                for (size_t m = 0; m < kept.size(); m++)
                    for (int c = 0; c < 3; c++)
                        ASSERT_EQ(got(c, int(m), a), x(c, kept[m], a));
        }
        // Flattened (36 elements): the condition selects among the first ones.
        const int64_t flat_count =
            count_of(nn::count_nonzero(ct, nn::selection_length(xt, ct, 0, true)));
        ASSERT_EQ(flat_count, int64_t(kept.size() + [&] {
                      int more = 0;
                      for (int i = 6; i < length; i++)
                          more += cond(i) != 0;
                      return more;
                  }()));
        if (flat_count == 0) continue;
        Buffer<float> flat = realize(nn::compress(xt, ct, Expr(flat_count), 0, true));
        int m = 0;
        for (int i = 0; i < length; i++) {
            if (cond(i) == 0) continue;
            ASSERT_EQ(flat(m), x(i % 3, (i / 3) % 6, i / 18)) << "element " << m;
            m++;
        }
    }
}

/// Unique of x's elements (axis < 0) or of its rows (axis 0 of a 2-D x), checked against sorts
/// and searches written out.
void check_unique(const Buffer<float> &x, int axis, bool sorted) {
    nn::Tensor t(x, "x");
    const bool rows = axis == 0;
    const int items = rows ? x.extent(1) : int(x.number_of_elements());
    const int width = rows ? x.extent(0) : 1;
    auto item = [&](int i) {
        std::vector<float> v;
        for (int e = 0; e < width; e++)
            v.push_back(rows ? x(e, i) : x(i % x.extent(0), i / x.extent(0)));
        return v;
    };
    // The distinct items: first positions in order of occurrence, then sorted if asked.
    std::vector<int> firsts;
    for (int i = 0; i < items; i++) {
        bool seen = false;
        for (int f : firsts)
            seen = seen || item(f) == item(i);
        if (!seen) firsts.push_back(i);
    }
    if (sorted)
        std::stable_sort(firsts.begin(), firsts.end(),
                         [&](int a, int b) { return item(a) < item(b); });
    const int64_t count = count_of(nn::unique_count(t, axis));
    ASSERT_EQ(count, int64_t(firsts.size()));
    nn::UniqueResult r = nn::unique(t, axis, sorted, Expr(count));
    Buffer<float> y = realize(r.y);
    Buffer<int64_t> indices = realize<int64_t>(r.indices),
                    inverse = realize<int64_t>(r.inverse_indices),
                    counts = realize<int64_t>(r.counts);
    for (int u = 0; u < int(firsts.size()); u++) {
        ASSERT_EQ(indices(u), firsts[u]) << "value " << u;
        for (int e = 0; e < width; e++)
            ASSERT_EQ(rows ? y(e, u) : y(u), item(firsts[u])[e]) << "value " << u;
        int n = 0;
        for (int i = 0; i < items; i++)
            n += item(i) == item(firsts[u]);
        ASSERT_EQ(counts(u), n) << "value " << u;
    }
    for (int i = 0; i < items; i++) {
        const int64_t k = inverse(i);
        ASSERT_TRUE(k >= 0 && k < count && item(firsts[k]) == item(i)) << "item " << i;
    }
}

TEST(NNSelection, UniqueElementsAndRowsSortedOrNot) {
    Buffer<float> x(5, 8);
    std::mt19937 rng(9);
    x.for_each_value([&](float &v) { v = float(rng() % 4); });
    for (int r = 0; r < 8; r += 3)  // some equal rows
        for (int c = 0; c < 5; c++)
            x(c, r) = x(c, 1);
    for (bool sorted : {true, false}) {
        SCOPED_TRACE(sorted ? "sorted" : "in order of occurrence");
        check_unique(x, -1, sorted);
        check_unique(x, 0, sorted);
    }
}

// NonZero on a model input: its count is computed when the model runs, so one compile serves
// inputs with any number of nonzero elements (none included).
TEST(NNSelection, OnnxNonZeroRunsEveryCountFromOneCompile) {
    onnx::ModelProto m = dsl_test::make_model(13);
    dsl_test::add_input(m, "x", onnx::TensorProto::FLOAT, {"N", 4});
    dsl_test::add_output(m, "idx", onnx::TensorProto::INT64, {2, "K"});
    dsl_test::add_node(m, "NonZero", {"x"}, {"idx"});
    test::TempDirectory dir;
    dsl_test::save_model(m, dir.path() + "/nonzero.onnx");
    nn::Model model = nn::Model::load(dir.path() + "/nonzero.onnx");
    const int compiled = model.compiled_pipelines();
    for (double p : {0.5, 0.0, 0.9}) {
        Buffer<float> x = sparse({4, 7}, p, 3);
        Buffer<int64_t> idx = model.run({{"x", x}}).at("idx");
        std::vector<std::pair<int, int>> want;
        for (int r = 0; r < 7; r++)
            for (int c = 0; c < 4; c++)
                if (x(c, r) != 0) want.push_back({r, c});
        ASSERT_EQ(idx.extent(0), int(want.size())) << "p = " << p;
        for (size_t k = 0; k < want.size(); k++) {
            ASSERT_EQ(idx(int(k), 0), want[k].first);
            ASSERT_EQ(idx(int(k), 1), want[k].second);
        }
    }
    EXPECT_EQ(model.compiled_pipelines(), compiled);
}

}  // namespace
}  // namespace dsl::test
