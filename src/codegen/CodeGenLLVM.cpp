#include "codegen/CodeGenLLVM.h"
#include "codegen/OptLevel.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <cstdlib>
#include <iostream>
#include <mutex>

#include "codegen/CodeGenLLVMInternal.h"
#include "codegen/CodeGenOpenCL.h"
#include "codegen/CodeGenPTX.h"
#include "codegen/ShiftedLoads.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "runtime/Runtime.h"

namespace dsl::codegen {

using namespace ir;

// ---------------------------------------------------------------------------------------------
// Targets

namespace {
/// Every block that is only reached by a jump (not by falling through: loop bodies after a
/// rotation, the rows of a tile) starts on a 64-byte line; the padding before it never runs.
/// Where such blocks fell otherwise moved blur's run time by 12% (8.0 or 9.2 ms, the same
/// instructions) from one unrelated change to the next. LLVM has this only as a process-wide
/// option; it is set unless the program has set it already.
constexpr int kJumpTargetAlignmentLog2 = 6;

void align_jump_targets() {
    auto &options = llvm::cl::getRegisteredOptions();
    auto found = options.find("align-all-nofallthru-blocks");
    if (found == options.end() || found->second->getNumOccurrences() > 0) return;
    found->second->addOccurrence(0, "align-all-nofallthru-blocks",
                                 std::to_string(kJumpTargetAlignmentLog2));
}

/// LLVM's list scheduler after register allocation, which the scheduling models of AMD's Zen
/// cores turn on, took 15% of the machine code's time for PP-OCRv4's detector (7.9 of 46 s of
/// CPU) and made no difference to run time that these machines could measure (the image apps,
/// matmul and the convolutions within 5% either way, as many faster as slower; the models the
/// same); the machine scheduler before allocation stays. Off for the whole process, unless the
/// program set the option itself.
void disable_post_ra_scheduler() {
    auto &options = llvm::cl::getRegisteredOptions();
    auto found = options.find("post-RA-scheduler");
    if (found == options.end() || found->second->getNumOccurrences() > 0) return;
    found->second->addOccurrence(1, "post-RA-scheduler", "false");
}

void initialize_llvm_targets() {
    static std::once_flag once;
    // The CPU architectures a Target names; Debian's libLLVM-19.so has them all.
    std::call_once(once, [] {
        LLVMInitializeX86TargetInfo();
        LLVMInitializeX86Target();
        LLVMInitializeX86TargetMC();
        LLVMInitializeX86AsmPrinter();
        LLVMInitializeX86AsmParser();
        LLVMInitializeAArch64TargetInfo();
        LLVMInitializeAArch64Target();
        LLVMInitializeAArch64TargetMC();
        LLVMInitializeAArch64AsmPrinter();
        LLVMInitializeAArch64AsmParser();
        align_jump_targets();
        disable_post_ra_scheduler();
    });
}
}  // namespace

CpuTarget CpuTarget::host() {
    // Detected once: LLVM asks CPUID dozens of times, and in a virtual machine each one traps to
    // the hypervisor (about 0.1 ms in all, which every realize() paid when it was asked anew).
    static const CpuTarget detected = [] {
        CpuTarget t;
        t.triple = llvm::sys::getProcessTriple();
        t.cpu = llvm::sys::getHostCPUName().str();
        std::string features;
        for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
            if (!features.empty()) features += ",";
            features += (feature.getValue() ? "+" : "-") + feature.getKey().str();
        }
        t.features = features;
        return t;
    }();
    return detected;
}

llvm::CodeGenOptLevel codegen_opt_level(int level) {
    switch (level) {
        case 0:
            return llvm::CodeGenOptLevel::None;
        case 1:
            return llvm::CodeGenOptLevel::Less;
        case 2:
            return llvm::CodeGenOptLevel::Default;
        default:
            return llvm::CodeGenOptLevel::Aggressive;
    }
}

