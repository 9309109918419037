#pragma once
/// Func::trace_stores(), trace_loads() and trace_realizations(): Trace intrinsics (events for the
/// runtime's trace handler) at the stores and loads of the traced Funcs and around their
/// realizations, productions and consumptions, inside the pipeline's begin and end events. Runs
/// after bounds inference (the realizations' regions are known) and before storage flattening
/// (stores and calls still name their Funcs and coordinates).

#include "lowering/Environment.h"

namespace dsl::lowering {

Stmt add_tracing(const Environment &env, const Stmt &s);

}  // namespace dsl::lowering
