#pragma once
/// Random pipelines with random schedules, for the differential fuzzer.
///
/// A case is a DAG of 1-8 two-dimensional Funcs over one or two ImageParams read through
/// boundary conditions: pointwise arithmetic and stencils across five element types (casts,
/// selects, integer division and modulo by any value, bitwise ops, min/max), reductions over
/// RDoms (some with `where`), updates at every point, scans along x, scatter histograms and
/// Tuples with an argmax update. Its schedule uses every directive (split with each tail
/// strategy, fuse, reorder, tile, vectorize, unroll, parallel, rename, compute_root,
/// compute_at, store_at, store_root, reorder_storage, bound, bound_extent, specialize) at random
/// loops and factors, legal by construction (a bound_extent may be smaller than what its readers
/// need: that case must fail with the bound's runtime error, see FuzzCase::bounded_funcs).
/// `make_illegal_case` adds one directive that must be refused.
///
/// Everything the generator does is also written as C++, so a failing case prints a program
/// that rebuilds it.

#include <cstdint>
#include <string>
#include <vector>

#include "dsl/dsl.h"

namespace dsl::fuzz {

/// A Func of a case, as a scheduler outside the generator sees it (make_gpu_case).
struct FuzzFunc {
    Func f;
    std::string name;
    bool inlined = false;
    /// Per stage, its loops innermost first: the name, and whether it is an RVar.
    std::vector<std::vector<std::pair<std::string, bool>>> stage_loops;
    /// The stages (Func index, stage) that read it, through inlined Funcs too.
    std::vector<std::pair<int, int>> users;
};

struct FuzzCase {
    uint64_t seed = 0;
    Func output;
    std::vector<int> output_size;
    /// The inputs, already bound to their buffers.
    std::vector<ImageParam> inputs;
    std::vector<Buffer<>> input_buffers;
    Param<int32_t> param{"p0", 0};
    /// The pipeline and its schedule as C++ (see the file comment).
    std::string algorithm_code;
    std::string schedule_code;
    /// What the illegal directive of `make_illegal_case` is, for the report.
    std::string illegal_directive;
    /// Set when the illegal directive was refused as it was given, with the message.
    bool refused_early = false;
    std::string early_message;
    /// The Funcs given a bound_extent: a runtime error saying one of them is needed over more
    /// points than its bound is an accepted outcome of the case.
    std::vector<std::string> bounded_funcs;
    /// Whether its buffers were given constraints (dim(d).set_...).
    bool constrained = false;
    /// Which of the inputs and whether the Param are read by the pipeline (its AOT arguments).
    std::vector<bool> input_read;
    bool reads_param = false;
    /// False when the pipeline may read fewer than those (a consumer of an inlined Tuple reads
    /// only some of its values): such a case is not compiled ahead of time.
    bool arguments_exact = true;
    int funcs = 0;
    /// The Funcs (the output last), for make_gpu_case.
    std::vector<FuzzFunc> func_specs;
    /// Scheduled by the autoscheduler (make_auto_case).
    bool auto_scheduled = false;
    /// Given atomic() schedules (make_atomic_case).
    bool atomic_scheduled = false;
    /// What the case is realized for.
    Target target = get_jit_target_from_environment();

    /// A self-contained C++ reproduction: declarations, algorithm, schedule, realize.
    std::string reproduction() const;
};

/// Whether the cases made from now on draw float16 and bfloat16 Funcs too (dsl_fuzz
/// --half-floats), beside the five element types.
void set_half_floats(bool on);
bool half_floats();

/// A random pipeline with a random legal schedule.
FuzzCase make_case(uint64_t seed);

/// make_case's pipeline and schedule, plus atomic() on its associative updates (window sums,
/// minima and maxima, histograms) with a loop over their RVars vectorized or parallel.
FuzzCase make_atomic_case(uint64_t seed);

/// A random pipeline whose Funcs are inlined or not at random, and not scheduled otherwise.
FuzzCase make_unscheduled_case(uint64_t seed);

/// A random pipeline with a random legal GPU schedule (GPUSchedules.cpp), for OpenCL: stages
/// at root tiled into blocks and threads (or left on the host), producers computed per block
/// (in shared memory, by the block's threads or its first) or per thread.
FuzzCase make_gpu_case(uint64_t seed);
/// The target of make_gpu_case's cases: host-opencl, or what DSL_FUZZ_GPU_TARGET names.
Target gpu_fuzz_target();
/// An empty string when kernels of gpu_fuzz_target() run on this machine, else why not.
std::string gpu_fuzz_unavailable();

/// A random int8 contraction with its update on the NPU (NPUSchedules.cpp), for host-npu.
FuzzCase make_npu_case(uint64_t seed);

/// A random pipeline scheduled by the autoscheduler (AutoSchedules.cpp), told the output's size
/// or another one.
FuzzCase make_auto_case(uint64_t seed);

/// A random pipeline with a random legal schedule plus one illegal directive (compute_at a Func
/// that does not use it, storage inside the compute loop, a loop name that does not exist, a
/// factor of zero, ...). Realizing it must throw CompileError.
FuzzCase make_illegal_case(uint64_t seed);

}  // namespace dsl::fuzz
