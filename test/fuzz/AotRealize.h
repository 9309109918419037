#pragma once
/// Runs a fuzz case through the ahead-of-time path: the pipeline is compiled to a static
/// library, linked into a shared object by the system's C compiler driver, loaded into this
/// process and called through its `_argv` entry.

#include <string>

#include "RandomPipeline.h"

namespace dsl::fuzz {

/// The outputs the AOT-compiled pipeline computed; on failure `error` says what went wrong.
Realization aot_realize(const FuzzCase &c, std::string &error);

}  // namespace dsl::fuzz
