// random_float / random_int / random_uint (dsl/Random.h): values in range, uniform, the same for
// the same seed in every schedule, independent across seeds, calls and neighbouring points, and
// one value for one call used twice.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "dsl/dsl.h"

namespace dsl {
namespace {

constexpr int kSize = 256;

struct Moments {
    double mean = 0, variance = 0;
};

Moments moments(const Buffer<float> &b) {
    double sum = 0, sum2 = 0;
    const double n = double(b.width()) * b.height();
    for (int y = 0; y < b.height(); y++) {
        for (int x = 0; x < b.width(); x++) {
            sum += b(x, y);
            sum2 += double(b(x, y)) * b(x, y);
        }
    }
    Moments m;
    m.mean = sum / n;
    m.variance = sum2 / n - m.mean * m.mean;
    return m;
}

/// The correlation of a(x, y) and b(x + dx, y + dy) over the points where both exist.
double correlation(const Buffer<float> &a, const Buffer<float> &b, int dx, int dy) {
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, n = 0;
    for (int y = 0; y + dy < a.height(); y++) {
        for (int x = 0; x + dx < a.width(); x++) {
            double u = a(x, y), v = b(x + dx, y + dy);
            sa += u;
            sb += v;
            saa += u * u;
            sbb += v * v;
            sab += u * v;
            n++;
        }
    }
    double cov = sab / n - (sa / n) * (sb / n);
    return cov / std::sqrt((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
}

TEST(Random, FloatsAreUniformInTheUnitInterval) {
    Var x("x"), y("y");
    Func f("noise");
    f(x, y) = random_float();
    Buffer<float> b = f.realize({kSize, kSize});
    float lo = 1, hi = 0;
    for (int j = 0; j < kSize; j++) {
        for (int i = 0; i < kSize; i++) {
            lo = std::min(lo, b(i, j));
            hi = std::max(hi, b(i, j));
        }
    }
    EXPECT_GE(lo, 0.0f);
    EXPECT_LT(hi, 1.0f);
    Moments m = moments(b);
    // Over 65536 samples the mean's standard error is 0.0011.
    EXPECT_NEAR(m.mean, 0.5, 0.006);
    EXPECT_NEAR(m.variance, 1.0 / 12, 0.003);
    // Neighbours along each dimension are uncorrelated (standard error 0.004).
    EXPECT_LT(std::abs(correlation(b, b, 1, 0)), 0.02);
    EXPECT_LT(std::abs(correlation(b, b, 0, 1)), 0.02);
    EXPECT_LT(std::abs(correlation(b, b, 1, 1)), 0.02);
    // A histogram of 16 bins is flat (each expects 4096, standard deviation 62).
    int bins[16] = {};
    for (int j = 0; j < kSize; j++) {
        for (int i = 0; i < kSize; i++)
            bins[static_cast<int>(b(i, j) * 16)]++;
    }
    for (int k = 0; k < 16; k++)
        EXPECT_NEAR(bins[k], 4096, 320) << "bin " << k;
}

TEST(Random, SameSeedSameValuesInEverySchedule) {
    Param<int> seed("seed");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func a("a"), b("b");
    a(x, y) = random_float(seed);
    b(x, y) = a(x, y);
    a.compute_root();
    b.tile(x, y, xi, yi, 16, 8).vectorize(xi, 8).parallel(y);
    Func plain("plain");
    plain(x, y) = random_float(seed);
    seed.set(7);
    Buffer<float> first = b.realize({kSize, kSize});
    Buffer<float> again = b.realize({kSize, kSize});
    int differ = 0;
    for (int j = 0; j < kSize; j++) {
        for (int i = 0; i < kSize; i++)
            differ += first(i, j) != again(i, j);
    }
    EXPECT_EQ(differ, 0);
    seed.set(8);
    Buffer<float> other = b.realize({kSize, kSize});
    EXPECT_LT(std::abs(correlation(first, other, 0, 0)), 0.02) << "seeds 7 and 8";
    // Another Func with its own call gives another variable.
    seed.set(7);
    Buffer<float> p = plain.realize({kSize, kSize});
    EXPECT_LT(std::abs(correlation(first, p, 0, 0)), 0.02);
}

TEST(Random, EachCallIsAVariableAndOneCallIsOneValue) {
    Var x("x"), y("y");
    Expr r = random_float();
    Func same("same"), two("two"), sum("sum");
    same(x, y) = r - r;
    two(x, y) = random_float() - random_float();
    sum(x, y) = random_float() + random_float();
    Buffer<float> s = same.realize({kSize, kSize});
    Buffer<float> t = two.realize({kSize, kSize});
    int nonzero = 0, zero = 0;
    for (int j = 0; j < kSize; j++) {
        for (int i = 0; i < kSize; i++) {
            nonzero += s(i, j) != 0;
            zero += t(i, j) == 0;
        }
    }
    EXPECT_EQ(nonzero, 0);
    EXPECT_LT(zero, 10);
    // The sum of two independent uniforms has variance 1/6.
    Moments m = moments(sum.realize({kSize, kSize}));
    EXPECT_NEAR(m.mean, 1.0, 0.01);
    EXPECT_NEAR(m.variance, 1.0 / 6, 0.006);
}

TEST(Random, IntegersCoverTheirRange) {
    Var x("x");
    Func i("ints"), u("uints");
    i(x) = random_int();
    u(x) = random_uint();
    const int n = 1 << 16;
    Buffer<int32_t> bi = i.realize({n});
    Buffer<uint32_t> bu = u.realize({n});
    int negative = 0, high_bit = 0, low_bit = 0;
    double mean = 0;
    for (int k = 0; k < n; k++) {
        negative += bi(k) < 0;
        high_bit += (bu(k) >> 31) & 1;
        low_bit += bu(k) & 1;
        mean += double(bu(k)) / n;
    }
    // Each bit is set half of the time (standard deviation 128).
    EXPECT_NEAR(negative, n / 2, 700);
    EXPECT_NEAR(high_bit, n / 2, 700);
    EXPECT_NEAR(low_bit, n / 2, 700);
    EXPECT_NEAR(mean / 4294967296.0, 0.5, 0.01);
}

TEST(Random, AnUpdateDrawsPerIterationOfItsRDom) {
    // f(x) sums 64 draws per point: a mean of 32 and a variance of 64 / 12.
    Var x("x");
    RDom r(0, 64, "r");
    Func f("draws");
    f(x) = 0.0f;
    f(x) += random_float() + cast<float>(r * 0);
    Buffer<float> b = f.realize({4096});
    double mean = 0, sum2 = 0;
    for (int k = 0; k < 4096; k++) {
        mean += b(k) / 4096.0;
        sum2 += double(b(k)) * b(k) / 4096.0;
    }
    EXPECT_NEAR(mean, 32.0, 0.3);
    EXPECT_NEAR(sum2 - mean * mean, 64.0 / 12, 0.6);
}

TEST(Random, OutsideADefinitionIsAnError) {
    Var x("x");
    Func f("bad_random");
    RDom r(0, cast<int>(random_uint() % 4), "r");
    f(x) = 0;
    f(x) += r;
    try {
        f.realize({4});
        ADD_FAILURE() << "no error";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("outside the values of a Func's definition"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace dsl
