#pragma once
/// Alignment facts about integers (`value == modulus * k + remainder`), their arithmetic, and an
/// analysis that derives them for an expression.

#include <cstdint>
#include <string>

#include "ir/Scope.h"

namespace dsl {
class Expr;
}

namespace dsl::ir {

/// A fact about an integer: it equals `modulus * k + remainder` for some integer k.
/// `modulus == 0` means the value is exactly `remainder`; `modulus == 1` says nothing.
/// `0 <= remainder < modulus` whenever modulus > 0.
///
/// The operations below are those of mathematical integers. A caller working with a type that
/// wraps must weaken the result with `wrapped_to` unless it knows that nothing wrapped.
struct ModulusRemainder {
    int64_t modulus = 1;
    int64_t remainder = 0;

    static ModulusRemainder unknown() { return {1, 0}; }
    static ModulusRemainder constant(int64_t v) { return {0, v}; }
    /// The fact `value % modulus == remainder`, normalised (remainder brought into range).
    static ModulusRemainder make(int64_t modulus, int64_t remainder);
    bool is_constant() const { return modulus == 0; }
    bool operator==(const ModulusRemainder &o) const {
        return modulus == o.modulus && remainder == o.remainder;
    }
    bool operator!=(const ModulusRemainder &o) const { return !(*this == o); }

    /// What still holds after the value is reduced modulo 2^bits (a wrapping integer type):
    /// only the part of the modulus that divides 2^bits survives.
    ModulusRemainder wrapped_to(int bits) const;
    /// The remainder modulo `m` if this fact determines it (m > 0), else -1.
    int64_t remainder_mod(int64_t m) const;

    std::string to_string() const;
};

/// Facts about the sum, difference, product, ... of two values with the given facts. Any
/// int64 overflow while combining gives `unknown()`.
ModulusRemainder operator+(const ModulusRemainder &a, const ModulusRemainder &b);
ModulusRemainder operator-(const ModulusRemainder &a, const ModulusRemainder &b);
ModulusRemainder operator*(const ModulusRemainder &a, const ModulusRemainder &b);
/// Euclidean division and remainder (see include/dsl/Expr.h).
ModulusRemainder operator/(const ModulusRemainder &a, const ModulusRemainder &b);
ModulusRemainder operator%(const ModulusRemainder &a, const ModulusRemainder &b);
/// A fact that holds for a value that is one of the two (select, min, max).
ModulusRemainder unify(const ModulusRemainder &a, const ModulusRemainder &b);

/// The alignment of the integer expression `e` (every lane of a vector), given facts about the
/// free variables in `facts`. Unknown for non-integers. It honours the wrap-around of narrow and
/// unsigned types and assumes, like the rest of the compiler, that 32- and 64-bit signed
/// arithmetic does not overflow.
ModulusRemainder modulus_remainder(const Expr &e);
ModulusRemainder modulus_remainder(const Expr &e, const Scope<ModulusRemainder> &facts);

}  // namespace dsl::ir
