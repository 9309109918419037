// GPU schedules run for real and compared with the reference evaluator, once per GPU API:
// through OpenCL (Debian's PoCL here) and through CUDA (skipped without an NVIDIA GPU and its
// driver; run by CTest as gpu.cuda_ptxas against the stand-in driver, which checks every PTX
// module with ptxas and runs nothing, so that values are not compared there). Every directive,
// tails, intermediates on either side of the host/device boundary, updates and reductions, math
// functions, buffers with mins and strides, symbolic sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "GPUTestUtil.h"
#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "common/TempDirectory.h"

// A host function that says it is pure and counts its calls.
std::atomic<int> gpu_test_pure_calls{0};
extern "C" float gpu_test_pure_gain(float g) {
    gpu_test_pure_calls++;
    return g * 0.5f;
}
DSL_PURE_EXTERN(float, gpu_test_pure_gain, float);

namespace dsl::test {
namespace {

/// The OpenCL C that `f`'s pipeline compiles to (Func::compile_to_device_code).
std::string opencl_source(Func f) {
    TempDirectory dir;
    const std::string file = dir.path() + "/kernels.cl";
    f.compile_to_device_code(file, Target("host-opencl"));
    std::ifstream in(file);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class GPUSchedule : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override { DSL_REQUIRE_GPU(gpu_target()); }
    Target gpu_target() const { return Target(GetParam()); }
    /// Whether kernels really run (not so on the stand-in CUDA driver).
    bool kernels_run() const {
        return !(gpu_target().has_feature(Target::Feature::CUDA) && stand_in_cuda_driver());
    }
    template <typename Output>
    ::testing::AssertionResult matches(const Func &f, const Output &out, double tolerance = 0) {
        if (!kernels_run()) return ::testing::AssertionSuccess();
        return matches_reference(f, out, tolerance);
    }
    bool opencl() const { return gpu_target().has_feature(Target::Feature::OpenCL); }
    Var x{"x"}, y{"y"}, c{"c"}, bx{"bx"}, by{"by"}, tx{"tx"}, ty{"ty"};
};

TEST_P(GPUSchedule, TiledFloatStencilMatchesReference) {
    Buffer<> input = random_buffer(Float(32), {67, 45}, 1);
    Func f("stencil");
    f(x, y) = input(x, y) * 2.0f + input(x + 1, y) / 3.0f - input(x, y + 1) * input(x + 2, y);
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    Buffer<> out = f.realize({64, 40}, gpu_target())[0];
    EXPECT_TRUE(matches(f, out));
}

TEST_P(GPUSchedule, APureHostCallOfInvariantsRunsOnceBeforeTheLaunch) {
    // A kernel cannot call a host function; the value computed before the launch is one more
    // argument of the kernel.
    Param<float> gain("gpu_pure_gain_p");
    gain.set(3.0f);
    Func f("pure_gain");
    f(x, y) = cast<float>(x + y) * gpu_test_pure_gain(gain + 1.0f);
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 4);
    gpu_test_pure_calls = 0;
    Buffer<float> out = f.realize({20, 9}, gpu_target());
    EXPECT_EQ(gpu_test_pure_calls.load(), 1);
    if (!kernels_run()) return;
    for (int j = 0; j < 9; j++) {
        for (int i = 0; i < 20; i++)
            ASSERT_EQ(out(i, j), float(i + j) * 2.0f) << i << ", " << j;
    }
}

TEST_P(GPUSchedule, IntegerSemanticsMatchTheCPU) {
    // Euclidean division and modulo of negative numbers, by zero too; shifts past the width;
    // saturating float to uint8; unsigned wrap-around; min/max/select/abs.
    Buffer<> a = random_buffer(Int(32), {50, 7}, 2);
    Buffer<> b = random_buffer(Int(32), {50, 7}, 3);
    Func f("ints");
    Expr av = a(x, y), bv = b(x, y) % 7 - 3;
    f(x, y) = {av / bv + av % bv * 100, (av << (bv + 30)) ^ (av >> (-bv)),
               cast<uint8_t>(cast<float>(av) * 7.5f), cast<uint16_t>(av) * cast<uint16_t>(2000),
               select(av > bv, abs(av - 40), cast<uint32_t>(max(av, bv) - min(av, 3)))};
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 4);
    Realization out = f.realize({50, 7}, gpu_target());
    EXPECT_TRUE(matches(f, out));
}

TEST_P(GPUSchedule, TailStrategies) {
    Buffer<> input = random_buffer(Int(16), {103}, 4);
    for (TailStrategy tail :
         {TailStrategy::GuardWithIf, TailStrategy::ShiftInwards, TailStrategy::Auto}) {
        Func f("tail");
        f(x) = input(x) * 3 + cast<int16_t>(x);
        f.gpu_tile(x, bx, tx, 16, tail);
        Buffer<> out = f.realize({99}, gpu_target())[0];
        EXPECT_TRUE(matches(f, out)) << "tail strategy " << static_cast<int>(tail);
    }
}

