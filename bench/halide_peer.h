#pragma once
// What every Halide 14 peer of dsl_bench shares (halide_peer.cpp): the target it compiles for,
// and running its parallel loops on one thread or on a pool of two.

#include <Halide.h>

#include <cstdint>

namespace dsl_bench {

/// The host as Halide 14 sees it, without avx512_sapphirerapids (halide_peer.cpp says why).
const Halide::Target &halide_target();

/// A do_par_for that runs every task of a parallel loop on the calling thread, in order: set
/// as `jit_handlers().custom_do_par_for` for one thread.
int serial_do_par_for(Halide::JITUserContext *context,
                      int (*task)(Halide::JITUserContext *, int, uint8_t *), int min, int extent,
                      uint8_t *closure);

/// Starts Halide's thread pool at two threads, once (for the runs with two threads).
void ensure_pool_of_two();

}  // namespace dsl_bench
