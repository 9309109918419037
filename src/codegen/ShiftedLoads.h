#pragma once
#include "ir/IR.h"

namespace dsl::codegen {

using ir::Stmt;

/// Within the value a store writes, dense vector loads of one buffer at one index shifted by
/// small constants (a stencil's taps along the vectorized dimension: f(x - 2) .. f(x + 2)) become
/// two loads, at the lowest and the highest shift, and a shuffle of those two for every shift
/// between. When the shifts span at most one vector, the two loads cover what every tap reads,
/// and nothing else. Each tap was a load that crossed cache lines: in a loop that streams its
/// input from memory, five such loads per vector ran 30% slower than two and four shuffles.
/// Code generation applies it where a shuffle of two vectors of 32- or 64-bit lanes is one
/// instruction (x86 with AVX-512: vpermt2ps); on AVX2 the shuffles cost more than the loads.
Stmt share_loads_of_shifted_windows(const Stmt &s);

}  // namespace dsl::codegen