// realize() without a target runs for the target compile_jit() was given (Halide's lessons 12
// and 19 compile_jit a GPU target, then realize without one); before any compile_jit, for
// get_jit_target_from_environment(), here the host, which has no GPU API.
TEST_P(GPUSchedule, RealizeWithoutATargetUsesCompileJitsTarget) {
    if (std::getenv("DSL_JIT_TARGET") || std::getenv("HL_JIT_TARGET"))
        GTEST_SKIP() << "a JIT target is set in the environment";
    Buffer<> input = random_buffer(Int(32), {64}, 5);
    Func f("jit_target_f");
    f(x) = input(x) * 2 + 1;
    f.gpu_tile(x, bx, tx, 16);
    std::string message = message_of<CompileError>([&] { f.realize({64}); });
    EXPECT_CONTAINS(message, "no GPU API");
    f.compile_jit(gpu_target());
    Buffer<> out = f.realize({64})[0];
    EXPECT_TRUE(matches(f, out));
    Buffer<int> into(64);
    f.realize({into}, gpu_target());  // a braced buffer is a Realization of one
    Pipeline p(f);
    p.compile_jit(gpu_target());
    Buffer<> again = p.realize({64})[0];
    EXPECT_TRUE(matches(f, again));
}

TEST_P(GPUSchedule, ProducerOnTheDeviceConsumerOnTheDevice) {
    Buffer<> input = random_buffer(Float(32), {40, 30}, 5);
    Func p("producer"), q("consumer");
    p(x, y) = input(x, y) + input(x, y + 1);
    q(x, y) = p(x, y) * p(x + 1, y) - p(x, y + 2);
    p.compute_root().gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    q.gpu_tile(x, y, bx, by, tx, ty, 4, 16);
    Buffer<> out = q.realize({36, 25}, gpu_target())[0];
    EXPECT_TRUE(matches(q, out));
}

TEST_P(GPUSchedule, HostAndDeviceStagesInterleave) {
    // device -> host -> device -> host: each boundary copies only what the other side wrote.
    Buffer<> input = random_buffer(Int(32), {33, 17}, 6);
    Func a("on_device"), b("on_host"), d("on_device_again"), e("output_on_host");
    a(x, y) = input(x, y) * 2 + 1;
    b(x, y) = a(x, y) + a(x + 1, y);
    d(x, y) = b(x, y) * b(x, y + 1);
    e(x, y) = d(x, y) - a(x, y);
    a.compute_root().gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    b.compute_root().parallel(y);
    d.compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 2);
    Buffer<> out = e.realize({31, 15}, gpu_target())[0];
    EXPECT_TRUE(matches(e, out));
}

TEST_P(GPUSchedule, UpdatesAndReductions) {
    Buffer<> input = random_buffer(Float(32), {64, 20}, 7);
    RDom r(0, 5, "r");
    Func f("reduced");
    f(x, y) = 0.0f;
    f(x, y) += input(x + r, y) * (r + 1.0f);
    f(x, y) = f(x, y) * 0.5f + sum(input(x, y + r.x * 0) * r);
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 4);
    f.update(0).gpu_tile(x, y, bx, by, tx, ty, 16, 2);
    f.update(1).gpu_blocks(y).gpu_threads(x);
    Buffer<> out = f.realize({60, 20}, gpu_target())[0];
    EXPECT_TRUE(matches(f, out, 1e-6));
}

// atomic(): GPU threads over an RVar update the same bins, each update one atomic operation
// (a compare-and-swap on OpenCL; atomicrmw add and a compare-and-swap loop in PTX): an integer
// histogram, a float sum per bin and a float maximum per bin, against a loop.
TEST_P(GPUSchedule, AtomicHistogramsOverGPUThreads) {
    const int n = 3000, bins = 16;
    Buffer<int32_t> in = random_buffer(Int(32), {n}, 21);
    Buffer<float> v = random_buffer(Float(32), {n}, 22);
    RDom r(0, n, "r");
    Var ro("ro"), ri("ri");
    Expr bin = clamp(in(r) + 8, 0, bins - 1);
    Func count("gpu_atomic_count"), total("gpu_atomic_total"), top("gpu_atomic_top");
    count(x) = 0;
    count(bin) += 1;
    total(x) = 0.0f;
    total(bin) += v(r);
    top(x) = -100.0f;
    top(bin) = max(top(bin), v(r));
    for (Func *f : {&count, &total, &top})
        f->update().atomic().split(r, ro, ri, 64).gpu_blocks(ro).gpu_threads(ri);
    Buffer<int32_t> c = count.realize({bins}, gpu_target());
    Buffer<float> t = total.realize({bins}, gpu_target()), m = top.realize({bins}, gpu_target());
    if (!kernels_run()) return;
    c.copy_to_host();
    t.copy_to_host();
    m.copy_to_host();
    std::vector<int32_t> want_c(bins, 0);
    std::vector<double> want_t(bins, 0.0);
    std::vector<float> want_m(bins, -100.0f);
    for (int i = 0; i < n; i++) {
        int b = std::min(std::max(in(i) + 8, 0), bins - 1);
        want_c[b]++;
        want_t[b] += v(i);
        want_m[b] = std::max(want_m[b], v(i));
    }
    for (int b = 0; b < bins; b++) {
        EXPECT_EQ(c(b), want_c[b]) << b;
        EXPECT_NEAR(t(b), want_t[b], 1e-3 * n) << b;
        EXPECT_EQ(m(b), want_m[b]) << b;
    }
}

