// Code generation of the memoization cache's lookup and store (lowering/Memoization.cpp): the
// key's values go into 64-bit slots on the stack (as print's do), the buffers' descriptors into
// an array of pointers, and the runtime (runtime/Memoization.c) does the rest.
#include <llvm/IR/Module.h>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl::codegen {

using namespace ir;

llvm::Value *CodeGenLLVM::call_memoization(const Call *op) {
    const bool store = op->is_intrinsic(Call::Intrinsic::MemoizationStore);
    // (func, [has eviction key, eviction key,] K, keys..., N, buffers...)
    const size_t count_at = store ? 3 : 1;
    internal_assert(op->args.size() > count_at && op->args[0].as<StringImm>())
        << op->name << ": the arguments are (func, ..., key count, keys, buffer count, buffers)";
    const auto key_count = as_const_int(op->args[count_at]);
    internal_assert(key_count && op->args.size() > count_at + 1 + *key_count)
        << op->name << ": the key count is a constant";
    const size_t keys_at = count_at + 1;
    const size_t buffers_at = keys_at + static_cast<size_t>(*key_count) + 1;
    const auto buffer_count = as_const_int(op->args[buffers_at - 1]);
    internal_assert(buffer_count && op->args.size() == buffers_at + *buffer_count)
        << op->name << ": the buffer count is a constant and every buffer is given";

    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
    llvm::PointerType *ptr = llvm::PointerType::get(context_, 0);

    std::vector<Expr> keys(op->args.begin() + static_cast<std::ptrdiff_t>(keys_at),
                           op->args.begin() + static_cast<std::ptrdiff_t>(buffers_at - 1));
    std::vector<llvm::Value *> key_values;
    for (const Expr &k : keys)
        key_values.push_back(codegen(k));
    llvm::Value *slots = print_slots(keys, 0, key_values).second;

    // The array of descriptors lives in the entry block, like the descriptors themselves.
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    llvm::Value *buffers = entry.CreateAlloca(
        ptr, llvm::ConstantInt::get(i32, std::max<int64_t>(*buffer_count, 1)), "memoized_buffers");
    for (int64_t i = 0; i < *buffer_count; i++) {
        llvm::Value *b = codegen(op->args[buffers_at + static_cast<size_t>(i)]);
        builder_->CreateStore(
            b, builder_->CreateConstInBoundsGEP1_32(ptr, buffers, static_cast<unsigned>(i)));
    }
    std::vector<llvm::Value *> args{codegen(op->args[0]), slots,
                                    llvm::ConstantInt::get(i32, *key_count), buffers,
                                    llvm::ConstantInt::get(i32, *buffer_count)};
    std::vector<llvm::Type *> types{ptr, ptr, i32, ptr, i32};
    if (store) {
        args.push_back(builder_->CreateIntCast(codegen(op->args[1]), i32, false));
        // The eviction key as C converts it to uint64_t: a handle's address, an int
        // sign-extended.
        llvm::Value *eviction = codegen(op->args[2]);
        eviction = eviction->getType()->isPointerTy()
                       ? builder_->CreatePtrToInt(eviction, i64)
                       : builder_->CreateIntCast(eviction, i64, op->args[2].type().is_int());
        args.push_back(eviction);
        types.push_back(i32);
        types.push_back(i64);
    }
    const char *name = store ? "dsl_runtime_memoization_store" : "dsl_runtime_memoization_lookup";
    llvm::FunctionCallee fn =
        module_.getOrInsertFunction(name, llvm::FunctionType::get(i32, types, false));
    return builder_->CreateCall(fn, args);
}

}  // namespace dsl::codegen
