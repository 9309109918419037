#pragma once
/// The lowering driver: Funcs and schedules in, a Module of loop nests out (DESIGN.md §3).

#include <string>
#include <vector>

#include "dsl/Target.h"
#include "ir/Module.h"
#include "lang/Function.h"
#include "lowering/BufferChecks.h"
#include "lowering/Environment.h"
#include "lowering/SpecializeDenseBuffers.h"
#include "lowering/Tracing.h"

namespace dsl::lowering {

using ir::Stmt;

struct LoweredPipeline {
    /// One function, named after the pipeline; arguments: the inputs (by name), then one buffer
    /// per output value.
    ir::Module module;
    std::vector<PipelineInput> inputs;
    std::vector<std::string> outputs;
    /// The loops the schedule produces, for `Func::print_loop_nest`.
    std::string loop_nest;
    /// Whether an output may need a larger buffer than the region asked for (an update that
    /// writes elsewhere, a split that rounds up): its bounds query says how large.
    bool outputs_may_grow = false;
    /// Seconds spent lowering.
    double seconds = 0;
};

/// What the target asks lowering to add to the code: tracing of every Func (the trace_loads,
/// trace_stores and trace_realizations features) and the profiler (profile).
struct Instrumentation {
    TraceAll trace;
    bool profile = false;
    /// The fuzz_float_stores feature: lowering/FuzzFloatStores.h.
    bool fuzz_float_stores = false;
    /// The pipeline's name in the profiler's report; the function's name when empty.
    std::string profile_name;
};
Instrumentation instrumentation_for(const Target &target);

/// Lowers the pipeline that computes `outputs`, with the versions for the buffers' first-dimension
/// strides that `strides` asks for. `DSL_DEBUG=2` (or more) prints the statement after every
/// pass; `DSL_DEBUG_TIMING=1` prints the time of each pass.
LoweredPipeline lower(const std::vector<lang::Function> &outputs, const std::string &name,
                      StrideVersions strides = StrideVersions::Both,
                      Instrumentation instrumentation = {});

/// A compact rendering of the loops and stores of a statement (no bounds, no lets), with the
/// notes `env` has on storage (folding) and production (sliding windows) when given.
std::string print_loop_nest(const ir::Stmt &s, const Environment *env = nullptr);

}  // namespace dsl::lowering
