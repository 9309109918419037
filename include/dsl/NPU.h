#pragma once
/// What the NPU did in its last run: the counters and the cycle model of the simulator
/// (src/npu/README.md). DSL_NPU_STATS=1 in the environment prints the same after every run.

#include <cstdint>
#include <string>

namespace dsl {

struct NPUStats {
    /// Cycles until the last engine finished, and GEMM steps over cycles.
    uint64_t cycles = 0;
    double gemm_utilisation = 0;
    uint64_t gemm_steps = 0, macs = 0, alu_rows = 0;
    uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
    uint64_t instructions = 0;
    /// Per engine (load, compute, store): cycles executing, and waiting for tokens.
    uint64_t busy_cycles[3] = {0, 0, 0}, stall_cycles[3] = {0, 0, 0};
    /// The report DSL_NPU_STATS=1 prints (several lines).
    std::string report;
};

/// The last program this process ran on its NPU (from realize() or from a compiled library).
NPUStats npu_last_run_stats();
/// The sums over every program run since the process started or since npu_reset_stats() (a
/// layer that runs its sum and then its requantization on the NPU is two programs); its GEMM
/// utilisation is the steps over all those cycles.
NPUStats npu_total_stats();
void npu_reset_stats();

}  // namespace dsl
