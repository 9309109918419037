#pragma once
// Reading one element of a buffer of numbers on the host, whatever its type (the model
// compiler's scalar inputs, the operator library's one-element constants).
#include <cstdint>

#include "dsl/Buffer.h"
#include "dsl/Float16.h"

namespace dsl::nn {

/// Element `i` (dense order) of a buffer, as int64 (floats truncated).
inline int64_t element_as_int(const Buffer<> &b, int64_t i) {
    const auto *p = static_cast<const uint8_t *>(b.data());
    Type t = b.type();
    if (t.is_float() && t.bits() == 32)
        return static_cast<int64_t>(reinterpret_cast<const float *>(p)[i]);
    if (t.is_float() && t.bits() == 64)
        return static_cast<int64_t>(reinterpret_cast<const double *>(p)[i]);
    switch (t.bytes()) {
        case 1:
            return t.is_int() ? int64_t(reinterpret_cast<const int8_t *>(p)[i]) : int64_t(p[i]);
        case 2:
            return t.is_int() ? int64_t(reinterpret_cast<const int16_t *>(p)[i])
                              : int64_t(reinterpret_cast<const uint16_t *>(p)[i]);
        case 4:
            return t.is_int() ? int64_t(reinterpret_cast<const int32_t *>(p)[i])
                              : int64_t(reinterpret_cast<const uint32_t *>(p)[i]);
        default:
            return reinterpret_cast<const int64_t *>(p)[i];
    }
}

/// Element `i` (dense order) of a buffer of numbers, as a double.
inline double element_as_double(const Buffer<> &b, int64_t i) {
    const auto *p = static_cast<const uint8_t *>(b.data());
    Type t = b.type();
    if (t.is_float() && t.bits() == 32) return reinterpret_cast<const float *>(p)[i];
    if (t.is_float() && t.bits() == 64) return reinterpret_cast<const double *>(p)[i];
    if (t.is_float()) {
        uint16_t bits = reinterpret_cast<const uint16_t *>(p)[i];
        return t.is_bfloat() ? double(bfloat16_t::make_from_bits(bits))
                             : double(float16_t::make_from_bits(bits));
    }
    if (t.is_uint() && t.bits() == 64) return double(reinterpret_cast<const uint64_t *>(p)[i]);
    return static_cast<double>(element_as_int(b, i));
}

}  // namespace dsl::nn
