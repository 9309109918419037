#pragma once
// Row-major positions of tensor elements, and the type operators accumulate in: what the
// operators that flatten axes (Reshape, Flatten, NonZero, Compress, Unique, DFT's rows) and the
// reductions share.
#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// The row-major position of `index` in `shape`.
inline Expr flat_index(const Index &index, const Shape &shape) {
    Expr flat = 0;
    for (size_t i = 0; i < shape.size(); i++)
        flat = flat * shape[i] + index[i];
    return flat;
}

/// The index of row-major position `flat` in `shape`. Each coordinate is clamped into its axis,
/// which changes nothing for a position inside the shape but lets bounds inference see that the
/// reads stay inside (it cannot bound a remainder by a symbolic extent).
inline Index unflatten(Expr flat, const Shape &shape) {
    Index index(shape.size());
    for (size_t i = shape.size(); i-- > 0;) {
        if (i == 0) {
            index[i] = clamp(flat, 0, shape[i] - 1);
        } else {
            index[i] = clamp(flat % shape[i], 0, shape[i] - 1);
            flat = flat / shape[i];
        }
    }
    return index;
}

/// The type sums and products of `t` accumulate in: float32 for 16-bit floats, else `t`.
inline Type accumulator_type(Type t) {
    return t.is_float() && t.bits() == 16 ? Float(32) : t;
}

}  // namespace dsl::nn
