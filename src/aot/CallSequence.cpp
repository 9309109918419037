// A call sequence's entry point, written with LLVM's IRBuilder into the module of its pipelines.
#include "aot/CallSequence.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "dsl/runtime/dsl_runtime.h"
#include "ir/Error.h"

namespace dsl::aot {

namespace {

/// Builds the globals describing the sequence's buffers and the entry point.
class SequenceWriter {
  public:
    SequenceWriter(llvm::Module &m, const CallSequence &s)
        : m_(m), s_(s), context_(m.getContext()) {
        i8_ = llvm::Type::getInt8Ty(context_);
        i16_ = llvm::Type::getInt16Ty(context_);
        i32_ = llvm::Type::getInt32Ty(context_);
        i64_ = llvm::Type::getInt64Ty(context_);
        ptr_ = llvm::PointerType::get(context_, 0);
        // The layouts of dsl_type_t, dsl_dimension_t and dsl_buffer_t (dsl_runtime.h).
        type_t_ = llvm::StructType::get(context_, {i8_, i8_, i16_});
        dimension_t_ = llvm::StructType::get(context_, {i32_, i32_, i32_, i32_});
        buffer_t_ =
            llvm::StructType::get(context_, {i64_, ptr_, ptr_, i64_, type_t_, i32_, ptr_, ptr_});
    }

    void write() {
        if (s_.arena_bytes > 0) {
            auto *type = llvm::ArrayType::get(i8_, static_cast<uint64_t>(s_.arena_bytes));
            arena_ = new llvm::GlobalVariable(m_, type, false, llvm::GlobalValue::InternalLinkage,
                                              llvm::ConstantAggregateZero::get(type),
                                              s_.name + ".arena");
            arena_->setAlignment(llvm::Align(64));
        }
        for (size_t i = 0; i < s_.buffers.size(); i++)
            descriptors_.push_back(descriptor(s_.buffers[i], i));
        entry_point();
    }

  private:
    /// A global dsl_buffer_t for an arena or constant buffer (nullptr for an argument).
    llvm::Constant *descriptor(const SequenceBuffer &b, size_t index) {
        if (b.kind == SequenceBuffer::Kind::Argument) {
            internal_assert(b.argument >= 0 &&
                            static_cast<size_t>(b.argument) < s_.arguments.size())
                << "call sequence " << s_.name << ": buffer " << index << " names argument "
                << b.argument;
            return nullptr;
        }
        const std::string base = s_.name + ".b" + std::to_string(index);
        int64_t elements = 1;
        std::vector<llvm::Constant *> dims;
        for (int e : b.extents) {
            dims.push_back(llvm::ConstantStruct::get(
                dimension_t_,
                {llvm::ConstantInt::get(i32_, 0), llvm::ConstantInt::get(i32_, e),
                 llvm::ConstantInt::get(i32_, elements), llvm::ConstantInt::get(i32_, 0)}));
            elements *= e;
        }
        const int64_t bytes = elements * b.type.bytes();
        llvm::Constant *host = nullptr;
        if (b.kind == SequenceBuffer::Kind::Arena) {
            internal_assert(arena_ && b.offset >= 0 && b.offset + bytes <= s_.arena_bytes)
                << "call sequence " << s_.name << ": buffer " << index << " lies outside the arena";
            host = llvm::ConstantExpr::getInBoundsGetElementPtr(
                i8_, arena_, llvm::ConstantInt::get(i64_, b.offset));
        } else {
            llvm::Constant *data = llvm::ConstantDataArray::getRaw(
                llvm::StringRef(static_cast<const char *>(b.data), static_cast<size_t>(bytes)),
                static_cast<uint64_t>(bytes), i8_);
            auto *global = new llvm::GlobalVariable(
                m_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data, base + ".data");
            global->setAlignment(llvm::Align(64));
            host = global;
        }
        llvm::Constant *dim_pointer = llvm::ConstantPointerNull::get(ptr_);
        if (!dims.empty()) {
            auto *type = llvm::ArrayType::get(dimension_t_, dims.size());
            // Writable, like the dsl_dimension_t a caller owns.
            dim_pointer =
                new llvm::GlobalVariable(m_, type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::ConstantArray::get(type, dims), base + ".dim");
        }
        llvm::Constant *type = llvm::ConstantStruct::get(
            type_t_, {llvm::ConstantInt::get(i8_, static_cast<int>(b.type.code())),
                      llvm::ConstantInt::get(i8_, b.type.bits()), llvm::ConstantInt::get(i16_, 1)});
        llvm::Constant *buffer = llvm::ConstantStruct::get(
            buffer_t_, {llvm::ConstantInt::get(i64_, 0), llvm::ConstantPointerNull::get(ptr_), host,
                        llvm::ConstantInt::get(i64_, 0), type,
                        llvm::ConstantInt::get(i32_, static_cast<int>(b.extents.size())),
                        dim_pointer, llvm::ConstantPointerNull::get(ptr_)});
        auto *global = new llvm::GlobalVariable(m_, buffer_t_, false,
                                                llvm::GlobalValue::InternalLinkage, buffer, base);
        global->setAlignment(llvm::Align(8));
        return global;
    }

