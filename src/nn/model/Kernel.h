#pragma once
/// One compiled pipeline of a model: a Func lowered and compiled by the JIT (through the disk
/// cache), called with buffers and scalars bound to its ImageParams and Params explicitly, not
/// through their global `set()`, so that one compiled model can run with any inputs.

#include <memory>
#include <string>
#include <vector>

#include "dsl/Func.h"
#include "dsl/Param.h"
#include "dsl/Target.h"

namespace dsl::lowering {
struct LoweredPipeline;
}

namespace dsl::nn::model {

class Kernel {
  public:
    /// Lowers and compiles `output` for `target`. `name` names the function (a C symbol is
    /// made of it). With `jit` false it is only lowered, for compiling ahead of time: `name`
    /// is then the function's name as it is (a C identifier), and run() may not be called.
    Kernel(const Func &output, const std::string &name, const Target &target, bool jit = true);

    /// The lowered pipeline: one function, whose arguments are the inputs (constant Buffers
    /// included), then the output.
    const lowering::LoweredPipeline &lowered() const;

    /// Runs it: `buffers[i]` for `buffer_params[i]`, `scalars[i]` (the value's bits) for
    /// `scalar_params[i]`, writing `output`. Inputs baked into the pipeline (constant buffers)
    /// need nothing. A RuntimeError with the pipeline's message when it fails.
    void run(const std::vector<const ImageParam *> &buffer_params,
             const std::vector<Buffer<>> &buffers,
             const std::vector<std::shared_ptr<ir::ParameterContents>> &scalar_params,
             const std::vector<uint64_t> &scalars, const Buffer<> &output) const;

    /// Seconds spent lowering and compiling (0 for a disk-cache hit's compilation).
    double compile_seconds() const { return compile_seconds_; }

    /// Lowered for compiling ahead of time: the key of its definitions with canonical names
    /// (lang::KeyNames::Canonical; empty when none can be made), and each argument's canonical
    /// name in the order of the lowered function's arguments. Two kernels of one key compute
    /// the same with their own arguments: one function serves both, its arguments matched by
    /// those names.
    const std::string &canonical_key() const;
    const std::vector<std::string> &canonical_arguments() const;

  private:
    struct Compiled;
    std::shared_ptr<Compiled> compiled_;
    double compile_seconds_ = 0;
};

}  // namespace dsl::nn::model
