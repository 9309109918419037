#include "codegen/CodeGenPTX.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/Error.h"

namespace dsl::codegen {

using namespace ir;

void CodeGenLLVM::compile_kernel(const GPUKernel &k) {
    llvm::Type *i8 = llvm::Type::getInt8Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    std::vector<llvm::Type *> params;
    for (const KernelArgument &a : k.args)
        params.push_back(a.is_buffer ? ptr : a.type.is_bool() ? i8 : llvm_type(a.type));
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), params, false);
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, k.name, &module_);
    function_->setCallingConv(llvm::CallingConv::PTX_Kernel);
    function_->addFnAttr(llvm::Attribute::NoUnwind);
    builder_->SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", function_));
    for (size_t i = 0; i < k.args.size(); i++) {
        const KernelArgument &a = k.args[i];
        llvm::Argument *arg = function_->getArg(static_cast<unsigned>(i));
        arg->setName(a.name);
        llvm::Value *v = arg;
        if (!a.is_buffer && a.type.is_bool())
            v = builder_->CreateICmpNE(arg, llvm::ConstantInt::get(i8, 0));
        symbols_.push(a.name, v);
    }
    // Shared memory sized at the launch: pieces of the launch's dynamic shared memory (an
    // external array of the shared address space), one after the other.
    dynamic_shared_.clear();
    if (!k.dynamic_shared.empty()) {
        auto *array = llvm::ArrayType::get(i8, 0);
        auto *global = new llvm::GlobalVariable(
            module_, array, false, llvm::GlobalValue::ExternalLinkage, nullptr,
            k.name + "_dynamic_shared", nullptr, llvm::GlobalValue::NotThreadLocal, 3);
        global->setAlignment(llvm::Align(16));
        llvm::Value *offset = builder_->getInt64(0);
        for (const DynamicSharedAllocation &d : k.dynamic_shared) {
            llvm::Value *at = builder_->CreateInBoundsGEP(i8, global, offset);
            dynamic_shared_[d.name] = builder_->CreateAddrSpaceCast(at, ptr);
            offset = builder_->CreateAdd(offset, codegen(d.bytes));
        }
    }
    in_kernel_ = true;
    codegen(k.body);
    in_kernel_ = false;
    builder_->CreateRetVoid();
    for (const KernelArgument &a : k.args)
        symbols_.pop(a.name);
}

namespace {

void initialize_nvptx() {
    static std::once_flag once;
    std::call_once(once, [] {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
    });
}

/// The PTX ISA version for a compute capability: the oldest that supports it and that LLVM 19
/// and current toolkits share.
std::string ptx_version(int capability) {
    if (capability >= 89) return "+ptx78";
    if (capability >= 86) return "+ptx71";
    return "+ptx70";
}

/// The libdevice function for an LLVM math intrinsic or libm name, or "".
struct MathName {
    const char *from, *to;
};
constexpr MathName kMath[] = {
    {"llvm.exp.f32", "__nv_expf"}, {"llvm.log.f32", "__nv_logf"}, {"llvm.pow.f32", "__nv_powf"},
    {"llvm.sin.f32", "__nv_sinf"}, {"llvm.cos.f32", "__nv_cosf"}, {"tanf", "__nv_tanf"},
    {"atan2f", "__nv_atan2f"},     {"llvm.exp.f64", "__nv_exp"},  {"llvm.log.f64", "__nv_log"},
    {"llvm.pow.f64", "__nv_pow"},  {"llvm.sin.f64", "__nv_sin"},  {"llvm.cos.f64", "__nv_cos"},
    {"tan", "__nv_tan"},           {"atan2", "__nv_atan2"},
};

/// Calls of vector math intrinsics (`llvm.exp.v4f32`, ...) as calls of the scalar intrinsic on
/// each lane: libdevice has scalar functions only.
void scalarize_vector_math(llvm::Module &module) {
    std::vector<llvm::Function *> vector_math;
    for (llvm::Function &f : module) {
        std::string name = f.getName().str();
        for (const char *op :
             {"llvm.exp.v", "llvm.log.v", "llvm.pow.v", "llvm.sin.v", "llvm.cos.v"})
            if (name.rfind(op, 0) == 0) vector_math.push_back(&f);
    }
    for (llvm::Function *f : vector_math) {
        auto *vt = llvm::cast<llvm::FixedVectorType>(f->getReturnType());
        llvm::Function *scalar =
            llvm::Intrinsic::getDeclaration(&module, f->getIntrinsicID(), {vt->getElementType()});
        std::vector<llvm::User *> users(f->user_begin(), f->user_end());
        for (llvm::User *u : users) {
            auto *call = llvm::cast<llvm::CallInst>(u);
            llvm::IRBuilder<> b(call);
            llvm::Value *result = llvm::PoisonValue::get(vt);
            for (unsigned i = 0; i < vt->getNumElements(); i++) {
                std::vector<llvm::Value *> args;
                for (llvm::Value *a : call->args())
                    args.push_back(b.CreateExtractElement(a, b.getInt32(i)));
                result = b.CreateInsertElement(result, b.CreateCall(scalar, args), b.getInt32(i));
            }
            call->replaceAllUsesWith(result);
            call->eraseFromParent();
        }
        f->eraseFromParent();
    }
}

/// Points the calls of math functions at libdevice's, and links libdevice in when one is used.
void link_math(llvm::Module &module, const std::string &kernels) {
    scalarize_vector_math(module);
    bool needed = false;
    std::string first;
    for (const MathName &m : kMath) {
        llvm::Function *f = module.getFunction(m.from);
        if (!f) continue;
        llvm::FunctionCallee to = module.getOrInsertFunction(m.to, f->getFunctionType());
        f->replaceAllUsesWith(to.getCallee());
        f->eraseFromParent();
        if (!needed) first = m.from;
        needed = true;
    }
    if (!needed) return;
    std::string toolkit = cuda_toolkit_path();
    std::string path = toolkit.empty() ? "" : toolkit + "/nvvm/libdevice/libdevice.10.bc";
    user_assert(!path.empty() && std::filesystem::exists(path))
        << "CUDA kernel(s) " << kernels << " call " << first
        << ", which comes from libdevice of the CUDA toolkit, and no toolkit was found"
        << (toolkit.empty() ? "" : " at " + toolkit)
        << ". Install the CUDA toolkit (or set DSL_CUDA_PATH to it), or compute that function "
           "on the host.";
    auto buffer = llvm::MemoryBuffer::getFile(path);
    user_assert(buffer) << "cannot read " << path << ": " << buffer.getError().message();
    auto libdevice = llvm::parseBitcodeFile(buffer.get()->getMemBufferRef(), module.getContext());
    user_assert(static_cast<bool>(libdevice))
        << "cannot parse " << path << ": " << llvm::toString(libdevice.takeError());
    (*libdevice)->setTargetTriple(module.getTargetTriple());
    (*libdevice)->setDataLayout(module.getDataLayout());
    internal_assert(!llvm::Linker::linkModules(module, std::move(*libdevice),
                                               llvm::Linker::Flags::LinkOnlyNeeded))
        << "linking libdevice failed";
    // libdevice asks __nvvm_reflect whether to flush denormals: no.
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
    for (llvm::Function &f : module) {
        if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel)
            f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
}

}  // namespace

