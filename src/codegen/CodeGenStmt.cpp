// Code generation for statements: loops, branches, lets, stores, allocations and assertions.
#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/CodeGenLLVMInternal.h"
#include "codegen/LoopHints.h"
#include "dsl/runtime/dsl_runtime.h"
#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/StackAllocation.h"
#include "ir/Substitute.h"
#include "runtime/Runtime.h"

namespace dsl::codegen {

using namespace ir;

void CodeGenLLVM::visit(const LetStmt *op) {
    llvm::Value *v = codegen(op->value);
    if (!v->hasName()) v->setName(op->name);
    ScopedBinding<llvm::Value *> bind(symbols_, op->name, v);
    codegen(op->body);
}

void CodeGenLLVM::visit(const AssertStmt *op) {
    llvm::Value *condition = codegen(op->condition);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(context_, "assert_ok", function_);
    llvm::BasicBlock *failed = llvm::BasicBlock::Create(context_, "assert_failed", function_);
    builder_->CreateCondBr(condition, ok, failed,
                           llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_->SetInsertPoint(failed);
    internal_assert(op->message.type() == Int(32))
        << "an assertion's message must be an int32 error code, got " << op->message;
    return_freeing_heap(codegen(op->message));
    builder_->SetInsertPoint(ok);
}

void CodeGenLLVM::visit(const ProducerConsumer *op) {
    codegen(op->body);
}

void CodeGenLLVM::visit(const For *op) {
    if (op->for_type == ForType::Parallel) {
        codegen_parallel_loop(op);
        return;
    }
    internal_assert(op->for_type == ForType::Serial)
        << "codegen met a " << to_string(op->for_type) << " loop " << op->name
        << "; lowering should have removed it";
    llvm::Value *min = codegen(op->min);
    llvm::Value *extent = codegen(op->extent);
    if (at_most_one_iteration(op->extent)) {
        // A split's tail: a branch, not a loop that LLVM would analyse, strength-reduce and
        // unroll as one (harris compiled 15 ms faster, loop strength reduction 32 -> 24 ms).
        llvm::BasicBlock *once = llvm::BasicBlock::Create(context_, op->name + ".once", function_);
        llvm::BasicBlock *after =
            llvm::BasicBlock::Create(context_, op->name + ".after", function_);
        llvm::Value *zero = llvm::ConstantInt::get(extent->getType(), 0);
        builder_->CreateCondBr(builder_->CreateICmpSGT(extent, zero), once, after);
        builder_->SetInsertPoint(once);
        {
            ScopedBinding<llvm::Value *> bind(symbols_, op->name, min);
            codegen(op->body);
        }
        builder_->CreateBr(after);
        builder_->SetInsertPoint(after);
        return;
    }
    llvm::Value *end = builder_->CreateNSWAdd(min, extent, op->name + ".end");
    llvm::BasicBlock *preheader = builder_->GetInsertBlock();
    llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, op->name + ".loop", function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, op->name + ".after", function_);
    builder_->CreateCondBr(builder_->CreateICmpSLT(min, end), loop, after);

    builder_->SetInsertPoint(loop);
    llvm::PHINode *index = builder_->CreatePHI(min->getType(), 2, op->name);
    index->addIncoming(min, preheader);
    {
        ScopedBinding<llvm::Value *> bind(symbols_, op->name, index);
        codegen(op->body);
    }
    llvm::Value *next = builder_->CreateNSWAdd(index, llvm::ConstantInt::get(min->getType(), 1));
    index->addIncoming(next, builder_->GetInsertBlock());
    llvm::BranchInst *latch =
        builder_->CreateCondBr(builder_->CreateICmpSLT(next, end), loop, after);
    if (runs_few_iterations(op)) {
        // No runtime unrolling (its remainder loops) for a loop of a few iterations: more code
        // to compile and nothing to gain (harris compiled in 69 ms instead of 90 without it
        // anywhere; the steady-state loops keep it, unsharp's and matmul's gain from it).
        llvm::Metadata *no_runtime = llvm::MDNode::get(
            context_, {llvm::MDString::get(context_, "llvm.loop.unroll.runtime.disable")});
        llvm::MDNode *loop_id = llvm::MDNode::getDistinct(context_, {nullptr, no_runtime});
        loop_id->replaceOperandWith(0, loop_id);
        latch->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
    }
    builder_->SetInsertPoint(after);
}

bool runs_few_iterations(const For *op) {
    if (at_most_one_iteration(op->extent)) return true;  // a split's tail
    // The edges of a partitioned loop: [min, steady_first) and [steady_end, end).
    const auto *first = op->min.as<Variable>();
    if (first && first->name == names::steady_end(op->name)) return true;
    if (first && first->name == names::steady_first(op->name)) return false;
    return expr_uses_var(op->extent, names::steady_first(op->name));
}

void CodeGenLLVM::codegen_parallel_loop(const For *op) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    llvm::Value *min = codegen(op->min);
    llvm::Value *extent = codegen(op->extent);

