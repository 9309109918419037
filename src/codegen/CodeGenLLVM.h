#pragma once
/// Code generation: a lowered `ir::Module` becomes an LLVM module for a CPU. LLVM's headers stay
/// out of this header (only forward declarations) so that it is cheap to include.

#include <memory>
#include <string>

#include "ir/Module.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
class TargetOptions;
}  // namespace llvm

namespace dsl::codegen {

/// The CPU to generate code for.
struct CpuTarget {
    std::string triple;    ///< e.g. "x86_64-pc-linux-gnu"
    std::string cpu;       ///< e.g. "sapphirerapids"; "generic" for none
    std::string features;  ///< LLVM feature string, e.g. "+avx2,+fma"
    /// LLVM's optimisation level, 0-3: the IR pass pipeline (O0-O3) and instruction selection.
    /// Lower levels compile faster; the dsl's own lowering (vectorisation, partitioning) runs
    /// at every level.
    int opt_level = 3;
    /// Whether a float multiply and an add of its result may be fused into one fused
    /// multiply-add (Target's `fp_contract`); otherwise each is rounded on its own.
    bool fp_contract = false;
    /// The GPU API that kernels scheduled with DeviceAPI::Default_GPU are generated for
    /// (OpenCL if the target has it, else CUDA), or None when the target has no GPU feature (a
    /// pipeline with GPU loops is then refused).
    ir::DeviceAPI gpu_api = ir::DeviceAPI::None;
    /// The GPU APIs the target has: `opencl`; CUDA's compute capability (e.g. 80), 0 without
    /// `cuda`.
    bool opencl = false;
    int cuda_capability = 0;
    /// Whether the target has the NPU (`npu`): code may offload loops to it.
    bool npu = false;

    /// The machine this process runs on, with all its features.
    static CpuTarget host();
};

/// LLVM's code generation options for `target` (IEEE floating point; `a * b + c` contracted
/// only with `fp_contract`). Every target machine that compiles dsl code uses them: the one of
/// make_target_machine and the JIT's.
llvm::TargetOptions target_options(const CpuTarget &target);

/// Makes an LLVM TargetMachine for `target` at its optimisation level.
std::unique_ptr<llvm::TargetMachine> make_target_machine(const CpuTarget &target);

/// Generates LLVM IR for every function of `module`. Each function `f` gets two entry points:
///   int f(dsl_buffer_t *or scalar args...)   in the order of `LoweredFunc::args`
///   int f_argv(void **args)                  args[i] points to the i-th argument (a
///                                            dsl_buffer_t * is passed as the pointer itself)
///
/// The module's GPU kernels are compiled for `target.gpu_api` (OpenCL C, embedded in the module
/// as a constant string that the launches hand to the runtime); a module with kernels for a
/// target without a GPU API is a CompileError.
std::unique_ptr<llvm::Module> compile_to_llvm(const ir::Module &module, llvm::LLVMContext &context,
                                              llvm::TargetMachine &target_machine,
                                              const CpuTarget &target);

/// The GPU kernels of a module as code for their devices: each kernel with its API resolved
/// (DeviceAPI::Default_GPU becomes the target's), the OpenCL C program of those on OpenCL and
/// the PTX module of those on CUDA (each empty when none). A kernel whose API the target lacks
/// is a CompileError.
struct GPUCode {
    std::vector<ir::GPUKernel> kernels;
    std::string opencl, ptx;
};
GPUCode compile_gpu_kernels(const ir::Module &module, const CpuTarget &target);

/// The optimised module as LLVM IR text, or as the target's assembly text (followed, for a
/// module with GPU kernels, by their OpenCL C or PTX as comments).
std::string compile_to_llvm_ir_text(const ir::Module &module, const CpuTarget &target);
std::string compile_to_assembly_text(const ir::Module &module, const CpuTarget &target);

/// Runs LLVM's standard pipeline for `target_machine` over `module`, at the target machine's
/// optimisation level (O0-O3).
void optimize_llvm_module(llvm::Module &module, llvm::TargetMachine &target_machine);

/// compile_to_llvm, then optimize_llvm_module.
std::unique_ptr<llvm::Module> optimized_module(const ir::Module &module, llvm::LLVMContext &context,
                                               llvm::TargetMachine &target_machine,
                                               const CpuTarget &target);

/// `module` compiled to an object file (its bytes) or to assembly text.
std::string emit_machine_code(llvm::Module &module, llvm::TargetMachine &target_machine,
                              bool object_file);

/// The module as the bytes of a relocatable object file for `target` (ELF on Linux). Besides each
/// function `f` and `f_argv`, it defines
///   const dsl_pipeline_metadata_t *f_metadata(void)
/// describing f's arguments, with `target_name` as the target string.
std::string compile_to_object_bytes(const ir::Module &module, const CpuTarget &target,
                                    const std::string &target_name);
/// The same module (metadata functions included), optimised, as LLVM bitcode.
std::string compile_to_bitcode_bytes(const ir::Module &module, const CpuTarget &target,
                                     const std::string &target_name);

}  // namespace dsl::codegen
