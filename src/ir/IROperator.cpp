// The user-facing expression operators (include/dsl/Expr.h) with their type coercion, and the
// internal constant helpers (ir/IROperator.h).
#include "ir/IROperator.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "ir/Error.h"

namespace dsl {

using namespace ir;

// ---------------------------------------------------------------------------------------------
// Literal constructors

Expr::Expr(int8_t v) : Expr(IntImm::make(Int(8), v)) {}
Expr::Expr(int16_t v) : Expr(IntImm::make(Int(16), v)) {}
Expr::Expr(int32_t v) : Expr(IntImm::make(Int(32), v)) {}
Expr::Expr(int64_t v) : Expr(IntImm::make(Int(64), v)) {}
Expr::Expr(uint8_t v) : Expr(UIntImm::make(UInt(8), v)) {}
Expr::Expr(uint16_t v) : Expr(UIntImm::make(UInt(16), v)) {}
Expr::Expr(uint32_t v) : Expr(UIntImm::make(UInt(32), v)) {}
Expr::Expr(uint64_t v) : Expr(UIntImm::make(UInt(64), v)) {}
Expr::Expr(float v) : Expr(FloatImm::make(Float(32), v)) {}
Expr::Expr(double v) : Expr(FloatImm::make(Float(64), v)) {}
Expr::Expr(const std::string &s) : Expr(StringImm::make(s)) {}

namespace ir {

// ---------------------------------------------------------------------------------------------
// Constant helpers

namespace {
const Expr &strip_broadcast(const Expr &e) {
    if (const auto *b = e.as<Broadcast>()) return strip_broadcast(b->value);
    return e;
}
}  // namespace

std::optional<int64_t> as_const_int(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    if (const auto *i = strip_broadcast(e).as<IntImm>()) return i->value;
    return std::nullopt;
}

std::optional<uint64_t> as_const_uint(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    if (const auto *u = strip_broadcast(e).as<UIntImm>()) return u->value;
    return std::nullopt;
}

std::optional<double> as_const_float(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    if (const auto *f = strip_broadcast(e).as<FloatImm>()) return f->value;
    return std::nullopt;
}

bool is_const(const Expr &e) {
    return as_const_int(e) || as_const_uint(e) || as_const_float(e);
}

bool is_const(const Expr &e, int64_t v) {
    if (auto i = as_const_int(e)) return *i == v;
    if (auto u = as_const_uint(e)) return v >= 0 && *u == static_cast<uint64_t>(v);
    if (auto f = as_const_float(e)) return *f == static_cast<double>(v);
    return false;
}

bool is_const_true(const Expr &e) {
    auto u = as_const_uint(e);
    return u && e.type().is_bool() && *u == 1;
}

bool is_const_false(const Expr &e) {
    auto u = as_const_uint(e);
    return u && e.type().is_bool() && *u == 0;
}

bool at_most_one_iteration(const Expr &extent) {
    if (auto k = as_const_int(extent)) return *k <= 1;
    if (const auto *m = extent.as<Min>())
        return at_most_one_iteration(m->a) || at_most_one_iteration(m->b);
    if (const auto *let = extent.as<Let>()) return at_most_one_iteration(let->body);  // CSE's
    return false;
}

bool is_const_power_of_two(const Expr &e, int *log2) {
    uint64_t v;
    if (auto i = as_const_int(e)) {
        if (*i <= 0) return false;
        v = static_cast<uint64_t>(*i);
    } else if (auto u = as_const_uint(e)) {
        v = *u;
    } else {
        return false;
    }
    if (v == 0 || (v & (v - 1)) != 0) return false;
    if (log2) {
        int n = 0;
        while ((uint64_t(1) << n) != v)
            n++;
        *log2 = n;
    }
    return true;
}

Expr make_binary(IRNodeType op, const Expr &a, const Expr &b) {
    switch (op) {
        case IRNodeType::Add:
            return Add::make(a, b);
        case IRNodeType::Sub:
            return Sub::make(a, b);
        case IRNodeType::Mul:
            return Mul::make(a, b);
        case IRNodeType::Div:
            return Div::make(a, b);
        case IRNodeType::Mod:
            return Mod::make(a, b);
        case IRNodeType::Min:
            return Min::make(a, b);
        case IRNodeType::Max:
            return Max::make(a, b);
        case IRNodeType::EQ:
            return EQ::make(a, b);
        case IRNodeType::NE:
            return NE::make(a, b);
        case IRNodeType::LT:
            return LT::make(a, b);
        case IRNodeType::LE:
            return LE::make(a, b);
        case IRNodeType::GT:
            return GT::make(a, b);
        case IRNodeType::GE:
            return GE::make(a, b);
        case IRNodeType::And:
            return And::make(a, b);
        case IRNodeType::Or:
            return Or::make(a, b);
        default:
            internal_error << "make_binary of a node that is not binary";
    }
    return Expr();
}

Expr broadcast_to(const Expr &e, int lanes) {
    if (lanes == 1 || e.type().lanes() == lanes) return e;
    internal_assert(e.type().is_scalar()) << "broadcast of a " << e.type() << " to " << lanes;
    return Broadcast::make(e, lanes);
}

Expr make_zero(Type t) {
    return make_const(t, int64_t(0));
}
Expr make_one(Type t) {
    return make_const(t, int64_t(1));
}
Expr make_bool(bool v, int lanes) {
    return make_const(Bool(lanes), int64_t(v ? 1 : 0));
}

Expr make_print(const Expr &condition, const std::string &format, std::vector<Expr> values) {
    std::vector<Expr> args{condition, StringImm::make(format)};
    Type t = values.empty() ? Int(32) : values[0].type();
    for (Expr &v : values)
        args.push_back(std::move(v));
    return Call::make(t, Call::Intrinsic::Print, std::move(args));
}

bool is_undef(const Expr &e) {
    const auto *c = e.as<Call>();
    return c && c->is_intrinsic(Call::Intrinsic::Undef);
}

std::string escape_print_format(const std::string &text) {
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '{') out += '{';
    }
    return out;
}

}  // namespace ir

