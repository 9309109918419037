// Schedules that offload to the NPU (Stage::npu, npu_gemm, npu_tile, npu_pipeline) through
// realize() on host-npu: byte-identical to the CPU schedule of the same algorithm and to a plain
// C++ loop, for sizes that are and are not multiples of the GEMM block; the errors of what does
// not map.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

const Target kNPU("host-npu");

Buffer<int8_t> random_int8(int w, int h, uint32_t seed) {
    Buffer<int8_t> b(w, h);
    std::mt19937 rng(seed);
    b.for_each_element(
        [&](int x, int y) { b(x, y) = static_cast<int8_t>(int(rng() % 256) - 128); });
    return b;
}

/// C(n, m) = sum_k A(k, m) * B(n, k): A is K x M (k innermost), B is N x K (n innermost).
struct MatmulPipeline {
    ImageParam a{Int(8), 2, "a"}, b{Int(8), 2, "b"};
    Var n{"n"}, m{"m"};
    Func c{"c"};
    RDom r;
    /// Over `a` (K x M) and `b` (N x K), or, without them, inputs still to be set.
    explicit MatmulPipeline(int k, const Buffer<int8_t> &a_data = Buffer<int8_t>(),
                            const Buffer<int8_t> &b_data = Buffer<int8_t>())
        : r(0, k, "r") {
        if (a_data.defined()) a.set(a_data);
        if (b_data.defined()) b.set(b_data);
        c(n, m) = 0;
        c(n, m) += cast<int32_t>(a(r, m)) * cast<int32_t>(b(n, r));
    }
};

Buffer<int32_t> reference(const Buffer<int8_t> &a, const Buffer<int8_t> &b) {
    const int k = a.width(), m = a.height(), n = b.width();
    Buffer<int32_t> c(n, m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            int32_t s = 0;
            for (int q = 0; q < k; q++)
                s += int32_t(a(q, i)) * int32_t(b(j, q));
            c(j, i) = s;
        }
    return c;
}

void expect_same(const Buffer<int32_t> &got, const Buffer<int32_t> &want, const std::string &what) {
    ASSERT_EQ(got.width(), want.width()) << what;
    ASSERT_EQ(got.height(), want.height()) << what;
    int wrong = 0;
    got.for_each_element([&](int x, int y) {
        if (got(x, y) != want(x, y) && wrong++ < 5)
            ADD_FAILURE() << what << " at (" << x << ", " << y << "): " << got(x, y) << " vs "
                          << want(x, y);
    });
    EXPECT_EQ(wrong, 0) << what;
}

