#pragma once
/// Compiling a model ahead of time (dsl/nn/Model.h, compile_model_to_static_library): the
/// graph compiled with every input extent fixed, its steps' kernels lowered into one object
/// behind one entry point (aot/CallSequence.h), the intermediates placed in a static arena.

namespace dsl::nn::model {

/// The text of include/dsl/runtime/dsl_runtime.h (generated at build time).
const char *runtime_header_text();

}  // namespace dsl::nn::model
