#pragma once
// The transpose of bench/transpose.cpp, shared with its Halide 14 version
// (transpose_halide.cpp): out(x, y) = in(y, x) * 2 on a float32 square of kTransposeSize, in
// tiles of kTransposeTile x kTransposeTile outputs whose rows are vectors, with or without a
// prefetch of the next tile's input at each tile.

#include <string>

#include "dsl/Buffer.h"

namespace dsl_bench {

constexpr int kTransposeSize = 4096;
constexpr int kTransposeTile = 16;

/// The input, made once.
const dsl::Buffer<float> &transpose_input();

/// An empty message if `out` (kTransposeSize^2 floats, dense) is the transpose times 2, else
/// where it differs.
std::string transpose_mismatch(const float *out);

}  // namespace dsl_bench
