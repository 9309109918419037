#pragma once
#include <cstdint>

namespace dsl::ir {

/// A fact about an integer: it equals `modulus * k + remainder` for some integer k.
/// `modulus == 0` means the value is exactly `remainder`; `modulus == 1` says nothing.
/// `0 <= remainder < modulus` whenever modulus > 0.
struct ModulusRemainder {
    int64_t modulus = 1;
    int64_t remainder = 0;

    static ModulusRemainder unknown() { return {1, 0}; }
    static ModulusRemainder constant(int64_t v) { return {0, v}; }
    bool is_constant() const { return modulus == 0; }
    bool operator==(const ModulusRemainder &o) const {
        return modulus == o.modulus && remainder == o.remainder;
    }
};

}  // namespace dsl::ir
