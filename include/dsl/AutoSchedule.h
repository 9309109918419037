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
    /// last-level cache the system reports, and balance 40 or, where dsl-calibrate measured
    /// this machine (MachineCosts::host), the measured one.
    static MachineParams host();
    std::string to_string() const;
};

/// What the autoscheduler's cost model charges on this machine, in nanoseconds: measured by
/// `dsl-calibrate` (MachineCosts::measure) and kept in a small text file that
/// MachineCosts::host() reads back. Without one the defaults, a 2-core AVX-512 machine's
/// numbers, stand in. The costs make AutoSchedulerResults::estimated_cost a prediction of the run
/// time and rank the tuner's candidates; the heuristic's decisions do not depend on them.
struct MachineCosts {
    /// Threads the machine runs parallel loops on.
    int threads = 2;
    /// One vector arithmetic operation at full throughput (independent operations in flight).
    double vector_op_ns = 0.195;
    /// Streaming a byte (read, or written) on one thread from each level: data that fits the
    /// first-level cache, the second, the last, and main memory.
    double l1_bytes_per_ns = 575, l2_bytes_per_ns = 200, llc_bytes_per_ns = 31,
           dram_bytes_per_ns = 22;
    /// Main memory with every thread streaming (all of them together).
    double dram_parallel_bytes_per_ns = 28;
    /// A parallel loop's start and end (forking the tasks and joining them), beyond its work.
    double parallel_loop_ns = 1800;
    /// Cache sizes in bytes (from the system; the levels above are measured inside them).
    uint64_t l1_bytes = 48u << 10, l2_bytes = 1u << 20, llc_bytes = 16u << 20;
    /// Where the numbers came from: "defaults", "measured", or the file they were read from.
    std::string source = "defaults";

    /// Measures this machine by compiling and timing small pipelines (about two seconds).
    static MachineCosts measure();
    /// The costs in the file at default_path(), or the defaults when there is none.
    static MachineCosts host();
    /// DSL_MACHINE_FILE, or $XDG_CONFIG_HOME/dsl/machine.txt, or ~/.config/dsl/machine.txt.
    static std::string default_path();
    /// Reads `name=value` lines (to_string's form); a CompileError names the file, the line and
    /// what it cannot read.
    static MachineCosts load(const std::string &path);
    /// Writes to_string() to `path`, creating its folder; a CompileError says why it cannot.
    void save(const std::string &path) const;
    std::string to_string() const;
    /// Halide's balance (MachineParams::balance): a byte from main memory over an arithmetic
    /// operation on one element, both on one thread.
    float balance(int vector_lanes) const;
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
    /// The estimated run time of the schedule in milliseconds at the estimated sizes, from the
    /// cost model with MachineCosts::host(), and of the same pipeline with every Func computed
    /// at root, unvectorized and serial.
    double estimated_cost = 0, baseline_cost = 0;
};

/// How Pipeline::auto_tune searches.
struct TuneOptions {
    /// The time budget in seconds (the search stops at the first candidate past it).
    double seconds = 120;
    /// The seed of the search: the same seed, budget and machine give the same candidates.
    uint64_t seed = 1;
    /// Timed runs per candidate; its time is the fastest.
    int repetitions = 5;
    /// Where to append one JSON object per line for every candidate measured (empty: no log).
    std::string log_file;
    /// A progress line on standard error, when it is a terminal.
    bool progress = true;
    /// The machine to plan for.
    MachineParams machine = MachineParams::host();
    /// Float outputs may differ from the reference by this much of their largest magnitude
    /// (fused multiply-adds round differently); integer outputs must be equal.
    double tolerance = 1e-4;
    /// Helper processes that compile a generation's candidates at once, into the JIT's disk
    /// cache, before this process times them one after another (0: one per hardware thread;
    /// 1: every candidate compiled here, in turn). They hand the code over through the disk
    /// cache, or, when it is off (DSL_CACHE_DIR=off), through a temporary directory of the
    /// tuner's own, deleted when it returns.
    int jobs = 0;
};

/// What Pipeline::auto_tune found.
struct TuneResults {
    /// The fastest schedule, as C++ source (see AutoSchedulerResults::schedule_source); the
    /// pipeline is left scheduled with it.
    std::string schedule_source;
    /// Its time, and the built-in autoscheduler's, in milliseconds: each the median of the
    /// final round (the three fastest schedules and the built-in one timed in turn three times,
    /// each time the fastest of the runs), or the fastest of the runs where nothing was
    /// measured but the built-in schedule.
    double best_ms = 0, heuristic_ms = 0;
    /// Candidates measured besides the built-in schedule (refused ones included), and those
    /// refused (a compile error, or an output that differed from the built-in schedule's).
    int measured = 0, rejected = 0;
    /// Candidates measured that helper processes had compiled (see TuneOptions::jobs), and
    /// those whose helper died from a signal: such a schedule crashes the compiler, and is
    /// refused without being compiled in this process.
    int compiled_by_helpers = 0, crashed = 0;
    /// The heuristic's parameters that gave the best schedule.
    std::string best_parameters;
};

}  // namespace dsl
