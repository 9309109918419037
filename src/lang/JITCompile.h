#pragma once
/// Compiling a pipeline with the JIT, for realize() (lang/Realize.cpp) and for the kernels of
/// the NN layer: first its key, made from its definitions before lowering (lang/DefinitionKey.h)
/// so that a pipeline the disk cache holds runs without being lowered at all, or from the
/// lowered code when no such key can be made; then the machine code, loaded from the disk cache
/// under that key or compiled (and stored there).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/TargetMapping.h"
#include "jit/JITModule.h"
#include "lang/DefinitionKey.h"
#include "lang/Function.h"
#include "lowering/Lower.h"

namespace dsl::lang {

struct CompiledPipeline {
    std::string key;
    /// Seconds spent computing the key of the definitions.
    double key_seconds = 0;
    /// The lowered pipeline, or only its function's name and arguments, and its inputs, when
    /// it was loaded from the disk cache without lowering.
    lowering::LoweredPipeline lowered;
    std::shared_ptr<jit::JITModule> jit;
    /// The pipeline's name in the profiler's report, when compiled with the `profile` feature;
    /// else empty.
    std::string profile_name;
};

class PipelineCompilation {
  public:
    /// The pipeline of `outputs` as the function `function`, for `cpu`; `target_key` names the
    /// target, its optimisation level and anything else that changes the code for the same
    /// definitions (the stride version). Computes the key (lowering now if it must).
    ///
    /// With KeyNames::Canonical, the key holds no name of a Func, Param or buffer, and the
    /// function is named after the key, not `function` (unless no key can be made before
    /// lowering): pipelines that differ only in those names share one compiled function, in
    /// the disk cache and in the process (one compiles, the others wait for it and use its
    /// code). The code's messages then name the first one's Funcs.
    PipelineCompilation(std::vector<Function> outputs, std::string function, std::string target_key,
                        const codegen::CpuTarget &cpu, lowering::StrideVersions strides,
                        lowering::Instrumentation instrumentation = {},
                        KeyNames names = KeyNames::AsGiven);

    const std::string &key() const { return key_; }
    /// The compiled function's name.
    const std::string &function() const { return function_; }
    /// Compiles under key(), or loads from the disk cache (DSL_CACHE_DIR). Lowering's warnings
    /// are kept with the code and reported again when it is loaded.
    std::shared_ptr<CompiledPipeline> compile();
    /// How many compilations took the code of one before them in this process (KeyNames::
    /// Canonical), so far.
    static int64_t shared_compilations();
    /// How many times lowering ran so far (0 or 1).
    int lowerings() const { return lowerings_; }

  private:
    std::vector<Function> outputs_;
    std::string function_, key_;
    codegen::CpuTarget cpu_;
    lowering::StrideVersions strides_;
    lowering::Instrumentation instrumentation_;
    double key_seconds_ = 0;
    std::optional<DefinitionKey> definitions_;
    std::optional<lowering::LoweredPipeline> lowered_;
    int lowerings_ = 0;
    bool shared_ = false;

    std::shared_ptr<CompiledPipeline> compile_here(std::string *stored);
};

}  // namespace dsl::lang
