#include "dsl/NPU.h"

#include "npu/Npu.h"
#include "runtime/Runtime.h"

namespace dsl {

namespace {

NPUStats convert(const dsl_npu_stats &s) {
    NPUStats r;
    r.cycles = s.cycles;
    r.gemm_utilisation = s.gemm_utilisation;
    r.gemm_steps = s.gemm_steps;
    r.macs = s.macs;
    r.alu_rows = s.alu_rows;
    r.dram_bytes_read = s.dram_bytes_read;
    r.dram_bytes_written = s.dram_bytes_written;
    for (uint64_t n : s.instructions)
        r.instructions += n;
    for (int e = 0; e < 3; e++) {
        r.busy_cycles[e] = s.engine[e].busy_cycles;
        r.stall_cycles[e] = s.engine[e].stall_cycles;
    }
    char text[2048];
    dsl_npu_format_stats(&s, text, sizeof text);
    r.report = text;
    return r;
}

}  // namespace

NPUStats npu_last_run_stats() {
    dsl_npu_stats s{};
    dsl_runtime_npu_last_stats(&s);
    return convert(s);
}

NPUStats npu_total_stats() {
    dsl_npu_stats s{};
    dsl_runtime_npu_total_stats(&s, 0);
    return convert(s);
}

void npu_reset_stats() {
    dsl_runtime_npu_total_stats(nullptr, 1);
}

}  // namespace dsl
