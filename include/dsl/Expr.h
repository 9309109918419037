#pragma once
/// `Expr`: a handle to an immutable, reference-counted expression, and the operators that build
/// expressions from C++ code.
///
/// Type coercion (applied by every binary operator, `min`, `max`, `select`, ...):
///  1. Equal types are left alone.
///  2. A scalar meets a vector: the scalar is broadcast to the vector's lanes. Two vectors must
///     have the same number of lanes.
///  3. A C++ number (a literal such as `x + 1` or `f * 0.5f`) takes the type of the other operand.
///     An integer literal must fit that type (`u8 + 300` is an error); a float literal next to an
///     integer Expr turns the Expr into float32.
///  4. Float meets integer: the integer is converted to the float type.
///  5. Float meets float: the narrower is widened. Of equal widths (float16 meets bfloat16) the
///     left operand takes the right one's type, as in Halide.
///  6. Integers of the same signedness: the narrower is widened.
///  7. Signed meets unsigned: both become a signed integer of the wider of the two widths.
///  Handles never mix with arithmetic; that, and mismatched lanes, is a `CompileError`.
///
/// Semantics (enforced by code generation, the simplifier and the reference evaluator alike):
///  - Integer division rounds so that the remainder is never negative (Euclidean division):
///    `-7 / 2 == -4`, `-7 % 2 == 1`, `7 / -2 == -3`, `7 % -2 == 1`.
///  - Integer division or modulo by zero gives zero. Float division follows IEEE (inf, NaN).
///  - Integers narrower than 32 bits, and all unsigned integers, wrap around on overflow.
///  - Overflow of 32- and 64-bit signed integers is the user's bug: the compiler may assume it
///    does not happen.
///  - Floats follow IEEE 754 (no fast-math unless asked for): each operation is rounded to its
///    type, float16 and bfloat16 included. Float modulo is `a - b * floor(a / b)`, each step
///    rounded. `min` and `max` of floats return an unspecified operand when one is NaN.
///  - Converting a float to an integer truncates toward zero; a value out of the integer type's
///    range (or NaN) gives an unspecified result. Converting anything to bool means `!= 0`.
///  - Shifts: shifting by a negative amount shifts the other way; shifting left by at least the
///    width gives 0, shifting right by at least the width gives 0 or -1 (the sign).

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <vector>

#include "dsl/Type.h"

namespace dsl {

namespace ir {

/// Every kind of IR node. Expressions first, then statements.
enum class IRNodeType : uint8_t {
    // Expressions
    IntImm,
    UIntImm,
    FloatImm,
    StringImm,
    Cast,
    Variable,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max,
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE,
    And,
    Or,
    Not,
    Select,
    Load,
    Ramp,
    Broadcast,
    Call,
    Let,
    Shuffle,
    VectorReduce,
    // Statements
    LetStmt,
    AssertStmt,
    ProducerConsumer,
    For,
    Store,
    Provide,
    Allocate,
    Free,
    Realize,
    Block,
    IfThenElse,
    Evaluate,
    Atomic,
};

/// The base of every IR node: a reference count and the node's kind. Nodes are immutable once
/// built; handles share them.
struct IRNode {
    explicit IRNode(IRNodeType t) : node_type(t) {}
    IRNode(const IRNode &) = delete;
    IRNode &operator=(const IRNode &) = delete;
    virtual ~IRNode() = default;

