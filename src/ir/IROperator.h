#pragma once
/// Internal helpers for building and inspecting expressions: constant tests, typed constants,
/// and the checked node builders the public operators use.

#include <optional>

#include "ir/IR.h"

namespace dsl::ir {

/// The constant value of an IntImm / UIntImm / FloatImm, or of a Broadcast of one.
std::optional<int64_t> as_const_int(const Expr &e);
std::optional<uint64_t> as_const_uint(const Expr &e);
std::optional<double> as_const_float(const Expr &e);

/// Whether `e` is a constant (or a broadcast constant) of any type.
bool is_const(const Expr &e);
/// Whether `e` is a constant equal to `v` (for floats, compared as doubles).
bool is_const(const Expr &e, int64_t v);
inline bool is_const_zero(const Expr &e) {
    return is_const(e, 0);
}
inline bool is_const_one(const Expr &e) {
    return is_const(e, 1);
}
/// Whether `e` is the constant true (false) bool, scalar or broadcast.
bool is_const_true(const Expr &e);
bool is_const_false(const Expr &e);
/// Whether a loop of extent `extent` runs at most once: a constant of at most 1, or a min with
/// one (a split's tail).
bool at_most_one_iteration(const Expr &extent);
/// A positive integer constant that is a power of two; `*log2` receives the exponent.
bool is_const_power_of_two(const Expr &e, int *log2 = nullptr);

Expr make_zero(Type t);
Expr make_one(Type t);
Expr make_bool(bool v, int lanes = 1);
/// `e` broadcast to `lanes` lanes if it is a scalar and `lanes > 1`.
Expr broadcast_to(const Expr &e, int lanes);

/// Builds the binary node of kind `op` (Add .. Max, a comparison, And, Or) from operands of
/// one type.
Expr make_binary(IRNodeType op, const Expr &a, const Expr &b);

/// `v` reduced to a `bits`-wide two's complement integer (sign-extended) / unsigned integer.
inline int64_t wrap_to_signed(int64_t v, int bits) {
    if (bits >= 64) return v;
    uint64_t u = static_cast<uint64_t>(v) & ((uint64_t(1) << bits) - 1);
    uint64_t sign_bit = uint64_t(1) << (bits - 1);
    return static_cast<int64_t>((u ^ sign_bit) - sign_bit);
}
inline uint64_t wrap_to_unsigned(uint64_t v, int bits) {
    return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1);
}

/// A Print intrinsic (see Call::Intrinsic::Print): one line, `format` with `{k}` standing for
/// values[k], written where `condition` holds; its value is values[0] (int32 0 without values).
Expr make_print(const Expr &condition, const std::string &format, std::vector<Expr> values);
/// Whether `e` is undef<T>() (Call::Intrinsic::Undef).
bool is_undef(const Expr &e);
/// `text` as literal text of a Print format (`{` doubled).
std::string escape_print_format(const std::string &text);

/// The element type's signed/unsigned integer of the same width.
inline Type signed_of(Type t) {
    return t.with_code(TypeCode::Int);
}
inline Type unsigned_of(Type t) {
    return t.with_code(TypeCode::UInt);
}

}  // namespace dsl::ir
