#pragma once
/// Where each allocation is dead: a `Free` after the last statement that uses it.

#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Puts `Free name` after the last statement of each `Allocate name`'s body that uses the
/// buffer, at the deepest level of nested blocks (through lets, allocations and produce/consume
/// markers) that holds every use; nowhere when that statement is a loop or a condition whose
/// last use is inside it, or the body's last statement. The memory itself is still released
/// where the allocation ends; code generation reuses a freed slot of the function's
/// pseudostack (CodeGenStackSlots.cpp) for allocations after the Free, as Halide does: a chain
/// of Funcs stored on the stack, each read only by the next, needs two slots, not one per Func.
Stmt add_early_frees(const Stmt &s);

}  // namespace dsl::lowering
