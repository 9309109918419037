#pragma once
// std::vector with storage aligned to 64 bytes, as dsl, Halide and oneDNN align their own
// allocations. A std::vector's memory is 16-byte aligned (a large one comes from mmap 16 bytes
// past a page): vector loads and stores then split across cache lines, which cost oneDNN's
// depthwise layer 50% (0.54-0.57 ms against 0.36-0.37, measured 2026-12-01) and our conv layer
// written with Halide's schedule 20% at two threads (2026-12-02).

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace dsl_bench {

template <typename T>
struct Aligned64 {
    using value_type = T;
    Aligned64() = default;
    template <typename U>
    explicit Aligned64(const Aligned64<U> &) {}
    T *allocate(size_t count) {
        void *p = std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64);
        if (!p) throw std::bad_alloc();
        return static_cast<T *>(p);
    }
    void deallocate(T *p, size_t) { std::free(p); }
    template <typename U>
    bool operator==(const Aligned64<U> &) const {
        return true;
    }
    template <typename U>
    bool operator!=(const Aligned64<U> &) const {
        return false;
    }
};

template <typename T>
using AlignedVector = std::vector<T, Aligned64<T>>;

}  // namespace dsl_bench
