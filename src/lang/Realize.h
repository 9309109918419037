#pragma once
/// What the JIT's realize() did, for tests: how often it lowered and compiled a pipeline.

#include <cstdint>

namespace dsl::lang {

struct JITCounters {
    uint64_t lowerings = 0;     // pipelines lowered by realize() or compile_jit()
    uint64_t compilations = 0;  // of those, compiled to machine code (not found in the cache)
};

/// The counts since the process started, over all threads.
JITCounters jit_counters();

}  // namespace dsl::lang
