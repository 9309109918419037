// Lesson 18: offloading an int8 matrix multiply to the NPU, step by step, with its cycle report.
//
// The NPU (src/npu/README.md) is a tensor accelerator of the kind phones put beside the CPU: a
// GEMM core that multiplies a row of 16 int8 values by a 16 x 16 int8 block each cycle into 16
// int32 accumulators, three on-chip buffers (inputs, weights, accumulators), and three engines
// (load, compute, store) that overlap when the program lets them. dsl ships it as a bit-exact
// simulator with a cycle model, so its schedules run, and are checked, on any machine.
//
//   1. The algorithm: c(n, m) = sum over k of a(k, m) * b(n, k), int8 in, int32 out.
//   2. The CPU schedule: the reference every NPU result must equal bit for bit.
//   3. npu_gemm(): the update runs on the NPU (target host-npu). The compiler finds the three
//      loops' roles (rows, output channels, contraction) from the indices and checks the
//      types; each call copies a and b into the NPU's layouts, writes the instructions for the
//      sizes it is given (any sizes: partial blocks are padded with zeros), runs them, and
//      copies c back.
//   4. npu_tile(rows) and npu_pipeline(copies) change the program, not the result: with two
//      copies of each on-chip tile, the next tile's load and the last tile's store overlap
//      this tile's GEMMs. npu_last_run_stats() (or DSL_NPU_STATS=1) says what the NPU did.
//   5. Requantization, as int8 networks do it: a second update rescales each int32 sum to the
//      int8 range by a per-channel multiplier and shift (multiply_by_quantized_multiplier,
//      TFLite's arithmetic), adds a zero point and clamps. Scheduled on the NPU too, it runs on
//      its ALU, inside the sum's program: each tile is requantized before it is stored.
//
// Run it: build/tutorials/lesson_18_npu

#include <cstdio>
#include <random>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

Buffer<int8_t> random_matrix(int w, int h, uint32_t seed) {
    Buffer<int8_t> b(w, h);
    std::mt19937 rng(seed);
    b.for_each_element(
        [&](int x, int y) { b(x, y) = static_cast<int8_t>(int(rng() % 256) - 128); });
    return b;
}

/// Step 1: the algorithm, for inputs of K columns.
Func matmul(const Buffer<int8_t> &a, const Buffer<int8_t> &b) {
    Var n("n"), m("m");
    RDom k(0, a.width(), "k");
    Func c("c");
    c(n, m) = 0;
    c(n, m) += cast<int32_t>(a(k, m)) * cast<int32_t>(b(n, k));
    return c;
}

bool same(const Buffer<int32_t> &x, const Buffer<int32_t> &y) {
    bool equal = true;
    x.for_each_element([&](int i, int j) { equal = equal && x(i, j) == y(i, j); });
    return equal;
}

}  // namespace

int main() {
    const int M = 256, N = 256, K = 256;
    Buffer<int8_t> a = random_matrix(K, M, 1), b = random_matrix(N, K, 2);

    // Step 2: on the CPU.
    Func cpu = matmul(a, b);
    cpu.update().vectorize(Var("n"), 16).parallel(Var("m"));
    Buffer<int32_t> want = cpu.realize({N, M});

    // Step 3: the whole update on the NPU.
    Func npu = matmul(a, b);
    npu.update().npu_gemm();
    Buffer<int32_t> got = npu.realize({N, M}, Target("host-npu"));
    std::printf("npu_gemm(): %s the CPU's result\n", same(got, want) ? "equals" : "DIFFERS FROM");
    NPUStats stats = npu_last_run_stats();
    std::printf("%s", stats.report.c_str());
    if (!same(got, want)) return 1;

    // Step 4: tiles of 64 rows, one copy of each tile and then two.
    for (int copies : {1, 2}) {
        Func tiled = matmul(a, b);
        tiled.update().npu_gemm().npu_tile(64).npu_pipeline(copies);
        Buffer<int32_t> out = tiled.realize({N, M}, Target("host-npu"));
        stats = npu_last_run_stats();
        std::printf(
            "npu_tile(64), npu_pipeline(%d): %llu cycles, GEMM busy %.1f%% of them; "
            "load engine stalled %llu cycles, store engine %llu\n",
            copies, static_cast<unsigned long long>(stats.cycles), 100 * stats.gemm_utilisation,
            static_cast<unsigned long long>(stats.stall_cycles[0]),
            static_cast<unsigned long long>(stats.stall_cycles[2]));
        if (!same(out, want)) return 1;
    }

    // Step 5: requantized to the int8 range, per output channel, on the NPU's ALU.
    Buffer<int32_t> multiplier(N), shift(N);
    for (int n = 0; n < N; n++) {
        multiplier(n) = (1 << 30) + n * 1000003;  // factors in [0.5, 1) as Q31
        shift(n) = -8 - n % 4;                    // then divided by 2^8 .. 2^11
    }
    Func requantized[2];
    for (int on_npu : {0, 1}) {
        Func &r = requantized[on_npu];
        r = matmul(a, b);
        Var n = r.args()[0], m = r.args()[1];
        r(n, m) = clamp(3 + multiply_by_quantized_multiplier(r(n, m), multiplier(n), shift(n)),
                        -128, 127);
        if (on_npu) {
            r.update(0).npu_gemm();
            r.update(1).npu_gemm();
        }
    }
    Buffer<int32_t> int8_cpu = requantized[0].realize({N, M});
    Buffer<int32_t> int8_npu = requantized[1].realize({N, M}, Target("host-npu"));
    stats = npu_last_run_stats();
    std::printf("requantized on the ALU: %s the CPU's; one program of %llu cycles, %llu ALU rows\n",
                same(int8_npu, int8_cpu) ? "equals" : "DIFFERS FROM",
                static_cast<unsigned long long>(stats.cycles),
                static_cast<unsigned long long>(stats.alu_rows));
    if (!same(int8_npu, int8_cpu)) return 1;

    // A schedule that cannot map says why: here a contraction of uint8 values.
    Buffer<uint8_t> pixels(K, M);
    pixels.fill(1);
    Var n("n"), m("m");
    RDom k(0, K, "k");
    Func unsigned_mm("unsigned_mm");
    unsigned_mm(n, m) = 0;
    unsigned_mm(n, m) += cast<int32_t>(pixels(k, m)) * cast<int32_t>(b(n, k));
    unsigned_mm.update().npu_gemm();
    try {
        unsigned_mm.realize({N, M}, Target("host-npu"));
    } catch (const CompileError &e) {
        std::printf("as expected: %s\n", e.what());
    }
    return 0;
}
