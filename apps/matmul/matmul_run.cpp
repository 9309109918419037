// Multiplies two random matrices and checks the product against the C++ reference.
//   matmul_run [M K N] [--benchmark [runs]]
// A is M x K, B is K x N (default 512 each). With --benchmark, times the default-schedule and
// the hand-written AOT libraries and realize() of the hand-written schedule, in GFLOP/s.
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

#include "app_util.h"
#include "matmul.h"
#include "matmul_aot.h"
#include "matmul_aot_naive.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    return run_main("matmul_run", [&] {
        int size[3] = {512, 512, 512};
        int sizes = 0, runs = 0;
        for (int i = 1; i < argc; i++) {
            std::string arg = argv[i];
            if (arg == "--benchmark") {
                runs = 10;
                if (i + 1 < argc) runs = parse_size(argv[++i], "of --benchmark (runs)", 16384);
            } else if (sizes < 3) {
                size[sizes] = parse_size(argv[i], sizes == 0 ? "M" : sizes == 1 ? "K" : "N", 16384);
                sizes++;
            } else {
                throw std::runtime_error("usage: matmul_run [M K N] [--benchmark [runs]]");
            }
        }
        if (sizes != 0 && sizes != 3)
            throw std::runtime_error("give all three sizes M K N, or none (512 each)");
        const int m = size[0], k = size[1], n = size[2];
        Buffer<float> a = matmul_random_matrix(k, m, 1), b = matmul_random_matrix(n, k, 2), c(n, m);

        // The hand-written schedule needs C at least one register tile large.
        const bool fits = matmul_fits_schedule(m, n);
        auto scheduled_aot = [&] {
            return fits ? matmul_aot(a.raw_buffer(), b.raw_buffer(), c.raw_buffer())
                        : matmul_aot_naive(a.raw_buffer(), b.raw_buffer(), c.raw_buffer());
        };
        if (scheduled_aot() != 0) throw std::runtime_error("the matmul library failed");

        // Every element when that is quick, else a sample (the reference is one scalar loop).
        const double work = double(m) * n * k;
        const int samples = work <= 64.0 * 1024 * 1024 ? m * n : 4096;
        std::mt19937 rng(3);
        for (int i = 0; i < samples; i++) {
            int x = samples == m * n ? i % n : static_cast<int>(rng() % n);
            int y = samples == m * n ? i / n : static_cast<int>(rng() % m);
            float want = matmul_reference_at(a, b, x, y);
            if (c(x, y) != want) {
                throw std::runtime_error("C(" + std::to_string(x) + ", " + std::to_string(y) +
                                         ") is " + std::to_string(c(x, y)) + ", the reference " +
                                         std::to_string(want));
            }
        }
        std::printf("matmul_run: %dx%d times %dx%d matches the reference (%s)\n", m, k, k, n,
                    samples == m * n ? "every element" : "4096 sampled elements");
        if (runs == 0) return 0;

        ImageParam pa(Float(32), 2, "a"), pb(Float(32), 2, "b");
        pa.set(a);
        pb.set(b);
        MatmulPipeline jit = make_matmul(pa, pb);
        if (fits) schedule_matmul(jit, Target::host());
        jit.output.compile_jit();
        int status = 0;
        double naive_ms = best_time_ms(runs, [&] {
            status |= matmul_aot_naive(a.raw_buffer(), b.raw_buffer(), c.raw_buffer());
        });
        double scheduled_ms = best_time_ms(runs, [&] { status |= scheduled_aot(); });
        double jit_ms = best_time_ms(runs, [&] { jit.output.realize(c); });
        if (status != 0) throw std::runtime_error("the matmul library failed");
        auto gflops = [&](double ms) { return 2.0 * work / (ms * 1e-3) * 1e-9; };
        std::printf("matmul %dx%dx%d, best of %d runs:\n", m, k, n, runs);
        std::printf("  default schedule (AOT)      %10.3f ms  %7.1f GFLOP/s\n", naive_ms,
                    gflops(naive_ms));
        std::printf("  hand-written schedule (AOT) %10.3f ms  %7.1f GFLOP/s\n", scheduled_ms,
                    gflops(scheduled_ms));
        std::printf("  realize() (JIT)             %10.3f ms  %7.1f GFLOP/s\n", jit_ms,
                    gflops(jit_ms));
        return 0;
    });
}
