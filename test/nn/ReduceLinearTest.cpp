// Reductions, arg-reductions, softmax and matrix products of dsl::nn against plain loops, on
// odd shapes (17, 33) and with batch broadcasting.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "NNTestUtil.h"
#include "dsl/dsl.h"
#include "dsl/nn/Linear.h"
#include "dsl/nn/Reduce.h"

namespace {

using namespace dsl;
using test::random_buffer;
using test::realize;

TEST(NNReduce, SumMaxAndLogSumExpOverTwoAxes) {
    Buffer<float> d = random_buffer({33, 17, 3}, 1);  // shape (3, 17, 33)
    nn::Tensor x(Buffer<>(d), "x");
    Buffer<float> s = realize(nn::reduce(x, nn::Reduction::Sum, {0, 2}, false));     // (17)
    Buffer<float> m = realize(nn::reduce(x, nn::Reduction::Max, {-1}, true));        // (3, 17, 1)
    Buffer<float> l = realize(nn::reduce(x, nn::Reduction::LogSumExp, {1}, false));  // (3, 33)
    for (int j = 0; j < 17; j++) {
        double sum = 0;
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 33; k++)
                sum += d(k, j, i);
        ASSERT_NEAR(s(j), sum, 1e-3);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 17; j++) {
            float mx = -INFINITY;
            for (int k = 0; k < 33; k++)
                mx = std::max(mx, d(k, j, i));
            ASSERT_EQ(m(0, j, i), mx);
        }
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 33; k++) {
            double e = 0;
            for (int j = 0; j < 17; j++)
                e += std::exp(double(d(k, j, i)));
            ASSERT_NEAR(l(k, i), std::log(e), 1e-5);
        }
}

TEST(NNReduce, ArgMaxFirstAndLastOfTies) {
    Buffer<int32_t> d(5, 2);
    const int rows[2][5] = {{1, 7, 3, 7, 0}, {4, 4, 4, 4, 4}};
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 5; k++)
            d(k, r) = rows[r][k];
    nn::Tensor x(Buffer<>(d), "x");
    Buffer<int64_t> first = realize<int64_t>(nn::argmax(x, 1, false, false));
    Buffer<int64_t> last = realize<int64_t>(nn::argmax(x, -1, false, true));
    Buffer<int64_t> low = realize<int64_t>(nn::argmin(x, 1, true, false));
    EXPECT_EQ(first(0), 1);
    EXPECT_EQ(last(0), 3);
    EXPECT_EQ(first(1), 0);
    EXPECT_EQ(last(1), 4);
    EXPECT_EQ(low(0, 0), 4);
    EXPECT_EQ(low(0, 1), 0);
}

TEST(NNReduce, SoftmaxMatchesTheDefinitionWithoutOverflow) {
    Buffer<float> d = random_buffer({17, 3}, 2);
    d(0, 0) = 1000.0f;  // exp(1000) overflows unless shifted
    nn::Tensor x(Buffer<>(d), "x");
    Buffer<float> s = realize(nn::softmax(x, -1)), ls = realize(nn::log_softmax(x, 1));
    for (int r = 0; r < 3; r++) {
        double mx = -INFINITY, z = 0;
        for (int k = 0; k < 17; k++)
            mx = std::max(mx, double(d(k, r)));
        for (int k = 0; k < 17; k++)
            z += std::exp(d(k, r) - mx);
        for (int k = 0; k < 17; k++) {
            double p = std::exp(d(k, r) - mx) / z;
            ASSERT_NEAR(s(k, r), p, 1e-6);
            ASSERT_NEAR(ls(k, r), d(k, r) - mx - std::log(z), 1e-4);
        }
    }
}