    /// "float32 (2, 3, 17, 19)": a buffer's type and extents, outermost first.
    static std::string describe(const SequenceBuffer &b) {
        const char *kind = b.type.is_float() ? "float" : b.type.is_uint() ? "uint" : "int";
        std::string s = kind + std::to_string(b.type.bits()) + " (";
        for (size_t i = 0; i < b.extents.size(); i++)
            s += (i ? ", " : "") + std::to_string(b.extents[b.extents.size() - 1 - i]);
        return s + ")";
    }

    /// Branches to a block that reports `message` (a printf format of `values`) and returns
    /// `code` when `failed` holds; continues in a new block otherwise.
    void fail_if(llvm::IRBuilder<> &builder, llvm::Function *fn, llvm::Value *failed,
                 const std::string &message, std::vector<llvm::Value *> values, int code) {
        auto *bad = llvm::BasicBlock::Create(context_, "bad_argument", fn);
        auto *good = llvm::BasicBlock::Create(context_, "argument_ok", fn);
        builder.CreateCondBr(failed, bad, good);
        builder.SetInsertPoint(bad);
        llvm::FunctionCallee report =
            m_.getOrInsertFunction("dsl_runtime_report_error",
                                   llvm::FunctionType::get(builder.getVoidTy(), {ptr_}, false));
        llvm::Value *text = builder.CreateGlobalStringPtr("Error: " + s_.name + ": " + message);
        if (!values.empty()) {
            llvm::FunctionCallee snprintf_fn = m_.getOrInsertFunction(
                "snprintf", llvm::FunctionType::get(i32_, {ptr_, i64_, ptr_}, true));
            const uint64_t size = 1024;
            llvm::Value *space = builder.CreateAlloca(llvm::ArrayType::get(i8_, size));
            std::vector<llvm::Value *> args = {space, llvm::ConstantInt::get(i64_, size), text};
            args.insert(args.end(), values.begin(), values.end());
            builder.CreateCall(snprintf_fn, args);
            text = space;
        }
        builder.CreateCall(report, {text});
        builder.CreateRet(llvm::ConstantInt::getSigned(i32_, code));
        builder.SetInsertPoint(good);
    }

