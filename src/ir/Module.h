#pragma once
/// What lowering hands to code generation: the functions of one pipeline, each a statement with
/// its argument list (DESIGN.md §3, "Module { host LoweredFuncs, ... }").

#include <string>
#include <vector>

#include "ir/IR.h"

namespace dsl::ir {

/// One argument of a lowered function, in the order of the generated C signature.
struct LoweredArgument {
    enum class Kind : uint8_t { InputBuffer, OutputBuffer, Scalar };
    std::string name;
    Kind kind = Kind::Scalar;
    /// The element type of a buffer, or the type of a scalar.
    Type type;
    /// Number of dimensions of a buffer; 0 for scalars.
    int dimensions = 0;

    bool is_buffer() const { return kind != Kind::Scalar; }
};

/// A function ready for code generation: `body` reads its buffer arguments through the names
/// made by `ir/Names.h` (host pointer, mins, extents, strides).
struct LoweredFunc {
    std::string name;
    std::vector<LoweredArgument> args;
    Stmt body;
    /// What the buffer arguments must meet (their constraints), one line each, for the header:
    /// `input: dim(0).stride == 1`.
    std::vector<std::string> requirements;
};

/// One argument of a GPU kernel: a buffer it reads or writes (by its name in the host code,
/// where its `dsl_buffer_t *` is names::buffer_struct of it), or a scalar value.
struct KernelArgument {
    std::string name;
    /// The element type of a buffer (as it is stored: bool as uint8), or the scalar's type.
    Type type;
    bool is_buffer = false;
    bool read = false, written = false;
};

/// Shared memory of a kernel whose size the host computes before each launch (a producer's
/// tile of a size a Param gives): OpenCL passes it as a `__local` argument after the others,
/// CUDA as a part of the launch's dynamic shared memory.
struct DynamicSharedAllocation {
    /// The name of its GPUShared Allocate in the kernel's body.
    std::string name;
    Type type;
    /// Its bytes (int64, a multiple of 16), computed from the kernel's scalar arguments.
    Expr bytes;
};

/// A loop nest of GPU blocks and threads outlined from a host function
/// (lowering/OffloadGPULoops.h). The body finds its place through the GPUBlockIndex and
/// GPUThreadIndex intrinsics; the host launches it with a GPULaunch call.
struct GPUKernel {
    std::string name;
    DeviceAPI api = DeviceAPI::OpenCL;
    std::vector<KernelArgument> args;
    /// In the order of the GPULaunch call's sizes, after the arguments.
    std::vector<DynamicSharedAllocation> dynamic_shared;
    Stmt body;
};

struct Module {
    std::string name;
    std::vector<LoweredFunc> functions;
    /// The GPU kernels the functions launch, all for one API.
    std::vector<GPUKernel> kernels;
    /// Whether the functions offload loops to the NPU (its target needs the feature `npu`).
    bool uses_npu = false;
};

}  // namespace dsl::ir
