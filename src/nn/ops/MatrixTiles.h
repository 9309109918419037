#pragma once
// The output tiling the matrix products share (matmul in Linear.cpp, integer_matmul).
#include "dsl/Func.h"

namespace dsl::nn {

/// Tiles `out` (columns innermost, then rows, then batches) in two vectors of `vec` columns by
/// eight rows (fewer where `target` has too few vector registers: RegisterTiles.h), vectorized and
/// unrolled, its outer loop fused with the batches and in parallel: B's columns outside A's rows
/// unless `more_rows`. The accumulation `acc` (same arguments) is computed per tile with the tile's
/// constant extents, vectorized and unrolled there (its update is the caller's to schedule).
void schedule_matrix_tiles(Func out, Func acc, const Target &target, int vec, bool more_rows);

}  // namespace dsl::nn
