#pragma once
/// Where a loop's body runs (the device API of Stage::gpu_blocks and the like).

#include <cstdint>
#include <iosfwd>

namespace dsl {

enum class DeviceAPI : uint8_t {
    /// Where the enclosing loop runs (the host outside any GPU loop).
    None,
    /// The CPU.
    Host,
    /// The GPU API of the target (`opencl`); chosen when the pipeline is compiled.
    Default_GPU,
    /// OpenCL C kernels run through the OpenCL driver (libOpenCL.so.1).
    OpenCL,
    /// PTX kernels run through the CUDA driver.
    CUDA,
    /// The NPU.
    NPU
};

/// Writes the enumerator's name ("OpenCL").
std::ostream &operator<<(std::ostream &out, DeviceAPI d);

}  // namespace dsl
