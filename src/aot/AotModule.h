#pragma once
/// Lowering for ahead-of-time compilation: the pipeline's function with the arguments in the
/// order the user lists them, checked.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Func.h"
#include "ir/Module.h"
#include "lang/Function.h"

namespace dsl::aot {

/// Lowers the pipeline of `outputs` into a module with one function `fn_name` taking `args` (in
/// that order), then one buffer per output value (each output's values in turn). Refuses
/// (CompileError) a name that is not a C identifier, an input the pipeline reads that `args`
/// lacks, a Buffer read directly (it has no argument), and duplicate argument names. `what`
/// names the caller in messages, e.g. "compile_to_object".
ir::Module lower_for_aot(const std::vector<lang::Function> &outputs,
                         const std::vector<Argument> &args, const std::string &fn_name,
                         const char *what, const Target &target);

/// Writes the object, the header or the static library of the pipeline of `outputs` (what
/// Func::compile_to_object, compile_to_header and compile_to_static_library do).
void write_object(const std::vector<lang::Function> &outputs, const std::string &filename,
                  const std::vector<Argument> &args, const std::string &fn_name,
                  const Target &target);
void write_header(const std::vector<lang::Function> &outputs, const std::string &filename,
                  const std::vector<Argument> &args, const std::string &fn_name,
                  const Target &target);
void write_static_library(const std::vector<lang::Function> &outputs, const std::string &prefix,
                          const std::vector<Argument> &args, const std::string &fn_name,
                          const Target &target);
/// Writes `<prefix>.o` and `<prefix>.h` from one lowering (Func::compile_to_file).
void write_object_and_header(const std::vector<lang::Function> &outputs, const std::string &prefix,
                             const std::vector<Argument> &args, const std::string &fn_name,
                             const Target &target);
/// Writes the assembly or the LLVM IR of the function `fn_name` taking `args`, as
/// compile_to_object would compile it (Func::compile_to_assembly / compile_to_llvm_ir with
/// arguments).
void write_assembly(const std::vector<lang::Function> &outputs, const std::string &filename,
                    const std::vector<Argument> &args, const std::string &fn_name,
                    const Target &target);
void write_llvm_ir(const std::vector<lang::Function> &outputs, const std::string &filename,
                   const std::vector<Argument> &args, const std::string &fn_name,
                   const Target &target);

/// Writes each file of `files` from one lowering (Func::compile_to); every type is checked
/// before anything is written.
void write_outputs(const std::vector<lang::Function> &outputs,
                   const std::map<OutputFileType, std::string> &files,
                   const std::vector<Argument> &args, const std::string &fn_name,
                   const Target &target);
/// The Params and ImageParams the pipeline reads: ImageParams by name, then Params by name.
std::vector<Argument> infer_arguments(const std::vector<lang::Function> &outputs);

/// The members of the static library of `module`: its object (`fn_name`.o) and the runtime's.
std::vector<std::pair<std::string, std::string>> library_members(const ir::Module &module,
                                                                 const std::string &fn_name,
                                                                 const Target &target);

/// The name of the AOT function of Func `f`: `fn_name`, or the Func's name when it is empty.
std::string function_name(const Func &f, const std::string &fn_name);

/// Whether `s` is a C identifier (letters, digits and '_', not starting with a digit).
bool is_c_identifier(const std::string &s);

/// Writes `bytes` to `filename`; a CompileError naming `what` and the file when it cannot.
void write_file(const std::string &filename, const std::string &bytes, const char *what);

/// The C header declaring the functions of `module` (see Func::compile_to_header).
std::string c_header(const ir::Module &module, const std::string &guard_name);

/// Writes a static library (`.a`) holding `objects` (member name, bytes).
void write_static_library(const std::string &filename,
                          const std::vector<std::pair<std::string, std::string>> &objects);

}  // namespace dsl::aot
