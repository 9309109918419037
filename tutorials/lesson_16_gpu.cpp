// Lesson 16: the same pipeline on the CPU, through OpenCL and through CUDA.
//
// The algorithm does not change; the schedule says which loops become GPU kernels, and the
// target says which GPU API runs them:
//   - gpu_tile(x, y, bx, by, tx, ty, 16, 16) splits x and y into blocks of 16 x 16 threads;
//     the Func's loops become one kernel, launched over the blocks.
//   - p.compute_at(q, bx) computes a producer per block, into the block's shared memory; with
//     gpu_threads on its loops, the block's threads compute it together, and a barrier lets
//     the consumer's threads read it afterwards.
//   - Target("host-opencl") runs kernels through OpenCL (here Debian's PoCL, on the CPU);
//     Target("host-cuda") through CUDA, on an NVIDIA GPU. Where a machine cannot run one, the
//     pipeline still compiles, and realize() throws a RuntimeError that says why.
// Pipelines copy buffers between host and device as needed; realize() brings its results
// home. lowered_stmt() shows the kernels (OpenCL C or PTX come with compile_to_assembly).
//
// Run it: build/tutorials/lesson_16_gpu

#include <cmath>
#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

/// The largest difference between two float images of the same size.
float max_difference(const Buffer<float> &a, const Buffer<float> &b) {
    float worst = 0;
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < a.width(); x++)
            worst = std::max(worst, std::fabs(a(x, y) - b(x, y)));
    return worst;
}

/// A 3 x 3 blur of `input`, scheduled for the CPU or the GPU.
Func blur(const Buffer<float> &input, bool gpu) {
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    Func rows("rows"), out("blurred");
    rows(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3.0f;
    out(x, y) = (rows(x, y) + rows(x, y + 1) + rows(x, y + 2)) / 3.0f;
    if (gpu) {
        out.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
        // 16 x 18 rows per block, in shared memory, by the block's threads.
        rows.compute_at(out, bx).gpu_threads(x, y);
    } else {
        Var yo("yo"), yi("yi");
        out.split(y, yo, yi, 16).parallel(yo).vectorize(x, 8);
        rows.compute_at(out, yo).vectorize(x, 8);
    }
    return out;
}

}  // namespace

int main() {
    const int w = 200, h = 120;
    Buffer<float> input(w + 2, h + 2);
    input.fill([](int x, int y) { return float((x * 7 + y * 13) % 32); });

    Buffer<float> on_cpu = blur(input, false).realize({w, h});
    std::printf("CPU: done\n");

    bool ok = true;
    for (const char *target : {"host-opencl", "host-cuda"}) {
        Func gpu = blur(input, true);
        try {
            Buffer<float> on_gpu = gpu.realize({w, h}, Target(target));
            float difference = max_difference(on_cpu, on_gpu);
            std::printf("%s: largest difference from the CPU's result %g\n", target, difference);
            ok &= difference == 0.0f;  // the same float operations, rounded the same way
        } catch (const RuntimeError &e) {
            // Compiled, but this machine has no device for that API.
            std::printf("%s: cannot run here: %s\n", target, e.what());
        }
    }

    // The kernel's loops: the block loops, then in each block the producer's thread loops
    // (into shared memory) and the consumer's. lowered_stmt() shows the kernel itself, with
    // its barrier.
    std::printf("-- the GPU schedule's loops:\n");
    blur(input, true).print_loop_nest();
    std::printf(ok ? "lesson 16: ok\n" : "lesson 16: FAILED\n");
    return ok ? 0 : 1;
}
