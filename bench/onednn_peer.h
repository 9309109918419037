#pragma once
// What the benchmarks against oneDNN (conv_layer_onednn.cpp, nn_conv_onednn.cpp,
// nn_int8_onednn.cpp) share: its thread count, and the name of the instruction set it runs on.
// oneDNN 2.6 (Debian libdnnl-dev) runs on OpenMP, whose thread count is set with
// omp_set_num_threads, looked up with dlsym (libgomp comes with libdnnl).
#include <dlfcn.h>

#include <string>

#include <benchmark/benchmark.h>

#include <oneapi/dnnl/dnnl.hpp>

namespace dsl_bench {

using OmpSetThreads = void (*)(int);
using OmpGetMaxThreads = int (*)();

// Sets OpenMP's thread count for the life of the object, then restores the one it found.
class OmpThreads {
  public:
    explicit OmpThreads(int threads) {
        set_ = reinterpret_cast<OmpSetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
        auto get = reinterpret_cast<OmpGetMaxThreads>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
        if (!set_ || !get) {
            set_ = nullptr;
            return;
        }
        saved_ = get();
        set_(threads);
    }
    ~OmpThreads() {
        if (set_) set_(saved_);
    }
    OmpThreads(const OmpThreads &) = delete;
    OmpThreads &operator=(const OmpThreads &) = delete;
    bool ok() const { return set_ != nullptr; }

  private:
    OmpSetThreads set_ = nullptr;
    int saved_ = 0;
};

/// Whether oneDNN's thread count is set by `omp` (an OmpThreads made for the benchmark); if
/// not, the benchmark is marked skipped with the reason.
inline bool onednn_threads_set(benchmark::State &state, const OmpThreads &omp) {
#if DNNL_CPU_RUNTIME != DNNL_RUNTIME_OMP
    state.SkipWithError("this oneDNN is not built on OpenMP, whose thread count it sets");
    return false;
#endif
    if (!omp.ok()) {
        state.SkipWithError("omp_set_num_threads not found: cannot set oneDNN's thread count");
        return false;
    }
    return true;
}

inline const char *isa_name(dnnl::cpu_isa isa) {
    using dnnl::cpu_isa;
    switch (isa) {
        case cpu_isa::sse41:
            return "SSE4.1";
        case cpu_isa::avx:
            return "AVX";
        case cpu_isa::avx2:
            return "AVX2";
        case cpu_isa::avx2_vnni:
            return "AVX2 + VNNI";
        case cpu_isa::avx512_mic:
            return "AVX-512 (Xeon Phi)";
        case cpu_isa::avx512_mic_4ops:
            return "AVX-512 (Xeon Phi, 4FMAPS)";
        case cpu_isa::avx512_core:
            return "AVX-512";
        case cpu_isa::avx512_core_vnni:
            return "AVX-512 + VNNI";
        case cpu_isa::avx512_core_bf16:
            return "AVX-512 + VNNI + BF16";
        case cpu_isa::avx512_core_amx:
            return "AVX-512 + AMX";
        default:
            return "unknown ISA";
    }
}

/// The weights in the layout the primitive `pd` chose: `user` itself, or (when that differs from
/// the user's layout) a copy reordered into it once, untimed (a layer's constants).
inline dnnl::memory primitive_weights(const dnnl::convolution_forward::primitive_desc &pd,
                                      const dnnl::memory &user, const dnnl::engine &engine,
                                      dnnl::stream &stream) {
    if (pd.weights_desc() == user.get_desc()) return user;
    dnnl::memory weights(pd.weights_desc(), engine);
    dnnl::memory source = user;
    dnnl::reorder(source, weights).execute(stream, source, weights);
    stream.wait();
    return weights;
}

/// The benchmark's label: the implementation oneDNN chose for `pd` and its instruction set.
inline std::string primitive_label(const dnnl::convolution_forward::primitive_desc &pd) {
    return std::string("oneDNN ") + pd.impl_info_str() + ", " +
           isa_name(dnnl::get_effective_cpu_isa());
}

}  // namespace dsl_bench
