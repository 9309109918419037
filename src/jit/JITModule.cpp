// Compiling a module to an object file and linking it in memory. The object is produced by the
// same target machine whether it is then stored in the disk cache or not, so code loaded from
// the cache is the code this process would have compiled, bit for bit. The JIT only links
// objects: it never compiles IR itself, so it is made without a target machine, and a process
// that loads every pipeline from the disk cache never makes one (nor initialises LLVM's targets).
#include "jit/JITModule.h"

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/MapperJITLinkMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/MemoryMapper.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>

#include "codegen/OptLevel.h"
#include "ir/Error.h"
#include "jit/DiskCache.h"
#include "jit/ExternFunctions.h"
#include "jit/ObjectLoader.h"
#include "jit/PipelineKey.h"
#include "jit/RuntimeSymbols.h"

namespace dsl::jit {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string to_string(llvm::Error error) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << error;
    return os.str();
}

/// How the JIT's target machine is made: `target`'s CPU and features at its optimisation level,
/// position-independent code in the small code model (what ORC's JITLink links on x86-64 and
/// AArch64, and what LLJIT would choose for itself).
llvm::orc::JITTargetMachineBuilder jit_target_machine_builder(const codegen::CpuTarget &target) {
    llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
    jtmb.setCPU(target.cpu);
    jtmb.addFeatures(std::vector<std::string>{target.features});
    jtmb.setCodeGenOptLevel(codegen::codegen_opt_level(target.opt_level));
    jtmb.setRelocationModel(llvm::Reloc::PIC_);
    jtmb.setCodeModel(llvm::CodeModel::Small);
    jtmb.getOptions() = codegen::target_options(target);
    return jtmb;
}

/// The memory every JIT of the process links code into: reserved in slabs that stay mapped, so
/// that code freed by one JIT is reused by the next without unmapping and mapping pages again
/// (each unmapping flushes the TLB of every core, slow on virtual machines). Private anonymous
/// memory, so a forked child gets its own copy.
llvm::jitlink::JITLinkMemoryManager &memory_manager() {
    // Never destroyed: JIT modules may be freed at exit after it would be.
    static llvm::jitlink::JITLinkMemoryManager *manager = [] {
        auto created = llvm::orc::MapperJITLinkMemoryManager::CreateWithMapper<
            llvm::orc::InProcessMemoryMapper>(size_t(64) << 20);
        internal_assert(bool(created))
            << "could not create the JIT's memory manager: " << to_string(created.takeError());
        return created->release();
    }();
    return *manager;
}

/// The JIT's IR compiler, which it is never asked to run: modules reach it as object files.
class NoIRCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
  public:
    NoIRCompiler() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module &m) override {
        return llvm::make_error<llvm::StringError>(
            "the dsl JIT links object files and compiles no IR (module " + m.getName().str() + ")",
            llvm::inconvertibleErrorCode());
    }
};

}  // namespace

/// Whether DSL_JIT_LINKER=orc asks for ORC's JITLink for every object (for comparison and
/// debugging); by default x86-64 objects are loaded by ObjectLoader.
bool orc_linker_forced() {
    const char *v = std::getenv("DSL_JIT_LINKER");
    return v && std::string(v) == "orc";
}

struct JITModule::Impl {
    /// The object, loaded by our own loader (x86-64), or else linked by ORC's JITLink.
    std::unique_ptr<LoadedObject> loaded;
    std::unique_ptr<llvm::orc::LLJIT> jit;

    /// Creates the JIT (for objects of `data_layout` and `target`'s triple) and links `object`
    /// into it, then looks up every function of `functions` so that linking happens (and is
    /// timed) now. Returns why that failed; empty on success.
    std::string link(const std::vector<std::string> &functions, const codegen::CpuTarget &target,
                     const llvm::DataLayout &data_layout,
                     std::unique_ptr<llvm::MemoryBuffer> object);
};

