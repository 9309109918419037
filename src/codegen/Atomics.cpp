// Atomic updates: the stores of a stage scheduled atomic() whose loops over RVars run at the
// same time (threads, GPU threads) each update one element indivisibly. A sum, difference,
// minimum or maximum of integers, and a sum or difference of floats, is one atomicrmw; any
// other update (a product, a float min, a select, an update atomic(true) accepted without the
// associativity test) is a compare-and-swap loop that recomputes the new value from the value
// it found until no other thread changed the element in between.
#include "codegen/CodeGenLLVMInternal.h"
#include "ir/IROperator.h"
#include "ir/StoreFold.h"

namespace dsl::codegen {

using namespace ir;

void CodeGenLLVM::visit(const Atomic *op) {
    std::string saved = atomic_buffer_;
    atomic_buffer_ = op->name;
    codegen(op->body);
    atomic_buffer_ = saved;
}

namespace {

/// The atomicrmw operation of a fold, or BAD_BINOP.
llvm::AtomicRMWInst::BinOp rmw_op(const StoreFold &fold, Type t) {
    using Op = llvm::AtomicRMWInst::BinOp;
    if (t.is_float()) {
        if (fold.op != VectorReduce::Op::Add) return Op::BAD_BINOP;
        return fold.subtract ? Op::FSub : Op::FAdd;
    }
    if (t.is_bool()) return Op::BAD_BINOP;
    switch (fold.op) {
        case VectorReduce::Op::Add:
            return fold.subtract ? Op::Sub : Op::Add;
        case VectorReduce::Op::Min:
            return t.is_int() ? Op::Min : Op::UMin;
        case VectorReduce::Op::Max:
            return t.is_int() ? Op::Max : Op::UMax;
        default:
            return Op::BAD_BINOP;
    }
}

}  // namespace

void CodeGenLLVM::atomic_store(const Store *op) {
    Type t = op->value.type();
    internal_assert(t.is_scalar()) << "an atomic store of a vector to " << op->name
                                   << " (the vectorizer keeps such loops serial)";
    user_assert(!is_narrow_float(t))
        << "the atomic update of \"" << op->name << "\" stores " << t
        << ", which dsl updates atomically only as 8- to 64-bit integers, float32 and float64; "
           "compute it in float32.";
    llvm::Type *mem = memory_type(t);
    llvm::Align align(t.bytes());
    llvm::Value *ptr = element_pointer(op->name, t, index_value(op->index));

    llvm::BasicBlock *after = nullptr;
    if (!is_const_true(op->predicate)) {
        llvm::BasicBlock *store = llvm::BasicBlock::Create(context_, "atomic_store", function_);
        after = llvm::BasicBlock::Create(context_, "after_atomic_store", function_);
        builder_->CreateCondBr(codegen(op->predicate), store, after);
        builder_->SetInsertPoint(store);
    }
    auto fold = find_store_fold(op);
    llvm::AtomicRMWInst::BinOp rmw =
        fold ? rmw_op(*fold, t) : llvm::AtomicRMWInst::BinOp::BAD_BINOP;
    if (rmw != llvm::AtomicRMWInst::BinOp::BAD_BINOP) {
        llvm::Value *term = codegen(fold->term);
        builder_->CreateAtomicRMW(rmw, ptr, term, align, llvm::AtomicOrdering::Monotonic);
    } else {
        // Compare and swap the element's bits: floats compare by their bits, so a NaN does
        // not loop forever.
        llvm::Type *bits = llvm::IntegerType::get(context_, mem->getPrimitiveSizeInBits());
        llvm::LoadInst *first = builder_->CreateAlignedLoad(bits, ptr, align);
        first->setAtomic(llvm::AtomicOrdering::Monotonic);
        llvm::BasicBlock *entry = builder_->GetInsertBlock();
        llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "atomic_retry", function_);
        llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, "atomic_done", function_);
        builder_->CreateBr(loop);
        builder_->SetInsertPoint(loop);
        llvm::PHINode *old = builder_->CreatePHI(bits, 2);
        old->addIncoming(first, entry);
        llvm::Value *old_value = builder_->CreateBitCast(old, mem);
        if (t.is_bool()) old_value = builder_->CreateICmpNE(old_value, constant_int(UInt(8), 0));
        AtomicOld saved = atomic_old_;
        atomic_old_ = {op->name, op->index, old_value};
        llvm::Value *value = codegen(op->value);
        atomic_old_ = saved;
        if (t.is_bool()) value = builder_->CreateZExt(value, mem);
        llvm::Value *fresh = builder_->CreateBitCast(value, bits);
        auto *swap =
            builder_->CreateAtomicCmpXchg(ptr, old, fresh, align, llvm::AtomicOrdering::Monotonic,
                                          llvm::AtomicOrdering::Monotonic);
        old->addIncoming(builder_->CreateExtractValue(swap, 0), builder_->GetInsertBlock());
        builder_->CreateCondBr(builder_->CreateExtractValue(swap, 1), done, loop);
        builder_->SetInsertPoint(done);
    }
    if (after) {
        builder_->CreateBr(after);
        builder_->SetInsertPoint(after);
    }
}

}  // namespace dsl::codegen
