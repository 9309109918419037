#pragma once
/// The autoscheduler's vocabulary: what it knows of the machine, and what it returns.
///
///   Func out = ...;                       // the algorithm, no schedule
///   out.set_estimate(x, 0, 1920).set_estimate(y, 0, 1080);
///   input.dim(0).set_estimate(0, 1920).dim(1).set_estimate(0, 1080);
///   Pipeline p(out);
///   AutoSchedulerResults r = p.auto_schedule(Target::host());
///   std::cout << r.schedule_source;       // the schedule it applied, as C++
///
/// The schedule is made of the directives a person writes (split, vectorize, parallel,
/// compute_at, ...) and applied to the pipeline's Funcs; `schedule_source` is the same schedule
/// as C++ source, which Pipeline::apply_schedule_source reads back.

#include <cstdint>
#include <string>

#include "dsl/Target.h"

namespace dsl {

/// The machine a schedule is made for. Halide's three numbers: how many threads run the
/// parallel loops, the size of the last-level cache in bytes, and the cost of a byte brought
/// from memory relative to an arithmetic operation.
struct MachineParams {
    int parallelism = 0;
    uint64_t last_level_cache_size = 0;
    float balance = 0;

    MachineParams() = default;
    MachineParams(int parallelism, uint64_t llc, float balance)
        : parallelism(parallelism), last_level_cache_size(llc), balance(balance) {}
    /// Parses "parallelism,last_level_cache_size,balance" (to_string's form); a CompileError
    /// names what it cannot read.
    explicit MachineParams(const std::string &s);
    /// Halide's generic machine: 16 threads, 16 MiB of cache, balance 40.
    static MachineParams generic();
    /// This machine: the threads the runtime's pool runs (DSL_NUM_THREADS, or the cores), the
    /// last-level cache the system reports, balance 40.
    static MachineParams host();
    std::string to_string() const;
};

/// What an autoscheduler made of a pipeline.
struct AutoSchedulerResults {
    /// "dsl" (the built-in heuristic; Halide's names are accepted and mean the same).
    std::string scheduler_name;
    Target target;
    std::string machine_params_string;
    /// The schedule as C++: a block that takes the pipeline's Funcs by name
    /// (`Func blur_y = pipeline.get_func("blur_y");`) and schedules them.
    std::string schedule_source;
    /// The estimated cost of the schedule (arbitrary units: lower is faster), and of the same
    /// pipeline with every Func computed at root, unvectorized and serial.
    double estimated_cost = 0, baseline_cost = 0;
};

}  // namespace dsl
