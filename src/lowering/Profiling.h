#pragma once
/// The `profile` target feature: calls to the runtime's profiler (runtime/Profiler.c) where each
/// Func's production begins and ends, at the ends and iterations of parallel loops, and around the
/// whole pipeline, so that the time each Func's own code runs is counted per thread. Runs after
/// bounds inference, while the ProducerConsumer marks are there. Code inside GPU and NPU loops is
/// counted as the Func that launches it.

#include <string>

#include "lowering/Environment.h"

namespace dsl::lowering {

Stmt add_profiling(const Environment &env, const std::string &pipeline, const Stmt &s);

}  // namespace dsl::lowering
