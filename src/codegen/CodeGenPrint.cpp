// Code generation for the Print intrinsic (print(), print_when() and tracing) and Require
// (require()): the values' lanes go into 64-bit slots on the stack, and the runtime formats the
// line or the error message (runtime/Print.c).
#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/CodeGenLLVMInternal.h"
#include "codegen/PrintfFormat.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "runtime/Runtime.h"

namespace dsl::codegen {

using namespace ir;

std::pair<llvm::Value *, llvm::Value *> CodeGenLLVM::print_slots(
    const std::vector<Expr> &args, size_t first, const std::vector<llvm::Value *> &values,
    int lane) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
    llvm::Type *f64 = llvm::Type::getDoubleTy(context_);
    int total_lanes = 0;
    std::vector<llvm::Constant *> descriptors;
    for (size_t i = first; i < args.size(); i++) {
        Type t = lane >= 0 ? args[i].type().element_of() : args[i].type();
        int kind = t.is_float() && t.bits() == 64 ? dsl_print_double
                   : t.is_float()                 ? dsl_print_float
                   : t.is_handle()                ? dsl_print_handle
                   : (t.is_uint() || t.is_bool()) ? dsl_print_uint
                                                  : dsl_print_int;
        descriptors.push_back(llvm::ConstantInt::get(i32, kind));
        descriptors.push_back(llvm::ConstantInt::get(i32, t.lanes()));
        total_lanes += t.lanes();
    }
    // The slots live in the entry block, so that a print inside a loop does not grow the stack.
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    llvm::Value *slots = entry.CreateAlloca(
        i64, llvm::ConstantInt::get(i64, std::max(total_lanes, 1)), "print_slots");
    int slot = 0;
    for (size_t i = 0; i < values.size(); i++) {
        Type t = args[i + first].type();
        int lanes = lane >= 0 ? 1 : t.lanes();
        for (int k = 0; k < lanes; k++) {
            llvm::Value *v = values[i];
            int which = lane >= 0 ? lane : k;
            if (t.is_vector()) v = builder_->CreateExtractElement(v, static_cast<uint64_t>(which));
            Type elem = t.element_of();
            llvm::Value *bits;
            if (elem.is_float()) {
                if (is_narrow_float(elem)) v = widen_float(v, elem);
                bits = builder_->CreateBitCast(builder_->CreateFPExt(v, f64), i64);
            } else if (elem.is_handle()) {
                bits = builder_->CreatePtrToInt(v, i64);
            } else if (elem.is_uint() || elem.is_bool()) {
                bits = builder_->CreateZExt(v, i64);
            } else {
                bits = builder_->CreateSExt(v, i64);
            }
            builder_->CreateStore(bits, builder_->CreateConstInBoundsGEP1_64(i64, slots, slot++));
        }
    }
    auto *array_type = llvm::ArrayType::get(i32, descriptors.size());
    auto *table = new llvm::GlobalVariable(
        module_, array_type, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(array_type, descriptors), "print_descriptors");
    return {table, slots};
}

llvm::Value *CodeGenLLVM::call_print(const Call *op) {
    internal_assert(op->args.size() >= 2 && op->args[1].as<StringImm>())
        << "print: the arguments are (condition, format, values...)";
    if (in_kernel_) return call_kernel_print(op);
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);

    std::vector<llvm::Value *> values;
    for (size_t i = 2; i < op->args.size(); i++)
        values.push_back(codegen(op->args[i]));
    llvm::Value *result =
        values.empty() ? constant_int(Int(32), 0) : static_cast<llvm::Value *>(values[0]);

    // A print in a vectorized loop writes one line per lane, where that lane's condition holds,
    // as Halide's does.
    int lanes = op->args[0].type().lanes();
    for (size_t i = 2; i < op->args.size(); i++)
        lanes = std::max(lanes, op->args[i].type().lanes());
    llvm::Value *condition = codegen(op->args[0]);
    llvm::Value *format = codegen(op->args[1]);
    llvm::FunctionCallee print_fn = module_.getOrInsertFunction(
        "dsl_runtime_print",
        llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, i32, ptr, ptr}, false));
    for (int lane = 0; lane < lanes; lane++) {
        llvm::Value *holds = condition;
        if (op->args[0].type().is_vector()) {
            holds = builder_->CreateExtractElement(condition, static_cast<uint64_t>(lane));
        }
        llvm::BasicBlock *print_bb = llvm::BasicBlock::Create(context_, "print", function_);
        llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, "after_print", function_);
        builder_->CreateCondBr(holds, print_bb, after);
        builder_->SetInsertPoint(print_bb);
        auto [table, slots] = print_slots(op->args, 2, values, lanes > 1 ? lane : -1);
        builder_->CreateCall(
            print_fn, {format, llvm::ConstantInt::get(i32, static_cast<int64_t>(values.size())),
                       table, slots});
        builder_->CreateBr(after);
        builder_->SetInsertPoint(after);
    }
    return result;
}

