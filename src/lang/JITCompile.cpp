#include "lang/JITCompile.h"

#include <chrono>

#include "ir/Error.h"
#include "jit/DiskCache.h"
#include "jit/PipelineKey.h"
#include "lang/StoredArguments.h"

namespace dsl::lang {

PipelineCompilation::PipelineCompilation(std::vector<Function> outputs, std::string function,
                                         std::string target_key, const codegen::CpuTarget &cpu,
                                         lowering::StrideVersions strides,
                                         lowering::Instrumentation instrumentation)
    : outputs_(std::move(outputs)),
      function_(std::move(function)),
      cpu_(cpu),
      strides_(strides),
      instrumentation_(instrumentation) {
    auto start = std::chrono::steady_clock::now();
    definitions_ = definition_key(outputs_);
    key_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (definitions_) {
        // The function's name is not in the definitions' key; it is in the stored code.
        key_ = target_key + "\nfunction " + function_ + "\ndefinitions\n" + definitions_->text;
        return;
    }
    // No key before lowering (lowering is about to report why, or knows better): the key is
    // every field of the lowered module that code generation reads (the readable IR printer
    // leaves types implicit, so two pipelines could print alike and compile differently).
    lowered_ = lowering::lower(outputs_, function_, strides_, instrumentation_);
    lowerings_++;
    key_ = target_key + "\nlowered\n" + jit::pipeline_key(lowered_->module);
}

std::shared_ptr<CompiledPipeline> PipelineCompilation::compile() {
    auto compiled = std::make_shared<CompiledPipeline>();
    compiled->key = key_;
    compiled->key_seconds = key_seconds_;
    jit::JITModule::LazyModule lazy;
    lazy.functions = {function_};
    std::vector<std::string> warnings;
    if (definitions_) {
        lazy.accept = [&](const std::string &stored, std::string *problem) {
            return restore_arguments(stored, outputs_, function_, *definitions_, &compiled->lowered,
                                     &warnings, problem);
        };
    }
    lazy.make = [&](std::string *stored) -> const ir::Module & {
        if (lowered_) {
            compiled->lowered = std::move(*lowered_);
            lowered_.reset();
        } else {
            internal::WarningCapture capture;
            compiled->lowered = lowering::lower(outputs_, function_, strides_, instrumentation_);
            lowerings_++;
            warnings = capture.warnings();
        }
        *stored = describe_arguments(compiled->lowered.module.functions[0], warnings,
                                     compiled->lowered.outputs_may_grow);
        return compiled->lowered.module;
    };
    std::optional<jit::DiskCache> disk_cache = jit::DiskCache::from_environment();
    compiled->jit = jit::JITModule::compile(lazy, cpu_, disk_cache ? &*disk_cache : nullptr, key_);
    // Keyed by its lowered code, a pipeline found in the cache was lowered all the same (in the
    // constructor): its arguments are that lowering's.
    if (lowered_) {
        compiled->lowered = std::move(*lowered_);
        lowered_.reset();
    }
    if (compiled->jit->times().loaded_from_cache) {
        for (const std::string &w : warnings)
            internal::print_warning(w);
    }
    return compiled;
}

}  // namespace dsl::lang
