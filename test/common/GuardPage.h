#pragma once
/// Buffers next to a page that faults when read, so that a test sees any read past a buffer's
/// last element (or before its first). JIT code is not instrumented by the sanitizers; this is
/// how tests check that generated code reads only what bounds inference allows.

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "dsl/dsl.h"

namespace dsl::test {

/// A copy of the dense buffer `source` (same type, mins and extents, dense strides) at the end
/// of a page that an inaccessible page follows, or (`after_a_guard_page`) at the start of a page
/// that an inaccessible page precedes.
class GuardedCopy {
  public:
    explicit GuardedCopy(const Buffer<> &source, bool after_a_guard_page = false) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t bytes =
            static_cast<size_t>(source.number_of_elements()) * source.type().bytes();
        pages_ = (bytes + page - 1) / page * page + page;
        void *m = mmap(nullptr, pages_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        EXPECT_NE(m, MAP_FAILED);
        memory_ = static_cast<uint8_t *>(m);
        const size_t guard = after_a_guard_page ? 0 : pages_ - page;
        EXPECT_EQ(mprotect(memory_ + guard, page, PROT_NONE), 0);
        uint8_t *data = after_a_guard_page ? memory_ + page : memory_ + pages_ - page - bytes;
        std::memcpy(data, source.data(), bytes);
        std::vector<dsl_dimension_t> dims;
        int32_t stride = 1;
        for (int d = 0; d < source.dimensions(); d++) {
            dims.push_back({source.dim(d).min(), source.dim(d).extent(), stride, 0});
            stride *= source.dim(d).extent();
        }
        buffer_ = Buffer<>(source.type(), data, dims);
    }
    ~GuardedCopy() { munmap(memory_, pages_); }
    GuardedCopy(const GuardedCopy &) = delete;
    GuardedCopy &operator=(const GuardedCopy &) = delete;
    const Buffer<> &buffer() const { return buffer_; }

  private:
    uint8_t *memory_ = nullptr;
    size_t pages_ = 0;
    Buffer<> buffer_;
};

}  // namespace dsl::test
