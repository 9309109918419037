#pragma once
/// Where a Func's storage lives (Func::store_in).

#include <cstdint>
#include <iosfwd>

namespace dsl {

enum class MemoryType : uint8_t {
    /// The stack for constant sizes up to 128 KiB, the heap otherwise.
    Auto,
    Heap,
    Stack,
    /// As Stack: a small constant array that LLVM can keep in registers.
    Register,
    /// GPU block-shared memory (GPU targets).
    GPUShared,
    /// The NPU's local buffer (NPU targets).
    NPUBuffer
};

/// Writes the enumerator's name ("Stack").
std::ostream &operator<<(std::ostream &out, MemoryType m);

}  // namespace dsl
