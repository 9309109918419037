#pragma once
/// Func::trace_stores(), trace_loads() and trace_realizations(): Trace intrinsics (events for the
/// runtime's trace handler) at the stores and loads of the traced Funcs and around their
/// realizations, productions and consumptions, inside the pipeline's begin and end events. Runs
/// after bounds inference (the realizations' regions are known) and before storage flattening
/// (stores and calls still name their Funcs and coordinates).

#include "lowering/Environment.h"

namespace dsl::lowering {

/// Tracing of every Func of the pipeline, as the target features trace_loads, trace_stores and
/// trace_realizations ask (in addition to the Funcs traced by their own schedules); `loads`
/// traces the loads of input buffers too. `pipeline` (trace_pipeline) asks for the pipeline's
/// begin and end events even where nothing else is traced.
struct TraceAll {
    bool loads = false, stores = false, realizations = false, pipeline = false;
};

Stmt add_tracing(const Environment &env, const Stmt &s, TraceAll all = {});

}  // namespace dsl::lowering