llvm::TargetOptions target_options(const CpuTarget &target) {
    llvm::TargetOptions options;
    // IEEE semantics: no fast-math unless a pipeline asks for it; contraction of a * b + c into a
    // fused multiply-add only with the target's fp_contract.
    // (Standard: the operations marked `contract`, which all are but those in strict_float.)
    options.AllowFPOpFusion =
        target.fp_contract ? llvm::FPOpFusion::Standard : llvm::FPOpFusion::Strict;
    return options;
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const CpuTarget &target) {
    initialize_llvm_targets();
    std::string error;
    const llvm::Target *llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, error);
    user_assert(llvm_target) << "The LLVM dsl is linked with has no backend for " << target.triple
                             << " (" << error
                             << "); link dsl with an LLVM 19 built with the X86 and AArch64 "
                                "targets (Debian's libLLVM-19.so has them).";
    std::unique_ptr<llvm::TargetMachine> tm(llvm_target->createTargetMachine(
        target.triple, target.cpu, target.features, target_options(target), llvm::Reloc::PIC_,
        std::nullopt, codegen_opt_level(target.opt_level)));
    internal_assert(tm) << "could not create a target machine for " << target.triple;
    return tm;
}

namespace {

/// The passes generated code gets at -O2 and -O3. Lowering has already vectorized, unrolled,
/// partitioned and CSE'd the loops, so LLVM's default pipeline mostly re-derives what the IR
/// says: its loop and SLP vectorizers, inliner, IndVarSimplify and the interprocedural passes
/// found nothing to do on the apps yet took two thirds of its time (camera_pipe: 153 ms of
/// LLVM's O3 against 53 here, local_laplacian 396 against 128). What this keeps, each for a
/// measured reason: instcombine and GVN clean up the index arithmetic and share loads; LICM
/// (after loop rotation) hoists the invariant parts of addresses; full unrolling of small
/// constant loops (3x3 taps of the depthwise layer, the bilateral grid's reductions) and
/// runtime unrolling; DSE and ADCE drop what the rest leaves dead.
constexpr const char *kPipeline =
    "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(loop-rotate,licm),loop(loop-deletion,loop-unroll-full),sroa,gvn,"
    "instcombine<no-verify-fixpoint>,loop-unroll<O3>,instcombine<no-verify-fixpoint>,"
    "loop-mssa(licm),dse,adce,simplifycfg)";

}  // namespace

void optimize_llvm_module(llvm::Module &module, llvm::TargetMachine &target_machine) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(&target_machine);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm;
    switch (target_machine.getOptLevel()) {
        case llvm::CodeGenOptLevel::None:
            mpm = pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
            break;
        case llvm::CodeGenOptLevel::Less:
            mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1);
            break;
        case llvm::CodeGenOptLevel::Default:
        case llvm::CodeGenOptLevel::Aggressive:
            if (llvm::Error err = pb.parsePassPipeline(mpm, kPipeline)) {
                internal_error << "LLVM does not accept dsl's pass pipeline: "
                               << llvm::toString(std::move(err));
            }
            break;
    }
    mpm.run(module, mam);
}

// ---------------------------------------------------------------------------------------------
// Types and small helpers

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext &context, llvm::Module &module, X86Features x86)
    : x86_(x86),
      context_(context),
      module_(module),
      builder_(std::make_unique<llvm::IRBuilder<>>(context)) {}

CodeGenLLVM::~CodeGenLLVM() = default;