Expr make_const(Type t, int64_t v) {
    Type s = t.element_of();
    Expr e;
    if (s.is_int()) {
        e = IntImm::make(s, v);
    } else if (s.is_uint()) {
        e = UIntImm::make(s, static_cast<uint64_t>(v));
    } else if (s.is_float()) {
        e = FloatImm::make(s, static_cast<double>(v));
    } else {
        user_error << "cannot make a constant of type " << t;
    }
    return broadcast_to(e, t.lanes());
}

Expr make_const(Type t, double v) {
    Type s = t.element_of();
    Expr e;
    if (s.is_float()) {
        e = FloatImm::make(s, v);
    } else if (s.is_int_or_uint()) {
        user_assert(s.can_represent(v))
            << "the constant " << v << " cannot be represented exactly in " << s;
        e = s.is_int() ? IntImm::make(s, static_cast<int64_t>(v))
                       : UIntImm::make(s, static_cast<uint64_t>(v));
    } else {
        user_error << "cannot make a constant of type " << t;
    }
    return broadcast_to(e, t.lanes());
}

Expr const_true(int lanes) {
    return make_bool(true, lanes);
}
Expr const_false(int lanes) {
    return make_bool(false, lanes);
}

Expr type_min(Type t) {
    Type s = t.element_of();
    if (s.is_int()) return broadcast_to(IntImm::make(s, s.int_min()), t.lanes());
    if (s.is_uint()) return broadcast_to(UIntImm::make(s, 0), t.lanes());
    if (s.is_float()) return broadcast_to(FloatImm::make(s, -INFINITY), t.lanes());
    user_error << "type_min: " << t << " has no minimum";
    return Expr();
}

