#pragma once
/// Compiling a lowered module to machine code in memory with LLVM's ORC JIT, through the disk
/// cache (jit/DiskCache.h) when one is given.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/CodeGenLLVM.h"
#include "ir/Module.h"

namespace dsl::jit {

class DiskCache;

/// Seconds spent in each phase of a compilation, for DSL_DEBUG_TIMING and the benchmarks. An
/// object loaded from the disk cache spends nothing in codegen, optimize and machine.
struct CompileTimes {
    double codegen = 0;      ///< dsl IR to LLVM IR
    double optimize = 0;     ///< LLVM's pass pipeline (O0-O3)
    double machine = 0;      ///< instruction selection: LLVM IR to an object file
    double link = 0;         ///< creating the JIT and linking the object into this process
    double cache_load = 0;   ///< looking the object up in the disk cache (read and checked)
    double cache_store = 0;  ///< writing it to the disk cache after compiling
    bool loaded_from_cache = false;
};

/// What the disk cache did during one compilation.
struct DiskCacheOutcome {
    enum class Lookup {
        NotUsed,   ///< no disk cache
        Hit,       ///< the object came from the cache
        Missing,   ///< not in the cache: compiled (and stored)
        Rejected,  ///< an entry failed a check or did not link: deleted, compiled anew (and stored)
    };
    Lookup lookup = Lookup::NotUsed;
    bool stored = false;  ///< the compiled object was written to the cache
    /// Why an entry was rejected, or why the object could not be stored; empty otherwise.
    std::string problem;
};

/// A module compiled for this machine and linked in memory. Keeps the code alive as long as it
/// exists; cheap to share.
class JITModule {
  public:
    /// `int f_argv(void **args)`: args[i] points to argument i (see codegen/CodeGenLLVM.h).
    using ArgvFunction = int (*)(void **);

    /// Compiles `module` for `target` (default: this machine). With a `disk_cache`, looks the
    /// object up there first, under `key` (text that determines `module`, such as
    /// `jit::pipeline_key(module)`, which is used when `key` is empty) extended with the compiler's
    /// identity and `target`; a compiled object is stored there.
    static std::shared_ptr<JITModule> compile(
        const ir::Module &module, const codegen::CpuTarget &target = codegen::CpuTarget::host(),
        const DiskCache *disk_cache = nullptr, const std::string &key = {});

    /// A module that may not need to be made: what compile() needs to load its object from the
    /// disk cache without it, and how to make it when it must be compiled.
    struct LazyModule {
        /// The functions the module defines (each also as `<name>_argv`).
        std::vector<std::string> functions;
        /// Whether a stored entry is usable, given the text stored with it (`*problem` says
        /// why not). Empty: every entry is.
        std::function<bool(const std::string &stored, std::string *problem)> accept;
        /// Makes the module (it must outlive the call to compile()) and sets `*stored` to the
        /// text to store with its object, which `accept` gets back when the entry is loaded.
        std::function<const ir::Module &(std::string *stored)> make;
    };
    /// Like compile() above, under `key` (which must determine the module): with a `disk_cache`
    /// holding an entry for `key` that links and that `module.accept` accepts, the module is
    /// never made. An entry it refuses is rejected like a corrupt one.
    static std::shared_ptr<JITModule> compile(const LazyModule &module,
                                              const codegen::CpuTarget &target,
                                              const DiskCache *disk_cache, const std::string &key);
    ~JITModule();

    /// The argv entry point of the lowered function `name`.
    ArgvFunction argv_function(const std::string &name) const;
    /// The address of any symbol of the module, or null.
    void *symbol(const std::string &name) const;
    const CompileTimes &times() const { return times_; }
    const DiskCacheOutcome &disk_cache_outcome() const { return disk_cache_outcome_; }

    /// The key of `module`'s entry in a disk cache: `key` (see compile) with the compiler's
    /// identity and everything about `target` that changes the machine code.
    static std::string disk_cache_key(const std::string &key, const codegen::CpuTarget &target);

  private:
    JITModule();
    struct Impl;
    std::unique_ptr<Impl> impl_;
    CompileTimes times_;
    DiskCacheOutcome disk_cache_outcome_;
};

}  // namespace dsl::jit
