// The Halide 14 peers' shared set-up (halide_peer.h). Compiled in only when Halide 14 is found.

#include "halide_peer.h"

namespace dsl_bench {

// The Halide target: the host as Halide 14 sees it, without avx512_sapphirerapids. On this
// AMD Zen 5, Halide 14 detects avx512_sapphirerapids (the CPU has AVX512-BF16 and -VNNI) and
// compiles for LLVM's "sapphirerapids", whose AVX512-FP16 instructions Zen 5 lacks: the blur's
// code then dies on an illegal instruction (vmovw). Without that feature Halide compiles for
// "cannonlake" (AVX-512 F, CD, BW, DQ, VL, IFMA, VBMI), which this CPU has, as ours uses
// AVX-512 with the host's own features.
const Halide::Target &halide_target() {
    static const Halide::Target target =
        Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids);
    return target;
}

// A serial do_par_for: every task of a parallel loop on the calling thread, in order.
int serial_do_par_for(Halide::JITUserContext *context,
                      int (*task)(Halide::JITUserContext *, int, uint8_t *), int min, int extent,
                      uint8_t *closure) {
    for (int i = min; i < min + extent; i++) {
        if (int status = task(context, i, closure)) return status;
    }
    return 0;
}

namespace {

// Starts Halide's thread pool at `threads` threads: calls the runtime's halide_set_num_threads
// from a JIT pipeline (before any parallel work, the pool then starts with that many).
void set_halide_pool_threads(int threads) {
    Halide::Param<int> n("n");
    Halide::Func set_threads("set_threads");
    set_threads() = Halide::Internal::Call::make(Halide::Int(32), "halide_set_num_threads", {n},
                                                 Halide::Internal::Call::Extern);
    n.set(threads);
    Halide::Buffer<int> previous = Halide::Buffer<int>::make_scalar();
    set_threads.realize(previous, halide_target());
}

}  // namespace

void ensure_pool_of_two() {
    static const bool done = (set_halide_pool_threads(2), true);
    (void)done;
}

}  // namespace dsl_bench
