#pragma once
/// numpy's `.npy` files, to hand tensors to and from Python: a file of shape (1, 3, 224, 224)
/// is a Buffer of extents (224, 224, 3, 1), dimension 0 the innermost (last) axis, as every
/// tensor in dsl::nn. Element types: bool, int8-64, uint8-64, float16, float32, float64,
/// little-endian; C or Fortran order on reading (always C order on writing).

#include <string>

#include "dsl/Buffer.h"

namespace dsl::nn {

/// Reads `path`; a RuntimeError naming the file when it is not a .npy file dsl can hold.
Buffer<> load_npy(const std::string &path);
/// Writes `b` (any strides) to `path` in C order.
void save_npy(const std::string &path, const Buffer<> &b);

}  // namespace dsl::nn
