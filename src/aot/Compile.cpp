// Func::compile_to_static_library, compile_to_object, compile_to_header, compile_to_file, and
// compile_to_assembly / compile_to_llvm_ir of an AOT function, and the writers of
// one pipeline's object, header and library that they and Pipeline share.
#include <fstream>

#include "aot/AotModule.h"
#include "codegen/CodeGenLLVM.h"
#include "codegen/TargetMapping.h"
#include "dsl/Func.h"
#include "ir/Error.h"
#include "lang/Function.h"
#include "runtime/RuntimeObjects.h"

namespace dsl {

namespace aot {

void write_object(const std::vector<lang::Function> &outputs, const std::string &filename,
                  const std::vector<Argument> &args, const std::string &fn_name,
                  const Target &target) {
    ir::Module module = lower_for_aot(outputs, args, fn_name, "compile_to_object", target);
    write_file(filename,
               codegen::compile_to_object_bytes(module, codegen::cpu_target_for(target),
                                                target.to_string()),
               "compile_to_object");
}

void write_header(const std::vector<lang::Function> &outputs, const std::string &filename,
                  const std::vector<Argument> &args, const std::string &fn_name,
                  const Target &target) {
    ir::Module module = lower_for_aot(outputs, args, fn_name, "compile_to_header", target);
    write_file(filename, c_header(module, fn_name), "compile_to_header");
}

void write_static_library(const std::vector<lang::Function> &outputs, const std::string &prefix,
                          const std::vector<Argument> &args, const std::string &fn_name,
                          const Target &target) {
    user_assert(target.arch == Target::host().arch)
        << "compile_to_static_library of \"" << fn_name << "\" for " << target.to_string()
        << ": this compiler carries its runtime for " << Target::host().to_string()
        << " only. Use compile_to_object and link it with the dsl runtime built for that target.";
    ir::Module module = lower_for_aot(outputs, args, fn_name, "compile_to_static_library", target);
    write_static_library(prefix + ".a", library_members(module, fn_name, target));
    write_file(prefix + ".h", c_header(module, fn_name), "compile_to_static_library");
}

std::vector<std::pair<std::string, std::string>> library_members(const ir::Module &module,
                                                                 const std::string &fn_name,
                                                                 const Target &target) {
    std::vector<std::pair<std::string, std::string>> members;
    members.push_back(
        {fn_name + ".o", codegen::compile_to_object_bytes(module, codegen::cpu_target_for(target),
                                                          target.to_string())});
    for (const runtime::EmbeddedObject &o : runtime::runtime_objects()) {
        members.push_back({o.name, std::string(reinterpret_cast<const char *>(o.data), o.size)});
    }
    return members;
}

void write_object_and_header(const std::vector<lang::Function> &outputs, const std::string &prefix,
                             const std::vector<Argument> &args, const std::string &fn_name,
                             const Target &target) {
    ir::Module module = lower_for_aot(outputs, args, fn_name, "compile_to_file", target);
    write_file(prefix + ".o",
               codegen::compile_to_object_bytes(module, codegen::cpu_target_for(target),
                                                target.to_string()),
               "compile_to_file");
    write_file(prefix + ".h", c_header(module, fn_name), "compile_to_file");
}

namespace {

/// Writes to `filename` the text `emit` makes of the AOT function's module (`what` is the
/// user's call, for messages).
template <typename Emit>
void write_text(const std::vector<lang::Function> &outputs, const std::string &filename,
                const std::vector<Argument> &args, const std::string &fn_name, const Target &target,
                const char *what, Emit emit) {
    ir::Module module = lower_for_aot(outputs, args, fn_name, what, target);
    write_file(filename, emit(module, codegen::cpu_target_for(target)), what);
}

}  // namespace

void write_assembly(const std::vector<lang::Function> &outputs, const std::string &filename,
                    const std::vector<Argument> &args, const std::string &fn_name,
                    const Target &target) {
    write_text(outputs, filename, args, fn_name, target, "compile_to_assembly",
               codegen::compile_to_assembly_text);
}

void write_llvm_ir(const std::vector<lang::Function> &outputs, const std::string &filename,
                   const std::vector<Argument> &args, const std::string &fn_name,
                   const Target &target) {
    write_text(outputs, filename, args, fn_name, target, "compile_to_llvm_ir",
               codegen::compile_to_llvm_ir_text);
}

std::string function_name(const Func &f, const std::string &fn_name) {
    return fn_name.empty() ? f.name() : fn_name;
}

}  // namespace aot

using aot::function_name;

void Func::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    aot::write_object({lang::Function(contents_)}, filename, args, function_name(*this, fn_name),
                      target);
}

void Func::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    aot::write_header({lang::Function(contents_)}, filename, args, function_name(*this, fn_name),
                      target);
}

void Func::compile_to_static_library(const std::string &prefix, const std::vector<Argument> &args,
                                     const std::string &fn_name, const Target &target) {
    aot::write_static_library({lang::Function(contents_)}, prefix, args,
                              function_name(*this, fn_name), target);
}

void Func::compile_to_file(const std::string &prefix, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target) {
    aot::write_object_and_header({lang::Function(contents_)}, prefix, args,
                                 function_name(*this, fn_name), target);
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const std::string &fn_name, const Target &target) {
    aot::write_assembly({lang::Function(contents_)}, filename, args, function_name(*this, fn_name),
                        target);
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const Target &target) {
    compile_to_assembly(filename, args, "", target);
}

void Func::compile_to_llvm_ir(const std::string &filename, const std::vector<Argument> &args,
                              const std::string &fn_name, const Target &target) {
    aot::write_llvm_ir({lang::Function(contents_)}, filename, args, function_name(*this, fn_name),
                       target);
}

void Func::compile_to_llvm_ir(const std::string &filename, const std::vector<Argument> &args,
                              const Target &target) {
    compile_to_llvm_ir(filename, args, "", target);
}

}  // namespace dsl