TEST(NNLinear, MatMulBroadcastsBatchesAndPromotesVectors) {
    // a (2, 1, 3, 17) x b (5, 17, 33) -> (2, 5, 3, 33)
    Buffer<float> da = random_buffer({17, 3, 1, 2}, 3), db = random_buffer({33, 17, 5}, 4);
    nn::Tensor a(Buffer<>(da), "a"), b(Buffer<>(db), "b");
    Buffer<float> c = realize(nn::matmul(a, b));
    ASSERT_EQ(c.dimensions(), 4);
    for (int n = 0; n < 2; n++)
        for (int m = 0; m < 5; m++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 33; j++) {
                    double acc = 0;
                    for (int k = 0; k < 17; k++)
                        acc += double(da(k, i, 0, n)) * db(j, k, m);
                    ASSERT_NEAR(c(j, i, m, n), acc, 1e-4);
                }
    // A vector times a matrix: (17) x (17, 33) -> (33).
    Buffer<float> dv = random_buffer({17}, 5), dm = random_buffer({33, 17}, 6);
    Buffer<float> v =
        realize(nn::matmul(nn::Tensor(Buffer<>(dv), "v"), nn::Tensor(Buffer<>(dm), "m")));
    ASSERT_EQ(v.dimensions(), 1);
    for (int j = 0; j < 33; j++) {
        double acc = 0;
        for (int k = 0; k < 17; k++)
            acc += double(dv(k)) * dm(j, k);
        ASSERT_NEAR(v(j), acc, 1e-4);
    }
}

TEST(NNLinear, GemmTransposesScalesAndAddsABroadcastBias) {
    Buffer<float> da = random_buffer({3, 17}, 7), db = random_buffer({17, 33}, 8),
                  dc = random_buffer({33}, 9);
    // a is stored (17, 3) and transposed; b is stored (33, 17) and transposed.
    nn::Tensor c = nn::gemm(nn::Tensor(Buffer<>(da), "a"), nn::Tensor(Buffer<>(db), "b"),
                            nn::Tensor(Buffer<>(dc), "c"), 0.5f, 2.0f, true, true);
    Buffer<float> out = realize(c);  // (3, 33)
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 33; j++) {
            double acc = 0;
            for (int k = 0; k < 17; k++)
                acc += double(da(i, k)) * db(k, j);
            ASSERT_NEAR(out(j, i), 0.5 * acc + 2.0 * dc(j), 1e-4);
        }
}

/// The determinant by cofactor expansion, in double precision.
double cofactor_det(const std::vector<std::vector<double>> &m) {
    const size_t n = m.size();
    if (n == 1) return m[0][0];
    double d = 0;
    for (size_t c = 0; c < n; c++) {
        std::vector<std::vector<double>> minor;
        for (size_t r = 1; r < n; r++) {
            std::vector<double> row;
            for (size_t k = 0; k < n; k++)
                if (k != c) row.push_back(m[r][k]);
            minor.push_back(row);
        }
        d += (c % 2 ? -1 : 1) * m[0][c] * cofactor_det(minor);
    }
    return d;
}

TEST(NNLinear, DetWithPivotsOfBatchesOfMatrices) {
    // Three 4 x 4 matrices: random; one whose first column starts with zeros (a pivot is
    // needed); a singular one (two equal rows).
    Buffer<float> x = random_buffer({4, 4, 3}, 17);
    for (int j = 0; j < 4; j++) {
        x(0, 0, 1) = 0.0f, x(0, 1, 1) = 0.0f;
        x(j, 3, 2) = x(j, 1, 2);
    }
    Buffer<float> d = realize(nn::det(nn::Tensor(x, "x")));
    for (int b = 0; b < 3; b++) {
        std::vector<std::vector<double>> m(4, std::vector<double>(4));
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                m[i][j] = x(j, i, b);
        EXPECT_NEAR(d(b), cofactor_det(m), 1e-4) << "matrix " << b;
    }
    // A permutation matrix: only pivoting finds its determinant (-1).
    Buffer<float> swap(2, 2);
    swap(0, 0) = 0, swap(1, 0) = 1, swap(0, 1) = 1, swap(1, 1) = 0;
    Buffer<float> s = realize(nn::det(nn::Tensor(swap, "swap")));
    EXPECT_EQ(s(), -1.0f);
}

}  // namespace