    mutable std::atomic<int> ref_count{0};
    const IRNodeType node_type;
};

struct BaseExprNode : IRNode {
    BaseExprNode(IRNodeType t, Type ty) : IRNode(t), type(ty) {}
    const Type type;
};

struct BaseStmtNode : IRNode {
    explicit BaseStmtNode(IRNodeType t) : IRNode(t) {}
};

/// A shared pointer to an IR node with the count kept in the node itself.
template <typename T>
class IntrusivePtr {
  public:
    IntrusivePtr() = default;
    IntrusivePtr(const T *p) : ptr_(p) { incref(); }  // NOLINT: implicit by design
    IntrusivePtr(const IntrusivePtr &o) : ptr_(o.ptr_) { incref(); }
    IntrusivePtr(IntrusivePtr &&o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
    IntrusivePtr &operator=(const IntrusivePtr &o) {
        if (o.ptr_ != ptr_) {
            IntrusivePtr tmp(o);
            std::swap(ptr_, tmp.ptr_);
        }
        return *this;
    }
    IntrusivePtr &operator=(IntrusivePtr &&o) noexcept {
        std::swap(ptr_, o.ptr_);
        return *this;
    }
    ~IntrusivePtr() { decref(); }

    const T *get() const { return ptr_; }
    const T *operator->() const { return ptr_; }
    const T &operator*() const { return *ptr_; }
    bool defined() const { return ptr_ != nullptr; }
    bool same_as(const IntrusivePtr &o) const { return ptr_ == o.ptr_; }

  private:
    void incref() {
        if (ptr_) ptr_->ref_count.fetch_add(1, std::memory_order_relaxed);
    }
    void decref() {
        if (ptr_ && ptr_->ref_count.fetch_sub(1, std::memory_order_acq_rel) == 1) delete ptr_;
        ptr_ = nullptr;
    }
    const T *ptr_ = nullptr;
};

}  // namespace ir

/// A handle to an expression. Cheap to copy. Build one from a C++ number, a `Var`, or the
/// operators below.
class Expr : public ir::IntrusivePtr<const ir::BaseExprNode> {
  public:
    Expr() = default;
    Expr(const ir::BaseExprNode *n) : IntrusivePtr(n) {}  // NOLINT: implicit by design
    Expr(int8_t v);
    Expr(int16_t v);
    Expr(int32_t v);
    Expr(int64_t v);
    Expr(uint8_t v);
    Expr(uint16_t v);
    Expr(uint32_t v);
    Expr(uint64_t v);
    Expr(float v);
    Expr(double v);
    /// A Float(16) or BFloat(16) constant (dsl/Float16.h).
    Expr(float16_t v);
    Expr(bfloat16_t v);
    /// A string constant, for messages and extern calls.
    explicit Expr(const std::string &s);

