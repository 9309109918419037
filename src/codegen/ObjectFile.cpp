// Object files for ahead-of-time compilation: the optimised module plus, per function, a
// constant description of its arguments (dsl_pipeline_metadata_t) and the function returning it;
// and the same module as LLVM bitcode.
#include <llvm/ADT/SmallString.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/CodeGenLLVM.h"
#include "dsl/runtime/dsl_runtime.h"
#include "ir/Error.h"

namespace dsl::codegen {

namespace {

/// A private constant C string; returns a pointer to its first character.
llvm::Constant *string_constant(llvm::Module &m, const std::string &text, const std::string &name) {
    llvm::LLVMContext &context = m.getContext();
    llvm::Constant *data = llvm::ConstantDataArray::getString(context, text);
    auto *global = new llvm::GlobalVariable(m, data->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage, data, name);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return global;
}

int32_t argument_kind(const ir::LoweredArgument &a) {
    switch (a.kind) {
        case ir::LoweredArgument::Kind::Scalar:
            return dsl_argument_input_scalar;
        case ir::LoweredArgument::Kind::InputBuffer:
            return dsl_argument_input_buffer;
        case ir::LoweredArgument::Kind::OutputBuffer:
            return dsl_argument_output_buffer;
    }
    return dsl_argument_input_scalar;
}

/// Defines `<f>_metadata()` returning a constant dsl_pipeline_metadata_t for `f`.
void add_metadata(llvm::Module &m, const ir::LoweredFunc &f, const std::string &target_name) {
    llvm::LLVMContext &context = m.getContext();
    llvm::Type *i8 = llvm::Type::getInt8Ty(context);
    llvm::Type *i16 = llvm::Type::getInt16Ty(context);
    llvm::Type *i32 = llvm::Type::getInt32Ty(context);
    llvm::Type *ptr = llvm::PointerType::get(context, 0);
    // The layouts of dsl_type_t, dsl_argument_t and dsl_pipeline_metadata_t.
    auto *type_t = llvm::StructType::get(context, {i8, i8, i16});
    auto *argument_t = llvm::StructType::get(context, {ptr, i32, i32, type_t});
    auto *metadata_t = llvm::StructType::get(context, {i32, i32, ptr, ptr, ptr});

    std::vector<llvm::Constant *> arguments;
    for (const ir::LoweredArgument &a : f.args) {
        llvm::Constant *type = llvm::ConstantStruct::get(
            type_t, {llvm::ConstantInt::get(i8, static_cast<int>(a.type.code())),
                     llvm::ConstantInt::get(i8, a.type.bits()),
                     llvm::ConstantInt::get(i16, a.type.lanes())});
        arguments.push_back(llvm::ConstantStruct::get(
            argument_t, {string_constant(m, a.name, f.name + ".argument_name"),
                         llvm::ConstantInt::get(i32, argument_kind(a)),
                         llvm::ConstantInt::get(i32, a.dimensions), type}));
    }
    auto *array_type = llvm::ArrayType::get(argument_t, arguments.size());
    auto *array = new llvm::GlobalVariable(m, array_type, true, llvm::GlobalValue::PrivateLinkage,
                                           llvm::ConstantArray::get(array_type, arguments),
                                           f.name + ".arguments");
    llvm::Constant *metadata = llvm::ConstantStruct::get(
        metadata_t, {llvm::ConstantInt::get(i32, 1),
                     llvm::ConstantInt::get(i32, static_cast<int>(f.args.size())), array,
                     string_constant(m, f.name, f.name + ".name"),
                     string_constant(m, target_name, f.name + ".target")});
    auto *global = new llvm::GlobalVariable(m, metadata_t, true, llvm::GlobalValue::PrivateLinkage,
                                            metadata, f.name + ".metadata");

    auto *fn_type = llvm::FunctionType::get(ptr, {}, false);
    auto *fn =
        llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, f.name + "_metadata", &m);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", fn));
    builder.CreateRet(global);
}

}  // namespace

namespace {

/// `emit` of the optimised module of `module` with the metadata functions of its functions
/// (what an object file or bitcode holds).
template <typename Emit>
std::string emit_with_metadata(const ir::Module &module, const CpuTarget &target,
                               const std::string &target_name, Emit emit) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target);
    std::unique_ptr<llvm::Module> m = optimized_module(module, context, *tm, target);
    for (const ir::LoweredFunc &f : module.functions)
        add_metadata(*m, f, target_name);
    return emit(*m, *tm);
}

}  // namespace

std::string compile_to_object_bytes(const ir::Module &module, const CpuTarget &target,
                                    const std::string &target_name) {
    return emit_with_metadata(
        module, target, target_name,
        [](llvm::Module &m, llvm::TargetMachine &tm) { return emit_machine_code(m, tm, true); });
}

std::string compile_to_bitcode_bytes(const ir::Module &module, const CpuTarget &target,
                                     const std::string &target_name) {
    return emit_with_metadata(module, target, target_name,
                              [](llvm::Module &m, llvm::TargetMachine &) {
                                  llvm::SmallString<16384> bytes;
                                  llvm::raw_svector_ostream os(bytes);
                                  llvm::WriteBitcodeToFile(m, os);
                                  return std::string(bytes.data(), bytes.size());
                              });
}

}  // namespace dsl::codegen
