#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

using ir::Stmt;

/// Rewrites the gathers of a tile that reads its input transposed as dense loads and a
/// transposition in registers. In a run of stores (a tile's rows, unrolled), n vector loads of
/// n lanes from one buffer at one stride s, whose bases are b, b + 1, ..., b + n - 1 (load k
/// reads b + k + j * s in lane j), read together the n x n block whose row j is the dense
/// vector at b + j * s. They become those n dense loads, the log2(n) stages of two-vector
/// shuffles that transpose the block, and load k is row k of the result: n loads of a cache
/// line each instead of n gathers of n elements each (a transpose in tiles of 16 x 16 floats:
/// 16 loads and 64 shuffles instead of 256 element loads). Blocks are taken from the lowest
/// offset up, so a run may hold several (16 rows of 8 lanes: two), and offsets no whole block
/// takes stay gathers. A serial loop of n iterations whose body is one such store (a tile's row
/// loop, as tile().vectorize() leaves it) is unrolled where its copies hold a block; a loop of
/// min(e, n) iterations (a split's guarded count) likewise, behind a test e >= n, the loop kept
/// for the other case.
///
/// Only unpredicated loads of a power-of-two lane count, at least 4, whose stride is not a
/// constant smaller than the lane count (code generation loads those densely already), of a
/// buffer the run does not store to; the dense loads read exactly the elements the gathers
/// read, ahead of the run's stores. That reorder assumes what the rest of lowering assumes of
/// a pipeline's buffers: an input does not share memory with what the pipeline writes.
Stmt transpose_gathers(const Stmt &s);

}  // namespace dsl::lowering