TEST_P(GPUSchedule, ProducerComputedPerThread) {
    // A producer inside each thread's loop: per-thread (private) storage of constant size.
    Buffer<> input = random_buffer(Float(32), {48, 24}, 8);
    Func p("per_thread"), q("tiles");
    Var xi("xi"), yi("yi");
    p(x, y) = input(x, y) * input(x, y);
    q(x, y) = p(x, y) + p(x + 1, y) + p(x, y + 1);
    q.gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    p.compute_at(q, tx);
    Buffer<> out = q.realize({40, 16}, gpu_target())[0];
    EXPECT_TRUE(matches(q, out));
}

TEST_P(GPUSchedule, BlocksAndThreadsByHandInThreeDimensions) {
    Buffer<> input = random_buffer(UInt(8), {10, 12, 3}, 9);
    Func f("three_d");
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
    f(x, y, c) = input(x, y, c) / 2 + cast<uint8_t>(c * 10);
    f.split(x, xo, xi, 5).split(y, yo, yi, 4).reorder(xi, yi, c, xo, yo);
    f.gpu_blocks(xo, yo).gpu_threads(xi, yi, c);
    Buffer<> out = f.realize({10, 12, 3}, gpu_target())[0];
    EXPECT_TRUE(matches(f, out));
}

TEST_P(GPUSchedule, BlocksOnlyRunOneThreadEach) {
    Buffer<> input = random_buffer(Int(32), {9, 5}, 10);
    Func f("blocks_only");
    f(x, y) = input(x, y) + x * y;
    f.gpu_blocks(x, y);
    Buffer<> out = f.realize({9, 5}, gpu_target())[0];
    EXPECT_TRUE(matches(f, out));
}

TEST_P(GPUSchedule, OneCompileServesEverySize) {
    ImageParam in(Float(32), 2, "in");
    Func f("sized");
    f(x, y) = in(x, y) * 0.25f + in(x + 1, y + 1);
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    for (int size : {17, 64, 5}) {
        Buffer<> input = random_buffer(Float(32), {size + 1, size + 1}, 11 + size);
        in.set(input);
        Buffer<> out = f.realize({size, size}, gpu_target())[0];
        EXPECT_TRUE(matches(f, out)) << "size " << size;
    }
}

TEST_P(GPUSchedule, BuffersWithMinsAndStrides) {
    // An input view with a min, a transposed input (strides not ascending) and an output with
    // a min: the device copies keep the host's layout.
    Buffer<> base = random_buffer(Int(32), {30, 20}, 12);
    Buffer<> shifted = base.cropped(0, 3, 20);
    shifted.translate({-10, 5});
    Buffer<> transposed = random_buffer(Int(32), {20, 30}, 13).transposed(0, 1);
    Func f("strided");
    f(x, y) = shifted(x - 7, y + 5) * 3 + transposed(x, y);
    f.gpu_tile(x, y, bx, by, tx, ty, 4, 4);
    Buffer<> out(Int(32), {12, 9});
    out.set_min({2, 1});
    f.realize(out, gpu_target());
    EXPECT_TRUE(matches(f, out));
}

TEST_P(GPUSchedule, AnInputComputedByTheHostBetweenRuns) {
    // The same input buffer changed on the host between two realizations is seen anew.
    Buffer<int> input(16);
    for (int i = 0; i < 16; i++)
        input(i) = i;
    Func f("reread");
    f(x) = input(x) + 1;
    f.gpu_tile(x, bx, tx, 4);
    Buffer<int> first = f.realize({16}, gpu_target());
    for (int i = 0; i < 16; i++)
        input(i) = 100 * i;
    Buffer<int> second = f.realize({16}, gpu_target());
    if (!kernels_run()) return;
    for (int i = 0; i < 16; i++) {
        EXPECT_EQ(first(i), i + 1);
        EXPECT_EQ(second(i), 100 * i + 1);
    }
}

TEST_P(GPUSchedule, MathFunctions) {
    // exp, log, pow, sin, cos, tan, atan2, sqrt, floor: the device's own (OpenCL builtins,
    // CUDA's libdevice), within a few ulps of the host's.
    if (gpu_target().has_feature(Target::CUDA) && !test::libdevice_installed())
        GTEST_SKIP() << "no CUDA toolkit libdevice here";
    Buffer<> input = random_buffer(Float(32), {70}, 14);
    Func f("math");
    Expr v = input(x);
    Expr positive = abs(v) + 0.5f;
    f(x) = {exp(v * 0.01f),     log(positive),  pow(positive, 1.5f),
            sin(v * 0.01f),     cos(v * 0.01f), tan(v * 0.001f),
            atan2(v, positive), sqrt(positive), floor(v * 0.3f)};
    f.gpu_tile(x, bx, tx, 32);
    Realization out = f.realize({70}, gpu_target());
    EXPECT_TRUE(matches(f, out, 1e-5));
}