llvm::Value *CodeGenLLVM::call_kernel_print(const Call *op) {
    // vprintf(format, arguments): the values as printf's promotions make them (integers of 32
    // or 64 bits, floats as doubles), each at an offset that is a multiple of its size.
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
    llvm::Type *f64 = llvm::Type::getDoubleTy(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    std::vector<llvm::Value *> values;
    std::vector<Type> types;
    int lanes = op->args[0].type().lanes();
    for (size_t i = 2; i < op->args.size(); i++) {
        values.push_back(codegen(op->args[i]));
        types.push_back(op->args[i].type().element_of());
        lanes = std::max(lanes, op->args[i].type().lanes());
    }
    PrintfFormat f = printf_format(op->args[1].as<StringImm>()->value, types, "ll");
    llvm::Value *text = builder_->CreateGlobalStringPtr(f.text + "\n");
    std::vector<llvm::Type *> fields;
    for (size_t k : f.values) {
        const Type t = types[k];
        fields.push_back(t.is_float() || t.is_bfloat() ? f64 : t.bits() == 64 ? i64 : i32);
    }
    auto *pack = llvm::StructType::get(context_, fields);
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    llvm::Value *arguments = entry.CreateAlloca(pack, nullptr, "printf_arguments");
    llvm::FunctionCallee vprintf =
        module_.getOrInsertFunction("vprintf", llvm::FunctionType::get(i32, {ptr, ptr}, false));
    llvm::Value *condition = codegen(op->args[0]);
    for (int lane = 0; lane < lanes; lane++) {
        llvm::Value *holds = condition;
        if (op->args[0].type().is_vector())
            holds = builder_->CreateExtractElement(condition, static_cast<uint64_t>(lane));
        llvm::BasicBlock *print_bb = llvm::BasicBlock::Create(context_, "print", function_);
        llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, "after_print", function_);
        builder_->CreateCondBr(holds, print_bb, after);
        builder_->SetInsertPoint(print_bb);
        for (size_t i = 0; i < f.values.size(); i++) {
            const size_t k = f.values[i];
            const Type t = types[k];
            llvm::Value *v = values[k];
            if (op->args[k + 2].type().is_vector())
                v = builder_->CreateExtractElement(v, static_cast<uint64_t>(lane));
            if (t.is_float() || t.is_bfloat()) {
                if (is_narrow_float(t)) v = widen_float(v, t);
                v = builder_->CreateFPExt(v, f64);
            } else if (t.bits() < 64) {
                v = t.is_uint() || t.is_bool() ? builder_->CreateZExt(v, i32)
                                               : builder_->CreateSExt(v, i32);
            }
            builder_->CreateStore(
                v, builder_->CreateStructGEP(pack, arguments, static_cast<unsigned>(i)));
        }
        builder_->CreateCall(vprintf, {text, arguments});
        builder_->CreateBr(after);
        builder_->SetInsertPoint(after);
    }
    return values.empty() ? constant_int(Int(32), 0) : values[0];
}

llvm::Value *CodeGenLLVM::call_require(const Call *op) {
    internal_assert(op->args.size() >= 3 && op->args[2].as<StringImm>())
        << "require: the arguments are (condition, value, format, values...)";
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    // Every lane must hold.
    llvm::Value *condition = codegen(op->args[0]);
    if (op->args[0].type().is_vector()) condition = builder_->CreateAndReduce(condition);
    llvm::BasicBlock *failed = llvm::BasicBlock::Create(context_, "require_failed", function_);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(context_, "require_ok", function_);
    builder_->CreateCondBr(condition, ok, failed,
                           llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_->SetInsertPoint(failed);
    std::vector<llvm::Value *> values;
    for (size_t i = 3; i < op->args.size(); i++)
        values.push_back(codegen(op->args[i]));
    auto [table, slots] = print_slots(op->args, 3, values);
    llvm::FunctionCallee report =
        module_.getOrInsertFunction("dsl_runtime_error_requirement_failed",
                                    llvm::FunctionType::get(i32, {ptr, i32, ptr, ptr}, false));
    return_freeing_heap(builder_->CreateCall(
        report, {codegen(op->args[2]),
                 llvm::ConstantInt::get(i32, static_cast<int64_t>(values.size())), table, slots}));
    builder_->SetInsertPoint(ok);
    return codegen(op->args[1]);
}

}  // namespace dsl::codegen
