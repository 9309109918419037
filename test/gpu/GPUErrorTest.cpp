// GPU schedules that cannot run are refused with messages that name the loop and the fix; none
// of these needs a device.
#include <gtest/gtest.h>

#include <cstdlib>

#include "GPUTestUtil.h"
#include "common/ErrorCheck.h"

namespace dsl::test {
namespace {

class GPUErrors : public ::testing::Test {
  protected:
    Var x{"x"}, y{"y"}, z{"z"}, w{"w"}, bx{"bx"}, tx{"tx"};
};

TEST_F(GPUErrors, TargetWithoutAGPUAPI) {
    Func f("no_gpu_target");
    f(x) = x * 2;
    f.gpu_tile(x, bx, tx, 8);
    std::string m = message_of([&] { f.realize({16}, Target("host")); });
    EXPECT_CONTAINS(m, "no_gpu_target");
    EXPECT_CONTAINS(m, "opencl");
}

TEST_F(GPUErrors, ThreadLoopWithoutBlockLoop) {
    Func f("threads_alone");
    f(x) = x;
    f.gpu_threads(x);
    std::string m = message_of([&] { f.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "loop \"x\" of Func \"threads_alone\"");
    EXPECT_CONTAINS(m, "gpu_blocks");
}

TEST_F(GPUErrors, BlockLoopInsideThreadLoop) {
    Func f("inverted");
    f(x, y) = x + y;
    f.gpu_threads(x).gpu_blocks(y);
    f.reorder(y, x);
    std::string m = message_of([&] { f.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "inverted");
}

TEST_F(GPUErrors, FourBlockDimensions) {
    Func f("four_d");
    f(x, y, z, w) = x + y + z + w;
    f.gpu_blocks(x, y, z);
    f.gpu_blocks(w);
    std::string m = message_of([&] { f.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "four_d");
    EXPECT_CONTAINS(m, "at most three");
}

TEST_F(GPUErrors, ParallelLoopInsideAKernel) {
    Func f("parallel_inside");
    Var yi("yi");
    f(x, y) = x + y;
    f.gpu_blocks(x).parallel(y);
    f.reorder(y, x);
    std::string m = message_of([&] { f.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "parallel loop inside a GPU kernel");
    EXPECT_CONTAINS(m, "parallel_inside");
}

TEST_F(GPUErrors, VectorsOfLanesOpenCLHasNot) {
    // OpenCL C's vectors have 2, 3, 4, 8 or 16 lanes.
    Func f("vector_kernel");
    f(x) = x * 3;
    f.gpu_tile(x, bx, tx, 30).vectorize(tx, 5);
    std::string m = message_of([&] { f.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "vectors of 5 lanes");
    EXPECT_CONTAINS(m, "2, 3, 4, 8 and 16");
    EXPECT_CONTAINS(m, "vector_kernel");
}

TEST_F(GPUErrors, UnknownDeviceAPI) {
    Func f("npu_blocks");
    f(x) = x;
    std::string m = message_of([&] { f.gpu_blocks(x, DeviceAPI::NPU); });
    EXPECT_CONTAINS(m, "npu_blocks");
    EXPECT_CONTAINS(m, "DeviceAPI::OpenCL");
}

TEST_F(GPUErrors, PerThreadStorageOfRunTimeSize) {
    ImageParam in(Float(32), 1, "in");
    Param<int> taps("taps");
    Func p("taps_producer"), q("taps_consumer");
    RDom r(0, taps, "r");
    p(x) = in(x)*2.0f;
    q(x) = sum(p(x + r));
    q.gpu_tile(x, bx, tx, 16);
    p.compute_at(q, tx);
    std::string m = message_of([&] { q.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "\"taps_producer\" is stored inside the GPU kernel of the loop \"bx\"");
    EXPECT_CONTAINS(m, "known only at run time");
}

TEST_F(GPUErrors, HeapStorageInsideAKernel) {
    Func p("on_the_heap"), q("heap_consumer");
    p(x) = x * 2;
    q(x) = p(x) + p(x + 1);
    q.gpu_tile(x, bx, tx, 16);
    p.compute_at(q, tx).store_in(MemoryType::Heap);
    std::string m = message_of([&] { q.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "\"on_the_heap\" is stored on the heap");
    EXPECT_CONTAINS(m, "which has no heap");
}

TEST_F(GPUErrors, SharedStorageBeyondTheBlocksMemory) {
    // A 136 x 116 window of floats per block: 62 KiB of shared memory, more than a block has.
    Func p("big_tile"), q("big_tile_consumer");
    p(x, y) = x + y;
    q(x, y) = p(x, y) + p(x + 120, y + 100);
    q.gpu_tile(x, y, bx, w, tx, z, 16, 16);
    p.compute_at(q, bx);
    std::string m = message_of([&] { q.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "\"big_tile\" is stored inside the GPU kernel of the loop");
    EXPECT_CONTAINS(m, "shared memory");
}

TEST_F(GPUErrors, StackStorageSharedByABlock) {
    Func p("private_at_block"), q("block_consumer");
    p(x) = x * 3;
    q(x) = p(x) + p(x + 1);
    q.gpu_tile(x, bx, tx, 32);
    p.compute_at(q, bx).gpu_threads(x).store_in(MemoryType::Stack);
    std::string m = message_of([&] { q.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "\"private_at_block\" is computed at the block level");
    EXPECT_CONTAINS(m, "MemoryType::GPUShared");
}

TEST_F(GPUErrors, TooManyThreadsPerBlock) {
    Func f("wide_blocks");
    f(x, y) = x + y;
    f.gpu_tile(x, y, bx, w, tx, z, 64, 32);
    std::string m = message_of([&] { f.compile_jit(opencl_target()); });
    EXPECT_CONTAINS(m, "Func \"wide_blocks\" starts a GPU kernel whose blocks have 2048 threads");
    EXPECT_CONTAINS(m, "at most 1024");
}

TEST_F(GPUErrors, SingleThreadAndGPULoops) {
    Func f("single_and_tiled");
    f(x) = x;
    f.gpu_tile(x, bx, tx, 8);
    std::string m = message_of([&] { f.gpu_single_thread(); });
    EXPECT_CONTAINS(m, "gpu_single_thread");
    EXPECT_CONTAINS(m, "is a GPU loop already");
}

TEST(GPUNoDriver, ClearErrorWithoutAnOpenCLDriver) {
    // Run by CTest with DSL_LIBOPENCL naming a file that does not exist (gpu.no_driver).
    const char *library = std::getenv("DSL_LIBOPENCL");
    if (!library || std::string(library).find("does-not-exist") == std::string::npos)
        GTEST_SKIP() << "runs with DSL_LIBOPENCL=/does-not-exist/libOpenCL.so.1 only";
    Var x("x"), bx("bx"), tx("tx");
    Func f("without_driver");
    f(x) = x;
    f.gpu_tile(x, bx, tx, 4);
    std::string m = message_of<RuntimeError>([&] { f.realize({8}, opencl_target()); });
    EXPECT_CONTAINS(m, "no OpenCL driver found");
    EXPECT_CONTAINS(m, "compile here but cannot run");
}

}  // namespace
}  // namespace dsl::test
