// Pipeline: several outputs compiled into one function (dsl/Pipeline.h). The JIT and AOT paths
// are those of Func, over a list of outputs.
#include "dsl/Pipeline.h"

#include <fstream>
#include <functional>
#include <iostream>
#include <set>

#include "aot/AotModule.h"
#include "ir/Error.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lang/Function.h"
#include "lang/Realize.h"
#include "lang/StmtHtml.h"

namespace dsl {

namespace {

std::vector<lang::Function> functions(const std::vector<Func> &outputs) {
    user_assert(!outputs.empty()) << "Pipeline: there are no outputs; give it at least one Func.";
    std::vector<lang::Function> result;
    for (size_t i = 0; i < outputs.size(); i++) {
        for (size_t j = 0; j < i; j++) {
            user_assert(outputs[j].contents() != outputs[i].contents())
                << "Pipeline: the output Func \"" << outputs[i].name()
                << "\" is listed twice; list each output once.";
        }
        result.emplace_back(outputs[i].contents());
    }
    return result;
}

/// The Funcs a definition calls, in the order it calls them (a call of its own Func included).
class DirectCallees : public ir::IRVisitor {
  public:
    std::vector<std::shared_ptr<lang::FunctionContents>> found;

  protected:
    using IRVisitor::visit;
    void visit(const ir::Call *op) override {
        if (op->call_type == ir::Call::CallType::Func) {
            if (auto f = op->func.lock()) found.push_back(std::move(f));
        }
        IRVisitor::visit(op);
    }
};

}  // namespace

Pipeline::Pipeline(const Func &output) : outputs_{output} {}

Pipeline::Pipeline(const std::vector<Func> &outputs) : outputs_(outputs) {
    functions(outputs_);  // checks them
}

namespace {
/// The target of the pipeline's last compile_jit() (kept with its first output, as its
/// handlers are), else get_jit_target_from_environment().
Target jit_target_of(const std::vector<Func> &outputs) {
    user_assert(!outputs.empty()) << "realize() of a pipeline with no outputs.";
    return lang::default_jit_target(lang::Function(outputs[0].contents()));
}
}  // namespace

Realization Pipeline::realize(const std::vector<int> &sizes) {
    return realize(sizes, jit_target_of(outputs_));
}

void Pipeline::realize(const Realization &outputs) {
    realize(outputs, jit_target_of(outputs_));
}

Realization Pipeline::realize(JITUserContext *context, const std::vector<int> &sizes) {
    return realize(context, sizes, jit_target_of(outputs_));
}

void Pipeline::realize(JITUserContext *context, const Realization &outputs) {
    realize(context, outputs, jit_target_of(outputs_));
}

Realization Pipeline::realize(const std::vector<int> &sizes, const Target &target) {
    return Realization(lang::realize_pipeline(functions(outputs_), sizes, target));
}

void Pipeline::realize(const Realization &outputs, const Target &target) {
    lang::realize_pipeline(functions(outputs_), outputs.buffers(), target);
}

Realization Pipeline::realize(JITUserContext *context, const std::vector<int> &sizes,
                              const Target &target) {
    return Realization(lang::realize_pipeline(functions(outputs_), sizes, target, context));
}

void Pipeline::realize(JITUserContext *context, const Realization &outputs, const Target &target) {
    lang::realize_pipeline(functions(outputs_), outputs.buffers(), target, context);
}

Realization Pipeline::realize(const std::vector<int> &sizes, const Target &target,
                              const ParamMap &params) {
    lang::ScopedParamMap use(params);
    return realize(sizes, target);
}

void Pipeline::realize(const Realization &outputs, const Target &target, const ParamMap &params) {
    lang::ScopedParamMap use(params);
    realize(outputs, target);
}

void Pipeline::set_jit_externs(const std::map<std::string, JITExtern> &externs) {
    user_assert(!outputs_.empty()) << "Pipeline::set_jit_externs of a pipeline with no outputs.";
    outputs_[0].contents()->jit_externs = externs;
}

const std::map<std::string, JITExtern> &Pipeline::get_jit_externs() {
    user_assert(!outputs_.empty()) << "Pipeline::get_jit_externs of a pipeline with no outputs.";
    return outputs_[0].contents()->jit_externs;
}

JITHandlers &Pipeline::jit_handlers() {
    user_assert(!outputs_.empty()) << "Pipeline::jit_handlers() of a pipeline with no outputs.";
    return outputs_[0].jit_handlers();
}

void Pipeline::infer_input_bounds(const std::vector<int> &sizes, const Target &target) {
    lang::infer_input_bounds(functions(outputs_), sizes, target);
}

void Pipeline::infer_input_bounds(const std::vector<int> &sizes, const Target &target,
                                  const ParamMap &params) {
    lang::ScopedParamMap use(params);
    infer_input_bounds(sizes, target);
}

void Pipeline::infer_input_bounds(const Realization &outputs, const Target &target) {
    lang::infer_input_bounds(functions(outputs_), outputs.buffers(), target);
}

void Pipeline::compile_jit(const Target &target) {
    std::vector<lang::Function> functions_of = functions(outputs_);
    functions_of[0].contents().jit_target = target;
    lang::compile_pipeline_jit(functions_of, target);
}

std::string Pipeline::loop_nest() const {
    return lang::lower_pipeline(functions(outputs_)).loop_nest;
}

void Pipeline::print_loop_nest() const {
    std::cout << loop_nest();
}

std::string Pipeline::lowered_stmt() const {
    return ir::module_text(lang::lower_pipeline(functions(outputs_)).module);
}

void Pipeline::compile_to_lowered_stmt(const std::string &filename, StmtOutputFormat format) const {
    std::string text = lowered_stmt();
    std::string title = lang::names_of(functions(outputs_));
    aot::write_file(filename, format == HTML ? lang::lowered_stmt_html(text, title) : text,
                    "compile_to_lowered_stmt");
}

void Pipeline::compile_to_static_library(const std::string &prefix,
                                         const std::vector<Argument> &args,
                                         const std::string &fn_name, const Target &target) {
    aot::write_static_library(functions(outputs_), prefix, args, fn_name, target);
}

void Pipeline::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                                 const std::string &fn_name, const Target &target) {
    aot::write_object(functions(outputs_), filename, args, fn_name, target);
}

