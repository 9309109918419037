#pragma once
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Decides each Func's compute level (the default: inlined, unless the Func is an output or has
/// updates, which are computed at root), checks that explicit choices are possible, and
/// substitutes every inlined Func into the definitions that call it. Fills `env.funcs` with
/// private copies of the pipeline's Funcs (inlined ones included, for reference).
void inline_functions(Environment &env, const std::vector<lang::Function> &outputs);

/// Whether the Func ends up inlined (after `inline_functions` resolved the defaults).
bool is_inlined(const lang::Function &f);

}  // namespace dsl::lowering
