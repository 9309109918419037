// CUDA on any machine: the PTX generated for each compute capability is checked by the CUDA
// toolkit's ptxas where it is installed; the CUDA runtime's use of the driver (modules loaded
// once, grids, parameters, copies between host and device) is checked against a stand-in
// driver (fake_cuda, run by CTest as gpu.fake_cuda); without a driver, realize() says so. The
// schedules themselves run for real on CUDA in GPUScheduleTest.cpp where a GPU is present.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "GPUTestUtil.h"
#include "codegen/CodeGenLLVM.h"
#include "codegen/CodeGenPTX.h"
#include "codegen/TargetMapping.h"
#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "fake_cuda/fake_cuda.h"
#include "lang/Realize.h"

namespace dsl::test {
namespace {

/// The PTX of the kernels of the pipeline computing `f`, for `target`; `kernels` gets how many
/// there are (each version of the pipeline, dense or strided, has its own).
std::string ptx_of(const Func &f, const std::string &target, size_t *kernels = nullptr) {
    auto lowered = lang::lower_pipeline({lang::Function(f.contents())});
    if (kernels) *kernels = lowered.module.kernels.size();
    return codegen::compile_gpu_kernels(lowered.module, codegen::cpu_target_for(Target(target)))
        .ptx;
}

/// The toolkit's ptxas, or "" where there is none.
std::string ptxas() {
    std::string toolkit = codegen::cuda_toolkit_path();
    std::string path = toolkit + "/bin/ptxas";
    return !toolkit.empty() && std::filesystem::exists(path) ? path : std::string();
}

/// Empty if ptxas accepts `ptx` for sm_`capability`, else its messages.
std::string assemble(const std::string &ptx, int capability, const std::string &name) {
    auto dir = std::filesystem::temp_directory_path();
    std::string stem = (dir / ("dsl_ptx_" + name + "_" + std::to_string(::getpid()))).string();
    std::ofstream(stem + ".ptx") << ptx;
    std::string command = ptxas() + " -arch=sm_" + std::to_string(capability) + " " + stem +
                          ".ptx -o " + stem + ".cubin > " + stem + ".log 2>&1";
    int status = std::system(command.c_str());
    std::ifstream log(stem + ".log");
    std::string messages((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    for (const char *suffix : {".ptx", ".cubin", ".log"})
        std::remove((stem + suffix).c_str());
    return status == 0 ? std::string()
                       : "ptxas failed (" + std::to_string(status) + "): " + messages;
}

class PTX : public ::testing::Test {
  protected:
    Var x{"x"}, y{"y"}, bx{"bx"}, by{"by"}, tx{"tx"}, ty{"ty"};
};

TEST_F(PTX, EveryKernelIsAnEntryForEachCapability) {
    // Two kernels (a producer and its consumer), integer and float arithmetic, a scalar
    // parameter of each kind, a reduction: one .entry per kernel, with the target's .target.
    ImageParam in(Float(32), 2, "in");
    Param<int> offset("offset");
    Param<bool> flip("flip");
    Param<double> scale("scale");
    Func p("producer"), q("consumer");
    RDom r(0, 3, "r");
    p(x, y) = in(x, y) * cast<float>(scale) + cast<float>(x / 3 - y % 5 + offset);
    q(x, y) = select(flip, -1.0f, 1.0f) * sum(p(x + r, y));
    p.compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    q.gpu_tile(x, y, bx, by, tx, ty, 32, 4);
    for (int capability : {61, 70, 75, 80, 86, 89, 90}) {
        std::string target = "host-cuda_capability_" + std::to_string(capability);
        size_t kernels = 0;
        std::string ptx = ptx_of(q, target, &kernels);
        EXPECT_NE(ptx.find(".target sm_" + std::to_string(capability)), std::string::npos)
            << target;
        std::regex entry("\\.entry ([A-Za-z0-9_]+)\\(");
        std::set<std::string> entries;
        for (std::sregex_iterator it(ptx.begin(), ptx.end(), entry), end; it != end; ++it)
            entries.insert((*it)[1]);
        EXPECT_EQ(entries.size(), kernels) << ptx;
        EXPECT_GE(kernels, 2u);
        int producers = 0;
        for (const std::string &name : entries)
            producers += name.find("producer") != std::string::npos;
        EXPECT_GE(producers, 1);
        // The oldest capabilities are past what the current toolkit assembles.
        if (!ptxas().empty() && capability >= 75) {
            EXPECT_EQ(assemble(ptx, capability, "entries"), "") << ptx;
        }
    }
}

TEST_F(PTX, LoopsStorageAndEveryTypeAssemble) {
    // Serial loops inside the threads (an RDom), a producer in per-thread storage, three
    // dimensions of blocks and threads, integers of every width, bools, doubles.
    ImageParam in(UInt(8), 3, "in");
    Func p("per_thread"), q("mixed");
    Var c("c"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    RDom r(0, 40, "r");
    p(x, y, c) = cast<int16_t>(in(x, y, c)) * cast<int16_t>(c - 1);
    Expr total = sum(cast<int32_t>(p(x + r, y, c)));
    Expr wide = cast<int64_t>(total) * cast<int64_t>(x) / 7 % 1000;
    Expr as_double = cast<double>(wide) * 0.5 + cast<double>(in(x, y, c));
    q(x, y, c) = select(total > 10 && in(x, y, c) != 3, cast<uint8_t>(min(as_double, 255.0)),
                        cast<uint8_t>(wide & 0xFF));
    q.split(x, xo, xi, 8).split(y, yo, yi, 4).reorder(xi, yi, c, xo, yo);
    q.gpu_blocks(xo, yo).gpu_threads(xi, yi, c);
    p.compute_at(q, xi);
    for (int capability : {75, 80, 90}) {
        std::string ptx = ptx_of(q, "host-cuda_capability_" + std::to_string(capability));
        EXPECT_EQ(ptx.find(".p2align"), std::string::npos);
        EXPECT_EQ(ptx.find(".extern"), std::string::npos) << ptx;
        if (!ptxas().empty()) {
            EXPECT_EQ(assemble(ptx, capability, "mixed"), "") << ptx;
        }
    }
}

TEST_F(PTX, VectorsInsideTheThreads) {
    // Each thread computes 4 neighbours as one vector. Its loads and stores are one per lane
    // for now: the buffers' alignment is not known to allow more (OpenCL C's vload4 and vstore4
    // need none: OpenCLSource.VectorsLoadAndStoreWholeWhereTheirLanesAreAdjacent).
    ImageParam in(Float(32), 1, "in");
    Func f("vectors_in_threads");
    Var xo("xo"), xi("xi"), v("v");
    f(x) = in(x)*2.0f + 1.0f;
    f.split(x, xo, xi, 256).split(xi, tx, v, 4).gpu_blocks(xo).gpu_threads(tx).vectorize(v);
    std::string ptx = ptx_of(f, "host-cuda_capability_80");
    EXPECT_NE(ptx.find("ld.global.f32"), std::string::npos) << ptx;
    if (!ptxas().empty()) {
        EXPECT_EQ(assemble(ptx, 80, "vectors"), "") << ptx;
        EXPECT_EQ(assemble(ptx_of(f, "host-cuda_capability_90"), 90, "vectors90"), "");
    }
}

TEST_F(PTX, MathComesFromLibdevice) {
    if (!libdevice_installed()) GTEST_SKIP() << "no CUDA toolkit libdevice here";
    ImageParam in(Float(32), 1, "in");
    Func f("math"), g("math64");
    f(x) = exp(in(x)) + log(in(x)) * pow(in(x), 0.5f) + sin(in(x)) - cos(in(x)) +
           tan(in(x)) * atan2(in(x), 2.0f);
    g(x) = exp(cast<double>(f(x))) + sin(cast<double>(x));
    f.compute_root().gpu_tile(x, bx, tx, 64);
    g.gpu_tile(x, bx, tx, 64);
    std::string ptx = ptx_of(g, "host-cuda_capability_80");
    // Linked in and internal: no call leaves the module.
    EXPECT_EQ(ptx.find(".extern .func"), std::string::npos) << ptx;
    if (!ptxas().empty()) {
        EXPECT_EQ(assemble(ptx, 80, "math"), "");
        EXPECT_EQ(assemble(ptx_of(g, "host-cuda_capability_90"), 90, "math90"), "");
    }
}

TEST_F(PTX, ArithmeticIsRoundedAsWrittenUnlessFPContract) {
    ImageParam a(Float(32), 1, "a"), b(Float(32), 1, "b");
    Func f("fma_or_not");
    f(x) = a(x) * b(x) + a(x + 1);
    f.gpu_tile(x, bx, tx, 64);
    std::string strict = ptx_of(f, "host-cuda_capability_80");
    std::string contracted = ptx_of(f, "host-cuda_capability_80-fp_contract");
    EXPECT_EQ(strict.find("fma.rn.f32"), std::string::npos) << strict;
    EXPECT_NE(contracted.find("fma.rn.f32"), std::string::npos) << contracted;
}

TEST_F(PTX, AssemblyListsTheKernels) {
    // compile_to_assembly writes the host's code, then the kernels' PTX as comments.
    Func f("listed");
    f(x) = x * 2;
    f.gpu_tile(x, bx, tx, 32);
    std::string file =
        (std::filesystem::temp_directory_path() / ("dsl_listed_" + std::to_string(::getpid())))
            .string();
    f.compile_to_assembly(file, Target("host-cuda"));
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(file.c_str());
    EXPECT_NE(text.find("# ---- GPU kernels: PTX ----"), std::string::npos);
    EXPECT_NE(text.find("# .visible .entry "), std::string::npos) << text;
    EXPECT_NE(text.find("listed_listed_s0_bx_k0("), std::string::npos) << text;
}

/// The stand-in driver's record; null (the test skips) unless the runtime loads it.
FakeCudaRecord *fake_record() {
    const char *library = std::getenv("DSL_LIBCUDA");
    if (!library || std::string(library) != DSL_FAKE_CUDA) return nullptr;
    void *handle = dlopen(library, RTLD_NOW);
    if (!handle) return nullptr;
    auto *get = reinterpret_cast<FakeCudaRecord *(*)()>(dlsym(handle, "fake_cuda_record"));
    return get ? get() : nullptr;
}

#define DSL_REQUIRE_FAKE_CUDA(record)                                                          \
    FakeCudaRecord *record = fake_record();                                                    \
    if (!record)                                                                               \
    GTEST_SKIP() << "runs with DSL_LIBCUDA naming the stand-in driver only (" << DSL_FAKE_CUDA \
                 << ")"

TEST(FakeCUDA, LaunchesWithTheScheduledGridAndParameters) {
    DSL_REQUIRE_FAKE_CUDA(record);
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    Buffer<int> input(100, 30);
    for (int j = 0; j < 30; j++)
        for (int i = 0; i < 100; i++)
            input(i, j) = i * 1000 + j;
    Param<int> offset("offset");
    offset.set(1234567);
    Func f("launched");
    f(x, y) = input(x, y) + offset;
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    int launches = record->launch_count, loads = record->module_loads;
    Buffer<int> out = f.realize({100, 30}, Target("host-cuda"));
    ASSERT_EQ(record->launch_count, launches + 1);
    const FakeCudaLaunch &l = record->launches[launches];
    EXPECT_NE(std::string(l.kernel).find("launched"), std::string::npos) << l.kernel;
    EXPECT_EQ(l.grid[0], 7u);  // ceil(100 / 16)
    EXPECT_EQ(l.grid[1], 4u);  // ceil(30 / 8)
    EXPECT_EQ(l.grid[2], 1u);
    EXPECT_EQ(l.block[0], 16u);
    EXPECT_EQ(l.block[1], 8u);
    EXPECT_EQ(l.block[2], 1u);
    int device_buffers = 0;
    bool saw_offset = false, saw_input = false;
    for (int i = 0; i < l.param_count; i++) {
        if (l.param_is_device_memory[i]) {
            device_buffers++;
            // The input's data reached the device before the launch.
            const uint32_t *words = l.device_words[i];
            if (words[0] == 0 && words[1] == 1000 && words[3] == 3000) saw_input = true;
        } else if (l.param_bytes[i] == 4 && static_cast<int32_t>(l.params[i]) == 1234567) {
            saw_offset = true;
        }
    }
    EXPECT_EQ(device_buffers, 2);  // the input and the output
    EXPECT_TRUE(saw_input);
    EXPECT_TRUE(saw_offset);
    EXPECT_EQ(record->module_loads, loads + 1);
    // No kernel ran: what comes back is the device's fresh memory, copied to the host.
    EXPECT_EQ(out(0, 0), int(0x5A5A5A5A));
    EXPECT_EQ(out(99, 29), int(0x5A5A5A5A));
    // realize() frees what it put on the device.
    EXPECT_EQ(record->live_allocations, 0);

    // The module is loaded once per process; a second realization launches again.
    f.realize({100, 30}, Target("host-cuda"));
    EXPECT_EQ(record->module_loads, loads + 1);
    EXPECT_EQ(record->launch_count, launches + 2);
}

TEST(FakeCUDA, SharedMemorySizedAtTheLaunch) {
    // Two producers per block in tiles of a Param's size: their shared memory is the launch's
    // dynamic shared memory, (tile + 1) floats and tile ints each rounded up to 16 bytes, and no
    // parameter of the kernel.
    DSL_REQUIRE_FAKE_CUDA(record);
    Var x("x"), bx("bx"), tx("tx");
    Buffer<float> input(200);
    Param<int> tile("cuda_tile");
    Func p("cuda_dynamic_p"), r("cuda_dynamic_r"), q("cuda_dynamic_q");
    p(x) = input(x) * 2.0f;
    r(x) = cast<int>(input(x));
    q(x) = p(x) + p(x + 1) + cast<float>(r(x + 2));
    q.gpu_tile(x, bx, tx, tile);
    p.compute_at(q, bx).gpu_threads(x);
    r.compute_at(q, bx).gpu_threads(x);
    for (int t : {16, 37}) {
        tile.set(t);
        int launches = record->launch_count;
        q.realize({t * 5}, Target("host-cuda"));
        ASSERT_EQ(record->launch_count, launches + 1);
        const FakeCudaLaunch &l = record->launches[launches];
        auto rounded = [](int bytes) { return unsigned((bytes + 15) / 16 * 16); };
        EXPECT_EQ(l.shared_bytes, rounded((t + 1) * 4) + rounded(t * 4)) << t;
        EXPECT_EQ(l.block[0], unsigned(t + 1)) << t;  // the larger producer's footprint
        EXPECT_EQ(l.grid[0], 5u);
    }
}

TEST(FakeCUDA, DeviceStagesShareTheirBuffersWithoutCopies) {
    DSL_REQUIRE_FAKE_CUDA(record);
    Var x("x"), bx("bx"), tx("tx");
    Buffer<float> input(64);
    for (int i = 0; i < 64; i++)
        input(i) = float(i);
    Func a("first"), b("second"), c("on_host"), d("third");
    a(x) = input(x) * 2.0f;
    b(x) = a(x) + a(x + 1);
    c(x) = b(x) - 1.0f;
    d(x) = c(x) * b(x);
    a.compute_root().gpu_tile(x, bx, tx, 32);
    b.compute_root().gpu_tile(x, bx, tx, 32);
    c.compute_root();
    d.gpu_tile(x, bx, tx, 32);
    int to_device = record->copies_to_device, to_host = record->copies_to_host;
    int launches = record->launch_count;
    d.realize({60}, Target("host-cuda"));
    EXPECT_EQ(record->launch_count, launches + 3);
    // To the device: the input (for `first`) and `on_host` (for `third`); `first` and `second`
    // stay there. To the host: `second` (for `on_host`) and the output.
    EXPECT_EQ(record->copies_to_device - to_device, 2);
    EXPECT_EQ(record->copies_to_host - to_host, 2);
    EXPECT_EQ(record->live_allocations, 0);
}

TEST(FakeCUDA, ABufferKeptOnTheDeviceIsNotCopied) {
    DSL_REQUIRE_FAKE_CUDA(record);
    Var x("x"), bx("bx"), tx("tx");
    Buffer<float> input(64);
    int to_device = record->copies_to_device, to_host = record->copies_to_host;
    int live = record->live_allocations;
    {
        Buffer<float> middle(64), out(64);
        middle.copy_to_device(Target("host-cuda"));
        Func f("kept_first"), g("kept_second");
        f(x) = input(x) + 1.0f;
        f.gpu_tile(x, bx, tx, 16);
        f.realize(middle, Target("host-cuda"));
        ImageParam mid(Float(32), 1, "mid");
        mid.set(middle);
        g(x) = mid(x) * 2.0f;
        g.gpu_tile(x, bx, tx, 16);
        g.realize(out, Target("host-cuda"));
        // To the device: `middle` once (copy_to_device) and the input; `out` is fresh and
        // written whole. To the host: `out` alone; `middle` stays on the device.
        EXPECT_EQ(record->copies_to_device - to_device, 2);
        EXPECT_EQ(record->copies_to_host - to_host, 1);
        EXPECT_EQ(record->live_allocations - live, 1);  // middle's
        middle.copy_to_host();
        EXPECT_EQ(record->copies_to_host - to_host, 2);
        middle.device_free();
        EXPECT_EQ(record->live_allocations, live);
    }
    {
        Buffer<int> temporary(16);
        temporary.copy_to_device(Target("host-cuda"));
        EXPECT_EQ(record->live_allocations - live, 1);
    }
    // The Buffer released its device copy with it.
    EXPECT_EQ(record->live_allocations, live);
}

TEST(GPUNoDriver, ClearErrorWithoutACUDADriver) {
    // Run by CTest with DSL_LIBCUDA naming a file that does not exist (gpu.no_driver).
    const char *library = std::getenv("DSL_LIBCUDA");
    if (!library || std::string(library).find("does-not-exist") == std::string::npos)
        GTEST_SKIP() << "runs with DSL_LIBCUDA=/does-not-exist/libcuda.so.1 only";
    Var x("x"), bx("bx"), tx("tx");
    Func f("without_cuda");
    f(x) = x;
    f.gpu_tile(x, bx, tx, 4);
    std::string m = message_of<RuntimeError>([&] { f.realize({8}, Target("host-cuda")); });
    EXPECT_CONTAINS(m, "no CUDA driver found");
    EXPECT_CONTAINS(m, "compile here but cannot run");
}

}  // namespace
}  // namespace dsl::test
