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
/// `trace_loads`, `trace_stores` and `trace_realizations` trace every Func of the pipeline, as
/// Func::trace_loads() and the like do for one (the events go to the trace handler;
/// Func::set_custom_trace, or Halide's text lines by default). `trace_loads` traces the loads
/// of input buffers too. `trace_pipeline` traces only the pipeline's begin and end.
///
/// `profile` adds a profiler to the code: per pipeline and per Func, the time its own code runs
/// (summed over threads; a producer computed inside a Func counts as the producer's), printed
/// through the print handler when the program exits (or by dsl_profiler_report(), with
/// dsl_profiler_stats() to read the numbers; dsl/runtime/dsl_runtime.h). realize() prints the
/// report after each run, through its print handler. `profile_by_timer` (Halide's sampling
/// profiler) means the same here: dsl's profiler measures, it does not sample.
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
#include <iosfwd>
#include <string>
#include <vector>

#include "dsl/DeviceAPI.h"
#include "dsl/Type.h"

namespace dsl {

class Target {
  public:
    /// Architectures and operating systems as Halide names them. dsl generates code for X86
    /// and ARM, 64 bits, on Linux; the other values exist so that programs written for Halide
    /// can ask (`target.arch == Target::WebAssembly`); compiling for them is a CompileError.
    enum Arch { ArchUnknown, X86, ARM, MIPS, Hexagon, POWERPC, WebAssembly, RISCV };
    enum OS {
        OSUnknown,
        Linux,
        Windows,
        OSX,
        Android,
        IOS,
        QuRT,
        NoOS,
        Fuchsia,
        WebAssemblyRuntime
    };
    /// The features dsl supports come first, in canonical order (the order `to_string` writes
    /// them in). After them, Halide's features that dsl does not support, named so that Halide
    /// programs that test for them (`if (target.has_feature(Target::HVX))`) compile: no target
    /// has them (has_feature is false), and adding one (`with_feature`, a target string) is a
    /// CompileError that says why. Like Halide's, the values are reachable as `Target::AVX2`.
    enum Feature {
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
        NPU,
        TraceLoads,
        TraceStores,
        TraceRealizations,
        Profile,
        ProfileByTimer,
        TracePipeline,
        /// Every floating-point store clears the lowest bit of the value's mantissa: a test of
        /// whether a pipeline's results depend on the last bit of its arithmetic.
        FuzzFloatStores,
        // Not supported by dsl (see above).
        JIT,
        Debug,
        NoAsserts,
        NoBoundsQuery,
        FMA4,
        ARMv7s,
        NoNEON,
        VSX,
        POWER_ARCH_2_07,
        CUDACapability30,
        CUDACapability32,
        CUDACapability35,
        CUDACapability50,
        CLDoubles,
        CLHalf,
        CLAtomics64,
        OpenGLCompute,
        EGL,
        UserContext,
        NoRuntime,
        Metal,
        CPlusPlusMangling,
        LargeBuffers,
        HexagonDma,
        HVX_128,
        HVX_v62,
        HVX_v65,
        HVX_v66,
        HVX_shared_object,
        SoftFloatABI,
        MSAN,
        AVX512_KNL,
        AVX512_Skylake,
        AVX512_Cannonlake,
        AVX512_SapphireRapids,
        D3D12Compute,
        TSAN,
        ASAN,
        CheckUnsafePromises,
        EmbedBitcode,
        EnableLLVMLoopOpt,
        WasmSimd128,
        WasmSignExt,
        WasmSatFloatToInt,
        WasmThreads,
        WasmBulkMemory,
        SVE,
        SVE2,
        ARMDotProd,
        ARMFp16,
        RVV,
        ARMv81a,
        SanitizerCoverage,
        FeatureEnd,
        HVX = HVX_128
    };

    /// The architecture, bit width and operating system, public as in Halide (`t.arch`,
    /// `t.bits`, `t.os`). A Target whose fields name something dsl cannot generate code for
    /// (another OS, 32 bits) can be built and printed; compiling for it is a CompileError.
    Arch arch = X86;
    int bits = 64;
    OS os = Linux;