TEST_P(GPUSchedule, VectorsInsideTheThreads) {
    // Each thread computes a vector of lanes (OpenCL C's vector types on OpenCL): adjacent lanes
    // load and store as one vector (lane by lane where only some lanes of a partial tile are
    // in the image), gathers, comparisons as masks, selects, integer division, shifts and
    // conversions lane by lane, bools stored and read back as vectors; every lane count OpenCL
    // C has, against the reference evaluator.
    Buffer<> a = random_buffer(Int(32), {100, 6}, 21);
    Buffer<> b = random_buffer(Int(32), {100, 6}, 22);
    Buffer<> fl = random_buffer(Float(32), {100, 6}, 23);
    for (int lanes : {2, 3, 4, 8, 16}) {
        const std::string n = std::to_string(lanes);
        Func mask("vector_mask_" + n), f("vector_lanes_" + n);
        Expr av = a(x, y), bv = b(x, y) % 7 - 3, fv = fl(x, y);
        mask(x, y) = fv > 0.25f || av % 5 == 1;
        Expr gathered = fl(a(x, y) % 100, y);
        f(x, y) = {av / bv + av % bv * 100,
                   (av << (bv + 30)) ^ ((av >> (-bv)) & ~b(x, y)),
                   cast<uint8_t>(fv * 7.5f) + cast<uint8_t>(mask(x, y)),
                   select(mask(x, y) && av > bv, fv * 2.0f - fl(x + 1, y), gathered),
                   cast<int16_t>(min(av, bv)) - cast<int16_t>(max(av, 3)),
                   select(!mask(x, y), cast<double>(fv) / 3.0, cast<double>(abs(av)))};
        mask.compute_root().gpu_tile(x, y, bx, by, tx, ty, lanes * 4, 2).vectorize(tx, lanes);
        f.gpu_tile(x, y, bx, by, tx, ty, lanes * 2, 2, TailStrategy::GuardWithIf)
            .vectorize(tx, lanes);
        Realization out = f.realize({97, 6}, gpu_target());
        EXPECT_TRUE(matches(f, out)) << lanes << " lanes";
        // As vectors, not lanes one by one.
        if (opencl()) {
            EXPECT_CONTAINS(opencl_source(f), "float" + n + " ");
        }
    }
}

TEST_P(GPUSchedule, VectorsFromSharedMemoryAndVectorMath) {
    // A producer computed per block into shared memory by vectorized threads; the consumer's
    // vectors read it at offsets of one (loads not aligned to the vector) and compute math
    // functions on vectors (OpenCL's vector builtins; on CUDA, libdevice lane by lane).
    if (gpu_target().has_feature(Target::CUDA) && !test::libdevice_installed())
        GTEST_SKIP() << "no CUDA toolkit libdevice here";
    Buffer<> input = random_buffer(Float(32), {70, 40}, 24);
    Func p("vector_shared_producer"), q("vector_shared_consumer");
    Var xi("xi");
    p(x, y) = input(x, y) * 2.0f + input(x + 1, y);
    q(x, y) = exp(p(x, y) * 0.01f) + sqrt(abs(p(x + 1, y))) * 0.5f - floor(p(x, y + 1));
    q.gpu_tile(x, y, bx, by, tx, ty, 32, 4).vectorize(tx, 8);
    p.compute_at(q, bx).split(x, x, xi, 4).gpu_threads(x, y).vectorize(xi);
    Buffer<> out = q.realize({64, 32}, gpu_target())[0];
    EXPECT_TRUE(matches(q, out, 1e-5));
    if (opencl()) {
        const std::string source = opencl_source(q);
        EXPECT_CONTAINS(source, "__local float ");
        EXPECT_CONTAINS(source, "vload4(0, ");  // the producer's vectors of 4
        EXPECT_CONTAINS(source, "= exp(");      // on a float8
    }
}

TEST_P(GPUSchedule, AnUpdateOfPartOfAHostResult) {
    // The pure definition on the host, an update of a few elements on the device: the device
    // copy starts from the host's values, so that copying it back keeps them.
    Func f("partly_updated"), g("reader");
    RDom r(10, 7, "r");
    f(x) = x * 3;
    f(r) = r * 100;
    g(x) = f(x) + 1;
    f.compute_root();
    f.update(0).gpu_blocks(r);
    Buffer<> out = g.realize({40}, gpu_target())[0];
    EXPECT_TRUE(matches(g, out));
}

TEST_P(GPUSchedule, AnOutputWithGapsKeepsThem) {
    // The output is a crop of a larger buffer: its rows are 8 apart but 5 long; what lies
    // between them belongs to the larger buffer and survives the round trip to the device.
    Buffer<int> whole(8, 6);
    whole.fill(-7);
    Buffer<int> window = whole.cropped(0, 2, 5).cropped(1, 1, 4);
    Func f("into_a_window");
    f(x, y) = x * 10 + y;
    f.gpu_tile(x, y, bx, by, tx, ty, 4, 2);
    f.realize(window, gpu_target());
    if (!kernels_run()) return;
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 8; i++) {
            bool inside = i >= 2 && i < 7 && j >= 1 && j < 5;
            EXPECT_EQ(whole(i, j), inside ? i * 10 + j : -7) << i << ", " << j;
        }
    }
}