llvm::Type *CodeGenLLVM::llvm_type(Type t) const {
    llvm::Type *scalar = nullptr;
    switch (t.code()) {
        case TypeCode::Int:
        case TypeCode::UInt:
            scalar = llvm::Type::getIntNTy(context_, t.bits());
            break;
        case TypeCode::Float:
            scalar = t.bits() == 16   ? llvm::Type::getHalfTy(context_)
                     : t.bits() == 32 ? llvm::Type::getFloatTy(context_)
                                      : llvm::Type::getDoubleTy(context_);
            break;
        case TypeCode::BFloat:
            // As its bits: every operation widens to float32 and rounds back by hand
            // (widen_float, narrow_float), and LLVM's own bfloat values in registers legalize,
            // without AVX512-BF16, through a library call (__truncsfbf2) the JIT cannot find.
            scalar = llvm::Type::getInt16Ty(context_);
            break;
        case TypeCode::Handle:
            scalar = llvm::PointerType::get(context_, 0);
            break;
    }
    if (t.is_scalar()) return scalar;
    return llvm::FixedVectorType::get(scalar, t.lanes());
}

llvm::Type *CodeGenLLVM::memory_type(Type t) const {
    // Bools occupy a byte in memory.
    if (t.is_bool()) return llvm_type(UInt(8, t.lanes()));
    return llvm_type(t);
}

llvm::Type *CodeGenLLVM::argument_type(Type t) const {
    if (t.is_float() && t.bits() == 16) return llvm::Type::getInt16Ty(context_);
    return llvm_type(t);
}

llvm::Value *CodeGenLLVM::splat(llvm::Value *v, int lanes) {
    if (lanes == 1) return v;
    return builder_->CreateVectorSplat(lanes, v);
}

llvm::Value *CodeGenLLVM::constant_int(Type t, int64_t v) {
    llvm::Value *c =
        llvm::ConstantInt::get(llvm_type(t.element_of()), static_cast<uint64_t>(v), t.is_int());
    return splat(c, t.lanes());
}

llvm::Function *CodeGenLLVM::intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Type *> types) {
    return llvm::Intrinsic::getDeclaration(&module_, id, types);
}

// Narrow floats (float16, bfloat16) are computed in float32 and rounded back after each
// operation: exactly the semantics (a float32 result of two narrow operands, rounded once more,
// equals the correctly rounded narrow result for + - * / sqrt).
bool CodeGenLLVM::is_narrow_float(Type t) const {
    return t.is_float() && t.bits() == 16;
}

llvm::Value *CodeGenLLVM::widen_float(llvm::Value *v, Type t) {
    Type wide = Float(32, t.lanes());
    if (t.is_bfloat()) {
        // bfloat16 -> float32 is exact: the bits become the top half.
        llvm::Value *bits = builder_->CreateBitCast(v, llvm_type(UInt(16, t.lanes())));
        llvm::Value *wide_bits =
            builder_->CreateShl(builder_->CreateZExt(bits, llvm_type(UInt(32, t.lanes()))),
                                constant_int(UInt(32, t.lanes()), 16));
        return builder_->CreateBitCast(wide_bits, llvm_type(wide));
    }
    return builder_->CreateFPExt(v, llvm_type(wide));
}