std::string JITModule::Impl::link(const std::vector<std::string> &functions,
                                  const codegen::CpuTarget &target,
                                  const llvm::DataLayout &data_layout,
                                  std::unique_ptr<llvm::MemoryBuffer> object) {
    if (llvm::Triple(target.triple).getArch() == llvm::Triple::x86_64 && !orc_linker_forced()) {
        // An object our loader does not handle goes to JITLink below.
        std::string why;
        loaded = LoadedObject::load(object->getBufferStart(), object->getBufferSize(), &why);
        if (loaded) {
            for (const std::string &function : functions) {
                for (const std::string &name : {function, function + "_argv"}) {
                    if (!loaded->symbol(name)) {
                        loaded.reset();
                        return "the object does not define \"" + name + "\"";
                    }
                }
            }
            return {};
        }
    }
    auto created =
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(jit_target_machine_builder(target))
            .setDataLayout(data_layout)
            .setObjectLinkingLayerCreator(
                [](llvm::orc::ExecutionSession &session, const llvm::Triple &)
                    -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                    return std::make_unique<llvm::orc::ObjectLinkingLayer>(session,
                                                                           memory_manager());
                })
            .setCompileFunctionCreator(
                [](llvm::orc::JITTargetMachineBuilder)
                    -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                    return std::make_unique<NoIRCompiler>();
                })
            // No static initialisers to run (generated code has none), and process symbols
            // come from the generator below.
            .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
            .setLinkProcessSymbolsByDefault(false)
            .create();
    internal_assert(bool(created))
        << "could not create the JIT: " << to_string(created.takeError());
    llvm::orc::LLJIT &lljit = **created;

    // Generated code may call libc / libm (found in this process) and the dsl runtime (linked
    // by address, since a static library's symbols are not exported from the executable).
    auto &dylib = lljit.getMainJITDylib();
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        lljit.getDataLayout().getGlobalPrefix());
    internal_assert(bool(process)) << "JIT: " << to_string(process.takeError());
    dylib.addGenerator(std::move(*process));
    llvm::orc::SymbolMap runtime;
    for (const RuntimeSymbol &s : runtime_symbols()) {
        runtime[lljit.mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                                  llvm::JITSymbolFlags::Exported};
    }
    // The program's functions that pipelines call (DSL_EXTERN), by address as well: they may
    // have C++ linkage, or the program may not export them.
    for (const auto &[name, address] : jit_extern_addresses()) {
        runtime[lljit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                                llvm::JITSymbolFlags::Exported};
    }
    if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
        internal_error << "JIT: " << to_string(std::move(err));
    }

    if (auto err = lljit.addObjectFile(std::move(object))) return to_string(std::move(err));
    jit = std::move(*created);
    for (const std::string &function : functions) {
        for (const std::string &name : {function, function + "_argv"}) {
            auto address = jit->lookup(name);
            if (!address) {
                std::string problem = "the object does not link: " + to_string(address.takeError());
                jit.reset();
                return problem;
            }
        }
    }
    return {};
}

JITModule::JITModule() : impl_(std::make_unique<Impl>()) {}
JITModule::~JITModule() = default;

std::string JITModule::disk_cache_key(const std::string &key, const codegen::CpuTarget &target) {
    return "dsl JIT object\ncompiler: " + compiler_identity() + "\ntriple: " + target.triple +
           "\ncpu: " + target.cpu + "\nfeatures: " + target.features +
           "\nopt level: " + std::to_string(target.opt_level) +
           "\nfp contract: " + (target.fp_contract ? "yes" : "no") +
           "\ngpu: " + ir::to_string(target.gpu_api) + (target.opencl ? " opencl" : "") + " cuda " +
           std::to_string(target.cuda_capability) + "\n" + key;
}

std::shared_ptr<JITModule> JITModule::compile(const ir::Module &module,
                                              const codegen::CpuTarget &target,
                                              const DiskCache *disk_cache, const std::string &key) {
    LazyModule lazy;
    for (const ir::LoweredFunc &f : module.functions)
        lazy.functions.push_back(f.name);
    lazy.make = [&module](std::string *) -> const ir::Module & { return module; };
    return compile(lazy, target, disk_cache,
                   disk_cache && key.empty() ? pipeline_key(module) : key);
}