TEST_P(GPUSchedule, ProducerInSharedMemory) {
    // A producer computed per block by the block's threads into shared memory; the consumer's
    // threads read it after a barrier. Its footprint (17 x 9) is larger than the consumer's
    // tile (16 x 8): the launch has 17 x 9 threads, and the consumer's extra ones idle.
    Buffer<> input = random_buffer(Float(32), {70, 40}, 15);
    Func p("shared_producer"), q("shared_consumer");
    p(x, y) = input(x, y) * 2.0f + input(x + 1, y);
    q(x, y) = p(x, y) + p(x + 1, y) * 0.5f - p(x, y + 1);
    q.gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    p.compute_at(q, bx).gpu_threads(x, y);
    EXPECT_NE(q.lowered_stmt().find("gpu_barrier"), std::string::npos);
    Buffer<> out = q.realize({64, 32}, gpu_target())[0];
    EXPECT_TRUE(matches(q, out));
}

TEST_P(GPUSchedule, SharedMemorySizedAtTheLaunch) {
    // Producers computed per block in tiles whose size a Param gives: their shared memory is
    // sized by the host at each launch (a __local argument on OpenCL, dynamic shared memory on
    // CUDA). Two of them, of two types, with footprints larger than the tile; every tile size
    // from one compiled pipeline, one of them not dividing the image.
    Buffer<> input = random_buffer(Float(32), {300, 3}, 26);
    Param<int> tile("shared_tile");
    Func p("launch_sized_p"), r("launch_sized_r"), q("launch_sized_q");
    p(x, y) = input(x, y) * 2.0f + input(x + 1, y);
    r(x, y) = cast<int16_t>(input(x, y) * 100.0f);
    q(x, y) = p(x, y) + p(x + 1, y) * 0.5f - cast<float>(r(x + 2, y));
    q.gpu_tile(x, bx, tx, tile).gpu_blocks(y);
    p.compute_at(q, bx).gpu_threads(x);
    r.compute_at(q, bx).gpu_threads(x);
    for (int t : {8, 32, 45}) {
        tile.set(t);
        Buffer<> out = q.realize({270, 3}, gpu_target())[0];
        EXPECT_TRUE(matches(q, out)) << "tiles of " << t;
    }
    // Each producer's shared memory is an argument of the kernel, sized by the launch.
    if (opencl()) {
        const std::string source = opencl_source(q);
        EXPECT_CONTAINS(source, "__local float *");
        EXPECT_CONTAINS(source, "__local short *");
    }
}

TEST_P(GPUSchedule, ProducerPerBlockOnOneThread) {
    // A producer at the block level without thread loops: thread 0 computes it, the others
    // wait at the barrier. Tails on both sides (GuardWithIf).
    Buffer<> input = random_buffer(Int(32), {45, 23}, 16);
    Func p("single_thread_producer"), q("after_single_thread");
    p(x, y) = input(x, y) * 3 - input(x, y + 1);
    q(x, y) = p(x, y) + p(x, y + 1) * 2;
    q.gpu_tile(x, y, bx, by, tx, ty, 8, 4, TailStrategy::GuardWithIf);
    p.compute_at(q, bx);
    EXPECT_NE(q.lowered_stmt().find("gpu_barrier"), std::string::npos);
    Buffer<> out = q.realize({43, 21}, gpu_target())[0];
    EXPECT_TRUE(matches(q, out));
}

TEST_P(GPUSchedule, TiledMatrixMultiplyThroughSharedMemory) {
    // The classic kernel: for each block of 16 x 16 outputs, a serial loop over the reduction
    // in steps of 8, in which the block's threads copy a tile of each input into shared
    // memory, wait, and accumulate from the tiles; a barrier ends each step.
    const int n = 40, k = 24;
    Buffer<> a = random_buffer(Float(32), {k, n}, 17);
    Buffer<> b = random_buffer(Float(32), {n, k}, 18);
    Func A("a"), B("b"), c("matmul");
    A(x, y) = a(x, y);
    B(x, y) = b(x, y);
    RDom r(0, k, "r");
    c(x, y) = 0.0f;
    c(x, y) += A(r, y) * B(x, r);
    Var xi("xi"), yi("yi");
    RVar ro("ro"), ri("ri");
    c.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    c.update()
        .split(x, bx, xi, 16)
        .split(y, by, yi, 16)
        .split(r, ro, ri, 8)
        .reorder(ri, xi, yi, ro, bx, by)
        .gpu_blocks(bx, by)
        .gpu_threads(xi, yi);
    A.compute_at(c, ro).gpu_threads(x, y);
    B.compute_at(c, ro).gpu_threads(x, y);
    std::string stmt = c.lowered_stmt();
    EXPECT_NE(stmt.find("gpu_barrier"), std::string::npos) << stmt;
    Buffer<> out = c.realize({n, n}, gpu_target())[0];
    EXPECT_TRUE(matches(c, out, 1e-5));
}

