#pragma once
// Helpers shared by the operator tests: seeded random buffers, and realizing a tensor whose
// shape is known into a buffer of that shape.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
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

// TFLite's reference arithmetic, written out: SaturatingRoundingDoublingHighMul,
// RoundingDivideByPOT and MultiplyByQuantizedMultiplier.
inline int32_t high_mul(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    const int64_t ab = int64_t(a) * int64_t(b);
    const int64_t nudge = ab >= 0 ? (int64_t(1) << 30) : 1 - (int64_t(1) << 30);
    return static_cast<int32_t>((ab + nudge) / (int64_t(1) << 31));
}
inline int32_t divide_by_pot(int32_t x, int e) {
    const int32_t mask = static_cast<int32_t>((int64_t(1) << e) - 1);
    const int32_t remainder = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (remainder > threshold ? 1 : 0);
}
inline int32_t rescale(int32_t x, int32_t multiplier, int32_t shift) {
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return divide_by_pot(high_mul(static_cast<int32_t>(uint32_t(x) << left), multiplier), right);
}

}  // namespace dsl::test
