#pragma once
/// `Target`: the machine code is generated for, written as a string.
///
///   arch-bits-os[-feature...]    e.g. "x86-64-linux", "x86-64-linux-avx2-fma", "arm-64-linux"
///   host[-feature...]            this machine, e.g. "host", "host-avx512"
///
/// arch is `x86` or `arm`, bits is `64`, os is `linux`. Features: `sse41`, `avx`, `avx2`, `fma`,
/// `f16c`, `avx512` (AVX-512 F, BW, DQ, VL and CD together) and `avx512_vnni` for x86; `neon` for
/// arm (part of every arm-64 target). A feature brings the ones it builds on: `avx2` means
/// `sse41`, `avx` and `avx2`; `avx512` also means `fma` and `f16c`.
///
/// `opencl` adds a GPU API: the loops a schedule marks with gpu_blocks / gpu_threads become
/// OpenCL C kernels, run through the OpenCL driver (libOpenCL.so.1; here Debian's PoCL).
/// `cuda` makes them PTX kernels for NVIDIA GPUs, run through the CUDA driver (libcuda.so.1);
/// `cuda_capability_61` (and 70, 75, 80, 86, 89, 90) chooses the GPUs the PTX is for (each
/// implies `cuda`; 75 without one). With both APIs, kernels scheduled with
/// DeviceAPI::Default_GPU use OpenCL.
///
/// `npu` adds the NPU (src/npu/README.md; simulated): updates scheduled with npu_gemm or npu
/// run on its GEMM core.
///
/// One feature is about the code rather than the CPU, on either architecture: `fp_contract` lets
/// code generation fuse a float multiply and an add that uses it (`a * b + c`) into one fused
/// multiply-add, rounded once, where the CPU has the instruction (as C compilers do with
/// `-ffp-contract=fast`, and Halide by default). Results may then differ from the reference
/// evaluator's in the last bit. Without it every float operation is rounded as written; `fma()`
/// asks for the fused operation explicitly. `strict_float` (Halide's StrictFloat) turns
/// `fp_contract` off, and `strict_float(e)` keeps the operations of `e` as written in a pipeline
/// compiled with `fp_contract`.
///
/// A plain target (`x86-64-linux-avx2`) generates code for the architecture's baseline CPU
/// (`x86-64`, AArch64 `generic`) with exactly the named features. A `host` target generates code
/// for this machine's CPU with every feature it has, including ones the list above does not name;
/// `host-<feature>` adds a feature (which the host may lack: such code can be compiled ahead of
/// time but `realize()` refuses to run it).

#include <cstdint>
#include <string>
#include <vector>

#include "dsl/Type.h"

namespace dsl {

class Target {
  public:
    enum class Arch { X86, ARM };
    enum class OS { Linux };
    /// In canonical order (the order `to_string` writes them in).
    enum class Feature {
        SSE41,
        AVX,
        AVX2,
        FMA,
        F16C,
        AVX512,
        AVX512_VNNI,
        NEON,
        FP_CONTRACT,
        OpenCL,
        CUDA,
        CUDACapability61,
        CUDACapability70,
        CUDACapability75,
        CUDACapability80,
        CUDACapability86,
        CUDACapability89,
        CUDACapability90,
        StrictFloat,
        NPU
    };
    // The features as Halide names them (Target::AVX2, Target::CUDA, ...).
    static constexpr Feature SSE41 = Feature::SSE41, AVX = Feature::AVX, AVX2 = Feature::AVX2,
                             FMA = Feature::FMA, F16C = Feature::F16C, AVX512 = Feature::AVX512,
                             AVX512_VNNI = Feature::AVX512_VNNI, NEON = Feature::NEON,
                             OpenCL = Feature::OpenCL, CUDA = Feature::CUDA,
                             CUDACapability61 = Feature::CUDACapability61,
                             CUDACapability70 = Feature::CUDACapability70,
                             CUDACapability75 = Feature::CUDACapability75,
                             CUDACapability80 = Feature::CUDACapability80,
                             CUDACapability86 = Feature::CUDACapability86,
                             CUDACapability89 = Feature::CUDACapability89,
                             CUDACapability90 = Feature::CUDACapability90,
                             StrictFloat = Feature::StrictFloat, NPU = Feature::NPU;