TEST_P(GPUSchedule, RegisterBlockedMatrixMultiply) {
    // Each thread sums a 4 x 4 tile of outputs over each step of the reduction, from the tiles
    // of A and B in shared memory; its 16 sums stay in registers over the step (the output's
    // elements are read before it and written after it, as its row stride is only known at run
    // time), and threads whose tile is whole run the step without the edge's guards. Outputs
    // of 100 x 72 end in partial tiles on both sides, and k = 40 in a partial step, whose tiles
    // of A and B still load on 16 threads a row (their extents are bounded by the step).
    const int w = 100, h = 72, k = 40;
    Buffer<> a = random_buffer(Float(32), {k, h}, 19);
    Buffer<> b = random_buffer(Float(32), {w, k}, 20);
    Func A("a"), B("b"), c("matmul");
    A(x, y) = a(x, y);
    B(x, y) = b(x, y);
    RDom r(0, k, "r");
    c(x, y) = 0.0f;
    c(x, y) = fma(A(r, y), B(x, r), c(x, y));
    Var xi("xi"), yi("yi"), xii("xii"), yii("yii"), xo("xo"), yo("yo");
    RVar ro("ro"), ri("ri");
    c.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    c.update()
        .split(x, bx, xi, 32)
        .split(y, by, yi, 32)
        .split(xi, tx, xii, 4)
        .split(yi, ty, yii, 4)
        .split(r, ro, ri, 16)
        .reorder(xii, yii, ri, tx, ty, ro, bx, by)
        .gpu_blocks(bx, by)
        .gpu_threads(tx, ty)
        .unroll(xii)
        .unroll(yii);
    A.compute_at(c, ro).split(y, yo, yi, 8).reorder(x, yi, yo).gpu_threads(x, yi);
    B.compute_at(c, ro).split(x, xo, xi, 8).reorder(xi, y, xo).gpu_threads(xi, y);
    std::string stmt = c.lowered_stmt();
    EXPECT_NE(stmt.find("matmul.accumulators"), std::string::npos) << stmt;
    // The two tiles load one after the other with no barrier between them (neither reads the
    // other); the products wait for both.
    const size_t a_tile = stmt.find("produce a {"), b_tile = stmt.find("produce b {", a_tile);
    ASSERT_NE(b_tile, std::string::npos) << stmt;
    EXPECT_EQ(stmt.substr(a_tile, b_tile - a_tile).find("gpu_barrier"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("gpu_barrier", b_tile), std::string::npos) << stmt;
    Buffer<> out = c.realize({w, h}, gpu_target())[0];
    EXPECT_TRUE(matches(c, out, 1e-5));
}

TEST_P(GPUSchedule, FourRowsPerThread) {
    // A 3 x 3 blur whose threads each compute four rows of a 32 x 32 tile, with the rows of
    // the horizontal pass in shared memory, or inlined (each thread reading its inputs).
    Buffer<> input = random_buffer(UInt(16), {70, 53}, 21);
    for (bool shared : {true, false}) {
        Func bx_("blur_x"), out("blur_y");
        bx_(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
        out(x, y) = (bx_(x, y) + bx_(x, y + 1) + bx_(x, y + 2)) / 3;
        Var xi("xi"), yi("yi"), yii("yii"), yo("yo"), yt("yt");
        out.tile(x, y, bx, by, xi, yi, 32, 32)
            .split(yi, ty, yii, 4)
            .reorder(yii, xi, ty, bx, by)
            .gpu_blocks(bx, by)
            .gpu_threads(xi, ty)
            .unroll(yii);
        if (shared)
            bx_.compute_at(out, bx).split(y, yo, yt, 8).reorder(x, yt, yo).gpu_threads(x, yt);
        Buffer<> result = out.realize({68, 51}, gpu_target())[0];
        EXPECT_TRUE(matches(out, result)) << (shared ? "shared" : "inlined");
    }
}

TEST_P(GPUSchedule, SixteenBitFloatsMatchTheCpuBitForBit) {
    // float16 and bfloat16 read, computed (each operation rounded to the type: sums, products,
    // quotients, a square root, a remainder), converted from float, double and int, compared
    // and stored, in kernels, against the same definitions computed on the CPU.
    // Also with vectors of 8 inside the threads (lane by lane, but loaded and stored whole).
    for (int lanes : {1, 8})
        for (Type half : {Float(16), BFloat(16)}) {
            Buffer<float> data(37, 5);
            data.fill([](int i, int j) { return (i * 7 - j * 13) * 0.173f + 0.001f * i * j; });
            // The input in the type, f computed in it, g widening f to float (names per side).
            struct Stages {
                Func in, f, g;
            };
            auto define = [&](const std::string &side) {
                Stages st{Func("in_" + side), Func("sixteen_" + side), Func("wide_" + side)};
                st.in(x, y) = cast(half, data(x, y));
                Expr a = st.in(x, y), b = st.in(min(x + 1, 36), y);
                Expr q = a * b + a / (b + cast(half, 3.5f)) - sqrt(abs(a));
                Expr from_double = cast(half, cast<double>(x) * 1.0000001 + 0.3);
                Expr from_int = cast(half, x * 1001 + y * 70001);
                st.f(x, y) = select(x % 3 == 0, q, select(x % 3 == 1, from_double, from_int)) +
                             cast(half, min(a, b) < cast(half, 0.0f));
                st.g(x, y) =
                    cast<float>(st.f(x, y)) * 2.0f + cast<float>(st.in(x, y) % cast(half, 1.5f));
                return st;
            };
            Stages gpu = define(half.to_string() + "_gpu" + std::to_string(lanes));
            gpu.in.compute_root().gpu_tile(x, y, bx, by, tx, ty, 8, 4).vectorize(tx, lanes);
            gpu.f.compute_root().gpu_tile(x, y, bx, by, tx, ty, 8, 4).vectorize(tx, lanes);
            gpu.g.gpu_tile(x, y, bx, by, tx, ty, 16, 2).vectorize(tx, lanes);
            Buffer<float> got = gpu.g.realize({37, 5}, gpu_target());
            if (!kernels_run()) continue;
            Stages cpu = define(half.to_string() + "_cpu" + std::to_string(lanes));
            Buffer<float> want = cpu.g.realize({37, 5});
            for (int j = 0; j < 5; j++)
                for (int i = 0; i < 37; i++)
                    ASSERT_EQ(got(i, j), want(i, j))
                        << half << " at " << i << ", " << j << ", " << lanes << " lanes";
        }
}

TEST_P(GPUSchedule, SixteenBitFloatScalarsReachKernels) {
    // float16 and bfloat16 Params read inside kernels: an OpenCL kernel receives each as its two
    // bytes (a float inside), a CUDA kernel as the type; both against the CPU, bit for bit.
    Param<float16_t> h("h16");
    Param<bfloat16_t> b("b16");
    h.set(float16_t(-3.7109375f));
    b.set(bfloat16_t(1.3125e-3f));
    Func f("scalar_halves"), f_c("scalar_halves_cpu");
    auto def = [&](Func &fn) {
        fn(x, y) = cast<float>(cast(Float(16), x - 2 * y) * h) + cast<float>(b) * cast<float>(x) +
                   cast<float>(cast(BFloat(16), y) / b);
    };
    def(f);
    def(f_c);
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 4);
    Buffer<float> got = f.realize({19, 6}, gpu_target());
    if (!kernels_run()) return;
    Buffer<float> want = f_c.realize({19, 6});
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 19; i++)
            ASSERT_EQ(got(i, j), want(i, j)) << i << ", " << j;
}

