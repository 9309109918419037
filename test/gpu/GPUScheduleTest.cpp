// GPU schedules run for real through OpenCL (Debian's PoCL here) and compared with the
// reference evaluator: every directive, tails, intermediates on either side of the host/device
// boundary, updates and reductions, buffers with mins and strides, symbolic sizes.
#include <gtest/gtest.h>

#include "GPUTestUtil.h"
#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"

namespace dsl::test {
namespace {

class GPUSchedule : public ::testing::Test {
  protected:
    void SetUp() override { DSL_REQUIRE_OPENCL(); }
    Var x{"x"}, y{"y"}, c{"c"}, bx{"bx"}, by{"by"}, tx{"tx"}, ty{"ty"};
};

TEST_F(GPUSchedule, TiledFloatStencilMatchesReference) {
    Buffer<> input = random_buffer(Float(32), {67, 45}, 1);
    Func f("stencil");
    f(x, y) = input(x, y) * 2.0f + input(x + 1, y) / 3.0f - input(x, y + 1) * input(x + 2, y);
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    Buffer<> out = f.realize({64, 40}, opencl_target())[0];
    EXPECT_TRUE(matches_reference(f, out));
}

TEST_F(GPUSchedule, IntegerSemanticsMatchTheCPU) {
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
    Realization out = f.realize({50, 7}, opencl_target());
    EXPECT_TRUE(matches_reference(f, out));
}

TEST_F(GPUSchedule, TailStrategies) {
    Buffer<> input = random_buffer(Int(16), {103}, 4);
    for (TailStrategy tail :
         {TailStrategy::GuardWithIf, TailStrategy::ShiftInwards, TailStrategy::Auto}) {
        Func f("tail");
        f(x) = input(x) * 3 + cast<int16_t>(x);
        f.gpu_tile(x, bx, tx, 16, tail);
        Buffer<> out = f.realize({99}, opencl_target())[0];
        EXPECT_TRUE(matches_reference(f, out)) << "tail strategy " << static_cast<int>(tail);
    }
}

TEST_F(GPUSchedule, ProducerOnTheDeviceConsumerOnTheDevice) {
    Buffer<> input = random_buffer(Float(32), {40, 30}, 5);
    Func p("producer"), q("consumer");
    p(x, y) = input(x, y) + input(x, y + 1);
    q(x, y) = p(x, y) * p(x + 1, y) - p(x, y + 2);
    p.compute_root().gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    q.gpu_tile(x, y, bx, by, tx, ty, 4, 16);
    Buffer<> out = q.realize({36, 25}, opencl_target())[0];
    EXPECT_TRUE(matches_reference(q, out));
}

TEST_F(GPUSchedule, HostAndDeviceStagesInterleave) {
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
    Buffer<> out = e.realize({31, 15}, opencl_target())[0];
    EXPECT_TRUE(matches_reference(e, out));
}

TEST_F(GPUSchedule, UpdatesAndReductions) {
    Buffer<> input = random_buffer(Float(32), {64, 20}, 7);
    RDom r(0, 5, "r");
    Func f("reduced");
    f(x, y) = 0.0f;
    f(x, y) += input(x + r, y) * (r + 1.0f);
    f(x, y) = f(x, y) * 0.5f + sum(input(x, y + r.x * 0) * r);
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 4);
    f.update(0).gpu_tile(x, y, bx, by, tx, ty, 16, 2);
    f.update(1).gpu_blocks(y).gpu_threads(x);
    Buffer<> out = f.realize({60, 20}, opencl_target())[0];
    EXPECT_TRUE(matches_reference(f, out, 1e-6));
}

TEST_F(GPUSchedule, ProducerComputedPerThread) {
    // A producer inside each thread's loop: per-thread (private) storage of constant size.
    Buffer<> input = random_buffer(Float(32), {48, 24}, 8);
    Func p("per_thread"), q("tiles");
    Var xi("xi"), yi("yi");
    p(x, y) = input(x, y) * input(x, y);
    q(x, y) = p(x, y) + p(x + 1, y) + p(x, y + 1);
    q.gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    p.compute_at(q, tx);
    Buffer<> out = q.realize({40, 16}, opencl_target())[0];
    EXPECT_TRUE(matches_reference(q, out));
}

TEST_F(GPUSchedule, BlocksAndThreadsByHandInThreeDimensions) {
    Buffer<> input = random_buffer(UInt(8), {10, 12, 3}, 9);
    Func f("three_d");
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
    f(x, y, c) = input(x, y, c) / 2 + cast<uint8_t>(c * 10);
    f.split(x, xo, xi, 5).split(y, yo, yi, 4).reorder(xi, yi, c, xo, yo);
    f.gpu_blocks(xo, yo).gpu_threads(xi, yi, c);
    Buffer<> out = f.realize({10, 12, 3}, opencl_target())[0];
    EXPECT_TRUE(matches_reference(f, out));
}

TEST_F(GPUSchedule, BlocksOnlyRunOneThreadEach) {
    Buffer<> input = random_buffer(Int(32), {9, 5}, 10);
    Func f("blocks_only");
    f(x, y) = input(x, y) + x * y;
    f.gpu_blocks(x, y);
    Buffer<> out = f.realize({9, 5}, opencl_target())[0];
    EXPECT_TRUE(matches_reference(f, out));
}

TEST_F(GPUSchedule, OneCompileServesEverySize) {
    ImageParam in(Float(32), 2, "in");
    Func f("sized");
    f(x, y) = in(x, y) * 0.25f + in(x + 1, y + 1);
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 8);
    for (int size : {17, 64, 5}) {
        Buffer<> input = random_buffer(Float(32), {size + 1, size + 1}, 11 + size);
        in.set(input);
        Buffer<> out = f.realize({size, size}, opencl_target())[0];
        EXPECT_TRUE(matches_reference(f, out)) << "size " << size;
    }
}

TEST_F(GPUSchedule, BuffersWithMinsAndStrides) {
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
    f.realize(out, opencl_target());
    EXPECT_TRUE(matches_reference(f, out));
}

TEST_F(GPUSchedule, AnInputComputedByTheHostBetweenRuns) {
    // The same input buffer changed on the host between two realizations is seen anew.
    Buffer<int> input(16);
    for (int i = 0; i < 16; i++)
        input(i) = i;
    Func f("reread");
    f(x) = input(x) + 1;
    f.gpu_tile(x, bx, tx, 4);
    Buffer<int> first = f.realize({16}, opencl_target());
    for (int i = 0; i < 16; i++)
        input(i) = 100 * i;
    Buffer<int> second = f.realize({16}, opencl_target());
    for (int i = 0; i < 16; i++) {
        EXPECT_EQ(first(i), i + 1);
        EXPECT_EQ(second(i), 100 * i + 1);
    }
}

}  // namespace
}  // namespace dsl::test