    // Pack what the body uses from outside into a closure on the stack.
    std::vector<std::pair<std::string, llvm::Value *>> captured;
    for (const std::string &n : free_names(op->body, true)) {
        if (n == op->name) continue;
        captured.push_back({n, lookup(n)});
    }
    std::vector<llvm::Type *> field_types;
    for (const auto &c : captured)
        field_types.push_back(c.second->getType());
    llvm::StructType *closure_type =
        llvm::StructType::create(context_, field_types, op->name + ".closure");
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    llvm::Value *closure = entry.CreateAlloca(closure_type, nullptr, op->name + ".closure");
    for (size_t i = 0; i < captured.size(); i++) {
        builder_->CreateStore(
            captured[i].second,
            builder_->CreateStructGEP(closure_type, closure, static_cast<unsigned>(i)));
    }

    // The body becomes a task: int task(void *closure, int index).
    auto *task_type = llvm::FunctionType::get(i32, {ptr, i32}, false);
    auto *task = llvm::Function::Create(task_type, llvm::Function::InternalLinkage,
                                        function_->getName() + "." + op->name + ".task", &module_);
    task->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilderBase::InsertPoint saved_point = builder_->saveIP();
    llvm::Function *saved_function = function_;
    std::vector<llvm::Value *> saved_heap;
    std::swap(saved_heap, live_heap_);
    ir::Scope<llvm::Value *> saved_symbols;
    std::swap(saved_symbols, symbols_);

    function_ = task;
    builder_->SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", task));
    llvm::Value *task_closure = task->getArg(0);
    for (size_t i = 0; i < captured.size(); i++) {
        llvm::Value *v = builder_->CreateLoad(
            field_types[i],
            builder_->CreateStructGEP(closure_type, task_closure, static_cast<unsigned>(i)),
            captured[i].first);
        symbols_.push(captured[i].first, v);
    }
    symbols_.push(op->name, task->getArg(1));
    StackSlots saved_slots;
    std::vector<llvm::Instruction *> saved_returns;
    std::swap(saved_slots, stack_slots_);
    std::swap(saved_returns, early_returns_);
    codegen(op->body);
    free_stack_slots();
    builder_->CreateRet(llvm::ConstantInt::get(i32, 0));
    std::swap(saved_slots, stack_slots_);
    std::swap(saved_returns, early_returns_);

    std::swap(saved_symbols, symbols_);
    std::swap(saved_heap, live_heap_);
    function_ = saved_function;
    builder_->restoreIP(saved_point);

