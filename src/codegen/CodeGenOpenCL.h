#pragma once
/// OpenCL C code generation: the GPU kernels of a module (lowering/OffloadGPULoops.h) as one
/// OpenCL C program, which the runtime builds with the OpenCL driver when a kernel is first
/// launched (runtime/OpenCL.c).

#include <string>
#include <vector>

#include "ir/Module.h"

namespace dsl::codegen {

/// The OpenCL C source of `kernels`: one `__kernel` function per kernel, named as the kernel,
/// taking its arguments in order (a buffer as a `__global` pointer to its element type). Float
/// arithmetic is rounded as written unless `fp_contract` (the target's) allows fused
/// multiply-adds. Features the OpenCL back end does not have yet (vectors inside kernels,
/// float16, printing) are CompileErrors naming the kernel.
std::string compile_to_opencl_c(const std::vector<ir::GPUKernel> &kernels, bool fp_contract);

}  // namespace dsl::codegen
