#pragma once
// Helpers shared by the operator tests: seeded random buffers, and realizing a tensor whose
// shape is known into a buffer of that shape.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/nn/Tensor.h"

namespace dsl::test {

/// A float buffer of `sizes` (dimension 0 innermost) filled with seeded values in [lo, hi].
inline Buffer<float> random_buffer(const std::vector<int> &sizes, unsigned seed, float lo = -1.0f,
                                   float hi = 1.0f) {
    Buffer<float> b(sizes);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    b.for_each_value([&](float &v) { v = dist(rng); });
    return b;
}

/// `t` realized into a buffer of its shape, which must be known (constant).
template <typename T = float>
Buffer<T> realize(const nn::Tensor &t) {
    std::vector<int> sizes;
    for (int a = t.rank() - 1; a >= 0; a--) {
        int64_t v = 0;
        EXPECT_TRUE(nn::is_const(t.dim(a), &v)) << "axis " << a << " of the tensor is not constant";
        sizes.push_back(static_cast<int>(v));
    }
    Buffer<T> out(sizes);
    Func f = t.func();
    f.realize(out);
    return out;
}

}  // namespace dsl::test