    llvm::FunctionCallee parallel_for = module_.getOrInsertFunction(
        runtime::kParallelForSymbol, llvm::FunctionType::get(i32, {ptr, ptr, i32, i32}, false));
    llvm::Value *status = builder_->CreateCall(parallel_for, {task, closure, min, extent});
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(context_, op->name + ".parallel_ok", function_);
    llvm::BasicBlock *failed =
        llvm::BasicBlock::Create(context_, op->name + ".parallel_failed", function_);
    builder_->CreateCondBr(builder_->CreateICmpEQ(status, llvm::ConstantInt::get(i32, 0)), ok,
                           failed, llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_->SetInsertPoint(failed);
    return_freeing_heap(status);  // the task reported the error already
    builder_->SetInsertPoint(ok);
}

void CodeGenLLVM::visit(const Store *op) {
    // An index that common subexpression elimination wrapped in lets: bind them here, so that a
    // dense ramp under them is still stored densely (not scattered lane by lane).
    if (const auto *let = op->index.as<Let>()) {
        if (!expr_uses_var(op->value, let->name) && !expr_uses_var(op->predicate, let->name)) {
            llvm::Value *v = codegen(let->value);
            ScopedBinding<llvm::Value *> bind(symbols_, let->name, v);
            codegen(Store::make(op->name, op->value, let->body, op->predicate, op->alignment));
            return;
        }
    }
    if (!atomic_buffer_.empty() && op->name == atomic_buffer_) {
        atomic_store(op);
        return;
    }
    Type t = op->value.type();
    llvm::Value *value = codegen(op->value);
    llvm::Type *mem = memory_type(t);
    if (t.is_bool()) value = builder_->CreateZExt(value, mem);
    llvm::Align align(t.element_of().bytes());
    bool always = is_const_true(op->predicate);
    const auto *ramp = op->index.as<Ramp>();
    bool dense =
        t.is_scalar() || (ramp && is_const_one(ramp->stride) && ramp->base.type().is_scalar());
    if (dense) {
        llvm::Value *base = index_value(t.is_scalar() ? op->index : ramp->base);
        llvm::Value *ptr = element_pointer(op->name, t, base);
        if (always) {
            tag_buffer_access(builder_->CreateAlignedStore(value, ptr, align), op->name);
        } else if (t.is_scalar()) {
            // A predicated scalar store is a branch.
            llvm::BasicBlock *store =
                llvm::BasicBlock::Create(context_, "predicated_store", function_);
            llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, "after_store", function_);
            builder_->CreateCondBr(codegen(op->predicate), store, after);
            builder_->SetInsertPoint(store);
            tag_buffer_access(builder_->CreateAlignedStore(value, ptr, align), op->name);
            builder_->CreateBr(after);
            builder_->SetInsertPoint(after);
        } else {
            tag_buffer_access(
                builder_->CreateMaskedStore(value, ptr, align, codegen(op->predicate)), op->name);
        }
        return;
    }
    llvm::Value *ptrs = element_pointer(op->name, t, codegen(op->index));
    llvm::Value *mask = always ? llvm::Constant::getAllOnesValue(llvm_type(Bool(t.lanes())))
                               : codegen(op->predicate);
    tag_buffer_access(builder_->CreateMaskedScatter(value, ptrs, align, mask), op->name);
}

void CodeGenLLVM::visit(const Provide *op) {
    internal_error << "codegen met a Provide to " << op->name
                   << "; storage flattening should have removed it";
}

void CodeGenLLVM::visit(const Realize *op) {
    internal_error << "codegen met a Realize of " << op->name
                   << "; storage flattening should have removed it";
}

