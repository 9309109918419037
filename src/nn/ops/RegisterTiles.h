#pragma once
// How many accumulators a register tile of the operator library may hold on a target: the
// convolutions' and matrix products' tiles are sized by the vector registers there are.
#include <algorithm>

#include "dsl/Target.h"

namespace dsl::nn {

/// The vector registers of `t`: 32 with AVX-512 (and on ARM and RISC-V), 16 on other x86.
inline int vector_registers(const Target &t) {
    if (t.arch == Target::X86) return t.has_feature(Target::AVX512) ? 32 : 16;
    return 32;
}

/// The most channels (rows) a register tile of `vectors` vectors per channel may have on `t`,
/// at most `want`: the tile's accumulators, its vectors of input and one broadcast weight must
/// all stay in registers. AVX-512's 32 hold 2 vectors by 12 channels; AVX2's 16 hold 2 by 6 (2
/// by 12 spills: a 3x3 convolution of 96 -> 24 channels at 160x160 ran in 50 ms on AVX2 where
/// ONNX Runtime takes 14).
inline int tile_channels(const Target &t, int vectors, int want) {
    const int fit = (vector_registers(t) - vectors - 1) / std::max(vectors, 1);
    return std::max(1, std::min(want, fit));
}

}  // namespace dsl::nn
