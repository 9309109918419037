#include "lang/JITCompile.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "ir/Error.h"
#include "jit/DiskCache.h"
#include "jit/PipelineKey.h"
#include "lang/StoredArguments.h"

namespace dsl::lang {

namespace {

/// DSL_DEBUG_TIMING's line about a compilation (or a load from the disk cache), and a line about
/// what went wrong with the disk cache, if anything did.
void print_timing(const std::string &name, const CompiledPipeline &compiled) {
    std::optional<jit::DiskCache> disk_cache = jit::DiskCache::from_environment();
    const jit::CompileTimes &t = compiled.jit->times();
    const jit::DiskCacheOutcome &outcome = compiled.jit->disk_cache_outcome();
    std::ostringstream line;
    line << "dsl: ";
    if (t.loaded_from_cache) {
        line << "loaded " << name << " from the disk cache without lowering: key of the "
             << "definitions " << compiled.key_seconds * 1e3 << " ms, reading the entry "
             << t.cache_load * 1e3 << " ms, linking " << t.link * 1e3 << " ms ("
             << disk_cache->directory() << ")\n";
    } else {
        line << "compiled " << name << ": key of the definitions " << compiled.key_seconds * 1e3
             << " ms, lowering " << compiled.lowered.seconds * 1e3 << " ms, LLVM IR "
             << t.codegen * 1e3 << " ms, LLVM optimisation " << t.optimize * 1e3
             << " ms, machine code " << t.machine * 1e3 << " ms, linking " << t.link * 1e3 << " ms";
        if (disk_cache) {
            line << "; disk cache: looked up in " << t.cache_load * 1e3 << " ms, ";
            if (outcome.stored)
                line << "stored in " << t.cache_store * 1e3 << " ms";
            else
                line << "not stored";
            line << " (" << disk_cache->directory() << ")";
        }
        line << "\n";
    }
    if (!outcome.problem.empty())
        line << "dsl: disk cache, pipeline " << name << ": " << outcome.problem << "\n";
    std::cerr << line.str();
}

}  // namespace

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
    if (std::getenv("DSL_DEBUG_TIMING")) print_timing(function_, *compiled);
    return compiled;
}

}  // namespace dsl::lang