void CodeGenLLVM::visit(const Allocate *op) {
    llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
    llvm::Type *elem = memory_type(op->type);
    int64_t elem_bytes = static_cast<int64_t>(module_.getDataLayout().getTypeAllocSize(elem));
    int64_t constant_elements = 1;
    bool constant_size = true;
    for (const Expr &e : op->extents) {
        auto c = as_const_int(e);
        if (!c) {
            constant_size = false;
            break;
        }
        constant_elements *= *c;
    }
    llvm::Value *pointer;
    if (in_kernel_ && op->memory_type == MemoryType::GPUShared) {
        // GPU shared memory: a global of the block's address space (3 in NVPTX), seen through
        // a generic pointer (LLVM infers the address space of the loads and stores back).
        auto body_at = [&](llvm::Value *shared) {
            ScopedBinding<llvm::Value *> bind(symbols_, op->name, shared);
            allocations_in_scope_[op->name]++;
            codegen(op->body);
            if (--allocations_in_scope_[op->name] == 0) allocations_in_scope_.erase(op->name);
        };
        // Sized at the launch: its place in the launch's dynamic shared memory.
        auto dynamic = dynamic_shared_.find(op->name);
        if (!constant_size && dynamic != dynamic_shared_.end()) return body_at(dynamic->second);
        internal_assert(constant_size) << "shared allocation " << op->name << " of run-time size";
        auto *array = llvm::ArrayType::get(elem, std::max<int64_t>(constant_elements, 1));
        auto *global = new llvm::GlobalVariable(
            module_, array, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(array),
            function_->getName() + "." + op->name, nullptr, llvm::GlobalValue::NotThreadLocal, 3);
        global->setAlignment(llvm::Align(16));
        return body_at(builder_->CreateAddrSpaceCast(global, llvm::PointerType::get(context_, 0)));
    }
    // Func::store_in: Heap always on the heap, Stack and Register on the stack (a size known
    // only at run time: small sizes where the allocation is, larger ones in a slot of the
    // function, as Halide's pseudostack).
    bool forced_stack =
        op->memory_type == MemoryType::Stack || op->memory_type == MemoryType::Register;
    bool on_heap =
        op->memory_type == MemoryType::Heap ||
        (!forced_stack && (!constant_size || constant_elements * elem_bytes > kMaxStackAllocation));
    llvm::Value *saved_stack = nullptr;
    auto run_time_bytes = [&] {
        llvm::Value *count = llvm::ConstantInt::get(i64, 1);
        for (const Expr &e : op->extents) {
            count = builder_->CreateMul(count, builder_->CreateSExt(codegen(e), i64));
        }
        return builder_->CreateMul(count, llvm::ConstantInt::get(i64, elem_bytes));
    };
    if (!on_heap && !constant_size) {
        pointer = dynamic_stack_allocation(op, run_time_bytes(), &saved_stack);
    } else if (!on_heap) {
        // Stack allocations go in the entry block so that loops do not grow the stack.
        llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
        auto *alloca = entry.CreateAlloca(
            elem, llvm::ConstantInt::get(i64, std::max<int64_t>(constant_elements, 1)), op->name);
        alloca->setAlignment(llvm::Align(64));
        pointer = alloca;
    } else {
        pointer = heap_allocate(op->name, run_time_bytes());
    }
    if (on_heap) live_heap_.push_back(pointer);
    {
        ScopedBinding<llvm::Value *> bind(symbols_, op->name, pointer);
        allocations_in_scope_[op->name]++;
        codegen(op->body);
        if (--allocations_in_scope_[op->name] == 0) allocations_in_scope_.erase(op->name);
    }
    if (on_heap) live_heap_.pop_back();
    if (saved_stack) builder_->CreateStackRestore(saved_stack);
    release_stack_slot(op->name);
    // Heap memory is released where the allocation's scope ends; a `Free` marks the earliest
    // point the buffer is dead, from which its pseudostack slot serves later allocations.
    if (on_heap) heap_free(*builder_, pointer);
}

void CodeGenLLVM::visit(const Free *op) {
    release_stack_slot(op->name);
}

void CodeGenLLVM::visit(const Block *op) {
    codegen(op->first);
    codegen(op->rest);
}

void CodeGenLLVM::visit(const IfThenElse *op) {
    llvm::Value *condition = codegen(op->condition);
    llvm::BasicBlock *then_bb = llvm::BasicBlock::Create(context_, "then", function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, "after_if", function_);
    llvm::BasicBlock *else_bb =
        op->else_case.defined() ? llvm::BasicBlock::Create(context_, "else", function_) : after;
    builder_->CreateCondBr(condition, then_bb, else_bb);
    builder_->SetInsertPoint(then_bb);
    codegen(op->then_case);
    builder_->CreateBr(after);
    if (op->else_case.defined()) {
        builder_->SetInsertPoint(else_bb);
        codegen(op->else_case);
        builder_->CreateBr(after);
    }
    builder_->SetInsertPoint(after);
}

void CodeGenLLVM::visit(const Evaluate *op) {
    (void)codegen(op->value);
}

}  // namespace dsl::codegen