llvm::Value *CodeGenLLVM::narrow_float(llvm::Value *v, Type from, Type to) {
    if (!to.is_bfloat()) return builder_->CreateFPTrunc(v, llvm_type(to));
    if (from.bits() == 64) {
        // Round to float32 with the sticky bit kept (round to odd) so that the second rounding
        // is correct; float32 keeps 24 >= 8 + 2 bits.
        llvm::Value *f = builder_->CreateFPTrunc(v, llvm_type(Float(32, to.lanes())));
        llvm::Value *back = builder_->CreateFPExt(f, llvm_type(from));
        llvm::Value *inexact = builder_->CreateFCmpONE(back, v);
        Type u32 = UInt(32, to.lanes());
        llvm::Value *bits = builder_->CreateBitCast(f, llvm_type(u32));
        // If f was rounded away from v, step it toward v and set the lowest bit.
        llvm::Value *toward = builder_->CreateSelect(
            builder_->CreateFCmpOGT(
                builder_->CreateCall(intrinsic(llvm::Intrinsic::fabs, {llvm_type(from)}), {back}),
                builder_->CreateCall(intrinsic(llvm::Intrinsic::fabs, {llvm_type(from)}), {v})),
            builder_->CreateSub(bits, constant_int(u32, 1)), bits);
        llvm::Value *odd = builder_->CreateOr(toward, constant_int(u32, 1));
        bits = builder_->CreateSelect(inexact, odd, bits);
        v = builder_->CreateBitCast(bits, llvm_type(Float(32, to.lanes())));
        from = Float(32, to.lanes());
    }
    if (from.bits() == 16) v = widen_float(v, from);
    // float32 -> bfloat16, round to nearest even, NaN kept quiet.
    Type u32 = UInt(32, to.lanes());
    llvm::Value *bits = builder_->CreateBitCast(v, llvm_type(u32));
    llvm::Value *lsb = builder_->CreateAnd(builder_->CreateLShr(bits, constant_int(u32, 16)),
                                           constant_int(u32, 1));
    llvm::Value *rounded =
        builder_->CreateAdd(bits, builder_->CreateAdd(constant_int(u32, 0x7fff), lsb));
    llvm::Value *is_nan = builder_->CreateFCmpUNO(v, v);
    llvm::Value *quiet = builder_->CreateOr(bits, constant_int(u32, 0x00400000));
    llvm::Value *chosen = builder_->CreateSelect(is_nan, quiet, rounded);
    llvm::Value *top = builder_->CreateTrunc(builder_->CreateLShr(chosen, constant_int(u32, 16)),
                                             llvm_type(UInt(16, to.lanes())));
    return builder_->CreateBitCast(top, llvm_type(to));
}

// ---------------------------------------------------------------------------------------------
// Driver

llvm::Value *CodeGenLLVM::codegen(const Expr &e) {
    internal_assert(e.defined()) << "codegen of an undefined Expr";
    value_ = nullptr;
    include(e);
    internal_assert(value_) << "codegen produced no value for " << e;
    llvm::Value *v = value_;
    value_ = nullptr;
    return v;
}

void CodeGenLLVM::codegen(const Stmt &s) {
    if (s.defined()) include(s);
}

llvm::Value *CodeGenLLVM::lookup(const std::string &name) const {
    llvm::Value *const *v = symbols_.find(name);
    internal_assert(v) << "codegen: the symbol \"" << name << "\" is not bound";
    return *v;
}

