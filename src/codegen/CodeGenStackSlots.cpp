// Stack allocations whose size is known only at run time (Func::store_in(MemoryType::Stack) of a
// region with symbolic extents): small sizes are allocas where the allocation is; larger ones
// take a slot of the function, heap memory reused by every iteration that reaches the
// allocation and grown when an iteration needs more, freed when the function returns (Halide
// calls these slots its pseudostack). The stack then cannot overflow on a large region, and a
// loop around the allocation does not call malloc each time round. A slot whose allocation is
// dead (a Free after its last use, lowering/EarlyFrees.h, or the allocation's end) serves the
// allocations met after it: a chain of Funcs each read only by the next takes two slots.
#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/CodeGenLLVMInternal.h"

namespace dsl::codegen {

using namespace ir;

namespace {
/// Run-time sizes up to this many bytes are allocas.
constexpr int64_t kMaxDynamicStackBytes = 16 * 1024;
}  // namespace

llvm::Value *CodeGenLLVM::dynamic_stack_allocation(const Allocate *op, llvm::Value *bytes,
                                                   llvm::Value **saved_stack) {
    llvm::Type *i8 = llvm::Type::getInt8Ty(context_);
    llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    *saved_stack = builder_->CreateStackSave();
    if (in_kernel_) {
        // A GPU thread has no heap to grow into.
        auto *alloca = builder_->CreateAlloca(i8, bytes, op->name);
        alloca->setAlignment(llvm::Align(64));
        return alloca;
    }

    // The slot: one freed by an allocation that is dead here (a Free after its last use, or
    // its end), or a new one, its memory and capacity null and 0 when the function starts.
    StackSlot taken;
    if (!stack_slots_.free.empty()) {
        taken = stack_slots_.free.back();
        stack_slots_.free.pop_back();
    } else {
        llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
        taken.memory = entry.CreateAlloca(ptr, nullptr, op->name + ".slot");
        taken.bytes = entry.CreateAlloca(i64, nullptr, op->name + ".slot_bytes");
        entry.CreateStore(llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr)),
                          taken.memory);
        entry.CreateStore(llvm::ConstantInt::get(i64, 0), taken.bytes);
        stack_slots_.all.push_back(taken);
    }
    stack_slots_.live[op->name] = taken;
    llvm::Value *slot = taken.memory, *capacity = taken.bytes;

    llvm::BasicBlock *small = llvm::BasicBlock::Create(context_, op->name + ".alloca", function_);
    llvm::BasicBlock *large = llvm::BasicBlock::Create(context_, op->name + ".in_slot", function_);
    llvm::BasicBlock *grow = llvm::BasicBlock::Create(context_, op->name + ".grow", function_);
    llvm::BasicBlock *ready = llvm::BasicBlock::Create(context_, op->name + ".ready", function_);
    builder_->CreateCondBr(
        builder_->CreateICmpSLE(bytes, llvm::ConstantInt::get(i64, kMaxDynamicStackBytes)), small,
        large);

    builder_->SetInsertPoint(small);
    auto *alloca = builder_->CreateAlloca(i8, bytes, op->name);
    alloca->setAlignment(llvm::Align(64));
    builder_->CreateBr(ready);

    builder_->SetInsertPoint(large);
    builder_->CreateCondBr(builder_->CreateICmpSGT(bytes, builder_->CreateLoad(i64, capacity)),
                           grow, ready, llvm::MDBuilder(context_).createUnlikelyBranchWeights());
    llvm::BasicBlock *reused = builder_->GetInsertBlock();
    llvm::Value *reused_memory = nullptr;
    {
        // Load the slot's memory where it is reused (before `grow` may change it).
        llvm::IRBuilder<> at(reused->getTerminator());
        reused_memory = at.CreateLoad(ptr, slot);
    }

    builder_->SetInsertPoint(grow);
    // Emptied first: a failed malloc returns through free_stack_slots' frees.
    heap_free(*builder_, builder_->CreateLoad(ptr, slot));
    builder_->CreateStore(llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr)), slot);
    builder_->CreateStore(llvm::ConstantInt::get(i64, 0), capacity);
    llvm::Value *fresh = heap_allocate(op->name, bytes);
    builder_->CreateStore(fresh, slot);
    builder_->CreateStore(bytes, capacity);
    llvm::BasicBlock *grown = builder_->GetInsertBlock();
    builder_->CreateBr(ready);

    builder_->SetInsertPoint(ready);
    llvm::PHINode *memory = builder_->CreatePHI(ptr, 3, op->name);
    memory->addIncoming(alloca, small);
    memory->addIncoming(reused_memory, reused);
    memory->addIncoming(fresh, grown);
    return memory;
}

void CodeGenLLVM::release_stack_slot(const std::string &name) {
    auto it = stack_slots_.live.find(name);
    if (it == stack_slots_.live.end()) return;
    stack_slots_.free.push_back(it->second);
    stack_slots_.live.erase(it);
}

void CodeGenLLVM::free_stack_slots() {
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    // A slot not reached yet is null, which frees nothing.
    auto free_all = [&](llvm::IRBuilderBase &at) {
        for (const StackSlot &slot : stack_slots_.all)
            heap_free(at, at.CreateLoad(ptr, slot.memory));
    };
    for (llvm::Instruction *ret : early_returns_) {
        llvm::IRBuilder<> at(ret);
        free_all(at);
    }
    free_all(*builder_);
}

}  // namespace dsl::codegen
