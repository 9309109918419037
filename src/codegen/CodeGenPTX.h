#pragma once
/// PTX code generation: the GPU kernels of a module (lowering/OffloadGPULoops.h) as one PTX
/// module for NVIDIA GPUs, through LLVM's NVPTX back end. The CUDA runtime (runtime/CUDA.c)
/// loads it with the driver, which assembles it for the GPU it runs on.

#include <string>
#include <vector>

#include "ir/Module.h"

namespace dsl::codegen {

/// The PTX of `kernels` for GPUs of compute capability `capability` (e.g. 80 for sm_80): one
/// `.entry` per kernel, named as the kernel, taking its arguments in order (a buffer as a
/// pointer to global memory). Float arithmetic is rounded as written unless `fp_contract`.
/// exp, log, pow, sin, cos, tan and atan2 come from the CUDA toolkit's libdevice
/// (DSL_CUDA_PATH, else /usr/local/cuda); a kernel that needs one where the toolkit is absent
/// is a CompileError naming the function.
std::string compile_to_ptx(const std::vector<ir::GPUKernel> &kernels, int capability,
                           bool fp_contract);

/// Where the CUDA toolkit is: DSL_CUDA_PATH if set, else /usr/local/cuda if it exists, else
/// the newest /usr/local/cuda-*; empty if none.
std::string cuda_toolkit_path();

}  // namespace dsl::codegen