void CodeGenLLVM::compile_function(const LoweredFunc &f) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    std::vector<llvm::Type *> param_types;
    for (const LoweredArgument &a : f.args) {
        param_types.push_back(a.is_buffer() ? ptr : argument_type(a.type));
    }
    auto *fn_type = llvm::FunctionType::get(i32, param_types, false);
    function_ = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, f.name, &module_);
    function_->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::BasicBlock *entry = llvm::BasicBlock::Create(context_, "entry", function_);
    builder_->SetInsertPoint(entry);
    stack_slots_ = StackSlots();
    early_returns_.clear();

    // Unpack each buffer's fields into the names lowering uses.
    llvm::StructType *buffer_type = dsl_buffer_type();
    llvm::StructType *dim_type = dsl_dimension_type();
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &a = f.args[i];
        llvm::Argument *arg = function_->getArg(static_cast<unsigned>(i));
        if (!a.is_buffer()) {
            llvm::Value *v = arg;
            if (argument_type(a.type) != llvm_type(a.type)) {
                arg->setName(a.name + ".bits");
                v = builder_->CreateBitCast(arg, llvm_type(a.type), a.name);
            } else {
                arg->setName(a.name);
            }
            symbols_.push(a.name, v);
            continue;
        }
        arg->setName(names::buffer_struct(a.name));
        symbols_.push(names::buffer_struct(a.name), arg);
        llvm::Value *host =
            builder_->CreateLoad(ptr, builder_->CreateStructGEP(buffer_type, arg, 2), a.name);
        symbols_.push(names::buffer_host(a.name), host);
        // Element type and rank, widened to int32 for the checks lowering emits.
        llvm::Value *type_field = builder_->CreateStructGEP(buffer_type, arg, 4);
        llvm::Type *type_struct = buffer_type->getElementType(4);
        llvm::Type *i8 = llvm::Type::getInt8Ty(context_);
        llvm::Value *code =
            builder_->CreateLoad(i8, builder_->CreateStructGEP(type_struct, type_field, 0));
        llvm::Value *bits =
            builder_->CreateLoad(i8, builder_->CreateStructGEP(type_struct, type_field, 1));
        symbols_.push(names::buffer_type_code(a.name), builder_->CreateZExt(code, i32));
        symbols_.push(names::buffer_type_bits(a.name), builder_->CreateZExt(bits, i32));
        llvm::Value *rank =
            builder_->CreateLoad(i32, builder_->CreateStructGEP(buffer_type, arg, 5));
        symbols_.push(names::buffer_dimensions(a.name), rank);
        // Check the rank before reading `dimensions` entries of the dim array, and the type.
        llvm::Value *name_string = builder_->CreateGlobalStringPtr(a.name);
        llvm::Value *expected_rank = llvm::ConstantInt::get(i32, a.dimensions);
        return_error_unless(builder_->CreateICmpEQ(rank, expected_rank),
                            "dsl_runtime_error_bad_dimensions", {name_string, expected_rank, rank});
        llvm::Value *wide_code = builder_->CreateZExt(code, i32),
                    *wide_bits = builder_->CreateZExt(bits, i32);
        llvm::Value *expected_code = llvm::ConstantInt::get(i32, static_cast<int>(a.type.code()));
        llvm::Value *expected_bits = llvm::ConstantInt::get(i32, a.type.bits());
        return_error_unless(builder_->CreateAnd(builder_->CreateICmpEQ(wide_code, expected_code),
                                                builder_->CreateICmpEQ(wide_bits, expected_bits)),
                            "dsl_runtime_error_bad_type",
                            {name_string, expected_code, expected_bits, wide_code, wide_bits});
        // A buffer without memory is a bounds query, which the lowered code answers (an output
        // gets the region the pipeline writes); one with only device memory cannot be written
        // by host code.
        if (a.kind != LoweredArgument::Kind::InputBuffer) {
            llvm::Value *device = builder_->CreateLoad(
                llvm::Type::getInt64Ty(context_), builder_->CreateStructGEP(buffer_type, arg, 0));
            return_error_unless(
                builder_->CreateOr(builder_->CreateIsNotNull(host), builder_->CreateIsNull(device)),
                "dsl_runtime_error_buffer_is_null", {name_string});
        }
        llvm::Value *dims =
            builder_->CreateLoad(ptr, builder_->CreateStructGEP(buffer_type, arg, 6));
        for (int d = 0; d < a.dimensions; d++) {
            llvm::Value *dim = builder_->CreateConstInBoundsGEP1_32(dim_type, dims, d);
            for (unsigned field = 0; field < 3; field++) {
                llvm::Value *v =
                    builder_->CreateLoad(i32, builder_->CreateStructGEP(dim_type, dim, field));
                std::string name = field == 0   ? names::buffer_min(a.name, d)
                                   : field == 1 ? names::buffer_extent(a.name, d)
                                                : names::buffer_stride(a.name, d);
                v->setName(name);
                symbols_.push(name, v);
            }
        }
    }

    // A stencil's shifted taps share two loads where a shuffle of two vectors is one
    // instruction (ShiftedLoads.h).
    const bool two_vector_permutes = x86_.avx512f && x86_.avx512vl;
    codegen(two_vector_permutes ? share_loads_of_shifted_windows(f.body) : f.body);
    if (!builder_->GetInsertBlock()->getTerminator()) {
        free_stack_slots();
        builder_->CreateRet(llvm::ConstantInt::get(i32, 0));
    }

    compile_argv_wrapper(f, function_);
}

