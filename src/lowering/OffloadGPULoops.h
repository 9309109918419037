#pragma once
/// GPU offload (DESIGN.md §3, pass 9): each nest of loops scheduled with gpu_blocks and
/// gpu_threads becomes a kernel of the module, launched from the host function; the buffers the
/// kernels use get device copies that are kept coherent with the host's.

#include <set>
#include <string>
#include <vector>

#include "ir/Module.h"

namespace dsl::lowering {

/// Outlines every outermost GPU block loop of `s` (a host function named `function`, storage
/// already flattened) into a kernel appended to `kernels`, replacing it by a GPULaunch of the
/// kernel. Host code around it that reads or writes a buffer the kernels use first copies it
/// back from the device (GPUCopyToHost) and, after writing, marks the host's copy newer
/// (GPUSetHostDirty); so does host code that touches one of `arguments` (the pipeline's input
/// and output buffers, which a caller may pass with newer data on the device) once the pipeline
/// has a kernel. Allocations that kernels use get a `dsl_buffer_t` (MakeDescriptor) whose
/// device memory is released where the allocation ends. Schedules that cannot run as kernels
/// (thread loops outside block loops, more than three of a kind, parallel loops inside a
/// kernel, ...) are CompileErrors naming the loop.
ir::Stmt offload_gpu_loops(const ir::Stmt &s, const std::string &function,
                           const std::set<std::string> &arguments,
                           std::vector<ir::GPUKernel> &kernels);

}  // namespace dsl::lowering