Expr type_max(Type t) {
    Type s = t.element_of();
    if (s.is_int()) return broadcast_to(IntImm::make(s, s.int_max()), t.lanes());
    if (s.is_uint()) return broadcast_to(UIntImm::make(s, s.uint_max()), t.lanes());
    if (s.is_float()) return broadcast_to(FloatImm::make(s, INFINITY), t.lanes());
    user_error << "type_max: " << t << " has no maximum";
    return Expr();
}

// ---------------------------------------------------------------------------------------------
// Coercion

namespace {

const char *op_symbol(detail::BinOp op) {
    using detail::BinOp;
    switch (op) {
        case BinOp::Add:
            return "+";
        case BinOp::Sub:
            return "-";
        case BinOp::Mul:
            return "*";
        case BinOp::Div:
            return "/";
        case BinOp::Mod:
            return "%";
        case BinOp::Min:
            return "min";
        case BinOp::Max:
            return "max";
        case BinOp::EQ:
            return "==";
        case BinOp::NE:
            return "!=";
        case BinOp::LT:
            return "<";
        case BinOp::LE:
            return "<=";
        case BinOp::GT:
            return ">";
        case BinOp::GE:
            return ">=";
        case BinOp::And:
            return "&";
        case BinOp::Or:
            return "|";
        case BinOp::Xor:
            return "^";
        case BinOp::Shl:
            return "<<";
        case BinOp::Shr:
            return ">>";
    }
    return "?";
}

void check_defined(const Expr &e, const char *op) {
    user_assert(e.defined()) << "an operand of '" << op
                             << "' is an undefined Expr; give it a value before using it.";
}

/// Broadcasts a scalar to the other side's lanes (coercion rule 2).
void match_lanes(Expr &a, Expr &b, const char *op) {
    int la = a.type().lanes(), lb = b.type().lanes();
    if (la == lb) return;
    if (la == 1) {
        a = Broadcast::make(a, lb);
    } else if (lb == 1) {
        b = Broadcast::make(b, la);
    } else {
        user_error << "the operands of '" << op << "' are vectors of different widths: " << a
                   << " is " << a.type() << " and " << b << " is " << b.type() << ".";
    }
}

/// Coercion rules 4-7 (see include/dsl/Expr.h).
void match_types(Expr &a, Expr &b, const char *op) {
    check_defined(a, op);
    check_defined(b, op);
    match_lanes(a, b, op);
    Type ta = a.type(), tb = b.type();
    if (ta == tb) return;
    user_assert(!ta.is_handle() && !tb.is_handle())
        << "'" << op << "' cannot combine " << a << " (" << ta << ") with " << b << " (" << tb
        << "): handles do not take part in arithmetic.";
    if (ta.is_float() != tb.is_float()) {
        if (ta.is_float()) {
            b = Cast::make(ta, b);
        } else {
            a = Cast::make(tb, a);
        }
    } else if (ta.is_float()) {
        // Both float: the wider wins; of equal widths (float16 meeting bfloat16), the right
        // operand's type, as Halide has it.
        if (ta.bits() > tb.bits()) {
            b = Cast::make(ta, b);
        } else {
            a = Cast::make(tb, a);
        }
    } else if (ta.code() == tb.code()) {
        if (ta.bits() < tb.bits()) {
            a = Cast::make(tb, a);
        } else {
            b = Cast::make(ta, b);
        }
    } else {
        Type t = Int(std::max(ta.bits(), tb.bits()), ta.lanes());
        if (ta != t) a = Cast::make(t, a);
        if (tb != t) b = Cast::make(t, b);
    }
}

/// Turns a C++ number into a constant of the other operand's type (coercion rule 3). May
/// convert `other` to float32 when the literal is a float and `other` an integer.
Expr coerce_literal(const detail::Literal &lit, Expr &other, detail::BinOp op) {
    const char *sym = op_symbol(op);
    check_defined(other, sym);
    Type t = other.type();
    Type s = t.element_of();
    user_assert(!s.is_handle()) << "'" << sym << "' cannot combine the handle " << other
                                << " with a number.";
    using Kind = detail::Literal::Kind;
    if (lit.kind == Kind::Floating) {
        if (!s.is_float()) {
            s = Float(32);
            other = Cast::make(s.with_lanes(t.lanes()), other);
        }
        return broadcast_to(FloatImm::make(s, lit.f), t.lanes());
    }
    if (s.is_float()) {
        double v =
            lit.kind == Kind::Signed ? static_cast<double>(lit.i) : static_cast<double>(lit.u);
        return broadcast_to(FloatImm::make(s, v), t.lanes());
    }
    // Shift amounts only need to be a valid count, not a value of the shifted type.
    bool fits = lit.kind == Kind::Signed ? s.can_represent(lit.i) : s.can_represent(lit.u);
    if (!fits) {
        std::ostringstream value;
        if (lit.kind == Kind::Signed) {
            value << lit.i;
        } else {
            value << lit.u;
        }
        user_error << "the integer literal " << value.str() << " does not fit in " << s
                   << ", the type of the other operand of '" << sym << "' (" << other
                   << "). Cast one side explicitly, e.g. cast<int32_t>(" << other << ").";
    }
    Expr c = s.is_int() ? IntImm::make(s, lit.i)
                        : UIntImm::make(
                              s, lit.kind == Kind::Signed ? static_cast<uint64_t>(lit.i) : lit.u);
    return broadcast_to(c, t.lanes());
}

Expr make_bitwise(Call::Intrinsic op, const Expr &a, const Expr &b) {
    return Call::make(a.type(), op, {a, b});
}

/// Builds the node for `op` from operands whose types already match.
Expr build(detail::BinOp op, Expr a, Expr b) {
    using detail::BinOp;
    const char *sym = op_symbol(op);
    Type t = a.type();
    switch (op) {
        case BinOp::Add:
        case BinOp::Sub:
        case BinOp::Mul:
        case BinOp::Div:
        case BinOp::Mod:
            user_assert(!t.is_bool()) << "'" << sym << "' of the bools " << a << " and " << b
                                      << "; cast them to an integer type first.";
            break;
        case BinOp::And:
        case BinOp::Or:
        case BinOp::Xor:
        case BinOp::Shl:
        case BinOp::Shr:
            user_assert(t.is_int_or_uint())
                << "'" << sym << "' needs integer operands, but " << a << " is " << t
                << "; bitwise operators do not apply to floats (use reinterpret to get at the "
                   "bits).";
            break;
        default:
            break;
    }
    switch (op) {
        case BinOp::Add:
            return Add::make(a, b);
        case BinOp::Sub:
            return Sub::make(a, b);
        case BinOp::Mul:
            return Mul::make(a, b);
        case BinOp::Div:
            return Div::make(a, b);
        case BinOp::Mod:
            return Mod::make(a, b);
        case BinOp::Min:
            return Min::make(a, b);
        case BinOp::Max:
            return Max::make(a, b);
        case BinOp::EQ:
            return EQ::make(a, b);
        case BinOp::NE:
            return NE::make(a, b);
        case BinOp::LT:
            return LT::make(a, b);
        case BinOp::LE:
            return LE::make(a, b);
        case BinOp::GT:
            return GT::make(a, b);
        case BinOp::GE:
            return GE::make(a, b);
        case BinOp::And:
            return t.is_bool() ? And::make(a, b) : make_bitwise(Call::Intrinsic::BitwiseAnd, a, b);
        case BinOp::Or:
            return t.is_bool() ? Or::make(a, b) : make_bitwise(Call::Intrinsic::BitwiseOr, a, b);
        case BinOp::Xor:
            return t.is_bool() ? NE::make(a, b) : make_bitwise(Call::Intrinsic::BitwiseXor, a, b);
        case BinOp::Shl:
            return make_bitwise(Call::Intrinsic::ShiftLeft, a, b);
        case BinOp::Shr:
            return make_bitwise(Call::Intrinsic::ShiftRight, a, b);
    }
    return Expr();
}

bool is_shift(detail::BinOp op) {
    return op == detail::BinOp::Shl || op == detail::BinOp::Shr;
}

/// A shift amount keeps its own integer type (so that large amounts keep their meaning); only
/// its lanes are matched to the shifted value.
Expr shift_amount(const Expr &value, Expr amount, const char *sym) {
    check_defined(amount, sym);
    user_assert(value.type().is_int_or_uint() && !value.type().is_bool() &&
                amount.type().is_int_or_uint() && !amount.type().is_bool())
        << "'" << sym << "' needs integer operands (not bool), got " << value << " ("
        << value.type() << ") and " << amount << " (" << amount.type() << ").";
    return broadcast_to(amount, value.type().lanes());
}

}  // namespace

