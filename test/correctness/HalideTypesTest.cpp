// Halide's host-side number types and casts: float16_t and bfloat16_t, saturating_cast and
// ConciseCasts, fast_inverse; and Halide's schedule markers Stage::unscheduled and hexagon.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

/// The bits of a float rounded to half precision, the slow way: the nearest of all 65536
/// half values (ties to the even mantissa).
uint16_t nearest_half(float v) {
    if (std::isnan(v)) return 0x7e00;
    uint16_t best = 0;
    double best_distance = INFINITY;
    for (uint32_t b = 0; b < 0x10000; b++) {
        float16_t h = float16_t::make_from_bits(uint16_t(b));
        if (h.is_nan() || (std::signbit(v) != h.is_negative())) continue;
        double d = std::fabs(double(h) - double(v));
        if (h.is_infinity()) {
            // Past the largest finite value by half a unit (65520) or more: infinity.
            d = std::fabs(v) >= 65520.0 ? 0 : INFINITY;
        }
        if (d < best_distance || (d == best_distance && (b & 1) == 0)) {
            best = uint16_t(b);
            best_distance = d;
        }
    }
    return best;
}

TEST(HalideTypes, Float16RoundsToNearestEven) {
    EXPECT_EQ(float16_t(1.0f).to_bits(), 0x3c00);
    EXPECT_EQ(float16_t(-2.0f).to_bits(), 0xc000);
    EXPECT_EQ(float16_t(65504.0f).to_bits(), 0x7bff);
    EXPECT_EQ(float16_t(65519.0f).to_bits(), 0x7bff);  // just under half a unit past
    EXPECT_TRUE(float16_t(65520.0f).is_infinity());
    EXPECT_EQ(float16_t(std::ldexp(1.0f, -24)).to_bits(), 0x0001);         // smallest subnormal
    EXPECT_EQ(float16_t(std::ldexp(1.0f, -25)).to_bits(), 0x0000);         // a tie: to even (0)
    EXPECT_EQ(float16_t(std::ldexp(3.0f, -25)).to_bits(), 0x0002);         // a tie: to even (2)
    EXPECT_EQ(float16_t(1.0f + std::ldexp(1.0f, -11)).to_bits(), 0x3c00);  // tie, to even
    EXPECT_EQ(float16_t(1.0f + std::ldexp(3.0f, -11)).to_bits(), 0x3c02);
    EXPECT_TRUE(float16_t(NAN).is_nan());
    EXPECT_TRUE(float16_t::make_negative_zero().is_zero());
    EXPECT_TRUE(float16_t::make_negative_zero().is_negative());
    EXPECT_EQ(float(float16_t::make_negative_infinity()), -INFINITY);
    EXPECT_TRUE(float16_t::make_nan().is_nan());
    EXPECT_FALSE(float16_t::make_nan() == float16_t::make_nan());
    // Random floats against the exhaustive search.
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> exponent(-27.0f, 17.0f);
    for (int i = 0; i < 300; i++) {
        float v = std::exp2(exponent(rng)) * (rng() & 1 ? 1.0f : -1.0f);
        EXPECT_EQ(float16_t(v).to_bits(), nearest_half(v)) << v;
    }
    // Every half value converts to float and back unchanged.
    for (uint32_t b = 0; b < 0x10000; b++) {
        float16_t h = float16_t::make_from_bits(uint16_t(b));
        if (!h.is_nan()) {
            ASSERT_EQ(float16_t(float(h)).to_bits(), b);
        }
    }
    // Arithmetic rounds once from float.
    EXPECT_EQ(float(float16_t(0.5f) + float16_t(0.25f)), 0.75f);
    EXPECT_TRUE((float16_t::make_from_bits(0x7bff) + float16_t(32.0f)).is_infinity());
    EXPECT_LT(float16_t(1.0f), float16_t(1.5f));
}

