#pragma once
/// Compiling a lowered module to machine code in memory with LLVM's ORC JIT.

#include <memory>
#include <string>

#include "codegen/CodeGenLLVM.h"
#include "ir/Module.h"

namespace dsl::jit {

/// Seconds spent in each phase of a compilation, for DSL_DEBUG_TIMING and the benchmarks.
struct CompileTimes {
    double codegen = 0;   ///< dsl IR to LLVM IR
    double optimize = 0;  ///< LLVM's O3 pipeline
    double machine = 0;   ///< instruction selection and linking
};

/// A module compiled for this machine and linked in memory. Keeps the code alive as long as it
/// exists; cheap to share.
class JITModule {
  public:
    /// `int f_argv(void **args)`: args[i] points to argument i (see codegen/CodeGenLLVM.h).
    using ArgvFunction = int (*)(void **);

    /// Compiles `module` for `target` (default: this machine).
    static std::shared_ptr<JITModule> compile(
        const ir::Module &module, const codegen::CpuTarget &target = codegen::CpuTarget::host());
    ~JITModule();

    /// The argv entry point of the lowered function `name`.
    ArgvFunction argv_function(const std::string &name) const;
    /// The address of any symbol of the module, or null.
    void *symbol(const std::string &name) const;
    const CompileTimes &times() const { return times_; }

  private:
    JITModule();
    struct Impl;
    std::unique_ptr<Impl> impl_;
    CompileTimes times_;
};

}  // namespace dsl::jit
