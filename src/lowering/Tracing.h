#pragma once
/// Func::trace_stores(), trace_loads() and trace_realizations(): Print intrinsics around the
/// stores, loads and realizations of the traced Funcs. Runs after bounds inference (the
/// realizations' regions are known) and before storage flattening (stores and calls still name
/// their Funcs and coordinates).

#include "lowering/Environment.h"

namespace dsl::lowering {

Stmt add_tracing(const Environment &env, const Stmt &s);

}  // namespace dsl::lowering
