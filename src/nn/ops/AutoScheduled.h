#pragma once
/// The operator library on a GPU target (docs/nn.md, "GPU targets"): a kernel's Funcs scheduled
/// by the built-in autoscheduler's GPU mode from the tensor's shape, in place of the operators'
/// CPU schedules.

#include "dsl/Target.h"
#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// Schedules the pipeline of `t` (computed into an output buffer that holds the whole tensor)
/// as GPU kernels for `target`, which has a GPU API, and returns true; or returns false, having
/// changed nothing, where the autoscheduler cannot model the pipeline (an extent that depends
/// on a value it has no estimate of): the caller's CPU schedule then runs on the host.
bool schedule_output_for_gpu(const Tensor &t, const Target &target);

/// Whether the schedule of some stage of the pipeline of `f` has GPU block loops (so that the
/// pipeline launches kernels).
bool has_gpu_loops(const Func &f);

}  // namespace dsl::nn