void Pipeline::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                                 const std::string &fn_name, const Target &target) {
    aot::write_header(functions(outputs_), filename, args, fn_name, target);
}

void Pipeline::compile_to_file(const std::string &prefix, const std::vector<Argument> &args,
                               const std::string &fn_name, const Target &target) {
    aot::write_object_and_header(functions(outputs_), prefix, args, fn_name, target);
}

void Pipeline::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                                   const std::string &fn_name, const Target &target) {
    aot::write_assembly(functions(outputs_), filename, args, fn_name, target);
}

void Pipeline::compile_to_llvm_ir(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name, const Target &target) {
    aot::write_llvm_ir(functions(outputs_), filename, args, fn_name, target);
}

void Pipeline::compile_to(const std::map<OutputFileType, std::string> &output_files,
                          const std::vector<Argument> &args, const std::string &fn_name,
                          const Target &target) {
    aot::write_outputs(functions(outputs_), output_files, args, fn_name, target);
}

void Pipeline::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name, const Target &target) {
    compile_to({{OutputFileType::bitcode, filename}}, args, fn_name, target);
}

std::vector<Argument> Pipeline::infer_arguments() const {
    return aot::infer_arguments(functions(outputs_));
}

std::vector<Func> Pipeline::funcs() const {
    // Producers first: a depth-first walk from the outputs over each Func's direct callees.
    std::vector<Func> order;
    std::set<const lang::FunctionContents *> done;
    std::function<void(const std::shared_ptr<lang::FunctionContents> &)> visit =
        [&](const std::shared_ptr<lang::FunctionContents> &f) {
            if (!done.insert(f.get()).second) return;
            DirectCallees callees;
            lang::visit_definitions(lang::Function(f), callees);
            for (const auto &c : callees.found)
                visit(c);
            order.emplace_back(f);
        };
    for (const Func &o : outputs_)
        visit(o.contents());
    return order;
}

Func Pipeline::get_func(const std::string &name) const {
    std::string names;
    for (const Func &f : funcs()) {
        if (f.name() == name) return f;
        names += (names.empty() ? "" : ", ") + f.name();
    }
    user_error << "Pipeline: no Func is named \"" << name << "\"; its Funcs are " << names << ".";
    return Func();
}

Func Pipeline::get_func(size_t index) const {
    std::vector<Func> all = funcs();
    user_assert(index < all.size())
        << "Pipeline: get_func(" << index << ") but the pipeline has " << all.size() << " Funcs.";
    return all[index];
}

}  // namespace dsl
