#pragma once
/// Rounding of doubles to the narrow float formats, round-to-nearest-even as IEEE does.

#include <cstdint>

namespace dsl::ir {

/// Rounds to the nearest float16 (IEEE binary16) value, keeping infinities and NaN.
double round_to_float16(double v);
/// Rounds to the nearest bfloat16 value (float32 with 16 fewer mantissa bits).
double round_to_bfloat16(double v);
/// Rounds `v` to the float type of `bits` and code (16: float16, bfloat when `bfloat`).
double round_to_float(double v, int bits, bool bfloat);

uint16_t float16_bits(double v);
double float16_from_bits(uint16_t bits);
uint16_t bfloat16_bits(double v);
double bfloat16_from_bits(uint16_t bits);

}  // namespace dsl::ir
