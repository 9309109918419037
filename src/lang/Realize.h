#pragma once
/// The JIT's realize() of pipelines, and what it did (for tests): how often it lowered and
/// compiled a pipeline.

#include <cstdint>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Param.h"
#include "dsl/Target.h"
#include "lang/Function.h"
#include "lowering/Lower.h"

namespace dsl::lang {

struct JITCounters {
    uint64_t lowerings = 0;     // pipelines lowered by realize(), compile_jit() or the NN
                                // layer's kernels (count_lowerings)
    uint64_t compilations = 0;  // of those, not found in the in-memory cache: compiled to machine
                                // code, or loaded from the disk cache
    // What the disk cache did for those (none of these when it is off):
    uint64_t disk_cache_hits = 0;      // loaded from it, not compiled
    uint64_t disk_cache_misses = 0;    // not in it: compiled
    uint64_t disk_cache_rejected = 0;  // an entry failed a check: deleted, compiled anew
    uint64_t disk_cache_stores = 0;    // compiled objects written to it
};

/// The counts since the process started, over all threads.
JITCounters jit_counters();
/// Adds `n` lowerings made outside realize() (a kernel of the NN layer) to jit_counters().
void count_lowerings(int n);

/// realize() of the pipeline of `outputs` into `buffers` (one per value of each output, in
/// order) with the JIT: compiled when needed, run, its errors thrown as RuntimeErrors (or given
/// to a custom_error handler). `context` (may be null) brings JIT handlers that take the place
/// of the first output's.
void realize_pipeline(const std::vector<Function> &outputs, const std::vector<Buffer<>> &buffers,
                      const Target &target, JITUserContext *context = nullptr);
/// The same into new buffers over [0, size) for every value of each output, which it returns.
std::vector<Buffer<>> realize_pipeline(const std::vector<Function> &outputs,
                                       const std::vector<int> &sizes, const Target &target,
                                       JITUserContext *context = nullptr);
/// infer_input_bounds() of the pipeline of `outputs` computing into `buffers`: every
/// ImageParam it reads that has no buffer gets one of the region the pipeline needs of it, and
/// every buffer of `buffers` without memory the region the pipeline writes (Halide's bounds
/// query on outputs).
void infer_input_bounds(const std::vector<Function> &outputs, const std::vector<Buffer<>> &buffers,
                        const Target &target);
/// The same for outputs over [0, size).
void infer_input_bounds(const std::vector<Function> &outputs, const std::vector<int> &sizes,
                        const Target &target);
/// The ParamMap of the realize() or infer_input_bounds() call running on this thread while it
/// lives: the values the calls above take before the Params' own (Func::realize with a
/// ParamMap).
class ScopedParamMap {
  public:
    explicit ScopedParamMap(const ParamMap &params);
    ~ScopedParamMap();
    ScopedParamMap(const ScopedParamMap &) = delete;
    ScopedParamMap &operator=(const ScopedParamMap &) = delete;

  private:
    const ParamMap *outer_;
};

/// compile_jit() of the pipeline of `outputs`.
void compile_pipeline_jit(const std::vector<Function> &outputs, const Target &target);
/// What realize() without a target compiles for: the target of `f`'s last compile_jit(), else
/// get_jit_target_from_environment().
Target default_jit_target(const Function &f);
/// The outputs' names, for messages and symbols: "f" or "f, g".
std::string names_of(const std::vector<Function> &outputs);
/// The pipeline lowered as the JIT lowers it (for loop nests and statements).
lowering::LoweredPipeline lower_pipeline(const std::vector<Function> &outputs);
/// The code of the pipeline's GPU kernels for `target`: those on OpenCL as OpenCL C (`api`
/// OpenCL), those on CUDA as PTX (CUDA), or both (Default_GPU). A CompileError without GPU
/// loops.
std::string device_code(const std::vector<Function> &outputs, const Target &target, DeviceAPI api);

}  // namespace dsl::lang
