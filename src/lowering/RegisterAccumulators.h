#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Keeps accumulators in registers: a serial loop with no loop inside whose every access to a
/// buffer reads and writes a few fixed elements (the same indices in every iteration, under
/// conditions that do not change either: an update's tile of outputs summed over an RVar) gets
/// those elements in a small local array, read before the loop and written back after it. LLVM
/// cannot do this itself where the elements might be one another (rows a stride apart, the
/// stride unknown): the loop then runs as before unless the indices differ at run time, a test
/// made once before it. Where the ifs inside the loop do not change either (a tile's guards at
/// the edge of the output), a second copy runs without them when they all hold. Applied inside
/// GPU kernels' threads.
Stmt keep_accumulators_in_registers(const Stmt &s);

}  // namespace dsl::lowering
