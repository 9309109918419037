#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Moves the constant terms of every scalar load or store index (and of the base of a dense
/// ramp index) to the outside of its sum: `((x + 1) - m) + row` becomes `((x - m) + row) + 1`.
/// The taps of a stencil then differ only in that last constant, so common subexpression
/// elimination shares the rest among them, and code generation folds the constant into the
/// address (harris: 18 loads of one row of Ix and Iy from 6 base registers instead of 18).
/// The simplifier leaves such sums alone: reassociating 32-bit terms can create an intermediate
/// value that overflows where the original did not. Here the only intermediate sums that change
/// are the original ones less the constant, and code generation adds the terms of an index in 64
/// bits.
Stmt move_index_constants_out(const Stmt &s);

}  // namespace dsl::lowering
