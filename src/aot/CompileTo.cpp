// compile_to (several files of one compilation, by Halide's OutputFileType), compile_to_bitcode
// and infer_arguments (Func's; Pipeline's, in lang/Pipeline.cpp, call the same writers).
#include <algorithm>

#include "aot/AotModule.h"
#include "codegen/CodeGenLLVM.h"
#include "codegen/TargetMapping.h"
#include "dsl/Func.h"
#include "ir/Error.h"
#include "ir/IRPrinter.h"
#include "lang/Function.h"
#include "lang/Realize.h"
#include "lang/StmtHtml.h"
#include "lowering/Lower.h"
#include "runtime/RuntimeObjects.h"

namespace dsl {

namespace aot {

namespace {

const char *type_name(OutputFileType t) {
    switch (t) {
        case OutputFileType::assembly:
            return "assembly";
        case OutputFileType::bitcode:
            return "bitcode";
        case OutputFileType::c_header:
            return "c_header";
        case OutputFileType::c_source:
            return "c_source";
        case OutputFileType::compiler_log:
            return "compiler_log";
        case OutputFileType::cpp_stub:
            return "cpp_stub";
        case OutputFileType::featurization:
            return "featurization";
        case OutputFileType::llvm_assembly:
            return "llvm_assembly";
        case OutputFileType::object:
            return "object";
        case OutputFileType::python_extension:
            return "python_extension";
        case OutputFileType::pytorch_wrapper:
            return "pytorch_wrapper";
        case OutputFileType::registration:
            return "registration";
        case OutputFileType::schedule:
            return "schedule";
        case OutputFileType::static_library:
            return "static_library";
        case OutputFileType::stmt:
            return "stmt";
        case OutputFileType::stmt_html:
            return "stmt_html";
    }
    return "?";
}

/// Whether dsl writes files of type `t`. Halide's other types (C source, C++ stubs, Python and
/// PyTorch wrappers, registration, featurization, the compiler log, the schedule) stand in the
/// enum only so that Halide programs naming them compile; write_outputs refuses them with a
/// CompileError naming the type.
bool written(OutputFileType t) {
    switch (t) {
        case OutputFileType::assembly:
        case OutputFileType::bitcode:
        case OutputFileType::c_header:
        case OutputFileType::llvm_assembly:
        case OutputFileType::object:
        case OutputFileType::static_library:
        case OutputFileType::stmt:
        case OutputFileType::stmt_html:
            return true;
        default:
            return false;
    }
}

}  // namespace

void write_outputs(const std::vector<lang::Function> &outputs,
                   const std::map<OutputFileType, std::string> &files,
                   const std::vector<Argument> &args, const std::string &fn_name,
                   const Target &target) {
    const std::string names = lang::names_of(outputs);
    for (const auto &[type, path] : files) {
        user_assert(written(type))
            << "compile_to of \"" << names
            << "\": dsl does not write OutputFileType::" << type_name(type)
            << "; it writes assembly, bitcode, c_header, llvm_assembly, object, static_library, "
               "stmt and stmt_html. Remove \""
            << path << "\" from the map.";
        user_assert(!path.empty()) << "compile_to of \"" << names << "\": the file for "
                                   << "OutputFileType::" << type_name(type) << " has no path.";
    }
    if (files.count(OutputFileType::static_library)) {
        user_assert(target.arch == Target::host().arch)
            << "compile_to of \"" << names << "\": a static_library for " << target.to_string()
            << " needs the dsl runtime for that target, and this compiler carries it for "
            << Target::host().to_string()
            << " only. Ask for an object and link it with the dsl runtime built for that target.";
    }
    const ir::Module module = lower_for_aot(outputs, args, fn_name, "compile_to", target);
    const codegen::CpuTarget cpu = codegen::cpu_target_for(target);
    for (const auto &[type, path] : files) {
        std::string bytes;
        switch (type) {
            case OutputFileType::assembly:
                bytes = codegen::compile_to_assembly_text(module, cpu);
                break;
            case OutputFileType::bitcode:
                bytes = codegen::compile_to_bitcode_bytes(module, cpu, target.to_string());
                break;
            case OutputFileType::c_header:
                bytes = c_header(module, fn_name);
                break;
            case OutputFileType::llvm_assembly:
                bytes = codegen::compile_to_llvm_ir_text(module, cpu);
                break;
            case OutputFileType::object:
                bytes = codegen::compile_to_object_bytes(module, cpu, target.to_string());
                break;
            case OutputFileType::static_library:
                write_static_library(path, library_members(module, fn_name, target));
                continue;
            case OutputFileType::stmt:
                bytes = ir::module_text(module);
                break;
            case OutputFileType::stmt_html:
                bytes = lang::lowered_stmt_html(ir::module_text(module), names);
                break;
            default:
                internal_error << "compile_to: unchecked output type " << type_name(type);
        }
        write_file(path, bytes, "compile_to");
    }
}

std::vector<Argument> infer_arguments(const std::vector<lang::Function> &outputs) {
    lowering::LoweredPipeline lowered = lowering::lower(outputs, "infer_arguments");
    std::vector<Argument> buffers, scalars;
    for (const lowering::PipelineInput &in : lowered.inputs) {
        if (!in.param.defined()) continue;  // a Buffer read directly
        (in.is_buffer ? buffers : scalars).emplace_back(in.param.shared());
    }
    auto by_name = [](const Argument &a, const Argument &b) { return a.name() < b.name(); };
    std::stable_sort(buffers.begin(), buffers.end(), by_name);
    std::stable_sort(scalars.begin(), scalars.end(), by_name);
    buffers.insert(buffers.end(), scalars.begin(), scalars.end());
    return buffers;
}

}  // namespace aot

using aot::function_name;

void Func::compile_to(const std::map<OutputFileType, std::string> &output_files,
                      const std::vector<Argument> &args, const std::string &fn_name,
                      const Target &target) {
    aot::write_outputs({lang::Function(contents_)}, output_files, args,
                       function_name(*this, fn_name), target);
}

void Func::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                              const std::string &fn_name, const Target &target) {
    compile_to({{OutputFileType::bitcode, filename}}, args, fn_name, target);
}

void Func::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                              const Target &target) {
    compile_to_bitcode(filename, args, "", target);
}

std::vector<Argument> Func::infer_arguments() const {
    return aot::infer_arguments({lang::Function(contents_)});
}

}  // namespace dsl
