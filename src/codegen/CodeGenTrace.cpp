// Code generation for the Trace intrinsic (lowering/Tracing.cpp): a dsl_trace_event_t, its
// value and its coordinates are filled in on the stack and handed to dsl_runtime_trace.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "runtime/Runtime.h"

namespace dsl::codegen {

using namespace ir;

llvm::Value *CodeGenLLVM::call_trace(const Call *op) {
    internal_assert(op->args.size() >= 5 && op->args[1].as<StringImm>())
        << "trace: the arguments are (event, func, parent_id, value_index, value, coordinates...)";
    const auto *event = op->args[0].as<IntImm>();
    const auto *value_index = op->args[3].as<IntImm>();
    internal_assert(event && value_index) << "trace: the event and value index are constants";
    const bool access = event->value == dsl_trace_load || event->value == dsl_trace_store;
    llvm::Type *i8 = llvm::Type::getInt8Ty(context_);
    llvm::Type *i16 = llvm::Type::getInt16Ty(context_);
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::PointerType *ptr = llvm::PointerType::get(context_, 0);

    llvm::Value *func = codegen(op->args[1]);
    llvm::Value *parent = codegen(op->args[2]);
    llvm::Value *value = access ? codegen(op->args[4]) : nullptr;
    const Type value_type = op->args[4].type();
    // A vector access gives every coordinate per lane (a scalar one repeated).
    const int lanes = access ? value_type.lanes() : 1;
    std::vector<llvm::Value *> coordinates;
    for (size_t i = 5; i < op->args.size(); i++)
        coordinates.push_back(codegen(op->args[i]));
    const int count = static_cast<int>(coordinates.size()) * lanes;

    // The event's memory lives in the entry block, so that a trace inside a loop does not grow
    // the stack.
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    // dsl_trace_event_t: func, value, coordinates, type {code, bits, lanes}, event, parent_id,
    // value_index, dimensions.
    auto *event_type =
        llvm::StructType::get(context_, {ptr, ptr, ptr, i8, i8, i16, i32, i32, i32, i32});
    llvm::Value *e = entry.CreateAlloca(event_type, nullptr, "trace_event");
    llvm::Value *coords =
        entry.CreateAlloca(i32, llvm::ConstantInt::get(i32, std::max(count, 1)), "trace_coords");
    for (size_t d = 0; d < coordinates.size(); d++) {
        for (int lane = 0; lane < lanes; lane++) {
            llvm::Value *c = coordinates[d];
            if (c->getType()->isVectorTy()) {
                c = builder_->CreateExtractElement(c, static_cast<uint64_t>(lane));
            }
            builder_->CreateStore(c, builder_->CreateConstInBoundsGEP1_32(
                                         i32, coords, static_cast<unsigned>(d) * lanes + lane));
        }
    }
    // A tag's text takes the value's place (a union in dsl_trace_event_t).
    llvm::Value *value_ptr = event->value == dsl_trace_tag
                                 ? codegen(op->args[4])
                                 : static_cast<llvm::Value *>(llvm::ConstantPointerNull::get(ptr));
    Type element = value_type.element_of();
    if (access) {
        llvm::Type *mem = memory_type(value_type);
        llvm::Value *stored = value_type.is_bool() ? builder_->CreateZExt(value, mem) : value;
        value_ptr = entry.CreateAlloca(mem, nullptr, "trace_value");
        builder_->CreateStore(stored, value_ptr);
    }
    auto field = [&](unsigned index, llvm::Value *v) {
        builder_->CreateStore(v, builder_->CreateStructGEP(event_type, e, index));
    };
    field(0, func);
    field(1, value_ptr);
    field(2, coords);
    // Events without a value carry a handle type of no bits and no lanes, as Halide's do.
    field(3,
          llvm::ConstantInt::get(i8, static_cast<int>(access ? element.code() : TypeCode::Handle)));
    field(4, llvm::ConstantInt::get(i8, access ? element.bits() : 0));
    field(5, llvm::ConstantInt::get(i16, access ? lanes : 0));
    field(6, llvm::ConstantInt::get(i32, event->value));
    field(7, parent);
    field(8, llvm::ConstantInt::get(i32, value_index->value));
    field(9, llvm::ConstantInt::get(i32, count));
    llvm::FunctionCallee trace_fn = module_.getOrInsertFunction(
        "dsl_runtime_trace", llvm::FunctionType::get(i32, {ptr}, false));
    llvm::Value *id = builder_->CreateCall(trace_fn, {e});
    return event->value == dsl_trace_load ? value : id;
}

}  // namespace dsl::codegen
