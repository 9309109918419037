#pragma once
/// What the JIT's realize() did, for tests: how often it lowered and compiled a pipeline.

#include <cstdint>

namespace dsl::lang {

struct JITCounters {
    uint64_t lowerings = 0;     // pipelines lowered by realize() or compile_jit()
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

}  // namespace dsl::lang