void CodeGenLLVM::return_error_unless(llvm::Value *ok, const std::string &reporter,
                                      const std::vector<llvm::Value *> &args) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    std::vector<llvm::Type *> types;
    for (llvm::Value *a : args)
        types.push_back(a->getType());
    llvm::FunctionCallee fn =
        module_.getOrInsertFunction(reporter, llvm::FunctionType::get(i32, types, false));
    llvm::BasicBlock *pass = llvm::BasicBlock::Create(context_, "check_ok", function_);
    llvm::BasicBlock *fail = llvm::BasicBlock::Create(context_, "check_failed", function_);
    builder_->CreateCondBr(ok, pass, fail, llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_->SetInsertPoint(fail);
    return_freeing_heap(builder_->CreateCall(fn, args));
    builder_->SetInsertPoint(pass);
}

llvm::Value *CodeGenLLVM::heap_allocate(const std::string &name, llvm::Value *bytes) {
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    llvm::FunctionCallee malloc_fn = module_.getOrInsertFunction(
        runtime::kMallocSymbol, llvm::FunctionType::get(ptr, {bytes->getType()}, false));
    // A fresh block that nothing else points to: without saying so, LLVM assumes stores to a
    // stack buffer (a register tile) may change what is loaded from this one, and keeps both in
    // memory in the loops that use the two.
    if (auto *declared = llvm::dyn_cast<llvm::Function>(malloc_fn.getCallee()))
        declared->addRetAttr(llvm::Attribute::NoAlias);
    llvm::Value *pointer = builder_->CreateCall(malloc_fn, {bytes}, name);
    llvm::Value *bytes_as_double = builder_->CreateSIToFP(bytes, llvm::Type::getDoubleTy(context_));
    return_error_unless(builder_->CreateIsNotNull(pointer), "dsl_runtime_error_out_of_memory",
                        {builder_->CreateGlobalStringPtr(name), bytes_as_double});
    return pointer;
}

void CodeGenLLVM::heap_free(llvm::IRBuilderBase &at, llvm::Value *pointer) {
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    llvm::FunctionCallee free_fn = module_.getOrInsertFunction(
        runtime::kFreeSymbol,
        llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr}, false));
    at.CreateCall(free_fn, {pointer});
}

void CodeGenLLVM::return_freeing_heap(llvm::Value *code) {
    for (llvm::Value *p : live_heap_)
        heap_free(*builder_, p);
    // The function's stack slots are freed here too once all are known (free_stack_slots).
    early_returns_.push_back(builder_->CreateRet(code));
}

void CodeGenLLVM::compile_argv_wrapper(const LoweredFunc &f, llvm::Function *target) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    auto *fn_type = llvm::FunctionType::get(i32, {ptr}, false);
    auto *wrapper = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage,
                                           f.name + "_argv", &module_);
    wrapper->addFnAttr(llvm::Attribute::NoUnwind);
    builder_->SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", wrapper));
    llvm::Value *argv = wrapper->getArg(0);
    std::vector<llvm::Value *> args;
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &a = f.args[i];
        llvm::Value *slot =
            builder_->CreateConstInBoundsGEP1_32(ptr, argv, static_cast<unsigned>(i));
        llvm::Value *p = builder_->CreateLoad(ptr, slot);
        if (a.is_buffer()) {
            args.push_back(p);
        } else {
            llvm::Type *t = a.type.is_bool() ? memory_type(a.type) : argument_type(a.type);
            llvm::Value *v = builder_->CreateLoad(t, p);
            if (a.type.is_bool())
                v = builder_->CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
            args.push_back(v);
        }
    }
    builder_->CreateRet(builder_->CreateCall(target, args));
}

