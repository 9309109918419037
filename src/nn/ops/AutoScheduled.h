#pragma once
/// The operator library's use of the built-in autoscheduler (docs/nn.md, "Schedules"): on a GPU
/// target every kernel's Funcs, scheduled by its GPU mode from the tensor's shape in place of the
/// operators' CPU schedules; on a CPU the kernels that no operator schedules.

#include "dsl/Target.h"
#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// Schedules the pipeline of `t` (computed into an output buffer that holds the whole tensor)
/// as GPU kernels for `target`, which has a GPU API, and returns true; or returns false, having
/// changed nothing, where the autoscheduler cannot model the pipeline (an extent that depends
/// on a value it has no estimate of): the caller's CPU schedule then runs on the host.
bool schedule_output_for_gpu(const Tensor &t, const Target &target);

/// Schedules the pipeline of `t` (computed into an output buffer that holds the whole tensor)
/// with the autoscheduler for the CPU `target` and returns true, where no Func of it has a
/// schedule of its own (no operator scheduled it), the tensor's shape is known, and the default
/// schedule (producers inlined, vectors along the innermost axis, threads over the others) would
/// leave work undone: a reduction (which it computes serially) or a producer read at several
/// points per point (which inlining recomputes). Returns false, having changed nothing,
/// otherwise.
bool schedule_output_automatically(const Tensor &t, const Target &target);
/// Whether schedule_output_automatically schedules `t`; sets the estimates of its output from
/// its shape, and changes no schedule.
bool auto_schedules_on_cpu(const Tensor &t, const Target &target);

/// Whether the schedule of some stage of the pipeline of `f` has GPU block loops (so that the
/// pipeline launches kernels).
bool has_gpu_loops(const Func &f);

}  // namespace dsl::nn