    /// The checks of argument `a` on entry.
    void check_argument(llvm::IRBuilder<> &builder, llvm::Function *fn, size_t a) {
        const std::string name = "buffer argument \"" + s_.arguments[a] + "\"";
        llvm::Value *arg = fn->getArg(static_cast<unsigned>(a));
        const std::string no_memory =
            name +
            " is NULL or has no host memory; give it memory (a compiled model answers "
            "no bounds queries).";
        fail_if(builder, fn, builder.CreateIsNull(arg), no_memory, {},
                dsl_error_buffer_argument_is_null);
        llvm::Value *host = builder.CreateLoad(ptr_, builder.CreateStructGEP(buffer_t_, arg, 2));
        fail_if(builder, fn, builder.CreateIsNull(host), no_memory, {},
                dsl_error_buffer_argument_is_null);
        const SequenceBuffer *b = nullptr;
        for (const SequenceBuffer &sb : s_.buffers) {
            if (sb.kind == SequenceBuffer::Kind::Argument && sb.argument == static_cast<int>(a))
                b = &sb;
        }
        if (!b) return;
        const std::string want = describe(*b);
        const int rank = static_cast<int>(b->extents.size());
        llvm::Value *type = builder.CreateStructGEP(buffer_t_, arg, 4);
        llvm::Value *code = builder.CreateLoad(i8_, builder.CreateStructGEP(type_t_, type, 0));
        llvm::Value *bits = builder.CreateLoad(i8_, builder.CreateStructGEP(type_t_, type, 1));
        llvm::Value *type_ok = builder.CreateAnd(
            builder.CreateICmpEQ(code,
                                 llvm::ConstantInt::get(i8_, static_cast<int>(b->type.code()))),
            builder.CreateICmpEQ(bits, llvm::ConstantInt::get(i8_, b->type.bits())));
        fail_if(builder, fn, builder.CreateNot(type_ok),
                name + " holds elements of type code %d with %d bits; the model takes " + want +
                    " (dsl_runtime.h's dsl_type_code_t).",
                {builder.CreateZExt(code, i32_), builder.CreateZExt(bits, i32_)},
                dsl_error_bad_type);
        llvm::Value *dims = builder.CreateLoad(i32_, builder.CreateStructGEP(buffer_t_, arg, 5));
        fail_if(builder, fn, builder.CreateICmpNE(dims, llvm::ConstantInt::get(i32_, rank)),
                name + " has %d dimensions; the model takes " + want + ", " + std::to_string(rank) +
                    " dimensions.",
                {dims}, dsl_error_bad_dimensions);
        if (rank == 0) return;
        llvm::Value *dim = builder.CreateLoad(ptr_, builder.CreateStructGEP(buffer_t_, arg, 6));
        for (int d = 0; d < rank; d++) {
            llvm::Value *entry = builder.CreateGEP(dimension_t_, dim, {builder.getInt32(d)});
            llvm::Value *extent =
                builder.CreateLoad(i32_, builder.CreateStructGEP(dimension_t_, entry, 1));
            const int e = b->extents[static_cast<size_t>(d)];
            fail_if(builder, fn, builder.CreateICmpNE(extent, builder.getInt32(e)),
                    name + " has extent %d in dimension " + std::to_string(d) +
                        "; the model was compiled for " + want + " (dimension 0 is the " +
                        "innermost axis), where it is " + std::to_string(e) + ".",
                    {extent}, dsl_error_constraint_violated);
            if (d == 0) {
                llvm::Value *stride =
                    builder.CreateLoad(i32_, builder.CreateStructGEP(dimension_t_, entry, 2));
                fail_if(builder, fn, builder.CreateICmpNE(stride, builder.getInt32(1)),
                        name + " has stride %d in dimension 0; the model needs 1 there.", {stride},
                        dsl_error_bad_stride);
            }
        }
    }

    void entry_point() {
        std::vector<llvm::Type *> params(s_.arguments.size(), ptr_);
        auto *type = llvm::FunctionType::get(i32_, params, false);
        internal_assert(!m_.getFunction(s_.name))
            << "call sequence " << s_.name << ": a pipeline has the entry point's name";
        auto *fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, s_.name, &m_);
        fn->addFnAttr(llvm::Attribute::NoUnwind);
        llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", fn));
        for (size_t a = 0; a < s_.arguments.size(); a++)
            check_argument(builder, fn, a);
        // Every return after the checks goes through `done`, which leaves the arguments on
        // the host on a GPU.
        llvm::Value *result = builder.CreateAlloca(i32_);
        builder.CreateStore(llvm::ConstantInt::get(i32_, 0), result);
        auto *done = llvm::BasicBlock::Create(context_, "done", fn);
        for (size_t c = 0; c < s_.calls.size(); c++) {
            const SequenceCall &call = s_.calls[c];
            llvm::Function *callee = m_.getFunction(call.function);
            internal_assert(callee)
                << "call sequence " << s_.name << ": no pipeline \"" << call.function << "\"";
            internal_assert(callee->arg_size() == call.buffers.size())
                << "call sequence " << s_.name << ": pipeline " << call.function << " takes "
                << callee->arg_size() << " arguments, not " << call.buffers.size();
            std::vector<llvm::Value *> args;
            for (size_t a = 0; a < call.buffers.size(); a++) {
                const int b = call.buffers[a];
                internal_assert(b >= 0 && static_cast<size_t>(b) < s_.buffers.size() &&
                                callee->getArg(static_cast<unsigned>(a))->getType() == ptr_)
                    << "call sequence " << s_.name << ": argument " << a << " of " << call.function
                    << " is not a buffer of the sequence";
                const SequenceBuffer &sb = s_.buffers[static_cast<size_t>(b)];
                args.push_back(
                    sb.kind == SequenceBuffer::Kind::Argument
                        ? static_cast<llvm::Value *>(fn->getArg(static_cast<unsigned>(sb.argument)))
                        : descriptors_[static_cast<size_t>(b)]);
            }
            auto written = [&](size_t a) { return a < call.writes.size() && call.writes[a]; };
            if (call.on_host) {
                // What kernels wrote comes home first (not into outputs: they are rewritten).
                for (size_t a = 0; a < args.size(); a++)
                    if (!written(a))
                        stop_unless_zero(builder, fn,
                                         runtime(builder, "dsl_runtime_copy_to_host", args[a]),
                                         result, done);
            }
            stop_unless_zero(builder, fn, builder.CreateCall(callee, args), result, done);
            if (call.on_host) {
                for (size_t a = 0; a < args.size(); a++)
                    if (written(a)) runtime(builder, "dsl_runtime_set_host_dirty", args[a]);
            }
            // Each pipeline stays a function of its own: inlining them all into the entry point
            // would make one huge function for no gain.
            callee->addFnAttr(llvm::Attribute::NoInline);
        }
        if (s_.gpu) {
            for (int o : s_.outputs)
                stop_unless_zero(
                    builder, fn,
                    runtime(builder, "dsl_runtime_copy_to_host", fn->getArg(unsigned(o))), result,
                    done);
        }
        builder.CreateBr(done);
        builder.SetInsertPoint(done);
        if (s_.gpu) {
            for (size_t a = 0; a < s_.arguments.size(); a++)
                runtime(builder, "dsl_runtime_device_free", fn->getArg(unsigned(a)));
        }
        builder.CreateRet(builder.CreateLoad(i32_, result));
    }

