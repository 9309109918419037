// Compiling one Func with the JIT and calling it with explicitly bound arguments.
#include "nn/model/Kernel.h"

#include <chrono>
#include <optional>

#include "codegen/TargetMapping.h"
#include "dsl/Error.h"
#include "ir/Error.h"
#include "ir/Parameter.h"
#include "jit/JITModule.h"
#include "lang/DefinitionKey.h"
#include "lang/Function.h"
#include "lang/JITCompile.h"
#include "lang/JITTarget.h"
#include "lang/Realize.h"
#include "lowering/Lower.h"
#include "runtime/Runtime.h"

namespace dsl::nn::model {

struct Kernel::Compiled {
    lowering::LoweredPipeline lowered;
    std::shared_ptr<jit::JITModule> jit;
    std::string canonical_key;
    std::vector<std::string> canonical_arguments;
};

namespace {

std::string symbol_name(const std::string &name) {
    std::string s = "dsl_nn_";
    for (char c : name)
        s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return s;
}

}  // namespace

Kernel::Kernel(const Func &output, const std::string &name, const Target &target, bool jit) {
    auto start = std::chrono::steady_clock::now();
    compiled_ = std::make_shared<Compiled>();
    const std::string function = jit ? symbol_name(name) : name;
    if (!jit) {
        const lang::Function f(output.contents());
        compiled_->lowered = lowering::lower({f}, function, lowering::StrideVersions::Dense);
        if (std::optional<lang::DefinitionKey> key =
                lang::definition_key(f, lang::KeyNames::Canonical)) {
            compiled_->canonical_key = std::move(key->text);
            for (const ir::LoweredArgument &a : compiled_->lowered.module.functions[0].args)
                compiled_->canonical_arguments.push_back(key->rename(a.name));
        }
        return;
    }
    // The same checks and optimisation level as realize()'s JIT.
    lang::check_jit_target(name, target, Target::host());
    codegen::CpuTarget cpu = codegen::cpu_target_for(target);
    cpu.opt_level = lang::jit_opt_level();
    const std::string target_key =
        "nn " + target.to_string() + " O" + std::to_string(cpu.opt_level) + " dense";
    // As realize() compiles (lang/JITCompile.h): a pipeline found in the disk cache runs
    // without being lowered at all, so a model of hundreds of pipelines starts in a fraction of
    // a second. With canonical names: a model's layers of the same shapes and operators (a
    // network's repeated blocks) differ only in the names of their nodes and tensors, and
    // share one compiled function.
    lang::PipelineCompilation compilation({lang::Function(output.contents())}, function, target_key,
                                          cpu, lowering::StrideVersions::Dense, {},
                                          lang::KeyNames::Canonical);
    std::shared_ptr<lang::CompiledPipeline> compiled = compilation.compile();
    lang::count_lowerings(compilation.lowerings());
    compiled_->lowered = std::move(compiled->lowered);
    compiled_->jit = compiled->jit;
    compile_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const lowering::LoweredPipeline &Kernel::lowered() const {
    return compiled_->lowered;
}

const std::string &Kernel::canonical_key() const {
    return compiled_->canonical_key;
}

const std::vector<std::string> &Kernel::canonical_arguments() const {
    return compiled_->canonical_arguments;
}

void Kernel::run(const std::vector<const ImageParam *> &buffer_params,
                 const std::vector<Buffer<>> &buffers,
                 const std::vector<std::shared_ptr<ir::ParameterContents>> &scalar_params,
                 const std::vector<uint64_t> &scalars, const Buffer<> &output) const {
    internal_assert(compiled_->jit) << "a kernel lowered for AOT compilation was run";
    const ir::LoweredFunc &lf = compiled_->lowered.module.functions[0];
    std::vector<void *> argv;
    std::vector<uint64_t> bits(lf.args.size());
    for (size_t i = 0; i < lf.args.size(); i++) {
        const ir::LoweredArgument &a = lf.args[i];
        if (a.kind == ir::LoweredArgument::Kind::OutputBuffer) {
            argv.push_back(output.raw_buffer());
            continue;
        }
        const lowering::PipelineInput &in = compiled_->lowered.inputs[i];
        if (in.is_buffer) {
            if (in.buffer.defined()) {
                argv.push_back(in.buffer.raw_buffer());
                continue;
            }
            void *found = nullptr;
            for (size_t j = 0; j < buffer_params.size(); j++) {
                if (buffer_params[j]->contents() == in.param.shared()) {
                    found = buffers[j].raw_buffer();
                    break;
                }
            }
            internal_assert(found) << "no buffer bound for input \"" << in.name << "\"";
            argv.push_back(found);
        } else {
            bool bound = false;
            for (size_t j = 0; j < scalar_params.size(); j++) {
                if (scalar_params[j] == in.param.shared()) {
                    bits[i] = scalars[j];
                    bound = true;
                    break;
                }
            }
            internal_assert(bound) << "no value bound for scalar \"" << in.name << "\"";
            argv.push_back(&bits[i]);
        }
    }
    dsl_runtime_clear_last_error();
    int status = compiled_->jit->argv_function(lf.name)(argv.data());
    if (status != 0) {
        std::string message = dsl_runtime_last_error();
        if (message.empty())
            message = "Error: pipeline \"" + lf.name + "\" failed with code " +
                      std::to_string(status) + ".";
        throw RuntimeError(message);
    }
}

}  // namespace dsl::nn::model
