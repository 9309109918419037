#pragma once
#include "ir/IR.h"
#include "lowering/BufferChecks.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Turns multi-dimensional storage into flat buffers (DESIGN.md §3 step 7):
///  - `Realize f` becomes one `Allocate` per Tuple element (`f`, or `f.0`, `f.1`, ...) sized by
///    its realized extents, guarded by a check that it has fewer than 2^31 elements;
///  - `Provide f(args) = values` becomes `Store`s at the flat index
///    sum((arg_d - min_d) * stride_d), all values computed before any is stored;
///  - calls to Funcs and inputs become `Load`s the same way.
/// Outputs and inputs use the mins and strides of the buffers passed in; allocations are dense
/// with dimension 0 innermost.
Stmt storage_flattening(const Environment &env, const Stmt &s);

/// Turns the calls of inputs left in `s` into Loads, as storage_flattening does: those of
/// expressions built after it, such as the checks of a region whose bounds read an input (an
/// RDom whose extent is `clamp(counts(j), 0, 99)`, written as a Func's coordinate).
Stmt flatten_input_calls(const Stmt &s);

}  // namespace dsl::lowering
