#include "lang/JITCompile.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "ir/Error.h"
#include "jit/DiskCache.h"
#include "jit/Hash.h"
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

/// The functions compiled with canonical names in this process, by key: the code, and its
/// arguments as the disk cache stores them; or a compilation under way.
struct SharedFunction {
    std::weak_ptr<jit::JITModule> jit;
    std::string arguments;
    bool compiling = false;
};

struct SharedFunctions {
    std::mutex mutex;
    std::condition_variable done;
    std::map<std::string, SharedFunction> by_key;
    std::atomic<int64_t> shared{0};
};

SharedFunctions &shared_functions() {
    static SharedFunctions *s = new SharedFunctions;  // outlives every static destructor
    return *s;
}

}  // namespace

int64_t PipelineCompilation::shared_compilations() {
    return shared_functions().shared.load();
}

PipelineCompilation::PipelineCompilation(std::vector<Function> outputs, std::string function,
                                         std::string target_key, const codegen::CpuTarget &cpu,
                                         lowering::StrideVersions strides,
                                         lowering::Instrumentation instrumentation, KeyNames names)
    : outputs_(std::move(outputs)),
      function_(std::move(function)),
      cpu_(cpu),
      strides_(strides),
      instrumentation_(instrumentation) {
    auto start = std::chrono::steady_clock::now();
    definitions_ = definition_key(outputs_, names);
    key_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (definitions_ && names == KeyNames::Canonical) {
        key_ = target_key + "\ncanonical names\ndefinitions\n" + definitions_->text;
        function_ = "dsl_shared_" + jit::hash128(key_).hex();
        shared_ = true;
        return;
    }
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
    std::string arguments;
    if (!shared_) return compile_here(&arguments);
    SharedFunctions &shared = shared_functions();
    std::unique_lock<std::mutex> lock(shared.mutex);
    for (;;) {
        SharedFunction &f = shared.by_key[key_];
        if (f.compiling) {
            shared.done.wait(lock);
            continue;
        }
        std::shared_ptr<jit::JITModule> jit = f.jit.lock();
        if (!jit) break;
        // Compiled before: its code, with this pipeline's inputs found under its names.
        auto compiled = std::make_shared<CompiledPipeline>();
        compiled->key = key_;
        compiled->key_seconds = key_seconds_;
        std::vector<std::string> warnings;
        std::string problem;
        const bool restored = restore_arguments(f.arguments, outputs_, function_, *definitions_,
                                                &compiled->lowered, &warnings, &problem);
        internal_assert(restored) << "the shared function " << function_
                                  << " does not take the arguments of its key: " << problem;
        compiled->jit = jit;
        shared.shared++;
        if (std::getenv("DSL_DEBUG_TIMING")) {
            std::cerr << "dsl: " + function_ +
                             ": the code of an earlier pipeline whose definitions differ only "
                             "in names\n";
        }
        return compiled;
    }
    shared.by_key[key_].compiling = true;
    lock.unlock();
    std::shared_ptr<CompiledPipeline> compiled;
    try {
        compiled = compile_here(&arguments);
    } catch (...) {
        lock.lock();
        shared.by_key.erase(key_);
        shared.done.notify_all();
        throw;
    }
    lock.lock();
    SharedFunction &f = shared.by_key[key_];
    f.jit = compiled->jit;
    f.arguments = arguments;
    f.compiling = false;
    // Forget the functions no pipeline holds any more.
    for (auto it = shared.by_key.begin(); it != shared.by_key.end();) {
        bool gone = !it->second.compiling && it->second.jit.expired();
        it = gone ? shared.by_key.erase(it) : std::next(it);
    }
    shared.done.notify_all();
    return compiled;
}

std::shared_ptr<CompiledPipeline> PipelineCompilation::compile_here(std::string *arguments) {
    auto compiled = std::make_shared<CompiledPipeline>();
    compiled->key = key_;
    compiled->key_seconds = key_seconds_;
    jit::JITModule::LazyModule lazy;
    lazy.functions = {function_};
    std::vector<std::string> warnings;
    if (definitions_) {
        lazy.accept = [&](const std::string &stored, std::string *problem) {
            *arguments = stored;
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
                                     compiled->lowered.outputs_may_grow,
                                     definitions_ ? *definitions_ : DefinitionKey{});
        *arguments = *stored;
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