std::string cuda_toolkit_path() {
    if (const char *env = std::getenv("DSL_CUDA_PATH"); env && *env) return env;
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists("/usr/local/cuda", ec)) return "/usr/local/cuda";
    std::string newest;
    for (const auto &entry : fs::directory_iterator("/usr/local", ec)) {
        std::string name = entry.path().filename().string();
        if (name.rfind("cuda-", 0) == 0 && entry.path().string() > newest)
            newest = entry.path().string();
    }
    return newest;
}

std::string compile_to_ptx(const std::vector<GPUKernel> &kernels, int capability,
                           bool fp_contract) {
    initialize_nvptx();
    const std::string triple = "nvptx64-nvidia-cuda";
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
    user_assert(target) << "The LLVM dsl is linked with has no NVPTX back end (" << error
                        << "); CUDA needs an LLVM 19 built with it (Debian's libLLVM-19.so is).";
    llvm::TargetOptions options;
    options.AllowFPOpFusion = fp_contract ? llvm::FPOpFusion::Standard : llvm::FPOpFusion::Strict;
    std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
        triple, "sm_" + std::to_string(capability), ptx_version(capability), options,
        llvm::Reloc::Static, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    internal_assert(tm) << "no NVPTX target machine";

    llvm::LLVMContext context;
    llvm::Module module("kernels", context);
    module.setTargetTriple(triple);
    module.setDataLayout(tm->createDataLayout());
    std::string names;
    {
        CodeGenLLVM cg(context, module, CodeGenLLVM::X86Features{});
        cg.set_fp_contract(fp_contract);
        for (const GPUKernel &k : kernels) {
            cg.compile_kernel(k);
            names += (names.empty() ? "" : ", ") + k.name;
        }
    }
    link_math(module, names);
    std::string errors;
    llvm::raw_string_ostream os(errors);
    internal_assert(!llvm::verifyModule(module, &os)) << "LLVM rejected the PTX module:\n"
                                                      << os.str();

    // LLVM's O3 pipeline with the NVPTX target's own passes (address spaces, NVVM reflect).
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(module, mam);
    std::string ptx = emit_machine_code(module, *tm, false);
    // The CPU back ends align jump targets through a process-wide LLVM option (CodeGenLLVM.cpp),
    // which NVPTX obeys too, writing `.p2align` lines that PTX does not have: drop them.
    std::string out;
    out.reserve(ptx.size());
    size_t begin = 0;
    while (begin < ptx.size()) {
        size_t end = ptx.find('\n', begin);
        end = end == std::string::npos ? ptx.size() : end + 1;
        size_t text = ptx.find_first_not_of(" \t", begin);
        if (text == std::string::npos || ptx.compare(text, 8, ".p2align") != 0)
            out.append(ptx, begin, end - begin);
        begin = end;
    }
    return out;
}

}  // namespace dsl::codegen
