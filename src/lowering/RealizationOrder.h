#pragma once
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Orders the Funcs that are not inlined so that every producer comes before its consumers
/// (outputs last), filling `env.order`. A cycle between Funcs is a CompileError that names it.
void realization_order(Environment &env);

/// The Funcs each non-inlined Func of `env` calls (after inlining), by name.
std::map<std::string, std::set<std::string>> direct_callees(const Environment &env);

}  // namespace dsl::lowering