std::shared_ptr<JITModule> JITModule::compile(const LazyModule &lazy,
                                              const codegen::CpuTarget &target,
                                              const DiskCache *disk_cache, const std::string &key) {
    std::shared_ptr<JITModule> result(new JITModule());
    CompileTimes &times = result->times_;
    DiskCacheOutcome &outcome = result->disk_cache_outcome_;

    std::string cache_key;
    if (disk_cache) {
        cache_key = disk_cache_key(key, target);
        auto start = std::chrono::steady_clock::now();
        DiskCache::Lookup found = disk_cache->load(cache_key);
        times.cache_load = seconds_since(start);
        outcome.problem = found.problem;
        outcome.lookup = DiskCacheOutcome::Lookup::Missing;
        if (found.result == DiskCache::Lookup::Result::Hit) {
            // The note is the data layout the object was compiled for, a newline, and the
            // text the module stored.
            start = std::chrono::steady_clock::now();
            std::string problem;
            const size_t newline = found.note.find('\n');
            const std::string layout = found.note.substr(0, newline);
            const std::string stored =
                newline == std::string::npos ? std::string() : found.note.substr(newline + 1);
            auto data_layout = llvm::DataLayout::parse(layout);
            if (!data_layout) {
                problem = "its data layout \"" + layout +
                          "\" is invalid: " + to_string(data_layout.takeError());
            } else if (lazy.accept && !lazy.accept(stored, &problem)) {
                problem = "it does not describe this pipeline: " + problem;
            } else {
                // Not a copy: linking is over (every function looked up) before `found`, which
                // holds the mapping of the entry, goes.
                problem = result->impl_->link(
                    lazy.functions, target, *data_layout,
                    llvm::MemoryBuffer::getMemBuffer(found.object, "dsl disk cache entry", false));
            }
            times.link = seconds_since(start);
            if (problem.empty()) {
                outcome.lookup = DiskCacheOutcome::Lookup::Hit;
                times.loaded_from_cache = true;
                return result;
            }
            // Checksums cannot vouch for what wrote the entry; an object that does not link
            // is compiled anew like a corrupt one.
            disk_cache->remove(cache_key);
            outcome.problem = "the cache entry " + disk_cache->entry_path(cache_key) +
                              " was rejected: " + problem;
            times.link = 0;
        }
        if (found.result != DiskCache::Lookup::Result::Missing)
            outcome.lookup = DiskCacheOutcome::Lookup::Rejected;
    }

    std::string stored;
    const ir::Module &module = lazy.make(&stored);
    auto context = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::TargetMachine> tm = codegen::make_target_machine(target);

    auto start = std::chrono::steady_clock::now();
    std::unique_ptr<llvm::Module> llvm_module =
        codegen::compile_to_llvm(module, *context, *tm, target);
    times.codegen = seconds_since(start);

    start = std::chrono::steady_clock::now();
    codegen::optimize_llvm_module(*llvm_module, *tm);
    times.optimize = seconds_since(start);

    // A C function the pipeline calls (an extern stage's, a DSL_EXTERN's) must be found.
    for (const llvm::Function &f : *llvm_module) {
        if (!f.isDeclaration() || f.isIntrinsic()) continue;
        std::string name = f.getName().str();
        user_assert(is_runtime_symbol(name) || jit_extern_address(name) ||
                    dlsym(RTLD_DEFAULT, name.c_str()))
            << "The pipeline calls the C function \"" << name
            << "\", which this process does not define. Declare it with "
            << "DSL_EXTERN_STAGE(" << name << ") (or DSL_EXTERN for one called in expressions, "
            << "dsl/Extern.h), or link the program with -rdynamic so that its symbols are "
            << "exported.";
    }

    start = std::chrono::steady_clock::now();
    auto jit_tm = jit_target_machine_builder(target).createTargetMachine();
    internal_assert(bool(jit_tm)) << "could not create the JIT's target machine for "
                                  << target.triple << ": " << to_string(jit_tm.takeError());
    llvm::DataLayout data_layout = (*jit_tm)->createDataLayout();
    llvm_module->setDataLayout(data_layout);
    auto object = llvm::orc::SimpleCompiler(**jit_tm)(*llvm_module);
    internal_assert(bool(object)) << "LLVM could not compile the module: "
                                  << to_string(object.takeError());
    times.machine = seconds_since(start);
    std::string bytes;
    if (disk_cache) bytes.assign((*object)->getBufferStart(), (*object)->getBufferSize());

    start = std::chrono::steady_clock::now();
    std::string problem =
        result->impl_->link(lazy.functions, target, data_layout, std::move(*object));
    internal_assert(problem.empty()) << "JIT: " << problem;
    times.link = seconds_since(start);

    if (disk_cache) {
        start = std::chrono::steady_clock::now();
        std::string store_problem;
        outcome.stored =
            disk_cache->store(cache_key, data_layout.getStringRepresentation() + "\n" + stored,
                              bytes, &store_problem);
        if (!outcome.stored) {
            if (!outcome.problem.empty()) outcome.problem += "; ";
            outcome.problem += "the object was not stored: " + store_problem;
        }
        times.cache_store = seconds_since(start);
    }
    return result;
}

void *JITModule::symbol(const std::string &name) const {
    if (impl_->loaded) return impl_->loaded->symbol(name);
    auto address = impl_->jit->lookup(name);
    if (!address) {
        llvm::consumeError(address.takeError());
        return nullptr;
    }
    return address->toPtr<void *>();
}

JITModule::ArgvFunction JITModule::argv_function(const std::string &name) const {
    void *p = symbol(name + "_argv");
    internal_assert(p) << "the JIT module has no function " << name;
    return reinterpret_cast<ArgvFunction>(p);
}

}  // namespace dsl::jit
