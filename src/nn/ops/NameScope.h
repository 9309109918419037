#pragma once
/// Names of the operator library's Funcs counted per scope: `unique_name` (dsl/nn/Tensor.h)
/// numbers from a process-wide counter, unless a NameScope is open on the thread, whose own
/// counter starts at 0. The graph compiler opens one per model, so that a model's Funcs have the
/// same names whenever it is compiled: the JIT's caches key pipelines by their definitions,
/// names included, and a second load of a model in one process then finds every pipeline the
/// first compiled.

#include <cstdint>

namespace dsl::nn {

class NameScope {
  public:
    NameScope();
    ~NameScope();
    NameScope(const NameScope &) = delete;
    NameScope &operator=(const NameScope &) = delete;

  private:
    uint64_t counter_ = 0;
    uint64_t *outer_;
};

}  // namespace dsl::nn