    /// x86-64-linux with no features beyond the baseline (SSE2).
    Target() = default;
    /// Parses `arch-bits-os[-features]` or `host[-features]` ("" is the host, as in Halide);
    /// throws a CompileError naming the word it does not understand and the words valid in its
    /// place.
    explicit Target(const std::string &target);
    static Target from_string(const std::string &target) { return Target(target); }
    /// Halide's constructor: the fields, then the features (with the ones they imply). A
    /// CompileError if a feature is not supported or is for another architecture.
    Target(OS o, Arch a, int b, const std::vector<Feature> &initial_features = {});

    /// This machine with all its SIMD features (the same as `Target("host")`).
    static Target host();

    /// The canonical string: parsing it gives back an equal Target. Features are written in
    /// canonical order without the ones implied by others; a `host` target lists only the
    /// features added to the host's.
    std::string to_string() const;

    /// Whether this is a `host` target: code is tuned for this machine's CPU and may use all
    /// its features.
    bool is_host() const { return host_; }

    /// Whether `f` is a feature of the CPU (an instruction set), which code run on a machine
    /// needs that machine to have; `fp_contract` and the GPU APIs are not.
    static constexpr bool is_cpu_feature(Feature f) { return f < FP_CONTRACT; }
    /// Whether dsl can generate code with the feature (see Feature); the others are named for
    /// Halide programs only, and no target has them.
    static constexpr bool is_supported_feature(Feature f) { return f >= 0 && f < JIT; }
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

    /// Whether `has_feature` holds for any (all) of `fs`.
    bool features_any_of(const std::vector<Feature> &fs) const;
    bool features_all_of(const std::vector<Feature> &fs) const;
    /// Adds (or removes) each of `fs`.
    Target &set_features(const std::vector<Feature> &fs, bool value = true) {
        for (Feature f : fs)
            set_feature(f, value);
        return *this;
    }

    /// Whether dsl can generate code for this target: x86 or arm, 64 bits, Linux.
    bool supported() const;
    /// Whether a target string parses (`Target(s)` would not throw).
    static bool validate_target_string(const std::string &s);
    /// Whether code for this target can hold values of `t`: every valid dsl type
    /// (Type::is_valid; float16 and bfloat16 are computed in float32 where the CPU lacks them).
    bool supports_type(const Type &t) const;
    /// Whether loops scheduled for `api` can run on this target: the host CPU always, OpenCL
    /// or CUDA with that feature, DeviceAPI::Default_GPU with either; the NPU's loops with `npu`.
    bool supports_device_api(DeviceAPI api) const;
    /// The GPU API that DeviceAPI::Default_GPU means here: OpenCL when the target has it, else
    /// CUDA, else DeviceAPI::None.
    DeviceAPI get_required_device_api() const;
    /// The largest buffer, in bytes, code for this target can address: 2^31 - 1 (dsl indexes
    /// buffers with int32 arithmetic).
    int64_t maximum_buffer_size() const { return (int64_t(1) << 31) - 1; }

    bool operator==(const Target &o) const {
        return arch == o.arch && bits == o.bits && os == o.os && host_ == o.host_ &&
               features_ == o.features_;
    }
    bool operator!=(const Target &o) const { return !(*this == o); }

  private:
    bool host_ = false;
    uint32_t features_ = 0;  ///< bit i: supported Feature i (closed under implication)
};

/// Writes `t.to_string()`.
std::ostream &operator<<(std::ostream &out, const Target &t);

/// The machine this runs on, as Target::host().
Target get_host_target();
/// The target the JIT compiles for: `DSL_JIT_TARGET` (or Halide's `HL_JIT_TARGET`) from the
/// environment when set, e.g. `host-avx2`, else the host. A bad string is a CompileError.
Target get_jit_target_from_environment();
/// The target to compile ahead of time for: `DSL_TARGET` (or `HL_TARGET`) when set, else the
/// host.
Target get_target_from_environment();
/// Whether this machine can run code for `t`'s device API: its OpenCL or CUDA driver loads and
/// has a device (no GPU API: true).
bool host_supports_target_device(const Target &t);

}  // namespace dsl
