#include "PipelineCheck.h"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "ir/Float16.h"
#include "lang/FuncEvaluator.h"

namespace dsl::test {

using namespace ir;

namespace {

double read_as_double(const Buffer<> &b, const int *pos) {
    Type t = b.type();
    uint64_t bits = 0;
    std::memcpy(&bits, b.byte_address(pos), t.bytes());
    if (t.is_int()) {
        int shift = 64 - t.bits();
        return static_cast<double>(static_cast<int64_t>(bits << shift) >> shift);
    }
    if (t.is_uint()) return static_cast<double>(t.is_bool() ? (bits & 1) : bits);
    if (t.is_bfloat()) return bfloat16_from_bits(static_cast<uint16_t>(bits));
    if (t.bits() == 16) return float16_from_bits(static_cast<uint16_t>(bits));
    if (t.bits() == 32) {
        float f;
        uint32_t u = static_cast<uint32_t>(bits);
        std::memcpy(&f, &u, 4);
        return f;
    }
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
}

uint64_t read_bits(const Buffer<> &b, const int *pos) {
    uint64_t bits = 0;
    std::memcpy(&bits, b.byte_address(pos), b.type().bytes());
    return bits;
}

}  // namespace

::testing::AssertionResult matches_reference(const Func &f, const Realization &outputs,
                                             double tolerance) {
    lang::FuncEvaluator reference;
    lang::Function func(f.contents());
    int mismatches = 0;
    std::ostringstream report;
    for (size_t v = 0; v < outputs.size(); v++) {
        const Buffer<> &b = outputs[v];
        Type t = b.type();
        b.for_each_element([&](const int *pos) {
            std::vector<int64_t> coords(pos, pos + b.dimensions());
            Value expected = reference.at(func, coords, static_cast<int>(v));
            bool ok;
            if (t.is_float()) {
                double got = read_as_double(b, pos), want = expected.as_float();
                ok = (std::isnan(got) && std::isnan(want)) || got == want ||
                     std::fabs(got - want) <= tolerance * std::max(1.0, std::fabs(want));
            } else if (t.is_int()) {
                int shift = 64 - t.bits();
                ok = (static_cast<int64_t>(read_bits(b, pos) << shift) >> shift) ==
                     expected.as_int();
            } else {
                ok = read_bits(b, pos) == expected.as_uint();
            }
            if (!ok && mismatches++ < 5) {
                report << "\n  " << f.name() << "[" << v << "](";
                for (size_t i = 0; i < coords.size(); i++)
                    report << (i ? ", " : "") << coords[i];
                report << ") = " << read_as_double(b, pos) << ", reference "
                       << expected.to_string();
            }
        });
    }
    if (mismatches == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << mismatches << " elements differ from the reference" << report.str();
}

::testing::AssertionResult matches_reference(const Func &f, const Buffer<> &output,
                                             double tolerance) {
    return matches_reference(f, Realization({output}), tolerance);
}

Buffer<> random_buffer(Type t, const std::vector<int> &sizes, uint64_t seed) {
    Buffer<> b(t, sizes);
    std::mt19937_64 rng(seed);
    b.for_each_element([&](const int *pos) {
        uint8_t *p = b.byte_address(pos);
        if (t.is_float()) {
            double v = std::uniform_int_distribution<int>(-64, 63)(rng) / 8.0;
            if (t.bits() == 32) {
                float f = static_cast<float>(v);
                std::memcpy(p, &f, 4);
            } else if (t.bits() == 64) {
                std::memcpy(p, &v, 8);
            } else {
                uint16_t h = t.is_bfloat() ? bfloat16_bits(v) : float16_bits(v);
                std::memcpy(p, &h, 2);
            }
        } else if (t.is_bool()) {
            *p = std::uniform_int_distribution<int>(0, 1)(rng);
        } else {
            int64_t v = t.is_int() ? std::uniform_int_distribution<int>(-50, 50)(rng)
                                   : std::uniform_int_distribution<int>(0, 100)(rng);
            std::memcpy(p, &v, t.bytes());
        }
    });
    return b;
}

}  // namespace dsl::test
