// The peer of matmul/dsl: OpenBLAS's cblas_sgemm on the same row-major matrices.
//
//   matmul/openblas/M/K/N/threads:T
//
// OpenBLAS is loaded with dlopen when the first of these runs, so that dsl_bench builds and runs
// without it (the benchmarks then stop with an error saying so). OpenBLAS 0.3.21 does not know
// Zen 4/5 and falls back to older kernels; OPENBLAS_CORETYPE=SkylakeX selects its AVX-512
// kernels, which is the fair peer on a CPU with AVX-512 (DSL_BENCH_OPENBLAS_CORETYPE names
// another core). OpenBLAS reads the variable from the environment the process started with, so
// when it says otherwise dsl_bench sets it and starts itself again (before main; the variable
// changes nothing else). The core OpenBLAS chose is the benchmarks' label.
#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "matmul.h"
#include "matmul_bench.h"

namespace dsl_bench {

namespace {

// cblas.h's enums and OpenBLAS's 32-bit integer interface (Debian's libopenblas0).
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111;
using Sgemm = void (*)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                       float, float *, int);
using SetThreads = void (*)(int);
using CoreName = char *(*)();

struct OpenBlas {
    Sgemm sgemm = nullptr;
    SetThreads set_threads = nullptr;
    CoreName core_name = nullptr;
    std::string error;
};

// Restarts dsl_bench with the OPENBLAS_CORETYPE it wants (see the top).
const bool restarted_with_coretype = [] {
    const char *wanted = std::getenv("DSL_BENCH_OPENBLAS_CORETYPE");
    if (!wanted && __builtin_cpu_supports("avx512f")) wanted = "SkylakeX";
    const char *now = std::getenv("OPENBLAS_CORETYPE");
    if (!wanted || (now && std::string(now) == wanted)) return false;
    std::ifstream file("/proc/self/cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (size_t start = 0; start < cmdline.size();) {
        size_t end = cmdline.find('\0', start);
        if (end == std::string::npos) end = cmdline.size();
        args.push_back(cmdline.substr(start, end - start));
        start = end + 1;
    }
    if (args.empty()) return false;
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    setenv("OPENBLAS_CORETYPE", wanted, 1);
    execv("/proc/self/exe", argv.data());
    return false;  // exec failed: go on, OpenBLAS picks its own kernels
}();

const OpenBlas &openblas() {
    static const OpenBlas lib = [] {
        OpenBlas o;
        void *handle = nullptr;
        for (const char *name : {"libopenblas.so.0", "libopenblas.so"}) {
            if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
        }
        if (!handle) {
            o.error =
                "OpenBLAS is not installed (Debian package libopenblas-dev, or "
                "DSL_BENCH_PEERS=1 scripts/setup.sh)";
            return o;
        }
        o.sgemm = reinterpret_cast<Sgemm>(dlsym(handle, "cblas_sgemm"));
        o.set_threads = reinterpret_cast<SetThreads>(dlsym(handle, "openblas_set_num_threads"));
        o.core_name = reinterpret_cast<CoreName>(dlsym(handle, "openblas_get_corename"));
        if (!o.sgemm || !o.set_threads || !o.core_name)
            o.error = "the OpenBLAS library found lacks cblas_sgemm or its thread controls";
        return o;
    }();
    return lib;
}

void BM_matmul_openblas(benchmark::State &state) {
    const OpenBlas &lib = openblas();
    if (!lib.error.empty()) {
        state.SkipWithError(lib.error.c_str());
        return;
    }
    const int m = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1)),
              n = static_cast<int>(state.range(2)), threads = static_cast<int>(state.range(3));
    dsl::Buffer<float> a = dsl_apps::matmul_random_matrix(k, m, 1),
                       b = dsl_apps::matmul_random_matrix(n, k, 2), c(n, m);
    auto multiply = [&] {
        lib.sgemm(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, m, n, k, 1.0f, a.data(), k,
                  b.data(), n, 0.0f, c.data(), n);
    };
    lib.set_threads(threads);
    multiply();
    // OpenBLAS sums in its own order: close to the reference, not equal.
    std::mt19937 rng(3);
    for (int i = 0; i < 256; i++) {
        int x = static_cast<int>(rng() % n), y = static_cast<int>(rng() % m);
        float want = dsl_apps::matmul_reference_at(a, b, x, y);
        if (!(std::fabs(c(x, y) - want) <= 1e-4f * std::sqrt(float(k)) + 1e-4f)) {
            state.SkipWithError("OpenBLAS's product does not match the reference");
            return;
        }
    }
    time_matmul(state, 2.0 * m * n * k, threads, multiply);
    state.SetLabel(std::string("OpenBLAS core ") + lib.core_name());
}

BENCHMARK(BM_matmul_openblas)->Name("matmul/openblas")->Apply(matmul_sizes);

}  // namespace

}  // namespace dsl_bench