namespace detail {

Expr binary(BinOp op, const Expr &a_in, const Expr &b_in) {
    const char *sym = op_symbol(op);
    Expr a = a_in, b = b_in;
    check_defined(a, sym);
    check_defined(b, sym);
    if (is_shift(op)) {
        user_assert(a.type().lanes() == 1 || b.type().lanes() == 1 ||
                    a.type().lanes() == b.type().lanes())
            << "the operands of '" << sym << "' are vectors of different widths.";
        if (a.type().is_scalar() && b.type().is_vector()) a = Broadcast::make(a, b.type().lanes());
        b = shift_amount(a, b, sym);
        return build(op, a, b);
    }
    match_types(a, b, sym);
    return build(op, a, b);
}

Expr binary(BinOp op, const Expr &a_in, const Literal &b) {
    Expr a = a_in;
    Expr lit;
    if (is_shift(op)) {
        check_defined(a, op_symbol(op));
        // A literal amount is an int32 unless it is too large for one.
        Expr amount =
            b.kind == Literal::Kind::Unsigned
                ? (b.u <= 0x7fffffffu ? Expr(static_cast<int32_t>(b.u)) : Expr(b.u))
                : (Int(32).can_represent(b.i) ? Expr(static_cast<int32_t>(b.i)) : Expr(b.i));
        user_assert(b.kind != Literal::Kind::Floating)
            << "the shift amount of '" << op_symbol(op) << "' must be an integer.";
        lit = shift_amount(a, amount, op_symbol(op));
        return build(op, a, lit);
    }
    lit = coerce_literal(b, a, op);
    return build(op, a, lit);
}

Expr binary(BinOp op, const Literal &a, const Expr &b_in) {
    Expr b = b_in;
    if (is_shift(op)) {
        // The shifted value is the literal: it takes the amount's type, like any literal.
        Expr lit = coerce_literal(a, b, op);
        return binary(op, lit, b);
    }
    Expr lit = coerce_literal(a, b, op);
    return build(op, lit, b);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Unary and other operators

namespace {
void check_bool(const Expr &e, const char *op) {
    check_defined(e, op);
    user_assert(e.type().is_bool()) << "the operand " << e << " of '" << op << "' is " << e.type()
                                    << ", not bool; compare it first, e.g. (" << e << ") != 0.";
}
}  // namespace

Expr operator&&(const Expr &a_in, const Expr &b_in) {
    Expr a = a_in, b = b_in;
    check_bool(a, "&&");
    check_bool(b, "&&");
    match_lanes(a, b, "&&");
    return And::make(a, b);
}

Expr operator||(const Expr &a_in, const Expr &b_in) {
    Expr a = a_in, b = b_in;
    check_bool(a, "||");
    check_bool(b, "||");
    match_lanes(a, b, "||");
    return Or::make(a, b);
}

Expr operator!(const Expr &a) {
    check_bool(a, "!");
    return Not::make(a);
}

Expr operator-(const Expr &a) {
    check_defined(a, "unary -");
    Type t = a.type();
    user_assert(!t.is_bool() && !t.is_handle()) << "cannot negate " << a << " of type " << t << ".";
    if (t.is_float()) {
        // -0.0 - x is exactly -x for every x, zeros included (0 - x would turn -0 into +0).
        return Sub::make(broadcast_to(FloatImm::make(t.element_of(), -0.0), t.lanes()), a);
    }
    return Sub::make(make_zero(t), a);
}

Expr operator~(const Expr &a) {
    check_defined(a, "~");
    user_assert(a.type().is_int_or_uint())
        << "'~' needs an integer operand, but " << a << " is " << a.type() << ".";
    if (a.type().is_bool()) return Not::make(a);
    return Call::make(a.type(), Call::Intrinsic::BitwiseNot, {a});
}

Expr &operator+=(Expr &a, const Expr &b) {
    Expr result = a + b;  // checks a and b first
    return a = cast(a.type(), result);
}
Expr &operator-=(Expr &a, const Expr &b) {
    Expr result = a - b;  // checks a and b first
    return a = cast(a.type(), result);
}
Expr &operator*=(Expr &a, const Expr &b) {
    Expr result = a * b;  // checks a and b first
    return a = cast(a.type(), result);
}
Expr &operator/=(Expr &a, const Expr &b) {
    Expr result = a / b;  // checks a and b first
    return a = cast(a.type(), result);
}
Expr &operator%=(Expr &a, const Expr &b) {
    Expr result = a % b;  // checks a and b first
    return a = cast(a.type(), result);
}

namespace {

/// Of two values that must have one type (select's, lerp's), one that is an int literal takes
/// the other's type where the literal fits it, as in Halide.
void literal_takes_type_of(Expr &lit, const Expr &other) {
    const auto *imm = lit.as<IntImm>();
    Type ot = other.type();
    if (imm && lit.type() == Int(32) && ot != lit.type() && !ot.is_handle() &&
        (ot.is_float() || ot.element_of().can_represent(imm->value))) {
        lit = make_const(ot.element_of(), imm->value);
    }
}

}  // namespace

Expr select(const Expr &cond_in, const Expr &t_in, const Expr &f_in) {
    Expr cond = cond_in, t = t_in, f = f_in;
    check_bool(cond, "select");
    check_defined(t, "select");
    check_defined(f, "select");
    // `select(c, 0, u8_value)` is uint8.
    literal_takes_type_of(t, f);
    literal_takes_type_of(f, t);
    match_types(t, f, "select");
    if (cond.type().is_vector() && t.type().is_scalar()) {
        t = Broadcast::make(t, cond.type().lanes());
        f = Broadcast::make(f, cond.type().lanes());
    }
    user_assert(cond.type().is_scalar() || cond.type().lanes() == t.type().lanes())
        << "select: the condition " << cond << " has " << cond.type().lanes()
        << " lanes but the values have " << t.type().lanes() << ".";
    return Select::make(cond, t, f);
}

Expr cast(Type t, const Expr &e) {
    check_defined(e, "cast");
    if (t.is_scalar() && e.type().is_vector()) t = t.with_lanes(e.type().lanes());
    user_assert(t.lanes() == e.type().lanes()) << "cannot cast " << e << " of type " << e.type()
                                               << " to " << t << ": the number of lanes differs.";
    user_assert(t.is_valid()) << "cannot cast to the invalid type " << t << ".";
    user_assert(!t.is_handle() && !e.type().is_handle())
        << "cannot cast between a handle and " << (t.is_handle() ? e.type() : t) << ".";
    if (e.type() == t) return e;
    return Cast::make(t, e);
}

Expr reinterpret(Type t, const Expr &e) {
    check_defined(e, "reinterpret");
    user_assert(t.bits() * t.lanes() == e.type().bits() * e.type().lanes())
        << "reinterpret: " << e << " of type " << e.type() << " has "
        << e.type().bits() * e.type().lanes() << " bits, but " << t << " has "
        << t.bits() * t.lanes() << ".";
    if (e.type() == t) return e;
    return Call::make(t, Call::Intrinsic::Reinterpret, {e});
}

Expr lerp(const Expr &zero_in, const Expr &one_in, const Expr &weight) {
    Expr a = zero_in, b = one_in;
    check_defined(weight, "lerp");
    check_defined(a, "lerp");
    check_defined(b, "lerp");
    // `lerp(0, u32_value, w)` is uint32.
    literal_takes_type_of(a, b);
    literal_takes_type_of(b, a);
    match_types(a, b, "lerp");
    Type t = a.type();
    Type w = weight.type();
    user_assert(!w.is_handle() && !w.is_bool())
        << "lerp: the weight " << weight << " must be a number.";
    // Integers in float64 from 16 bits up: a 16-bit value times a 16-bit weight needs more than
    // float32's 24 bits of mantissa to round right.
    Type f = t.is_float() ? t : Float(t.bits() >= 16 ? 64 : 32, t.lanes());
    Expr wf = cast(f.element_of(), weight);
    if (w.is_uint()) wf = wf / make_const(wf.type(), static_cast<double>(w.uint_max()));
    if (wf.type().is_scalar()) wf = broadcast_to(wf, t.lanes());
    Expr af = cast(f, a), bf = cast(f, b);
    Expr r = af + (bf - af) * wf;
    if (t.is_float()) return r;
    // Bools as 0 and 1, the result rounded half up: the nearer of the two, `one` at a weight of
    // exactly one half unless both are false.
    if (t.is_bool()) return r >= make_const(r.type(), 0.5);
    return cast(t, round(r));
}

Expr likely(const Expr &e) {
    check_defined(e, "likely");
    return Call::make(e.type(), Call::Intrinsic::Likely, {e});
}

Expr clamp(const Expr &value, const Expr &lo, const Expr &hi) {
    check_defined(value, "clamp");
    check_defined(lo, "clamp");
    check_defined(hi, "clamp");
    Type t = value.type();
    Expr l = cast(t.element_of(), lo), h = cast(t.element_of(), hi);
    l = broadcast_to(l, t.lanes());
    h = broadcast_to(h, t.lanes());
    return Min::make(Max::make(value, l), h);
}

Expr abs(const Expr &a) {
    check_defined(a, "abs");
    Type t = a.type();
    user_assert(!t.is_handle() && !t.is_bool()) << "abs of " << a << " of type " << t << ".";
    if (t.is_uint()) return a;
    Type result = t.is_int() ? unsigned_of(t) : t;
    return Call::make(result, Call::Intrinsic::Abs, {a});
}

Expr absd(const Expr &a_in, const Expr &b_in) {
    Expr a = a_in, b = b_in;
    match_types(a, b, "absd");
    Type t = a.type();
    // Of bools (0 and 1), the difference is whether they differ (Halide's absd of bools).
    if (t.is_bool()) return NE::make(a, b);
    Type result = t.is_int() ? unsigned_of(t) : t;
    return Call::make(result, Call::Intrinsic::Absd, {a, b});
}

namespace {

Expr to_float(const Expr &x, const char *fn) {
    check_defined(x, fn);
    user_assert(!x.type().is_handle()) << fn << " of the handle " << x << ".";
    if (x.type().is_float()) return x;
    return Cast::make(Float(32, x.type().lanes()), x);
}

Expr math1(Call::Intrinsic op, const Expr &x) {
    Expr f = to_float(x, Call::intrinsic_name(op));
    return Call::make(f.type(), op, {f});
}

Expr math2(Call::Intrinsic op, const Expr &x, const Expr &y) {
    const char *fn = Call::intrinsic_name(op);
    Expr a = to_float(x, fn), b = to_float(y, fn);
    match_types(a, b, fn);
    return Call::make(a.type(), op, {a, b});
}

}  // namespace

Expr sqrt(const Expr &x) {
    return math1(Call::Intrinsic::Sqrt, x);
}
Expr exp(const Expr &x) {
    return math1(Call::Intrinsic::Exp, x);
}
Expr log(const Expr &x) {
    return math1(Call::Intrinsic::Log, x);
}
namespace {

/// x^n by squaring, in x's type; a negative n is 1 / x^-n (an integer quotient for integers).
Expr integer_power(const Expr &x, int64_t n) {
    if (n < 0) return make_one(x.type()) / integer_power(x, -n);
    if (n == 0) return make_one(x.type());
    if (n == 1) return x;
    Expr half = integer_power(x, n / 2);
    Expr square = half * half;
    return n % 2 ? square * x : square;
}

}  // namespace

Expr pow(const Expr &x, const Expr &y) {
    // As in Halide, an integer constant exponent multiplies in x's own type: pow(u64, 2) is a
    // uint64 and pow(f, 3) is f * f * f.
    check_defined(x, "pow");
    check_defined(y, "pow");
    if (std::optional<int64_t> n = as_const_int(y);
        n && y.type().is_scalar() && !x.type().is_bool() && !x.type().is_handle()) {
        return integer_power(x, *n);
    }
    return math2(Call::Intrinsic::Pow, x, y);
}
Expr sin(const Expr &x) {
    return math1(Call::Intrinsic::Sin, x);
}
Expr cos(const Expr &x) {
    return math1(Call::Intrinsic::Cos, x);
}
Expr tan(const Expr &x) {
    return math1(Call::Intrinsic::Tan, x);
}
Expr fma(const Expr &a, const Expr &b, const Expr &c) {
    const char *fn = Call::intrinsic_name(Call::Intrinsic::Fma);
    Expr x = to_float(a, fn), y = to_float(b, fn), z = to_float(c, fn);
    match_types(x, y, fn);
    match_types(x, z, fn);
    match_types(y, z, fn);
    return Call::make(x.type(), Call::Intrinsic::Fma, {x, y, z});
}
Expr strict_float(const Expr &e) {
    user_assert(e.defined()) << "strict_float of an undefined Expr.";
    return Call::make(e.type(), Call::Intrinsic::StrictFloat, {e});
}
Expr atan2(const Expr &y, const Expr &x) {
    return math2(Call::Intrinsic::Atan2, y, x);
}
Expr floor(const Expr &x) {
    return math1(Call::Intrinsic::Floor, x);
}
Expr ceil(const Expr &x) {
    return math1(Call::Intrinsic::Ceil, x);
}
Expr round(const Expr &x) {
    return math1(Call::Intrinsic::Round, x);
}
Expr trunc(const Expr &x) {
    return math1(Call::Intrinsic::Trunc, x);
}

Expr is_nan(const Expr &x) {
    check_defined(x, "is_nan");
    if (!x.type().is_float()) return make_bool(false, x.type().lanes());
    return Call::make(Bool(x.type().lanes()), Call::Intrinsic::IsNan, {x});
}

Expr Type::max() const {
    if (!is_scalar()) return ir::Broadcast::make(element_of().max(), lanes());
    if (is_bool()) return make_bool(true);
    if (is_int()) return make_const(*this, int_max());
    if (is_uint()) return ir::UIntImm::make(*this, uint_max());
    user_assert(is_float()) << "Type " << *this << " has no largest value.";
    return make_const(*this, std::numeric_limits<double>::infinity());
}

Expr Type::min() const {
    if (!is_scalar()) return ir::Broadcast::make(element_of().min(), lanes());
    if (is_bool()) return make_bool(false);
    if (is_int()) return make_const(*this, int_min());
    if (is_uint()) return make_const(*this, int64_t(0));
    user_assert(is_float()) << "Type " << *this << " has no smallest value.";
    return make_const(*this, -std::numeric_limits<double>::infinity());
}

}  // namespace dsl