TEST(HalideTypes, LayoutConstantsAndPrinting) {
    EXPECT_EQ(float16_t::exponent_mask, 0x7c00);
    EXPECT_EQ(float16_t::mantissa_bits, 10);
    EXPECT_EQ(bfloat16_t::exponent_mask, 0x7f80);
    EXPECT_EQ(float16_t(1.0f).to_bits(),
              (float16_t::exponent_mask >> 1) & float16_t::exponent_mask);
    std::ostringstream s;
    s << Target("x86-64-linux-avx2");
    EXPECT_EQ(s.str(), "x86-64-linux-avx2");
    // A Realization of buffers of different element types.
    Var x("x");
    Func f("two_types");
    f(x) = Tuple(x, cast<float>(x) / 2);
    Buffer<int> ints(4);
    Buffer<float> floats(4);
    Realization r(ints, floats);
    f.realize(r);
    EXPECT_EQ(ints(3), 3);
    EXPECT_EQ(floats(3), 1.5f);
}

TEST(HalideTypes, BFloat16IsTheUpperHalfOfAFloat) {
    for (float v : {1.0f, -3.5f, 1e30f, 7.0e-39f, 0.1f, 37.2789f}) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        // Round to nearest even on the lower 16 bits.
        uint32_t rounded = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
        EXPECT_EQ(bfloat16_t(v).to_bits(), rounded) << v;
    }
    // Past the halfway point between the largest bfloat16 (3.3895e38) and 2^128.
    EXPECT_TRUE(bfloat16_t(3.40e38f).is_infinity());
    EXPECT_EQ(float(bfloat16_t::make_from_bits(0x3f80)), 1.0f);
}

TEST(HalideTypes, Float16InPipelines) {
    Var x("x");
    Func f("f16");
    f(x) = cast<float16_t>(-0.5f) + cast<float16_t>(x) / 128;
    Buffer<float16_t> out = f.realize({128});
    for (int i = 0; i < 128; i++) {
        float16_t correct = float16_t(-0.5f) + float16_t(i) / float16_t(128.0f);
        EXPECT_EQ(out(i).to_bits(), correct.to_bits()) << i;
    }
    Param<float16_t> a("a"), b("b");
    a.set(float16_t::make_from_bits(0x7bff));
    b.set(float16_t(32.0f));
    EXPECT_TRUE(evaluate<float16_t>(a + b).is_infinity());
    EXPECT_EQ(evaluate<float16_t>(Expr(float16_t(1.5f)) * 2).to_bits(), float16_t(3.0f).to_bits());
    Param<bfloat16_t> c("c");
    c.set(bfloat16_t(2.75f));
    EXPECT_EQ(float(evaluate<bfloat16_t>(c * 2)), 5.5f);
    Buffer<float16_t> filled(4);
    filled.fill(float16_t(0.25f));
    EXPECT_EQ(float(filled(3)), 0.25f);
    EXPECT_EQ(type_of<float16_t>(), Float(16));
    EXPECT_EQ(type_of<bfloat16_t>(), BFloat(16));
}

/// saturating_cast<To>(v) for a From value, as C++ computes it: clamp to To's range in double
/// (exact for the values tested), then convert.
template <typename To, typename From>
To reference_saturate(From v) {
    if constexpr (std::is_floating_point_v<To>) {
        return static_cast<To>(v);
    } else {
        const long double lo = std::numeric_limits<To>::lowest();
        const long double hi = std::numeric_limits<To>::max();
        long double d = static_cast<long double>(v);
        if (d <= lo) return std::numeric_limits<To>::lowest();
        if (d >= hi) return std::numeric_limits<To>::max();
        return static_cast<To>(d);
    }
}

