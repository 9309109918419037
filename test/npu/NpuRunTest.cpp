// Whole NPU programs: tiled matmuls against a plain C++ loop in program order, in the cycle
// model's order and in random interleavings (identical memory); the race checker, deadlocks,
// bounds and program errors, each named in its message; the cycle model (double buffering
// against single, a tile-size sweep); other block sizes.
#include <cstdio>
#include <cstdlib>

#include "NpuTestUtil.h"

using namespace npu_test;

namespace {

std::vector<int32_t> run_matmul(Matmul &m, int tile_m, int buffers, int order, uint64_t seed,
                                dsl_npu_stats *stats = nullptr) {
    Device d;
    m.upload(d, 16);
    Program p = m.program(16, tile_m, buffers);
    EXPECT_EQ(d.run(p, order, seed, stats), DSL_NPU_OK) << d.error;
    return d.read<int32_t>(m.c_at, size_t(m.M) * m.N);
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST(NpuRun, MatmulMatchesTheReferenceInEveryOrder) {
    Matmul m(64, 48, 32, 1);
    const std::vector<int32_t> want = m.reference();
    EXPECT_EQ(run_matmul(m, 16, 2, DSL_NPU_SERIAL, 0), want);
    EXPECT_EQ(run_matmul(m, 16, 2, DSL_NPU_DATAFLOW, 0), want);
    for (uint64_t seed = 1; seed <= 20; seed++)
        ASSERT_EQ(run_matmul(m, 16, 2, DSL_NPU_RANDOM, seed), want) << "seed " << seed;
    EXPECT_EQ(run_matmul(m, 32, 1, DSL_NPU_RANDOM, 3), want);
}

TEST(NpuRun, CountersAndCyclesAreTheSameInEveryOrder) {
    Matmul m(64, 64, 64, 2);
    dsl_npu_stats serial, dataflow, random;
    run_matmul(m, 16, 2, DSL_NPU_SERIAL, 0, &serial);
    run_matmul(m, 16, 2, DSL_NPU_DATAFLOW, 0, &dataflow);
    run_matmul(m, 16, 2, DSL_NPU_RANDOM, 9, &random);
    for (const dsl_npu_stats *s : {&serial, &random}) {
        EXPECT_EQ(s->cycles, dataflow.cycles);
        EXPECT_EQ(s->gemm_steps, dataflow.gemm_steps);
        EXPECT_EQ(s->macs, dataflow.macs);
        EXPECT_EQ(s->dram_bytes_read, dataflow.dram_bytes_read);
        EXPECT_EQ(s->dram_bytes_written, dataflow.dram_bytes_written);
    }
    EXPECT_EQ(dataflow.gemm_steps, 64u * 4 * 4);
    EXPECT_EQ(dataflow.macs, 64u * 64 * 64);
    EXPECT_EQ(dataflow.dram_bytes_written, 64u * 64 * 4);
    EXPECT_EQ(dataflow.dram_bytes_read, 64u * 64 * 2);
    EXPECT_EQ(dataflow.instructions[DSL_NPU_FINISH], 1u);
    uint64_t instructions = 0;
    for (const dsl_npu_engine_stats &e : dataflow.engine) {
        instructions += e.instructions;
        EXPECT_LE(e.busy_cycles + e.stall_cycles, dataflow.cycles);
    }
    EXPECT_EQ(instructions, dataflow.instructions[0] + dataflow.instructions[1] +
                                dataflow.instructions[2] + dataflow.instructions[3] +
                                dataflow.instructions[4]);
}

TEST(NpuRun, ARemovedTokenIsARaceThatNamesBothInstructions) {
    Matmul m(64, 32, 32, 3);
    Device d;
    m.upload(d, 16);
    Program p = m.program(16, 16, 2);
    // The GEMMs of the first tile no longer tell the store engine the tile is ready. Remove the
    // matching pop too, so that the tokens still balance: only the ordering is gone.
    size_t gemm = 0, stored = 0;
    for (size_t i = 0; i < p.ops.size(); i++) {
        if (!gemm && p.ops[i].opcode == DSL_NPU_GEMM && (p.ops[i].deps & DSL_NPU_PUSH_NEXT))
            gemm = i;
        if (!stored && p.ops[i].opcode == DSL_NPU_STORE) stored = i;
    }
    p.ops[gemm].deps &= ~DSL_NPU_PUSH_NEXT;
    p.ops[stored].deps &= ~DSL_NPU_POP_PREV;
    for (int order : {DSL_NPU_SERIAL, DSL_NPU_DATAFLOW, DSL_NPU_RANDOM}) {
        ASSERT_EQ(d.run(p, order, 5), DSL_NPU_ERROR_RACE) << order << ": " << d.error;
        EXPECT_TRUE(contains(d.error, "NPU race on ACC element")) << d.error;
        EXPECT_TRUE(contains(d.error, "#" + std::to_string(stored) + " (STORE")) << d.error;
        EXPECT_TRUE(contains(d.error, "(GEMM")) << d.error;
        EXPECT_TRUE(contains(d.error, "no token orders the two")) << d.error;
    }
    // A load of the next A tile into the copy still being read: the load engine's pop removed.
    Program q = m.program(16, 16, 2);
    for (dsl_npu_op &op : q.ops) {
        if (op.opcode == DSL_NPU_LOAD && (op.deps & DSL_NPU_POP_NEXT)) {
            op.deps &= ~DSL_NPU_POP_NEXT;
            break;
        }
    }
    // (The compute engine's matching push now has no pop: a token left over, not an error.)
    ASSERT_EQ(d.run(q), DSL_NPU_ERROR_RACE) << d.error;
    EXPECT_TRUE(contains(d.error, "NPU race on INP element")) << d.error;
}

TEST(NpuRun, ADeadlockSaysWhatEachEngineWaitsFor) {
    Device d;
    const uint64_t buf = d.alloc(64);
    Program p;
    p << load(DSL_NPU_INP, 0, buf, 1, 1, 0, 16, DSL_NPU_POP_NEXT) << reset(0, 1, DSL_NPU_POP_PREV)
      << finish();
    EXPECT_EQ(d.run(p), DSL_NPU_ERROR_DEADLOCK);
    EXPECT_TRUE(contains(d.error, "NPU deadlock")) << d.error;
    EXPECT_TRUE(contains(d.error, "#0 (LOAD INP")) << d.error;
    EXPECT_TRUE(contains(d.error, "on the load engine waits for a token from the compute engine"))
        << d.error;
    EXPECT_TRUE(contains(d.error, "#1 (GEMM reset")) << d.error;
    // In program order, a pop before its push is named as such.
    Program q;
    q << reset(0, 1, DSL_NPU_POP_PREV) << load(DSL_NPU_INP, 0, buf, 1, 1, 0, 16, DSL_NPU_PUSH_NEXT)
      << finish();
    EXPECT_EQ(d.run(q, DSL_NPU_SERIAL), DSL_NPU_ERROR_DEADLOCK);
    EXPECT_TRUE(contains(d.error, "not a valid serial order")) << d.error;
    // The same program runs in the dataflow order (the load engine goes first).
    EXPECT_EQ(d.run(q, DSL_NPU_DATAFLOW), DSL_NPU_OK) << d.error;
}

TEST(NpuRun, AFullQueueIsADeadlockWhenNothingDrainsIt) {
    dsl_npu_config c;
    dsl_npu_default_config(&c);
    c.queue_depth = 2;
    Device d(&c);
    const uint64_t buf = d.alloc(64);
    // Three tokens to the compute engine, which first waits for the store engine, which waits
    // for the compute engine.
    Program p;
    for (int i = 0; i < 3; i++)
        p << load(DSL_NPU_INP, 0, buf, 1, 1, 0, 16, DSL_NPU_PUSH_NEXT);
    p << reset(0, 1, DSL_NPU_POP_NEXT) << store(DSL_NPU_I32, 0, buf, 1, 1, 0, 64, DSL_NPU_POP_PREV)
      << finish();
    EXPECT_EQ(d.run(p), DSL_NPU_ERROR_DEADLOCK);
    EXPECT_TRUE(contains(d.error, "waits for room in its queue to the compute engine")) << d.error;
}

TEST(NpuRun, AccessesOutsideABufferOrAnAllocationAreRefused) {
    Device d;
    const uint64_t buf = d.alloc(100);
    Program p;
    p << gemm(2040, 0, 0, 2, 8, 8, 0, 0, 0, 0, 0) << finish();  // ACC rows 2040 and 2048
    EXPECT_EQ(d.run(p), DSL_NPU_ERROR_BOUNDS);
    EXPECT_TRUE(contains(d.error, "#0 (GEMM")) << d.error;
    EXPECT_TRUE(contains(d.error, "ACC elements 2040 to 2048, but ACC holds 2048")) << d.error;
    Program q;
    q << load(DSL_NPU_INP, 0, buf, 2, 4, 100, 16) << finish();  // bytes [buf, buf + 164)
    EXPECT_EQ(d.run(q), DSL_NPU_ERROR_BOUNDS);
    EXPECT_TRUE(contains(d.error, "reads DRAM bytes")) << d.error;
    EXPECT_TRUE(contains(d.error, "which no one allocation holds")) << d.error;
    // Nothing ran: a later instruction's error stops the program before its first one.
    const uint64_t out = d.alloc(64);
    Program r;
    r << reset(0, 1, DSL_NPU_PUSH_NEXT) << store(DSL_NPU_I32, 0, out, 1, 1, 0, 64, DSL_NPU_POP_PREV)
      << load(DSL_NPU_WGT, 1023, buf, 1, 2, 0, 256) << finish();
    d.at(out)[0] = 9;
    EXPECT_EQ(d.run(r), DSL_NPU_ERROR_BOUNDS);
    EXPECT_EQ(d.at(out)[0], 9);
}

TEST(NpuRun, AProgramEndsWithOneFinish) {
    Device d;
    Program none;
    none << reset(0, 1);
    EXPECT_EQ(d.run(none), DSL_NPU_ERROR_PROGRAM);
    EXPECT_TRUE(contains(d.error, "does not end with a FINISH")) << d.error;
    Program early;
    early << finish() << reset(0, 1) << finish();
    EXPECT_EQ(d.run(early), DSL_NPU_ERROR_PROGRAM);
    EXPECT_TRUE(contains(d.error, "#0 is a FINISH, but 2 instructions follow it")) << d.error;
}

TEST(NpuRun, DeviceMemoryIsAllocatedFirstFitAndFreed) {
    dsl_npu_config c;
    dsl_npu_default_config(&c);
    c.dram_bytes = 1024;
    Device d(&c);
    const uint64_t a = d.alloc(100), b = d.alloc(1), e = d.alloc(64);
    EXPECT_EQ(a, 64u);
    EXPECT_EQ(b, 64u + 128);
    EXPECT_EQ(e, 64u + 192);
    EXPECT_EQ(dsl_npu_free(d.npu.get(), b), DSL_NPU_OK);
    EXPECT_EQ(d.alloc(64), b);
    uint64_t too_big = 0;
    EXPECT_EQ(dsl_npu_malloc(d.npu.get(), 1024, &too_big), DSL_NPU_ERROR_MEMORY);
    EXPECT_TRUE(contains(dsl_npu_last_error(d.npu.get()), "no room for 1024 bytes"));
    EXPECT_EQ(dsl_npu_free(d.npu.get(), 12345), DSL_NPU_ERROR_MEMORY);
}

TEST(NpuRun, DoubleBufferingTakesFewerCyclesForTheSameBytes) {
    Matmul m(128, 128, 128, 4);
    dsl_npu_stats one, two;
    run_matmul(m, 32, 1, DSL_NPU_DATAFLOW, 0, &one);
    run_matmul(m, 32, 2, DSL_NPU_DATAFLOW, 0, &two);
    EXPECT_EQ(one.dram_bytes_read, two.dram_bytes_read);
    EXPECT_EQ(one.dram_bytes_written, two.dram_bytes_written);
    EXPECT_EQ(one.gemm_steps, two.gemm_steps);
    EXPECT_LT(two.cycles, one.cycles);
    EXPECT_GT(two.gemm_utilisation, one.gemm_utilisation);
    std::printf("128^3 matmul, tiles of 32 rows: %llu cycles single-buffered, %llu double\n",
                static_cast<unsigned long long>(one.cycles),
                static_cast<unsigned long long>(two.cycles));
}

TEST(NpuRun, TileSweepOfA256CubedMatmul) {
    // Prints cycles and GEMM utilisation by tile height and buffering: the numbers behind the
    // hand-written program's best (the compiler's schedules are measured against it).
    Matmul m(256, 256, 256, 5);
    const std::vector<int32_t> want = m.reference();
    double best = 0;
    for (int tile_m : {8, 16, 32, 64}) {
        for (int buffers : {1, 2}) {
            dsl_npu_stats s;
            ASSERT_EQ(run_matmul(m, tile_m, buffers, DSL_NPU_DATAFLOW, 0, &s), want)
                << tile_m << " " << buffers;
            std::printf("256^3 matmul, tile %2d rows, %d buffer%s: %7llu cycles, GEMM %.1f%%\n",
                        tile_m, buffers, buffers > 1 ? "s" : " ",
                        static_cast<unsigned long long>(s.cycles), 100 * s.gemm_utilisation);
            best = std::max(best, s.gemm_utilisation);
        }
    }
    EXPECT_GT(best, 0.0);
}

TEST(NpuRun, OtherBlockSizesRunTheSameProgramShape) {
    dsl_npu_config c;
    dsl_npu_default_config(&c);
    c.block_in = 8;
    c.block_out = 8;
    Device d(&c);
    Matmul m(32, 24, 16, 6);
    m.upload(d, 8);
    ASSERT_EQ(d.run(m.program(8, 8, 2)), DSL_NPU_OK) << d.error;
    EXPECT_EQ(d.read<int32_t>(m.c_at, size_t(m.M) * m.N), m.reference());
}

TEST(NpuRun, StatsAreFormattedAndPrintedOnRequest) {
    Matmul m(32, 32, 32, 7);
    dsl_npu_stats s;
    run_matmul(m, 16, 2, DSL_NPU_DATAFLOW, 0, &s);
    char text[2048];
    dsl_npu_format_stats(&s, text, sizeof text);
    const std::string t = text;
    EXPECT_TRUE(contains(t, "NPU: " + std::to_string(s.cycles) + " cycles; GEMM 128 steps")) << t;
    EXPECT_TRUE(contains(t, "NPU: compute engine:")) << t;
    EXPECT_TRUE(contains(t, "FINISH 1")) << t;
    setenv("DSL_NPU_STATS", "1", 1);
    testing::internal::CaptureStderr();
    run_matmul(m, 16, 2, DSL_NPU_DATAFLOW, 0);
    const std::string printed = testing::internal::GetCapturedStderr();
    unsetenv("DSL_NPU_STATS");
    EXPECT_TRUE(contains(printed, "NPU: " + std::to_string(s.cycles) + " cycles")) << printed;
}