    /// x86-64-linux with no features beyond the baseline (SSE2).
    Target() = default;
    /// Parses `arch-bits-os[-features]` or `host[-features]`; throws a CompileError naming the
    /// word it does not understand and the words valid in its place.
    explicit Target(const std::string &target);
    static Target from_string(const std::string &target) { return Target(target); }

    /// This machine with all its SIMD features (the same as `Target("host")`).
    static Target host();

    /// The canonical string: parsing it gives back an equal Target. Features are written in
    /// canonical order without the ones implied by others; a `host` target lists only the
    /// features added to the host's.
    std::string to_string() const;

    Arch arch() const { return arch_; }
    int bits() const { return bits_; }
    OS os() const { return os_; }
    /// Whether this is a `host` target: code is tuned for this machine's CPU and may use all
    /// its features.
    bool is_host() const { return host_; }

    /// Whether `f` is a feature of the CPU (an instruction set), which code run on a machine
    /// needs that machine to have; `fp_contract` and the GPU APIs are not.
    static bool is_cpu_feature(Feature f) {
        return f != Feature::FP_CONTRACT && f != Feature::StrictFloat && f != Feature::OpenCL &&
               f != Feature::NPU && f != Feature::CUDA && cuda_capability_of(f) == 0;
    }
    /// The compute capability a `cuda_capability_NN` feature names (80 for
    /// CUDACapability80), 0 for other features.
    static int cuda_capability_of(Feature f);
    /// The highest compute capability among the target's features; 75 for `cuda` alone (the
    /// oldest the current CUDA toolkit assembles for); 0 without `cuda`.
    int cuda_capability() const;

    /// Whether the feature is named or implied by a named one (`avx2` implies `avx`).
    bool has_feature(Feature f) const;
    /// Whether the target has a GPU API (`opencl`, `cuda`): loops scheduled with gpu_blocks and
    /// gpu_threads then run as kernels on that API's device.
    bool has_gpu_feature() const {
        return has_feature(Feature::OpenCL) || has_feature(Feature::CUDA);
    }
    /// Adds (or with `value` false removes) a feature, as with_feature / without_feature.
    Target &set_feature(Feature f, bool value = true) {
        return *this = value ? with_feature(f) : without_feature(f);
    }
    /// The features present, in canonical order (implied ones included).
    std::vector<Feature> features() const;
    /// This target with `f` and the features it implies added. A CompileError if `f` is for
    /// another architecture.
    Target with_feature(Feature f) const;
    /// This target without `f` and without the features that imply it (removing `avx` removes
    /// `avx2` too). A `host` target that loses a feature no longer describes this machine: the
    /// result is the plain target with the remaining features.
    Target without_feature(Feature f) const;

    /// Lanes of `t` in the widest SIMD register: 64 bytes with avx512, 32 with avx or avx2,
    /// 16 otherwise (SSE on x86-64, NEON on arm-64), divided by the element size.
    int natural_vector_size(const Type &t) const;
    template <typename T>
    int natural_vector_size() const {
        return natural_vector_size(type_of<T>());
    }

    /// The word for a feature in target strings ("avx512_vnni").
    static std::string feature_name(Feature f);

    bool operator==(const Target &o) const {
        return arch_ == o.arch_ && bits_ == o.bits_ && os_ == o.os_ && host_ == o.host_ &&
               features_ == o.features_;
    }
    bool operator!=(const Target &o) const { return !(*this == o); }

  private:
    Arch arch_ = Arch::X86;
    int bits_ = 64;
    OS os_ = OS::Linux;
    bool host_ = false;
    uint32_t features_ = 0;  ///< bit i: Feature i (closed under implication)
};

/// The machine this runs on, as Target::host().
Target get_host_target();
/// The target the JIT compiles for: `DSL_JIT_TARGET` (or Halide's `HL_JIT_TARGET`) from the
/// environment when set, e.g. `host-avx2`, else the host. A bad string is a CompileError.
Target get_jit_target_from_environment();
/// The target to compile ahead of time for: `DSL_TARGET` (or `HL_TARGET`) when set, else the
/// host.
Target get_target_from_environment();

}  // namespace dsl