TEST_P(GPUSchedule, HostStagesReadInputsThatAreNewerOnTheDevice) {
    // The input holds newer data on the device (an earlier pipeline's kernel wrote it); the
    // second pipeline reads it only in a stage on the host, before its kernel: that stage
    // reads the device's data, copied back, not the host's older copy.
    Buffer<int> middle(48);
    middle.fill(0);
    EXPECT_EQ(middle.copy_to_device(gpu_target()), 0);
    Func first("writes_on_device");
    first(x) = x * 3 + 1;
    first.gpu_tile(x, bx, tx, 16);
    first.realize(middle, gpu_target());
    EXPECT_TRUE(middle.device_dirty());
    ImageParam in(Int(32), 1, "newer_on_device");
    in.set(middle);
    Func host_stage("host_stage"), kernel_stage("kernel_stage");
    host_stage(x) = in(x)*2;
    host_stage.compute_root();
    kernel_stage(x) = host_stage(x) + x;
    kernel_stage.gpu_tile(x, bx, tx, 16);
    Buffer<int> out = kernel_stage.realize({48}, gpu_target());
    if (kernels_run()) {
        for (int i = 0; i < 48; i++)
            EXPECT_EQ(out(i), (i * 3 + 1) * 2 + i) << i;
    }
}

TEST_P(GPUSchedule, ABufferKeptOnTheDeviceBetweenPipelines) {
    // A buffer the caller put on the device stays there: the first pipeline writes it there,
    // the second reads it there, and the host sees it after copy_to_host().
    Buffer<float> input(64);
    for (int i = 0; i < 64; i++)
        input(i) = i * 0.5f;
    Buffer<float> middle(64), out(64);
    EXPECT_EQ(middle.copy_to_device(gpu_target()), 0);
    EXPECT_TRUE(middle.has_device_allocation());
    EXPECT_FALSE(middle.host_dirty());
    Func f("first_stage"), g("second_stage");
    f(x) = input(x) * 2.0f + 1.0f;
    f.gpu_tile(x, bx, tx, 16);
    f.realize(middle, gpu_target());
    EXPECT_TRUE(middle.has_device_allocation());
    EXPECT_TRUE(middle.device_dirty());
    EXPECT_EQ(middle(5), 0.0f);  // the host's copy is older, until copy_to_host()
    ImageParam mid(Float(32), 1, "mid");
    mid.set(middle);
    g(x) = mid(x) * mid(x);
    g.gpu_tile(x, bx, tx, 16);
    g.realize(out, gpu_target());
    EXPECT_FALSE(out.has_device_allocation());  // realize() brought it home and released it
    EXPECT_EQ(middle.copy_to_host(), 0);
    EXPECT_FALSE(middle.device_dirty());
    EXPECT_EQ(middle.device_sync(), 0);
    if (kernels_run()) {
        for (int i = 0; i < 64; i++) {
            float m = i * 0.5f * 2.0f + 1.0f;
            EXPECT_EQ(middle(i), m) << i;
            EXPECT_EQ(out(i), m * m) << i;
        }
    }
    // A view sees the host's memory; the device copy is the buffer's own.
    Buffer<float> part = middle.cropped(0, 8, 8);
    EXPECT_FALSE(part.has_device_allocation());
    EXPECT_EQ(middle.device_free(), 0);
    EXPECT_FALSE(middle.has_device_allocation());
}