    Type type() const { return get()->type; }
    ir::IRNodeType node_type() const { return get()->node_type; }
    /// The node as `T` if it is one, else null: `if (const auto *add = e.as<ir::Add>()) ...`.
    template <typename T>
    const T *as() const {
        if (defined() && get()->node_type == T::kNodeType) return static_cast<const T *>(get());
        return nullptr;
    }
};

/// Prints an expression in dsl's readable syntax, e.g. `(x + 1) * int16(y)`.
std::ostream &operator<<(std::ostream &os, const Expr &e);
std::ostream &operator<<(std::ostream &os, const Type &t);

namespace detail {
/// A C++ number written next to an Expr; it adopts the Expr's type (coercion rule 3).
struct Literal {
    enum class Kind { Signed, Unsigned, Floating } kind;
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;
    template <typename T>
    static Literal of(T v) {
        static_assert(std::is_arithmetic_v<T>, "only C++ numbers can be used as literals");
        Literal l{Kind::Signed};
        if constexpr (std::is_floating_point_v<T>) {
            l.kind = Kind::Floating;
            l.f = static_cast<double>(v);
        } else if constexpr (std::is_signed_v<T>) {
            l.i = static_cast<int64_t>(v);
        } else {
            l.kind = Kind::Unsigned;
            l.u = static_cast<uint64_t>(v);
        }
        return l;
    }
};

enum class BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max,
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE,
    And,
    Or,
    Xor,
    Shl,
    Shr
};
Expr binary(BinOp op, const Expr &a, const Expr &b);
Expr binary(BinOp op, const Expr &a, const Literal &b);
Expr binary(BinOp op, const Literal &a, const Expr &b);
template <typename T>
using IfNumber = std::enable_if_t<std::is_arithmetic_v<T>, int>;
}  // namespace detail

#define DSL_DECLARE_BINARY_OPERATOR(OP, KIND)                                  \
    inline Expr OP(const Expr &a, const Expr &b) {                             \
        return detail::binary(detail::BinOp::KIND, a, b);                      \
    }                                                                          \
    template <typename T, detail::IfNumber<T> = 0>                             \
    Expr OP(const Expr &a, T b) {                                              \
        return detail::binary(detail::BinOp::KIND, a, detail::Literal::of(b)); \
    }                                                                          \
    template <typename T, detail::IfNumber<T> = 0>                             \
    Expr OP(T a, const Expr &b) {                                              \
        return detail::binary(detail::BinOp::KIND, detail::Literal::of(a), b); \
    }

DSL_DECLARE_BINARY_OPERATOR(operator+, Add)
DSL_DECLARE_BINARY_OPERATOR(operator-, Sub)
DSL_DECLARE_BINARY_OPERATOR(operator*, Mul)
/// Euclidean division for integers (see the semantics at the top of this file).
DSL_DECLARE_BINARY_OPERATOR(operator/, Div)
/// Euclidean remainder for integers: never negative; zero for a zero divisor.
DSL_DECLARE_BINARY_OPERATOR(operator%, Mod)
DSL_DECLARE_BINARY_OPERATOR(operator==, EQ)
DSL_DECLARE_BINARY_OPERATOR(operator!=, NE)
DSL_DECLARE_BINARY_OPERATOR(operator<, LT)
DSL_DECLARE_BINARY_OPERATOR(operator<=, LE)
DSL_DECLARE_BINARY_OPERATOR(operator>, GT)
DSL_DECLARE_BINARY_OPERATOR(operator>=, GE)
/// Bitwise operators; both sides must be integers (or bools).
DSL_DECLARE_BINARY_OPERATOR(operator&, And)
DSL_DECLARE_BINARY_OPERATOR(operator|, Or)
DSL_DECLARE_BINARY_OPERATOR(operator^, Xor)
/// Shifts keep the type of the left operand.
DSL_DECLARE_BINARY_OPERATOR(operator<<, Shl)
DSL_DECLARE_BINARY_OPERATOR(operator>>, Shr)
DSL_DECLARE_BINARY_OPERATOR(min, Min)
DSL_DECLARE_BINARY_OPERATOR(max, Max)

#undef DSL_DECLARE_BINARY_OPERATOR

/// Logical operators; operands must be bool (use a comparison such as `x != 0` otherwise).
Expr operator&&(const Expr &a, const Expr &b);
Expr operator||(const Expr &a, const Expr &b);
Expr operator!(const Expr &a);
Expr operator-(const Expr &a);
/// Bitwise not.
Expr operator~(const Expr &a);

/// `a op= b` computes `a op b` and keeps `a`'s type, as Halide does: an int `a += 1.5f` is
/// `a = cast<int>(a + 1.5f)`.
Expr &operator+=(Expr &a, const Expr &b);
Expr &operator-=(Expr &a, const Expr &b);
Expr &operator*=(Expr &a, const Expr &b);
Expr &operator/=(Expr &a, const Expr &b);
Expr &operator%=(Expr &a, const Expr &b);

/// `cond ? true_value : false_value`, lane by lane. `cond` must be bool; the values are coerced
/// to one type. An int literal takes the other value's type where it fits it, as in Halide:
/// `select(c, 0, u8_value)` is uint8.
Expr select(const Expr &cond, const Expr &true_value, const Expr &false_value);
/// A chain: `select(c0, v0, c1, v1, ..., otherwise)`.
template <typename... Rest>
Expr select(const Expr &c0, const Expr &v0, const Expr &c1, const Expr &v1, const Rest &...rest) {
    return select(c0, v0, select(c1, v1, rest...));
}
/// `e` itself, marked as what holds in most of the iterations of the loops around it: a
/// condition true everywhere but at the edges of an image, `select(likely(inside), value,
/// zero)`. Lowering splits each loop whose variable such a condition bounds (a comparison, or a
/// conjunction of them, linear in the loop variables) into the iterations before, the steady state
/// and the iterations after, and the steady state's code has the condition removed. This holds
/// for a loop around other loops too (a row of tiles, a tile's kernel taps), where the condition
/// must hold for each iteration of those; clamps of the same coordinates are removed from the
/// steady state with it. BoundaryConditions::constant_exterior marks its condition so.
Expr likely(const Expr &e);
/// `result`, and for a memoized Func (Func::memoize) what its cache key holds in place of what
/// `result` reads: the values of `keys`, or without keys the value of `result` itself. So
/// `memoize_tag(cast<uint8_t>(p))` keys on the uint8 rather than on the float Param p, and
/// `memoize_tag(sum(input(r)), version)` keys on a version number the caller changes with the
/// input's contents (which are not in the key otherwise). The values in the key are computed
/// where the Func is realized, so they may not depend on its Vars or RVars.
Expr memoize_tag(const Expr &result, const std::vector<Expr> &keys = {});
template <typename... Keys>
Expr memoize_tag(const Expr &result, const Expr &key, const Keys &...keys) {
    return memoize_tag(result, std::vector<Expr>{key, Expr(keys)...});
}
/// `min(max(value, lo), hi)`; the bounds take the value's type.
Expr clamp(const Expr &value, const Expr &lo, const Expr &hi);
/// Absolute value. For integers the result is the unsigned type of the same width, so that
/// `abs(int8(-128)) == uint8(128)`.
Expr abs(const Expr &a);
/// `|a - b|` without overflow; unsigned for integers.
Expr absd(const Expr &a, const Expr &b);
/// Linear interpolation from `zero_value` (weight 0) to `one_value` (weight 1). Floats compute
/// `zero_value + (one_value - zero_value) * weight`. Integers are interpolated in float32 (float64
/// for 32- and 64-bit types) and rounded to the nearest integer; an unsigned integer weight is
/// scaled by its type's maximum (so a uint8 weight of 255 means 1). Bools give the nearer of the
/// two (at a weight of exactly one half, true if either is).
Expr lerp(const Expr &zero_value, const Expr &one_value, const Expr &weight);
/// Converts to `t`, following the conversion semantics above. A vector keeps its lanes when `t`
/// is a scalar type.
Expr cast(Type t, const Expr &e);
template <typename T>
Expr cast(const Expr &e) {
    return cast(type_of<T>(), e);
}
/// Reinterprets the bits of `e` as type `t` of the same total width.
Expr reinterpret(Type t, const Expr &e);
/// `reinterpret<float>(bits)`: reinterpret(type_of<T>(), e).
template <typename T>
Expr reinterpret(const Expr &e) {
    return reinterpret(type_of<T>(), e);
}

/// Math functions on floats (integers are converted to float32 first).
Expr sqrt(const Expr &x);
Expr exp(const Expr &x);
Expr log(const Expr &x);
/// pow(x, y) of an integer constant y (pow(x, 2)) multiplies x by itself in x's own type, as
/// Halide's does; otherwise both are floats.
Expr pow(const Expr &x, const Expr &y);
Expr sin(const Expr &x);
Expr cos(const Expr &x);
Expr tan(const Expr &x);
Expr atan2(const Expr &y, const Expr &x);
/// `a * b + c` rounded once (a fused multiply-add, one instruction where the target has FMA).
/// Writing it is how a pipeline allows the contraction: `a * b + c` keeps its two roundings.
Expr fma(const Expr &a, const Expr &b, const Expr &c);
/// `e` with its float operations rounded as written even in a pipeline compiled with the target
/// feature `fp_contract` (which may fuse `a * b + c`); without that feature, `e` itself.
Expr strict_float(const Expr &e);
Expr floor(const Expr &x);
Expr ceil(const Expr &x);
/// Rounds half to even, as IEEE's default rounding does.
Expr round(const Expr &x);
Expr trunc(const Expr &x);
Expr is_nan(const Expr &x);

/// The smallest and largest values of a type, as constants of that type.
Expr type_min(Type t);
Expr type_max(Type t);
/// A constant of type `t` (broadcast if `t` is a vector) holding `v`.
Expr make_const(Type t, int64_t v);
Expr make_const(Type t, double v);
inline Expr make_const(Type t, int v) {
    return make_const(t, static_cast<int64_t>(v));
}
Expr const_true(int lanes = 1);
Expr const_false(int lanes = 1);

/// A half-open range of coordinates `[min, min + extent)`; a Region has one per dimension.
struct Range {
    Expr min, extent;
    Range() = default;
    Range(const Expr &min, const Expr &extent) : min(min), extent(extent) {}
};
using Region = std::vector<Range>;

}  // namespace dsl
