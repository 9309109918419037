// Code generation of what extern stages need (Func::define_extern): dsl_buffer_t descriptors
// on the stack (also those of allocations that GPU kernels use), the address of an element,
// and the bounds query.

#include <llvm/IR/Module.h>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl::codegen {

using namespace ir;

llvm::Value *CodeGenLLVM::call_extern_stage_intrinsic(const Call *op) {
    using I = Call::Intrinsic;
    llvm::Type *i8 = llvm::Type::getInt8Ty(context_);
    llvm::Type *i16 = llvm::Type::getInt16Ty(context_);
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    switch (op->intrinsic) {
        case I::AddressOf: {
            const auto *load = op->args[0].as<Load>();
            internal_assert(load && load->type.is_scalar())
                << "address_of " << op->args[0] << ": storage flattening leaves a scalar load";
            return element_pointer(load->name, load->type, index_value(load->index));
        }
        case I::MakeDescriptor: {
            // (host, zero of the type, then min, extent, stride per dimension), in the entry
            // block: reused when made in a loop (each iteration is done with it at its end).
            const int dims = static_cast<int>(op->args.size() - 2) / 3;
            llvm::IRBuilder<> entry(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
            llvm::StructType *bt = dsl_buffer_type();
            llvm::StructType *dt = dsl_dimension_type();
            llvm::Value *buffer = entry.CreateAlloca(bt);
            llvm::Value *shape =
                entry.CreateAlloca(dt, llvm::ConstantInt::get(i32, std::max(dims, 1)));
            llvm::Value *host = codegen(op->args[0]);
            if (!host->getType()->isPointerTy()) host = builder_->CreateIntToPtr(host, ptr);
            Type t = op->args[1].type();
            auto store = [&](llvm::Value *v, llvm::Value *base, llvm::StructType *s, unsigned i) {
                builder_->CreateStore(v, builder_->CreateStructGEP(s, base, i));
            };
            store(llvm::ConstantInt::get(i64, 0), buffer, bt, 0);
            store(llvm::ConstantPointerNull::get(llvm::PointerType::get(context_, 0)), buffer, bt,
                  1);
            store(host, buffer, bt, 2);
            store(llvm::ConstantInt::get(i64, 0), buffer, bt, 3);
            llvm::Value *type = builder_->CreateStructGEP(bt, buffer, 4);
            auto *ts = llvm::cast<llvm::StructType>(bt->getElementType(4));
            const int code = t.is_int()      ? dsl_type_int
                             : t.is_uint()   ? dsl_type_uint
                             : t.is_bfloat() ? dsl_type_bfloat
                             : t.is_float()  ? dsl_type_float
                                             : dsl_type_handle;
            store(llvm::ConstantInt::get(i8, code), type, ts, 0);
            store(llvm::ConstantInt::get(i8, t.bits()), type, ts, 1);
            store(llvm::ConstantInt::get(i16, 1), type, ts, 2);
            store(llvm::ConstantInt::get(i32, dims), buffer, bt, 5);
            store(shape, buffer, bt, 6);
            store(llvm::ConstantPointerNull::get(llvm::PointerType::get(context_, 0)), buffer, bt,
                  7);
            for (int d = 0; d < dims; d++) {
                llvm::Value *dim = builder_->CreateConstInBoundsGEP1_32(dt, shape, d);
                for (unsigned f = 0; f < 3; f++) {
                    llvm::Value *v =
                        builder_->CreateIntCast(codegen(op->args[2 + 3 * d + f]), i32, true);
                    store(v, dim, dt, f);
                }
                store(llvm::ConstantInt::get(i32, 0), dim, dt, 3);
            }
            return buffer;
        }
        case I::ExternBoundsQuery: {
            // (function, func, k, d, want_max, query args...): call, check, read dimension d of
            // the k-th argument's descriptor.
            const std::string function = op->args[0].as<StringImm>()->value;
            const std::string func = op->args[1].as<StringImm>()->value;
            const int k = static_cast<int>(*as_const_int(op->args[2]));
            const int d = static_cast<int>(*as_const_int(op->args[3]));
            const bool want_max = is_const(op->args[4], 1);
            std::vector<llvm::Value *> args;
            std::vector<llvm::Type *> types;
            for (size_t i = 5; i < op->args.size(); i++) {
                args.push_back(codegen(op->args[i]));
                types.push_back(args.back()->getType());
            }
            llvm::FunctionCallee fn =
                module_.getOrInsertFunction(function, llvm::FunctionType::get(i32, types, false));
            llvm::Value *status = builder_->CreateCall(fn, args);
            return_unless_zero(status, "bounds_query", [&] {
                llvm::FunctionCallee report = module_.getOrInsertFunction(
                    "dsl_runtime_error_extern_stage_failed",
                    llvm::FunctionType::get(i32, {ptr, ptr, i32, i32}, false));
                return builder_->CreateCall(report, {builder_->CreateGlobalStringPtr(func),
                                                     builder_->CreateGlobalStringPtr(function),
                                                     status, llvm::ConstantInt::get(i32, 1)});
            });
            llvm::StructType *bt = dsl_buffer_type();
            llvm::StructType *dt = dsl_dimension_type();
            llvm::Value *shape =
                builder_->CreateLoad(ptr, builder_->CreateStructGEP(bt, args[k], 6));
            llvm::Value *dim = builder_->CreateConstInBoundsGEP1_32(dt, shape, d);
            llvm::Value *min = builder_->CreateLoad(i32, builder_->CreateStructGEP(dt, dim, 0));
            if (!want_max) return min;
            llvm::Value *extent = builder_->CreateLoad(i32, builder_->CreateStructGEP(dt, dim, 1));
            return builder_->CreateSub(builder_->CreateAdd(min, extent),
                                       llvm::ConstantInt::get(i32, 1));
        }
        default:
            return nullptr;
    }
}

}  // namespace dsl::codegen
