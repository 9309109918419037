// Pipelines whose expressions are far larger as trees than in memory compile in linear time
// (Halide's code_explosion and truncated_pyramid programs, with their values checked).
#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "common/Fibonacci.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

// 100 inlined Funcs, each the sum of the two before: inlined as a tree, over 10^20 calls.
TEST(CompileTime, InlinedFuncsEachReadingTheTwoBefore) {
    Var x("x");
    std::vector<Func> funcs;
    funcs.push_back(lambda(x, cast<uint32_t>(x)));
    funcs.push_back(lambda(x, cast<uint32_t>(x)));
    for (int i = 2; i < 100; i++)
        funcs.push_back(lambda(x, funcs[i - 1](x) + funcs[i - 2](x)));
    Func g("g");
    g(x) = funcs.back()(x);
    g.vectorize(x, 8);
    Buffer<uint32_t> out = g.realize({21});
    for (int i = 0; i < 21; i++)
        ASSERT_EQ(out(i), test::fibonacci_times(i, 99)) << "x = " << i;
}

// One Func whose value was built in C++ as e[i] = e[i - 1] + e[i - 2]: 100 nodes in memory.
TEST(CompileTime, AValueBuiltAsADag) {
    Var x("x");
    std::vector<Expr> e{cast<uint32_t>(x), cast<uint32_t>(x)};
    for (int i = 2; i < 100; i++)
        e.push_back(e[i - 1] + e[i - 2]);
    Func f("f");
    f(x) = e.back();
    Buffer<uint32_t> out = f.realize({10});
    for (int i = 0; i < 10; i++)
        ASSERT_EQ(out(i), test::fibonacci_times(i, 99)) << "x = " << i;

    // The same in an update definition.
    Func h("h");
    h(x) = cast<uint32_t>(0);
    h(x) += e.back();
    Buffer<uint32_t> updated = h.realize({10});
    for (int i = 0; i < 10; i++)
        ASSERT_EQ(updated(i), test::fibonacci_times(i, 99)) << "x = " << i;
}

// The pyramid of Halide's truncated_pyramid test: 20 levels down and up, each level's size a
// rounding-up halving of the Params before it, each level masked by a select on those sizes
// and specialized on them. Its Funcs' value bounds grow with each level (exponentially as trees).
class Pyramid {
  public:
    static constexpr int kLevels = 20;

    Pyramid() {
        Var x("x"), y("y");
        input_(x, y) = cast<float>((x * 7 + y * 13) % 17);
        input_.compute_root();
        std::vector<std::pair<Expr, Expr>> sizes(kLevels);
        sizes[0] = {width_, height_};
        for (int i = 1; i < kLevels; i++)
            sizes[i] = {(sizes[i - 1].first + 1) / 2, (sizes[i - 1].second + 1) / 2};
        std::vector<Func> down(kLevels), up(kLevels);
        down[0] = input_;
        for (int i = 1; i < kLevels; i++) {
            Func bounded = BoundaryConditions::repeat_edge(
                down[i - 1], {{0, sizes[i].first}, {0, sizes[i].second}});
            Func downsampled;
            downsampled(x, y) = bounded(2 * x - 1, 2 * y - 1) + bounded(2 * x + 2, 2 * y + 2);
            down[i](x, y) =
                select(max(sizes[i].first, sizes[i].second) > 5, downsampled(x, y), 0.0f);
            down[i]
                .compute_root()
                .specialize(max(width_, height_) > 32)
                .vectorize(x, 16)
                .parallel(y, 16, TailStrategy::GuardWithIf);
        }
        up[kLevels - 1] = down[kLevels - 1];
        for (int i = kLevels - 2; i >= 0; i--) {
            Func upsample;
            upsample(x, y) = up[i + 1](x / 2 - 1, y / 2 - 1) + up[i + 1](x / 2 + 1, y / 2 + 1);
            up[i](x, y) = select(max(sizes[i].first, sizes[i].second) > 5,
                                 down[i](x, y) - upsample(x, y), down[i](x, y));
            up[i]
                .compute_root()
                .specialize(max(width_, height_) > 32)
                .vectorize(x, 16)
                .parallel(y, 16, TailStrategy::GuardWithIf);
        }
        output_ = up[0];
    }

    Buffer<float> run(int w, int h) {
        width_.set(w);
        height_.set(h);
        return output_.realize({w, h});
    }

  private:
    Param<int> width_{"width"}, height_{"height"};
    Func input_{"input"}, output_;
};

// The same pyramid in plain C++, each level's points computed once.
class PyramidReference {
  public:
    PyramidReference(int w, int h) {
        sw_[0] = w;
        sh_[0] = h;
        for (int i = 1; i < Pyramid::kLevels; i++) {
            sw_[i] = (sw_[i - 1] + 1) / 2;
            sh_[i] = (sh_[i - 1] + 1) / 2;
        }
    }
    float up(int i, int x, int y) {
        if (i == Pyramid::kLevels - 1) return down(i, x, y);
        auto key = pack(i, x, y);
        auto it = up_.find(key);
        if (it != up_.end()) return it->second;
        float d = down(i, x, y);
        float value = d;
        if (std::max(sw_[i], sh_[i]) > 5) {
            float us = up(i + 1, floor_half(x) - 1, floor_half(y) - 1) +
                       up(i + 1, floor_half(x) + 1, floor_half(y) + 1);
            value = d - us;
        }
        up_[key] = value;
        return value;
    }

  private:
    static int floor_half(int v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }
    static int64_t pack(int i, int x, int y) {
        return (int64_t(i) << 40) | (int64_t(x + (1 << 19)) << 20) | int64_t(y + (1 << 19));
    }
    float down(int i, int x, int y) {
        if (i == 0) return float((((x * 7 + y * 13) % 17) + 17) % 17);
        if (std::max(sw_[i], sh_[i]) <= 5) return 0.0f;
        auto key = pack(i, x, y);
        auto it = down_.find(key);
        if (it != down_.end()) return it->second;
        auto bounded = [&](int bx, int by) {
            return down(i - 1, std::clamp(bx, 0, sw_[i] - 1), std::clamp(by, 0, sh_[i] - 1));
        };
        float value = bounded(2 * x - 1, 2 * y - 1) + bounded(2 * x + 2, 2 * y + 2);
        down_[key] = value;
        return value;
    }
    int sw_[Pyramid::kLevels], sh_[Pyramid::kLevels];
    std::unordered_map<int64_t, float> down_, up_;
};

TEST(CompileTime, PyramidOfSelectsOnHalvedParams) {
    Pyramid pyramid;
    // Both specializations: the larger side above 32, and not.
    for (auto [w, h] : {std::pair<int, int>{70, 45}, std::pair<int, int>{20, 13}}) {
        Buffer<float> out = pyramid.run(w, h);
        PyramidReference reference(w, h);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                ASSERT_EQ(out(x, y), reference.up(0, x, y))
                    << "at (" << x << ", " << y << ") of " << w << "x" << h;
            }
        }
    }
}

}  // namespace
}  // namespace dsl
