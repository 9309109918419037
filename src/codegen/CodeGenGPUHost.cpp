// The host side of GPU offload: launching the kernels that lowering outlined
// (lowering/OffloadGPULoops.h) through the runtime, and the device buffers of allocations.
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "runtime/Runtime.h"

namespace dsl::codegen {

using namespace ir;

void CodeGenLLVM::return_unless_zero(llvm::Value *status, const std::string &what,
                                     const std::function<llvm::Value *()> &error_code) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(context_, what + "_ok", function_);
    llvm::BasicBlock *failed = llvm::BasicBlock::Create(context_, what + "_failed", function_);
    builder_->CreateCondBr(builder_->CreateICmpEQ(status, llvm::ConstantInt::get(i32, 0)), ok,
                           failed, llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_->SetInsertPoint(failed);
    return_freeing_heap(error_code ? error_code() : status);
    builder_->SetInsertPoint(ok);
}

llvm::Value *CodeGenLLVM::call_gpu_intrinsic(const Call *op) {
    using I = Call::Intrinsic;
    llvm::Type *i8 = llvm::Type::getInt8Ty(context_);
    llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
    llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
    llvm::Type *ptr = llvm::PointerType::get(context_, 0);
    auto runtime_call = [&](const char *name, llvm::Value *buffer) {
        llvm::FunctionCallee fn =
            module_.getOrInsertFunction(name, llvm::FunctionType::get(i32, {ptr}, false));
        return builder_->CreateCall(fn, {buffer});
    };
    switch (op->intrinsic) {
        case I::GPULaunch: {
            const auto *name = op->args[0].as<StringImm>();
            internal_assert(name && gpu_kernels_) << "a launch without kernels";
            const GPUKernel *kernel = nullptr;
            for (const GPUKernel &k : *gpu_kernels_)
                if (k.name == name->value) kernel = &k;
            internal_assert(kernel) << "no kernel " << name->value;
            // The arguments, then the bytes of each dynamic shared allocation.
            size_t count = kernel->args.size() + kernel->dynamic_shared.size();
            internal_assert(op->args.size() == 7 + count) << "launch of " << name->value;
            // The argument table, on the stack: pointers, sizes, kinds.
            llvm::IRBuilder<> entry(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
            size_t slots = std::max<size_t>(count, 1);
            llvm::Value *values = entry.CreateAlloca(ptr, llvm::ConstantInt::get(i32, slots));
            llvm::Value *sizes = entry.CreateAlloca(i64, llvm::ConstantInt::get(i32, slots));
            llvm::Value *kinds = entry.CreateAlloca(i8, llvm::ConstantInt::get(i32, slots));
            for (size_t i = 0; i < count; i++) {
                llvm::Value *v = codegen(op->args[7 + i]);
                llvm::Value *pointer = v, *bytes = llvm::ConstantInt::get(i64, 8);
                int kind = dsl_kernel_arg_scalar;
                if (i >= kernel->args.size()) {
                    // Dynamic shared memory: no value, its size.
                    pointer = llvm::ConstantPointerNull::get(llvm::PointerType::get(context_, 0));
                    bytes = builder_->CreateIntCast(v, i64, true);
                    kind = dsl_kernel_arg_shared;
                } else if (const KernelArgument &a = kernel->args[i]; a.is_buffer) {
                    kind = (a.read ? dsl_kernel_arg_read : 0) |
                           (a.written ? dsl_kernel_arg_written : 0);
                } else {
                    // A scalar goes by address; a bool as a byte.
                    if (a.type.is_bool()) v = builder_->CreateZExt(v, i8);
                    llvm::Value *slot = entry.CreateAlloca(v->getType());
                    builder_->CreateStore(v, slot);
                    pointer = slot;
                    bytes = llvm::ConstantInt::get(i64, a.type.is_bool() ? 1 : a.type.bytes());
                }
                auto index = static_cast<unsigned>(i);
                builder_->CreateStore(pointer,
                                      builder_->CreateConstInBoundsGEP1_32(ptr, values, index));
                builder_->CreateStore(bytes,
                                      builder_->CreateConstInBoundsGEP1_32(i64, sizes, index));
                builder_->CreateStore(llvm::ConstantInt::get(i8, kind),
                                      builder_->CreateConstInBoundsGEP1_32(i8, kinds, index));
            }
            bool cuda = kernel->api == DeviceAPI::CUDA;
            llvm::Value *program = cuda ? gpu_programs_.ptx : gpu_programs_.opencl;
            uint64_t program_bytes = cuda ? gpu_programs_.ptx_bytes : gpu_programs_.opencl_bytes;
            internal_assert(program) << "no program for kernel " << kernel->name;
            std::vector<llvm::Value *> args = {program, llvm::ConstantInt::get(i64, program_bytes),
                                               builder_->CreateGlobalStringPtr(kernel->name)};
            for (int d = 0; d < 6; d++)
                args.push_back(builder_->CreateIntCast(codegen(op->args[1 + d]), i32, true));
            args.push_back(llvm::ConstantInt::get(i32, count));
            args.push_back(values);
            args.push_back(sizes);
            args.push_back(kinds);
            std::vector<llvm::Type *> types;
            for (llvm::Value *a : args)
                types.push_back(a->getType());
            llvm::FunctionCallee launch = module_.getOrInsertFunction(
                cuda ? "dsl_runtime_cuda_launch" : "dsl_runtime_opencl_launch",
                llvm::FunctionType::get(i32, types, false));
            return_unless_zero(builder_->CreateCall(launch, args), "launch");
            return llvm::ConstantInt::get(i32, 0);
        }
        case I::GPUCopyToHost:
            return_unless_zero(runtime_call("dsl_runtime_copy_to_host", codegen(op->args[0])),
                               "copy_to_host");
            return llvm::ConstantInt::get(i32, 0);
        case I::GPUSetHostDirty:
            return runtime_call("dsl_runtime_set_host_dirty", codegen(op->args[0]));
        case I::GPUDeviceFree:
            return runtime_call("dsl_runtime_device_free", codegen(op->args[0]));
        case I::GPUBlockIndex:
        case I::GPUThreadIndex: {
            internal_assert(in_kernel_) << "a GPU index outside a kernel";
            auto dim = as_const_int(op->args[0]);
            internal_assert(dim && *dim >= 0 && *dim < 3) << "GPU index " << op->args[0];
            static const llvm::Intrinsic::ID blocks[] = {
                llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
            static const llvm::Intrinsic::ID threads[] = {
                llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
                llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
                llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
            llvm::Intrinsic::ID id = (op->intrinsic == I::GPUBlockIndex ? blocks : threads)[*dim];
            return builder_->CreateIntrinsic(id, {}, {});
        }
        case I::GPUBarrier:
            internal_assert(in_kernel_) << "a GPU barrier outside a kernel";
            builder_->CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
            return llvm::ConstantInt::get(i32, 0);
        default:
            return nullptr;
    }
}

}  // namespace dsl::codegen