llvm::StructType *CodeGenLLVM::dsl_buffer_type() {
    if (!buffer_type_) {
        llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
        llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
        llvm::Type *ptr = llvm::PointerType::get(context_, 0);
        llvm::Type *type_struct = llvm::StructType::get(
            context_, {llvm::Type::getInt8Ty(context_), llvm::Type::getInt8Ty(context_),
                       llvm::Type::getInt16Ty(context_)});
        // Mirrors dsl_buffer_t in include/dsl/runtime/dsl_runtime.h.
        buffer_type_ = llvm::StructType::create(
            context_, {i64, ptr, ptr, i64, type_struct, i32, ptr, ptr}, "dsl_buffer_t");
    }
    return buffer_type_;
}

llvm::StructType *CodeGenLLVM::dsl_dimension_type() {
    if (!dimension_type_) {
        llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
        dimension_type_ =
            llvm::StructType::create(context_, {i32, i32, i32, i32}, "dsl_dimension_t");
    }
    return dimension_type_;
}

std::unique_ptr<llvm::Module> optimized_module(const ir::Module &module, llvm::LLVMContext &context,
                                               llvm::TargetMachine &tm, const CpuTarget &target) {
    std::unique_ptr<llvm::Module> m = compile_to_llvm(module, context, tm, target);
    optimize_llvm_module(*m, tm);
    return m;
}

std::string compile_to_llvm_ir_text(const ir::Module &module, const CpuTarget &target) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target);
    std::unique_ptr<llvm::Module> m = optimized_module(module, context, *tm, target);
    std::string text;
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    return os.str();
}

std::string emit_machine_code(llvm::Module &module, llvm::TargetMachine &target_machine,
                              bool object_file) {
    llvm::SmallString<16384> bytes;
    llvm::raw_svector_ostream os(bytes);
    llvm::legacy::PassManager pm;
    auto type =
        object_file ? llvm::CodeGenFileType::ObjectFile : llvm::CodeGenFileType::AssemblyFile;
    internal_assert(!target_machine.addPassesToEmitFile(pm, os, nullptr, type))
        << "LLVM cannot emit " << (object_file ? "an object file" : "assembly") << " for "
        << target_machine.getTargetTriple().str();
    pm.run(module);
    return std::string(bytes.data(), bytes.size());
}

std::string compile_to_assembly_text(const ir::Module &module, const CpuTarget &target) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target);
    std::unique_ptr<llvm::Module> m = optimized_module(module, context, *tm, target);
    std::string text = emit_machine_code(*m, *tm, false);
    if (module.kernels.empty()) return text;
    // The kernels' own code after the host's, as comments (the host's embeds it as bytes).
    GPUCode gpu = compile_gpu_kernels(module, target);
    auto append = [&](const std::string &title, const std::string &code) {
        if (code.empty()) return;
        text += "\n# ---- " + title + " ----\n";
        size_t begin = 0;
        while (begin < code.size()) {
            size_t end = code.find('\n', begin);
            if (end == std::string::npos) end = code.size();
            text += "# " + code.substr(begin, end - begin) + "\n";
            begin = end + 1;
        }
    };
    append("GPU kernels: OpenCL C", gpu.opencl);
    append("GPU kernels: PTX", gpu.ptx);
    return text;
}

