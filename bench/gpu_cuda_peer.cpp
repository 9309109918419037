// cuBLAS and the device's peak rates for bench/gpu.cpp, through dlopen (see gpu_cuda_peer.h).

#include "gpu_cuda_peer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace dsl_bench {

namespace {

/// dlopen of the first of `names` that loads (after the file named by the variable `env`).
void *open_first(const char *env, std::initializer_list<const char *> names) {
    if (const char *path = std::getenv(env); path && *path)
        if (void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return lib;
    for (const char *name : names)
        if (void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    return nullptr;
}

template <typename F>
bool find(void *lib, const char *name, F &f) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    return f != nullptr;
}

CudaPeak query_peak() {
    CudaPeak peak;
    void *lib = open_first("DSL_LIBCUDA", {"libcuda.so.1"});
    using Init = int (*)(unsigned);
    using Get = int (*)(int *, int);
    using Attr = int (*)(int *, int, int);
    using Name = int (*)(char *, int, int);
    Init init;
    Get get;
    Attr attr;
    Name name;
    if (!lib || !find(lib, "cuInit", init) || !find(lib, "cuDeviceGet", get) ||
        !find(lib, "cuDeviceGetAttribute", attr) || !find(lib, "cuDeviceGetName", name))
        return peak;
    int device = 0;
    if (init(0) != 0 || get(&device, 0) != 0) return peak;
    char text[256] = {};
    if (name(text, sizeof text - 1, device) == 0) peak.name = text;
    // CUdevice_attribute: CLOCK_RATE 13 (kHz), MULTIPROCESSOR_COUNT 16, MEMORY_CLOCK_RATE 36
    // (kHz), GLOBAL_MEMORY_BUS_WIDTH 37 (bits), COMPUTE_CAPABILITY_MAJOR 75 and MINOR 76.
    int clock = 0, sms = 0, memory_clock = 0, bus = 0, major = 0, minor = 0;
    attr(&clock, 13, device);
    attr(&sms, 16, device);
    attr(&memory_clock, 36, device);
    attr(&bus, 37, device);
    attr(&major, 75, device);
    attr(&minor, 76, device);
    // FP32 lanes per multiprocessor: 64 on sm_60, 7.x and 8.0; 128 on 6.1, 8.6, 8.9 and 9.x.
    const int lanes =
        (major == 7 || (major == 8 && minor == 0) || (major == 6 && minor == 0)) ? 64 : 128;
    peak.gflops = double(sms) * lanes * 2.0 * clock * 1e3 / 1e9;
    peak.gbytes_per_s = 2.0 * memory_clock * 1e3 * (bus / 8.0) / 1e9;
    return peak;
}

// The few entry points of libcudart and libcublas used here (their C ABI).
struct Cuda {
    int (*malloc)(void **, size_t) = nullptr;
    int (*free)(void *) = nullptr;
    int (*memcpy)(void *, const void *, size_t, int) = nullptr;
    int (*synchronize)() = nullptr;
    int (*create)(void **) = nullptr;
    int (*destroy)(void *) = nullptr;
    int (*sgemm)(void *, int, int, int, int, int, const float *, const float *, int, const float *,
                 int, const float *, float *, int) = nullptr;
    std::string why_not;

    Cuda() {
        void *rt = open_first("DSL_LIBCUDART", {"libcudart.so.13", "libcudart.so.12",
                                                "libcudart.so.11.0", "libcudart.so"});
        void *blas = open_first("DSL_LIBCUBLAS", {"libcublas.so.13", "libcublas.so.12",
                                                  "libcublas.so.11", "libcublas.so"});
        if (!rt || !blas) {
            why_not = std::string("cuBLAS not found (") + (rt ? "" : "libcudart ") +
                      (blas ? "" : "libcublas ") +
                      "missing; set DSL_LIBCUDART and DSL_LIBCUBLAS to their paths)";
            return;
        }
        if (!find(rt, "cudaMalloc", malloc) || !find(rt, "cudaFree", free) ||
            !find(rt, "cudaMemcpy", memcpy) || !find(rt, "cudaDeviceSynchronize", synchronize) ||
            !find(blas, "cublasCreate_v2", create) || !find(blas, "cublasDestroy_v2", destroy) ||
            !find(blas, "cublasSgemm_v2", sgemm))
            why_not = "libcudart or libcublas lacks an entry point this benchmark calls";
    }
};

const Cuda &cuda() {
    static const Cuda c;
    return c;
}

}  // namespace

const CudaPeak &cuda_peak() {
    static const CudaPeak peak = query_peak();
    return peak;
}

CublasSgemm::CublasSgemm(int n) : n_(n) {
    const Cuda &c = cuda();
    why_not_ = c.why_not;
    if (!why_not_.empty()) return;
    const size_t bytes = size_t(n) * n * sizeof(float);
    std::vector<float> host(size_t(n) * n);
    std::mt19937 rng(6);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float &v : host)
        v = value(rng);
    void *a = nullptr, *b = nullptr, *out = nullptr;
    int error = 0;
    const char *step = "cudaMalloc";
    if (!(error = c.malloc(&a, bytes)) && !(error = c.malloc(&b, bytes)) &&
        !(error = c.malloc(&out, bytes))) {
        step = "cudaMemcpy";
        if (!(error = c.memcpy(a, host.data(), bytes, 1)) &&
            !(error = c.memcpy(b, host.data(), bytes, 1))) {
            step = "cublasCreate";
            error = c.create(&handle_);
        }
    }
    if (error)
        why_not_ = std::string("cuBLAS: ") + step + " failed with error " + std::to_string(error);
    a_ = static_cast<float *>(a);
    b_ = static_cast<float *>(b);
    c_ = static_cast<float *>(out);
}

CublasSgemm::~CublasSgemm() {
    const Cuda &c = cuda();
    if (!c.why_not.empty()) return;
    if (handle_) c.destroy(handle_);
    for (float *p : {a_, b_, c_})
        if (p) c.free(p);
}

bool CublasSgemm::run() {
    if (!why_not_.empty()) return false;
    const Cuda &c = cuda();
    const float one = 1.0f, zero = 0.0f;
    // Column-major C = A B with no transposes (CUBLAS_OP_N is 0).
    if (c.sgemm(handle_, 0, 0, n_, n_, n_, &one, a_, n_, b_, n_, &zero, c_, n_) != 0 ||
        c.synchronize() != 0) {
        why_not_ = "cublasSgemm failed";
        return false;
    }
    return true;
}

}  // namespace dsl_bench
