#pragma once
/// Whether JIT-compiled code for a Target can run on a machine, and the LLVM level it is
/// compiled at.

#include <string>

#include "dsl/Target.h"

namespace dsl::lang {

/// Throws a CompileError unless code for `target` runs on `host` (`Target::host()` outside of
/// tests): the architecture must match and `host` must have every feature of `target`. The
/// message names the Func being realized, the target, and points to the compile_to_* functions.
void check_jit_target(const std::string &func, const Target &target, const Target &host);

/// LLVM's optimisation level for JIT compilation: 3 unless DSL_JIT_OPT_LEVEL says otherwise
/// (lower levels compile several times faster and run slower; the fuzzer uses them). A
/// CompileError when the variable is set to anything but 0-3.
int jit_opt_level();

}  // namespace dsl::lang
