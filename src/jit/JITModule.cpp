#include "jit/JITModule.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>

#include "ir/Error.h"
#include "jit/RuntimeSymbols.h"

namespace dsl::jit {

struct JITModule::Impl {
    std::unique_ptr<llvm::orc::LLJIT> jit;
};

JITModule::JITModule() : impl_(std::make_unique<Impl>()) {}
JITModule::~JITModule() = default;

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

}  // namespace

std::shared_ptr<JITModule> JITModule::compile(const ir::Module &module,
                                              const codegen::CpuTarget &target) {
    std::shared_ptr<JITModule> result(new JITModule());
    auto context = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::TargetMachine> tm = codegen::make_target_machine(target);

    auto start = std::chrono::steady_clock::now();
    std::unique_ptr<llvm::Module> llvm_module = codegen::compile_to_llvm(module, *context, *tm);
    result->times_.codegen = seconds_since(start);

    start = std::chrono::steady_clock::now();
    codegen::optimize_llvm_module(*llvm_module, *tm);
    result->times_.optimize = seconds_since(start);

    start = std::chrono::steady_clock::now();
    llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
    jtmb.setCPU(target.cpu);
    jtmb.addFeatures(std::vector<std::string>{target.features});
    jtmb.setCodeGenOptLevel(tm->getOptLevel());
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
    internal_assert(bool(jit)) << "could not create the JIT: " << to_string(jit.takeError());
    llvm::orc::LLJIT &lljit = **jit;

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
    if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
        internal_error << "JIT: " << to_string(std::move(err));
    }

    llvm_module->setDataLayout(lljit.getDataLayout());
    if (auto err = lljit.addIRModule(
            llvm::orc::ThreadSafeModule(std::move(llvm_module), std::move(context)))) {
        internal_error << "JIT: " << to_string(std::move(err));
    }
    result->impl_->jit = std::move(*jit);
    // Materialise every function now, so that the cost is paid (and measured) here.
    for (const ir::LoweredFunc &f : module.functions)
        (void)result->argv_function(f.name);
    result->times_.machine = seconds_since(start);
    return result;
}

void *JITModule::symbol(const std::string &name) const {
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
