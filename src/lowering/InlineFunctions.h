#pragma once
#include <map>
#include <string>
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Decides each Func's compute level (the default: inlined, unless the Func is an output or has
/// updates, which are computed at root), checks that explicit choices are possible, and
/// substitutes every inlined Func into the definitions that call it. Fills `env.funcs` with
/// private copies of the pipeline's Funcs (inlined ones included, for reference).
void inline_functions(Environment &env, const std::vector<lang::Function> &outputs);

/// The Funcs that extern stages among `funcs` take as buffers, each with one such stage.
std::map<std::string, std::string> extern_stage_inputs(
    const std::map<std::string, lang::Function> &funcs);

/// Whether the Func ends up inlined (after `inline_functions` resolved the defaults).
bool is_inlined(const lang::Function &f);

}  // namespace dsl::lowering