std::string compile_error(const std::function<void()> &f) {
    try {
        f();
    } catch (const CompileError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(NpuSchedule, MatmulIsByteIdenticalToTheCPUAndAPlainLoop) {
    struct Shape {
        int m, n, k;
    };
    for (Shape s : {Shape{64, 64, 64}, Shape{37, 29, 53}, Shape{1, 16, 16}, Shape{100, 3, 200},
                    Shape{17, 40, 1}}) {
        const std::string what =
            std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
        Buffer<int8_t> a = random_int8(s.k, s.m, 1), b = random_int8(s.n, s.k, 2);
        const Buffer<int32_t> want = reference(a, b);
        MatmulPipeline cpu(s.k, a, b);
        cpu.c.update().vectorize(cpu.n, 8);
        expect_same(cpu.c.realize({s.n, s.m}), want, "CPU " + what);
        MatmulPipeline npu(s.k, a, b);
        npu.c.update().npu_gemm();
        expect_same(npu.c.realize({s.n, s.m}, kNPU), want, "NPU " + what);
        const NPUStats stats = npu_last_run_stats();
        EXPECT_EQ(stats.macs % 256, 0u) << what;
        EXPECT_GE(stats.macs, uint64_t(s.m) * s.n * s.k) << what;
    }
}

TEST(NpuSchedule, TilesAndCopiesChangeCyclesNotResults) {
    const int m = 256, n = 256, k = 256;
    Buffer<int8_t> a = random_int8(k, m, 3), b = random_int8(n, k, 4);
    const Buffer<int32_t> want = reference(a, b);
    uint64_t serial = 0, pipelined = 0;
    for (int copies : {1, 2}) {
        for (int rows : {16, 64}) {
            MatmulPipeline p(k, a, b);
            p.c.update().npu_gemm().npu_tile(rows).npu_pipeline(copies);
            expect_same(p.c.realize({n, m}, kNPU), want,
                        std::to_string(rows) + " rows, " + std::to_string(copies) + " copies");
            const NPUStats s = npu_last_run_stats();
            std::printf(
                "npu_gemm 256^3, npu_tile(%d), npu_pipeline(%d): %llu cycles, GEMM %.1f%%\n", rows,
                copies, static_cast<unsigned long long>(s.cycles), 100 * s.gemm_utilisation);
            if (rows == 64) (copies == 1 ? serial : pipelined) = s.cycles;
        }
    }
    EXPECT_LT(pipelined, serial);
}

TEST(NpuSchedule, AnInnerLoopOffloadedPerRowBlock) {
    // The rows split on the host; each block of 8 rows is one NPU run, its k loop inside.
    const int m = 32, n = 48, k = 40;
    Buffer<int8_t> a = random_int8(k, m, 5), b = random_int8(n, k, 6);
    MatmulPipeline p(k, a, b);
    Var mo("mo"), mi("mi");
    p.c.update().split(p.m, mo, mi, 8).reorder(p.r.x, p.n, mi, mo).npu(mi);
    expect_same(p.c.realize({n, m}, kNPU), reference(a, b), "per row block");
    // The blocks in parallel on the host: their NPU runs take turns on the one device.
    MatmulPipeline q(k, a, b);
    q.c.update().split(q.m, mo, mi, 8).reorder(q.r.x, q.n, mi, mo).parallel(mo).npu(mi);
    expect_same(q.c.realize({n, m}, kNPU), reference(a, b), "per row block, in parallel");
}

TEST(NpuSchedule, AccumulatesOntoWhatThePureDefinitionLeaves) {
    // A bias as the pure definition: the NPU loads it into its accumulators.
    const int m = 20, n = 24, k = 33;
    Buffer<int8_t> a = random_int8(k, m, 7), b = random_int8(n, k, 8);
    MatmulPipeline p(k, a, b);
    Func biased("biased");
    RDom r(0, k, "r2");
    biased(p.n, p.m) = p.n * 1000 - p.m;
    biased(p.n, p.m) += cast<int32_t>(p.a(r, p.m)) * cast<int32_t>(p.b(p.n, r));
    biased.update().npu_gemm();
    Buffer<int32_t> got = biased.realize({n, m}, kNPU);
    Buffer<int32_t> want = reference(a, b);
    want.for_each_element([&](int x, int y) { want(x, y) += x * 1000 - y; });
    expect_same(got, want, "bias");
}

TEST(NpuSchedule, WhatDoesNotMapIsAnErrorThatSaysWhy) {
    MatmulPipeline p(16);
    p.c.update().npu_gemm();
    std::string e = compile_error([&] { p.c.compile_jit(Target("host")); });
    EXPECT_NE(e.find("offloads loops to the NPU"), std::string::npos) << e;
    EXPECT_NE(e.find("host-npu"), std::string::npos) << e;

    // uint8 operands.
    ImageParam ua(UInt(8), 2, "ua"), ub(Int(8), 2, "ub");
    Var x("x"), y("y");
    RDom r(0, 16, "r");
    Func u("u");
    u(x, y) = 0;
    u(x, y) += cast<int32_t>(ua(r, y)) * cast<int32_t>(ub(x, r));
    u.update().npu_gemm();
    e = compile_error([&] { u.compile_jit(kNPU); });
    EXPECT_NE(e.find("update 0 of Func \"u\""), std::string::npos) << e;
    EXPECT_NE(e.find("\"ua\" is uint8"), std::string::npos) << e;

    // Not a product of two loads.
    Func s("s");
    s(x, y) = 0;
    s(x, y) += cast<int32_t>(ub(r, y)) + 1;
    s.update().npu_gemm();
    e = compile_error([&] { s.compile_jit(kNPU); });
    EXPECT_NE(e.find("not a contraction the NPU's GEMM core runs"), std::string::npos) << e;

    // A parallel loop inside the NPU loop.
    MatmulPipeline v(32);
    v.c.update().parallel(v.n).npu_gemm();
    e = compile_error([&] { v.c.compile_jit(kNPU); });
    EXPECT_NE(e.find("leave them serial"), std::string::npos) << e;

    // Bad directive arguments.
    MatmulPipeline t(16);
    e = compile_error([&] { t.c.update().npu_pipeline(3); });
    EXPECT_NE(e.find("3 copies of each NPU tile"), std::string::npos) << e;
}

TEST(NpuSchedule, TooManyRowsPerTileIsARuntimeErrorNamingTheFunc) {
    const int k = 16 * 200;  // 200 INP rows per row of A: 5 rows fill INP twice
    Buffer<int8_t> a = random_int8(k, 8, 9), b = random_int8(16, k, 10);
    MatmulPipeline p(k, a, b);
    p.c.update().npu_gemm().npu_tile(8);
    try {
        p.c.realize({16, 8}, kNPU);
        ADD_FAILURE() << "expected an error";
    } catch (const RuntimeError &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("NPU GEMM of \"c\""), std::string::npos) << what;
        EXPECT_NE(what.find("npu_tile(5) or less"), std::string::npos) << what;
    }
    p.c.update().npu_tile(5);
    expect_same(p.c.realize({16, 8}, kNPU), reference(a, b), "5 rows per tile");
}

TEST(NpuSchedule, EveryOrderOfTheEnginesGivesTheSameResult) {
    // The compiled program run in program order, in the cycle model's order and in random
    // interleavings (DSL_NPU_ORDER): the same memory, with the race checker on throughout.
    const int m = 70, n = 40, k = 90;
    Buffer<int8_t> a = random_int8(k, m, 11), b = random_int8(n, k, 12);
    const Buffer<int32_t> want = reference(a, b);
    for (const char *order : {"serial", "dataflow", "random:1", "random:2", "random:3"}) {
        setenv("DSL_NPU_ORDER", order, 1);
        MatmulPipeline p(k, a, b);
        p.c.update().npu_gemm().npu_tile(16);
        expect_same(p.c.realize({n, m}, kNPU), want, order);
    }
    unsetenv("DSL_NPU_ORDER");
}

TEST(NpuSchedule, ARequantizationRunsOnTheALU) {
    // c = clamp(zp + multiply_by_quantized_multiplier(c, m[n], s[n]), -128, 127) after the
    // sum, with npu_gemm on that update too: ALU work on each tile in the sum's program; or,
    // when the sum runs per block of rows on the host, a program of its own afterwards.
    const int m = 30, n = 40, k = 50;
    Buffer<int8_t> a = random_int8(k, m, 13), b = random_int8(n, k, 14);
    Buffer<int32_t> mult(n), shift(n), mult2(n, m);
    std::mt19937 rng(15);
    for (int i = 0; i < n; i++) {
        mult(i) = (1 << 30) + static_cast<int32_t>(rng() % (1u << 30));
        shift(i) = static_cast<int32_t>(rng() % 16) - 12;
    }
    enum class How { CPU, Fused, Alone };
    auto build = [&](How how, const Expr &multiplier) {
        auto p = std::make_unique<MatmulPipeline>(k, a, b);
        p->c(p->n, p->m) =
            clamp(-7 + multiply_by_quantized_multiplier(p->c(p->n, p->m), multiplier, shift(p->n)),
                  -128, 127);
        if (how == How::Fused) p->c.update(0).npu_gemm();
        if (how == How::Alone) {
            Var mo("mo"), mi("mi");
            p->c.update(0).split(p->m, mo, mi, 8).reorder(p->r.x, p->n, mi, mo).npu(mi);
        }
        if (how != How::CPU) p->c.update(1).npu_gemm();
        return p;
    };
    Var vn("n"), vm("m");
    const Buffer<int32_t> want = build(How::CPU, mult(vn))->c.realize({n, m});
    expect_same(build(How::Fused, mult(vn))->c.realize({n, m}, kNPU), want, "fused");
    NPUStats s = npu_last_run_stats();
    EXPECT_EQ(s.gemm_steps, uint64_t(m) * ((n + 15) / 16) * ((k + 15) / 16));
    EXPECT_EQ(s.alu_rows, 6u * m * ((n + 15) / 16));
    expect_same(build(How::Alone, mult(vn))->c.realize({n, m}, kNPU), want, "alone");
    s = npu_last_run_stats();
    EXPECT_EQ(s.gemm_steps, 0u);
    EXPECT_EQ(s.alu_rows, 6u * m * ((n + 15) / 16));
    // Multipliers that vary along the rows too do not map.
    auto bad = build(How::Fused, mult2(vn, vm));
    const std::string e = compile_error([&] { bad->c.compile_jit(kNPU); });
    EXPECT_NE(e.find("update 1 of Func \"c\""), std::string::npos) << e;
    EXPECT_NE(e.find("per output channel, one loop"), std::string::npos) << e;
}

// A Func that converts the requantized sums to bytes, q = cast<int8_t>(c), scheduled
// npu_gemm() too: the NPU's STORE writes q's bytes (saturated, which the clamp makes the same
// as the cast), a quarter of the bytes back, and c's int32 values are never written. Where the
// program cannot do it (the clamp outside int8's range, c read by another Func too), the same
// bytes come from a conversion on the host.
TEST(NpuSchedule, TheNPUStoresTheConvertedBytes) {
    const int m = 37, n = 40, k = 50;
    Buffer<int8_t> a = random_int8(k, m, 23), b = random_int8(n, k, 24);
    Buffer<int32_t> mult(n), shift(n);
    std::mt19937 rng(25);
    for (int i = 0; i < n; i++) {
        mult(i) = (1 << 30) + static_cast<int32_t>(rng() % (1u << 30));
        shift(i) = static_cast<int32_t>(rng() % 16) - 12;
    }
    Var x("x"), y("y");
    struct Built {
        std::unique_ptr<MatmulPipeline> p;
        Func q, other;
    };
    auto build = [&](bool npu, Type type, int lo, int hi, bool second_reader) {
        Built r{std::make_unique<MatmulPipeline>(k, a, b), Func("q"), Func("other")};
        MatmulPipeline &p = *r.p;
        p.c(p.n, p.m) = clamp(
            -7 + multiply_by_quantized_multiplier(p.c(p.n, p.m), mult(p.n), shift(p.n)), lo, hi);
        r.q(x, y) = cast(type, p.c(x, y));
        if (second_reader) {
            r.other(x, y) = cast(type, p.c(x, y) + 1) + r.q(x, y);
        } else {
            r.other(x, y) = r.q(x, y);
        }
        p.c.compute_root();
        if (npu) {
            p.c.update(0).npu_gemm();
            p.c.update(1).npu_gemm();
            r.q.npu_gemm();
        }
        r.q.compute_root();
        return r;
    };
    auto run = [&](Built &r) { return Buffer<>(r.other.realize({n, m}, kNPU)); };
    auto same_bytes = [&](const Buffer<> &got, const Buffer<> &want, const std::string &what) {
        ASSERT_EQ(got.type(), want.type()) << what;
        EXPECT_EQ(std::memcmp(got.data(), want.data(), static_cast<size_t>(n * m)), 0) << what;
    };
    for (Type t : {Int(8), UInt(8)}) {
        const int lo = t == Int(8) ? -128 : 0, hi = t == Int(8) ? 127 : 255;
        Built cpu = build(false, t, lo, hi, false);
        const Buffer<> want = run(cpu);
        Built on_npu = build(true, t, lo, hi, false);
        const Buffer<> got = run(on_npu);
        same_bytes(got, want, t.to_string());
        const NPUStats s = npu_last_run_stats();
        // The bytes of q, one a lane of each block of 16 output channels.
        EXPECT_EQ(s.dram_bytes_written, uint64_t(m) * ((n + 15) / 16) * 16) << t.to_string();
    }
    // A clamp wider than int8: the cast wraps, the host converts.
    Built wide_cpu = build(false, Int(8), -300, 300, false);
    Built wide_npu = build(true, Int(8), -300, 300, false);
    same_bytes(run(wide_npu), run(wide_cpu), "wide clamp");
    EXPECT_EQ(npu_last_run_stats().dram_bytes_written, uint64_t(m) * ((n + 15) / 16) * 16 * 4);
    // c read by another Func too: c is written whole, q converted on the host.
    Built shared_cpu = build(false, Int(8), -128, 127, true);
    Built shared_npu = build(true, Int(8), -128, 127, true);
    same_bytes(run(shared_npu), run(shared_cpu), "second reader");
    // A pure definition on the NPU that is not such a conversion.
    Func bad("bad");
    bad(x, y) = x + y;
    bad.npu_gemm();
    const std::string e = compile_error([&] { bad.compile_jit(kNPU); });
    EXPECT_NE(e.find("Func \"bad\""), std::string::npos) << e;
    EXPECT_NE(e.find("conversion of an NPU contraction's int32 results"), std::string::npos) << e;
}

TEST(NpuSchedule, BuffersLiveInTheNPUsMemory) {
    // copy_to_device(DeviceAPI::NPU): the buffer's device copy is in the simulator's DRAM;
    // copies both ways are real, and the host's changes reach it when marked.
    Buffer<int8_t> b = random_int8(40, 30, 17);
    Buffer<int8_t> original = random_int8(40, 30, 17);
    b.copy_to_device(DeviceAPI::NPU, kNPU);
    ASSERT_TRUE(b.has_device_allocation());
    EXPECT_STREQ(b.raw_buffer()->device_interface->name, "NPU");
    // Overwrite the host's copy unmarked, then call the device's newer: back come the values.
    b.for_each_value([](int8_t &v) { v = 0; });
    b.set_device_dirty();
    b.copy_to_host();
    int wrong = 0;
    b.for_each_element([&](int x, int y) { wrong += b(x, y) != original(x, y); });
    EXPECT_EQ(wrong, 0);
    // The host's changes, marked, go to the device with the next copy_to_device.
    b(3, 4) = 77;
    b.set_host_dirty();
    b.copy_to_device(DeviceAPI::NPU, kNPU);
    b(3, 4) = 0;
    b.set_device_dirty();
    b.copy_to_host();
    EXPECT_EQ(b(3, 4), 77);
    EXPECT_EQ(b.device_free(), 0);
    EXPECT_FALSE(b.has_device_allocation());
}