TEST_P(GPUSchedule, AScanOnOneThreadBetweenKernels) {
    // A running sum along x, which no GPU loop can split, on one device thread between stages
    // tiled on the device: its data stays on the device.
    Buffer<> input = random_buffer(Int(32), {50, 6}, 19);
    Func a("before_scan"), s("scan"), b("after_scan");
    RDom r(1, 49, "r");
    a(x, y) = input(x, y) * 2;
    s(x, y) = a(x, y);
    s(r, y) = s(r - 1, y) + s(r, y);
    b(x, y) = s(x, y) - 1;
    a.compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 2);
    s.compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 2);
    s.update().gpu_single_thread();
    b.gpu_tile(x, y, bx, by, tx, ty, 16, 2);
    std::string stmt = b.lowered_stmt();
    EXPECT_NE(stmt.find("scan_s1___gpu_single_thread"), std::string::npos) << stmt;
    Buffer<> out = b.realize({50, 6}, gpu_target())[0];
    EXPECT_TRUE(matches(b, out));
}

TEST_P(GPUSchedule, LanesOfAWarp) {
    Buffer<> input = random_buffer(Float(32), {70, 5}, 20);
    Func f("lanes");
    Var xo("xo"), xi("xi");
    f(x, y) = input(x, y) * 3.0f - 1.0f;
    f.split(x, xo, xi, 32).gpu_blocks(xo, y).gpu_lanes(xi);
    Buffer<> out = f.realize({70, 5}, gpu_target())[0];
    EXPECT_TRUE(matches(f, out));
}

TEST_P(GPUSchedule, PrintInsideAKernel) {
    // print_when() inside a kernel prints with the device's printf, on the process's standard
    // output: the same lines as the CPU's print (on stderr), ints, floats, a double and an
    // int64, one per point where the condition holds, also from the lanes of a vector.
    auto define = [&](const std::string &side) {
        Func f("printing_" + side);
        Expr half = cast<float>(x) * 0.5f;
        f(x, y) = print_when(x % 7 == 3 && y == 1, half, "at", x, y, "wide", cast<double>(x) / 4.0,
                             cast<int64_t>(y) - (int64_t(1) << 40), "100%");
        return f;
    };
    Func gpu = define("gpu"), cpu = define("cpu");
    gpu.gpu_tile(x, y, bx, by, tx, ty, 8, 2).vectorize(tx, 4);
    ::testing::internal::CaptureStdout();
    Buffer<float> got;
    try {
        got = gpu.realize({20, 3}, gpu_target());
    } catch (...) {
        ::testing::internal::GetCapturedStdout();  // the test's own output again
        throw;
    }
    std::string printed = ::testing::internal::GetCapturedStdout();
    if (!kernels_run()) return;
    ::testing::internal::CaptureStderr();
    Buffer<float> want = cpu.realize({20, 3});
    std::string expected = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(got(17, 1), want(17, 1));
    // The lines may come in another order from the device's threads.
    auto sorted_lines = [](const std::string &text) {
        std::vector<std::string> lines;
        size_t start = 0;
        for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
            lines.push_back(text.substr(start, end - start));
        std::sort(lines.begin(), lines.end());
        return lines;
    };
    EXPECT_EQ(sorted_lines(printed), sorted_lines(expected)) << printed << "\n--\n" << expected;
    EXPECT_EQ(sorted_lines(expected).size(), 3u) << expected;  // x = 3, 10, 17
}

TEST(OpenCLSource, VectorsLoadAndStoreWholeWhereTheirLanesAreAdjacent) {
    // A thread's 4 adjacent points are one float4: read with vload4 (and a gather for the
    // lanes of a partial tile's end, where only some are inside the image), written with vstore4.
    Buffer<> input = random_buffer(Float(32), {70}, 25);
    Func f("opencl_vectors");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = input(x) * 2.0f + input(x + 1);
    f.gpu_tile(x, bx, tx, 64).vectorize(tx, 4, TailStrategy::GuardWithIf);
    const std::string source = opencl_source(f);
    EXPECT_CONTAINS(source, "float4");
    EXPECT_CONTAINS(source, "vload4(0, ");
    EXPECT_CONTAINS(source, "vstore4(");
    EXPECT_CONTAINS(source, "all(");
}

INSTANTIATE_TEST_SUITE_P(APIs, GPUSchedule, ::testing::Values("host-opencl", "host-cuda"),
                         [](const ::testing::TestParamInfo<std::string> &api) {
                             return api.param == "host-opencl" ? std::string("OpenCL")
                                                               : std::string("CUDA");
                         });

}  // namespace
}  // namespace dsl::test
