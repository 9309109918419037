#pragma once
/// The value of e[n] for e[0] = e[1] = x, e[i] = e[i - 1] + e[i - 2] in uint32 arithmetic:
/// x * F(n + 1) mod 2^32 (F the Fibonacci numbers). The tests of expressions far larger as
/// trees than in memory build that chain as a value or as inlined Funcs.

#include <cstdint>

namespace dsl::test {

inline uint32_t fibonacci_times(uint32_t x, int n) {
    uint32_t a = 1, b = 1;
    for (int i = 2; i <= n; i++) {
        uint32_t c = a + b;
        a = b;
        b = c;
    }
    return x * b;
}

}  // namespace dsl::test
