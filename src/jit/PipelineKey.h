#pragma once
/// The text that identifies a lowered module for the JIT's compile caches: two modules with the
/// same key generate the same machine code (for the same target and compiler).

#include <string>

#include "ir/Module.h"

namespace dsl::jit {

/// Serialises every field of `module` that code generation reads: the names, the argument lists
/// and every node of every body with its type (which the readable IRPrinter leaves implicit),
/// strings length-prefixed so that no two different modules give the same text.
std::string pipeline_key(const ir::Module &module);

}  // namespace dsl::jit
