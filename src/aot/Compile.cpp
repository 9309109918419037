// Func::compile_to_static_library, compile_to_object and compile_to_header.
#include <fstream>

#include "aot/AotModule.h"
#include "codegen/CodeGenLLVM.h"
#include "codegen/TargetMapping.h"
#include "dsl/Func.h"
#include "ir/Error.h"
#include "lang/Function.h"
#include "runtime/RuntimeObjects.h"

namespace dsl {

namespace {

std::string function_name(const Func &f, const std::string &fn_name) {
    return fn_name.empty() ? f.name() : fn_name;
}

std::string object_bytes(const Func &f, const std::vector<Argument> &args, const std::string &fn,
                         const Target &target, const char *what) {
    ir::Module module = aot::lower_for_aot(lang::Function(f.contents()), args, fn, what);
    return codegen::compile_to_object_bytes(module, codegen::cpu_target_for(target),
                                            target.to_string());
}

}  // namespace

void Func::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    std::string fn = function_name(*this, fn_name);
    aot::write_file(filename, object_bytes(*this, args, fn, target, "compile_to_object"),
                    "compile_to_object");
}

void Func::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    std::string fn = function_name(*this, fn_name);
    ir::Module module =
        aot::lower_for_aot(lang::Function(contents_), args, fn, "compile_to_header");
    aot::write_file(filename, aot::c_header(module, fn), "compile_to_header");
}

void Func::compile_to_static_library(const std::string &prefix, const std::vector<Argument> &args,
                                     const std::string &fn_name, const Target &target) {
    std::string fn = function_name(*this, fn_name);
    user_assert(target.arch() == Target::host().arch())
        << "compile_to_static_library of Func \"" << name() << "\" for " << target.to_string()
        << ": this compiler carries its runtime for " << Target::host().to_string()
        << " only. Use compile_to_object and link it with the dsl runtime built for that target.";
    ir::Module module =
        aot::lower_for_aot(lang::Function(contents_), args, fn, "compile_to_static_library");
    std::vector<std::pair<std::string, std::string>> members;
    members.push_back(
        {fn + ".o", codegen::compile_to_object_bytes(module, codegen::cpu_target_for(target),
                                                     target.to_string())});
    for (const runtime::EmbeddedObject &o : runtime::runtime_objects()) {
        members.push_back({o.name, std::string(reinterpret_cast<const char *>(o.data), o.size)});
    }
    aot::write_static_library(prefix + ".a", members);
    aot::write_file(prefix + ".h", aot::c_header(module, fn), "compile_to_static_library");
}

}  // namespace dsl
