#pragma once
/// The types of dsl values: integers, floats and handles, scalar or vector.

#include <cstdint>
#include <string>
#include <type_traits>

#include "dsl/runtime/dsl_runtime.h"

namespace dsl {

class Expr;

/// The kind of a type. `BFloat` is the brain-float format (8 exponent bits, 7 mantissa bits).
enum class TypeCode : uint8_t { Int, UInt, Float, Handle, BFloat };  // Halide's values

/// A scalar or vector type: a code, a bit width and a number of lanes.
/// Valid widths: Int and UInt 1, 8, 16, 32, 64 (UInt(1) is bool); Float 16, 32, 64; BFloat 16;
/// Handle 64.
class Type {
  public:
    constexpr Type() = default;
    constexpr Type(TypeCode code, int bits, int lanes = 1)
        : code_(code), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)) {}

    /// The runtime's element type, as buffers carry it (`Type(buffer->type)`; Halide's
    /// halide_type_t), and back.
    constexpr Type(const dsl_type_t &t)  // NOLINT: implicit by design
        : code_(static_cast<TypeCode>(t.code)), bits_(t.bits), lanes_(t.lanes) {}
    constexpr operator dsl_type_t() const {  // NOLINT: implicit by design
        return dsl_type_t{static_cast<uint8_t>(code_), bits_, lanes_};
    }

    constexpr TypeCode code() const { return code_; }
    constexpr int bits() const { return bits_; }
    constexpr int lanes() const { return lanes_; }
    constexpr int bytes() const { return (bits_ + 7) / 8; }

    constexpr bool is_int() const { return code_ == TypeCode::Int; }
    constexpr bool is_uint() const { return code_ == TypeCode::UInt; }
    /// True for Float and BFloat.
    constexpr bool is_float() const {
        return code_ == TypeCode::Float || code_ == TypeCode::BFloat;
    }
    constexpr bool is_bfloat() const { return code_ == TypeCode::BFloat; }
    constexpr bool is_handle() const { return code_ == TypeCode::Handle; }
    constexpr bool is_bool() const { return code_ == TypeCode::UInt && bits_ == 1; }
    /// Int or UInt (bool included).
    constexpr bool is_int_or_uint() const { return is_int() || is_uint(); }
    constexpr bool is_vector() const { return lanes_ != 1; }
    constexpr bool is_scalar() const { return lanes_ == 1; }

    constexpr Type with_lanes(int lanes) const { return Type(code_, bits_, lanes); }
    constexpr Type with_bits(int bits) const { return Type(code_, bits, lanes_); }
    constexpr Type with_code(TypeCode code) const { return Type(code, bits_, lanes_); }
    constexpr Type element_of() const { return with_lanes(1); }

    /// Whether every value of `other`'s element type is exactly representable in this one.
    bool can_represent(Type other) const;
    bool can_represent(int64_t value) const;
    bool can_represent(uint64_t value) const;
    bool can_represent(double value) const;

    /// Largest and smallest finite values of an integer type, as 64-bit integers.
    int64_t int_min() const;
    int64_t int_max() const;
    uint64_t uint_max() const;

    /// The smallest and largest values of the type, as expressions (Halide's Type::min/max):
    /// integers' extremes, false and true for bool, minus and plus infinity for floats; a
    /// vector type gives them broadcast. A handle has none (a CompileError).
    Expr min() const;
    Expr max() const;

    /// Whether the width and code form a valid dsl type (see the class comment).
    bool is_valid() const;

    constexpr bool operator==(const Type &o) const {
        return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
    }
    constexpr bool operator!=(const Type &o) const { return !(*this == o); }
    /// An arbitrary total order, for sorted containers.
    constexpr bool operator<(const Type &o) const {
        if (code_ != o.code_) return code_ < o.code_;
        if (bits_ != o.bits_) return bits_ < o.bits_;
        return lanes_ < o.lanes_;
    }

    /// "int32", "uint8x16", "bool", "float16", "bfloat16", "handle".
    std::string to_string() const;

  private:
    TypeCode code_ = TypeCode::Handle;
    uint8_t bits_ = 0;
    uint16_t lanes_ = 0;
};

constexpr Type Int(int bits, int lanes = 1) {
    return Type(TypeCode::Int, bits, lanes);
}
constexpr Type UInt(int bits, int lanes = 1) {
    return Type(TypeCode::UInt, bits, lanes);
}
constexpr Type Float(int bits, int lanes = 1) {
    return Type(TypeCode::Float, bits, lanes);
}
constexpr Type BFloat(int bits = 16, int lanes = 1) {
    return Type(TypeCode::BFloat, bits, lanes);
}
constexpr Type Bool(int lanes = 1) {
    return UInt(1, lanes);
}
constexpr Type Handle(int lanes = 1) {
    return Type(TypeCode::Handle, 64, lanes);
}

/// 16-bit floats on the host (dsl/Float16.h).
template <int E, int M>
class SmallFloat;
using float16_t = SmallFloat<5, 10>;
using bfloat16_t = SmallFloat<8, 7>;

/// Whether T is a C++ type of dsl scalar values: a number type, float16_t or bfloat16_t.
template <typename T>
constexpr bool is_scalar_type_v =
    std::is_arithmetic_v<T> || std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

/// The dsl type of a C++ scalar type: `type_of<uint8_t>() == UInt(8)`, `type_of<bool>() == Bool()`.
template <typename CVT>
constexpr Type type_of() {
    using T = std::remove_cv_t<CVT>;  // a Buffer<const T> holds elements of type T
    if constexpr (std::is_same_v<T, bool>) {
        return Bool();
    } else if constexpr (std::is_same_v<T, float16_t>) {
        return Float(16);
    } else if constexpr (std::is_same_v<T, bfloat16_t>) {
        return BFloat(16);
    } else if constexpr (std::is_floating_point_v<T>) {
        return Float(sizeof(T) * 8);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        return Int(sizeof(T) * 8);
    } else if constexpr (std::is_integral_v<T>) {
        return UInt(sizeof(T) * 8);
    } else {
        static_assert(std::is_pointer_v<T>, "type_of<T>: T must be an arithmetic or pointer type");
        return Handle();
    }
}

}  // namespace dsl
