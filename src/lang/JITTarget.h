#pragma once
/// Whether JIT-compiled code for a Target can run on a machine.

#include <string>

#include "dsl/Target.h"

namespace dsl::lang {

/// Throws a CompileError unless code for `target` runs on `host` (`Target::host()` outside of
/// tests): the architecture must match and `host` must have every feature of `target`. The
/// message names the Func being realized, the target, and points to the compile_to_* functions.
void check_jit_target(const std::string &func, const Target &target, const Target &host);

}  // namespace dsl::lang