template <typename From, typename To>
void check_saturating_cast() {
    std::vector<From> values = {From(0), From(1), std::numeric_limits<From>::max(),
                                std::numeric_limits<From>::lowest()};
    if constexpr (std::is_signed_v<From>) values.push_back(From(-1));
    if constexpr (std::is_floating_point_v<From>) {
        for (double v : {1e10, -1e10, 255.5, -128.7, 65535.9, 2147483647.0, 4294967296.0,
                         -2147483649.0, 1.8e19})
            values.push_back(static_cast<From>(v));
        values.push_back(std::numeric_limits<From>::infinity());
        values.push_back(-std::numeric_limits<From>::infinity());
    } else {
        values.push_back(static_cast<From>(300));
        values.push_back(static_cast<From>(70000));
        values.push_back(static_cast<From>(-129));
        values.push_back(static_cast<From>(5000000000LL));
    }
    Buffer<From> in(static_cast<int>(values.size()));
    for (size_t i = 0; i < values.size(); i++)
        in(static_cast<int>(i)) = values[i];
    Var x("x");
    Func f("saturate");
    f(x) = saturating_cast<To>(in(x));
    Buffer<To> out = f.realize({in.width()});
    for (int i = 0; i < in.width(); i++) {
        EXPECT_EQ(out(i), reference_saturate<To>(in(i)))
            << type_of<From>() << " " << +in(i) << " to " << type_of<To>();
    }
}

template <typename From>
void check_from() {
    check_saturating_cast<From, int8_t>();
    check_saturating_cast<From, uint8_t>();
    check_saturating_cast<From, int16_t>();
    check_saturating_cast<From, uint16_t>();
    check_saturating_cast<From, int32_t>();
    check_saturating_cast<From, uint32_t>();
    check_saturating_cast<From, int64_t>();
    check_saturating_cast<From, uint64_t>();
    check_saturating_cast<From, float>();
}

TEST(HalideTypes, SaturatingCastClampsToTheTargetRange) {
    check_from<int8_t>();
    check_from<uint8_t>();
    check_from<int16_t>();
    check_from<uint16_t>();
    check_from<int32_t>();
    check_from<uint32_t>();
    check_from<int64_t>();
    check_from<uint64_t>();
    check_from<float>();
    check_from<double>();
}

TEST(HalideTypes, ConciseCasts) {
    using namespace ConciseCasts;
    Expr e = Expr(300);
    EXPECT_EQ(u8(e).type(), UInt(8));
    EXPECT_EQ(evaluate<uint8_t>(u8(e)), 44);  // wraps
    EXPECT_EQ(evaluate<uint8_t>(u8_sat(e)), 255);
    EXPECT_EQ(evaluate<int8_t>(i8_sat(-e)), -128);
    EXPECT_EQ(evaluate<int16_t>(i16(e)), 300);
    EXPECT_EQ(evaluate<double>(f64(e)), 300.0);
    EXPECT_EQ(i32(Expr(1.5f)).type(), Int(32));
    EXPECT_EQ(u16_sat(Expr(-1)).type(), UInt(16));
    EXPECT_FLOAT_EQ(evaluate<float>(fast_inverse(Expr(4.0f))), 0.25f);
    EXPECT_FLOAT_EQ(evaluate<float>(fast_inverse_sqrt(Expr(4.0f))), 0.5f);
}

TEST(HalideTypes, UnscheduledAndHexagonMarkers) {
    Var x("x");
    RDom r(0, 4, "r");
    Func f("marked");
    f(x) = x;
    f(x) += r;
    f.update(0).unscheduled();  // nothing given: accepted, and changes nothing
    Buffer<int> out = f.realize({3});
    EXPECT_EQ(out(2), 2 + 6);
    Func g("scheduled_then_marked");
    g(x) = x;
    g(x) += r;
    g.update(0).vectorize(x, 4);
    std::string msg = message_of([&] { g.update(0).unscheduled(); });
    EXPECT_CONTAINS(msg, "scheduled_then_marked");
    EXPECT_CONTAINS(msg, "unscheduled()");
    msg = message_of([&] { f.hexagon(); });
    EXPECT_CONTAINS(msg, "marked");
    EXPECT_CONTAINS(msg, "no Hexagon DSP back end");
}

}  // namespace
}  // namespace dsl
