#pragma once
/// A fast 128-bit hash of bytes, for naming and checking the entries of the JIT's disk cache. Not
/// cryptographic: it spreads keys over file names and catches corrupted bytes, while the cache
/// compares the full key it stored, so that a collision only costs a recompilation.

#include <cstdint>
#include <string>
#include <string_view>

namespace dsl::jit {

struct Hash128 {
    uint64_t high = 0;
    uint64_t low = 0;

    /// 32 lowercase hexadecimal digits, high half first.
    std::string hex() const;
    bool operator==(const Hash128 &other) const { return high == other.high && low == other.low; }
    bool operator!=(const Hash128 &other) const { return !(*this == other); }
};

/// The hash of `bytes`. The same on every machine of the same byte order. Different seeds give
/// independent hashes of the same bytes.
Hash128 hash128(std::string_view bytes, uint64_t seed = 0);

}  // namespace dsl::jit
