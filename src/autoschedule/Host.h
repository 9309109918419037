#pragma once
/// What the system says of this machine, for MachineParams::host() and MachineCosts::measure():
/// the threads the runtime's pool runs and the cache sizes.

#include <cstdint>

namespace dsl::autoschedule {

/// DSL_NUM_THREADS, or the hardware's threads; at least 1.
int host_threads();
/// The size in bytes of a cache (sysconf's `_SC_LEVEL1_DCACHE_SIZE`, `_SC_LEVEL2_CACHE_SIZE` or
/// `_SC_LEVEL3_CACHE_SIZE`), or `fallback` where the system does not say.
uint64_t host_cache_size(int sysconf_name, uint64_t fallback);

}  // namespace dsl::autoschedule