    /// A call of the runtime's `int name(dsl_buffer_t *)`.
    llvm::Value *runtime(llvm::IRBuilder<> &builder, const char *name, llvm::Value *buffer) {
        llvm::FunctionCallee f =
            m_.getOrInsertFunction(name, llvm::FunctionType::get(i32_, {ptr_}, false));
        return builder.CreateCall(f, {buffer});
    }

    /// Goes on in a new block where `status` is 0; otherwise stores it in `result` and
    /// branches to `done`.
    void stop_unless_zero(llvm::IRBuilder<> &builder, llvm::Function *fn, llvm::Value *status,
                          llvm::Value *result, llvm::BasicBlock *done) {
        auto *failed = llvm::BasicBlock::Create(context_, "failed", fn);
        auto *next = llvm::BasicBlock::Create(context_, "next", fn);
        builder.CreateCondBr(builder.CreateICmpNE(status, llvm::ConstantInt::get(i32_, 0)), failed,
                             next);
        builder.SetInsertPoint(failed);
        builder.CreateStore(status, result);
        builder.CreateBr(done);
        builder.SetInsertPoint(next);
    }

    llvm::Module &m_;
    const CallSequence &s_;
    llvm::LLVMContext &context_;
    llvm::Type *i8_, *i16_, *i32_, *i64_;
    llvm::PointerType *ptr_;
    llvm::StructType *type_t_, *dimension_t_, *buffer_t_;
    llvm::GlobalVariable *arena_ = nullptr;
    std::vector<llvm::Constant *> descriptors_;
};

}  // namespace

std::string compile_call_sequence(const ir::Module &pipelines, const CallSequence &sequence,
                                  const codegen::CpuTarget &target) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::TargetMachine> tm = codegen::make_target_machine(target);
    std::unique_ptr<llvm::Module> m = codegen::compile_to_llvm(pipelines, context, *tm, target);
    SequenceWriter(*m, sequence).write();
    // Only the entry point is visible: the pipelines and their argv wrappers are private to the
    // object (unused wrappers are dropped), so that several models link into one program.
    for (const ir::LoweredFunc &f : pipelines.functions) {
        for (const std::string &name : {f.name, f.name + "_argv"}) {
            if (llvm::Function *fn = m->getFunction(name)) {
                if (!fn->isDeclaration()) fn->setLinkage(llvm::GlobalValue::InternalLinkage);
            }
        }
    }
    codegen::optimize_llvm_module(*m, *tm);
    return codegen::emit_machine_code(*m, *tm, true);
}

}  // namespace dsl::aot