GPUCode compile_gpu_kernels(const ir::Module &module, const CpuTarget &target) {
    user_assert(!module.uses_npu || target.npu)
        << "Pipeline \"" << module.name << "\" offloads loops to the NPU (npu or npu_gemm in "
        << "its schedule) but its target has no NPU. Add the feature `npu` to the target (e.g. "
           "\"host-npu\", or DSL_JIT_TARGET=host-npu for realize()), or schedule those loops "
           "for the CPU.";
    GPUCode code;
    code.kernels = module.kernels;
    std::vector<GPUKernel> opencl, cuda;
    for (GPUKernel &k : code.kernels) {
        if (k.api == DeviceAPI::Default_GPU) k.api = target.gpu_api;
        user_assert(k.api != DeviceAPI::None)
            << "Pipeline \"" << module.name << "\" has GPU loops (gpu_blocks, gpu_threads or "
            << "gpu_tile in its schedule) but its target has no GPU API. Add the feature `opencl` "
               "or `cuda` to the target (e.g. \"host-opencl\", or DSL_JIT_TARGET=host-opencl "
               "for realize()), or schedule those loops for the CPU.";
        user_assert(k.api != DeviceAPI::OpenCL || target.opencl)
            << "Pipeline \"" << module.name << "\" runs kernel " << k.name
            << " on OpenCL (DeviceAPI::OpenCL) but its target lacks the feature `opencl`; add it "
               "(e.g. \"host-opencl\").";
        user_assert(k.api != DeviceAPI::CUDA || target.cuda_capability > 0)
            << "Pipeline \"" << module.name << "\" runs kernel " << k.name
            << " on CUDA (DeviceAPI::CUDA) but its target lacks the feature `cuda`; add it "
               "(e.g. \"host-cuda\" or \"host-cuda_capability_80\").";
        (k.api == DeviceAPI::OpenCL ? opencl : cuda).push_back(k);
    }
    if (!opencl.empty()) code.opencl = compile_to_opencl_c(opencl, target.fp_contract);
    if (!cuda.empty()) code.ptx = compile_to_ptx(cuda, target.cuda_capability, target.fp_contract);
    if (std::getenv("DSL_DEBUG_GPU")) std::cerr << code.opencl << code.ptx;
    return code;
}

std::unique_ptr<llvm::Module> compile_to_llvm(const ir::Module &module, llvm::LLVMContext &context,
                                              llvm::TargetMachine &target_machine,
                                              const CpuTarget &target) {
    auto llvm_module = std::make_unique<llvm::Module>(module.name, context);
    llvm_module->setTargetTriple(target_machine.getTargetTriple().str());
    llvm_module->setDataLayout(target_machine.createDataLayout());
    CodeGenLLVM::X86Features x86;
    if (target_machine.getTargetTriple().isX86()) {
        const llvm::MCSubtargetInfo *sub = target_machine.getMCSubtargetInfo();
        x86.ssse3 = sub->checkFeatures("+ssse3");
        x86.avx2 = sub->checkFeatures("+avx2");
        x86.avx512f = sub->checkFeatures("+avx512f");
        x86.avx512bw = sub->checkFeatures("+avx512bw");
        x86.avx512vl = sub->checkFeatures("+avx512vl");
        x86.avx512vbmi = sub->checkFeatures("+avx512vbmi");
        x86.avx512vnni = sub->checkFeatures("+avx512vnni");
    }
    // The GPU kernels: one OpenCL C program and one PTX module, constants of the module.
    GPUCode gpu = compile_gpu_kernels(module, target);
    CodeGenLLVM::GPUPrograms programs;
    auto embed = [&](const std::string &text, const std::string &suffix, uint64_t *bytes) {
        // NUL-terminated (the CUDA driver reads PTX as a C string); `bytes` leaves it out.
        auto *data = llvm::ConstantDataArray::getString(context, text, true);
        *bytes = text.size();
        return new llvm::GlobalVariable(*llvm_module, data->getType(), true,
                                        llvm::GlobalValue::PrivateLinkage, data,
                                        module.name + suffix);
    };
    if (!gpu.opencl.empty())
        programs.opencl = embed(gpu.opencl, ".opencl_source", &programs.opencl_bytes);
    if (!gpu.ptx.empty()) programs.ptx = embed(gpu.ptx, ".ptx", &programs.ptx_bytes);
    for (const LoweredFunc &f : module.functions) {
        CodeGenLLVM cg(context, *llvm_module, x86);
        cg.set_fp_contract(target.fp_contract);
        if (!gpu.kernels.empty()) cg.set_gpu_kernels(&gpu.kernels, programs);
        cg.compile_function(f);
    }
    std::string errors;
    llvm::raw_string_ostream os(errors);
    internal_assert(!llvm::verifyModule(*llvm_module, &os))
        << "LLVM rejected the generated module:\n"
        << os.str();
    return llvm_module;
}

}  // namespace dsl::codegen
