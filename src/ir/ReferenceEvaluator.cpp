#include "ir/ReferenceEvaluator.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "ir/Error.h"
#include "ir/Float16.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"

namespace dsl::ir {

namespace {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

double round_to(double v, Type t) {
    return round_to_float(v, t.bits(), t.is_bfloat());
}

/// Converts an integer magnitude to double so that one further rounding to a format of at most
/// 51 significant bits is correct (round to odd keeps the sticky bit).
double to_double_round_to_odd(uint64_t magnitude) {
    if (magnitude < (uint64_t(1) << 53)) return static_cast<double>(magnitude);
    int bitlen = 64 - __builtin_clzll(magnitude);
    int shift = bitlen - 53;
    uint64_t kept = magnitude >> shift;
    if ((kept << shift) != magnitude) kept |= 1;
    return std::ldexp(static_cast<double>(kept), shift);
}

double int_to_float(int64_t v, Type t) {
    if (t.bits() == 64) return static_cast<double>(v);  // one correct rounding in hardware
    uint64_t magnitude = v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    double d = to_double_round_to_odd(magnitude);
    return round_to(v < 0 ? -d : d, t);
}

double uint_to_float(uint64_t v, Type t) {
    if (t.bits() == 64 && !t.is_bfloat()) return static_cast<double>(v);
    return round_to(to_double_round_to_odd(v), t);
}

/// Stores a mathematically exact signed result, flagging overflow for 32- and 64-bit types and
/// wrapping narrower ones.
int64_t signed_result(int128 exact, int bits, bool &undefined) {
    if (bits >= 32) {
        int128 lo = -(static_cast<int128>(1) << (bits - 1));
        int128 hi = (static_cast<int128>(1) << (bits - 1)) - 1;
        if (exact < lo || exact > hi) undefined = true;
    }
    return wrap_to_signed(static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint128>(exact))),
                          bits);
}

int64_t euclid_div(int64_t a, int64_t b, int bits, bool &undefined) {
    if (b == 0) return 0;
    if (b == -1) return signed_result(-static_cast<int128>(a), bits, undefined);
    int64_t q = a / b, r = a % b;
    if (r < 0) q = b > 0 ? q - 1 : q + 1;
    return wrap_to_signed(q, bits);
}

int64_t euclid_mod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    if (r < 0) r = b > 0 ? r + b : r - b;
    return r;
}

Scalar arith_lane(IRNodeType op, Type t, Scalar a, Scalar b, bool &undefined) {
    Scalar r;
    r.u = 0;
    if (t.is_float()) {
        double x = a.f, y = b.f;
        switch (op) {
            case IRNodeType::Add:
                r.f = round_to(x + y, t);
                break;
            case IRNodeType::Sub:
                r.f = round_to(x - y, t);
                break;
            case IRNodeType::Mul:
                r.f = round_to(x * y, t);
                break;
            case IRNodeType::Div:
                r.f = round_to(x / y, t);
                break;
            case IRNodeType::Mod: {
                double q = std::floor(round_to(x / y, t));
                r.f = round_to(x - round_to(y * q, t), t);
                break;
            }
            case IRNodeType::Min:
                if (std::isnan(x) || std::isnan(y)) undefined = true;
                r.f = x < y ? x : y;
                break;
            case IRNodeType::Max:
                if (std::isnan(x) || std::isnan(y)) undefined = true;
                r.f = x > y ? x : y;
                break;
            default:
                internal_error << "not an arithmetic node";
        }
    } else if (t.is_int()) {
        int128 x = a.i, y = b.i;
        int bits = t.bits();
        switch (op) {
            case IRNodeType::Add:
                r.i = signed_result(x + y, bits, undefined);
                break;
            case IRNodeType::Sub:
                r.i = signed_result(x - y, bits, undefined);
                break;
            case IRNodeType::Mul:
                r.i = signed_result(x * y, bits, undefined);
                break;
            case IRNodeType::Div:
                r.i = euclid_div(a.i, b.i, bits, undefined);
                break;
            case IRNodeType::Mod:
                r.i = euclid_mod(a.i, b.i);
                break;
            case IRNodeType::Min:
                r.i = std::min(a.i, b.i);
                break;
            case IRNodeType::Max:
                r.i = std::max(a.i, b.i);
                break;
            default:
                internal_error << "not an arithmetic node";
        }
    } else if (t.is_uint()) {
        uint64_t x = a.u, y = b.u;
        switch (op) {
            case IRNodeType::Add:
                r.u = x + y;
                break;
            case IRNodeType::Sub:
                r.u = x - y;
                break;
            case IRNodeType::Mul:
                r.u = x * y;
                break;
            case IRNodeType::Div:
                r.u = y == 0 ? 0 : x / y;
                break;
            case IRNodeType::Mod:
                r.u = y == 0 ? 0 : x % y;
                break;
            case IRNodeType::Min:
                r.u = std::min(x, y);
                break;
            case IRNodeType::Max:
                r.u = std::max(x, y);
                break;
            default:
                internal_error << "not an arithmetic node";
        }
        r.u = wrap_to_unsigned(r.u, t.bits());
    } else {
        internal_error << "arithmetic on " << t;
    }
    return r;
}

bool compare_lane(IRNodeType op, Type t, Scalar a, Scalar b) {
    auto cmp = [op](auto x, auto y) {
        switch (op) {
            case IRNodeType::EQ:
                return x == y;
            case IRNodeType::NE:
                return x != y;
            case IRNodeType::LT:
                return x < y;
            case IRNodeType::LE:
                return x <= y;
            case IRNodeType::GT:
                return x > y;
            case IRNodeType::GE:
                return x >= y;
            default:
                internal_error << "not a comparison";
        }
        return false;
    };
    if (t.is_float()) return cmp(a.f, b.f);
    if (t.is_int()) return cmp(a.i, b.i);
    return cmp(a.u, b.u);
}

Scalar cast_lane(Type from, Type to, Scalar v, bool &undefined) {
    Scalar r;
    r.u = 0;
    if (to.is_bool()) {
        r.u = from.is_float() ? (v.f != 0) : (v.u != 0);
        return r;
    }
    if (from.is_float()) {
        if (to.is_float()) {
            r.f = round_to(v.f, to);
            return r;
        }
        double t = std::trunc(v.f);
        bool fits = !std::isnan(t) && to.can_represent(t);
        if (!fits) {
            undefined = true;
            return r;
        }
        if (to.is_int()) {
            r.i = static_cast<int64_t>(t);
        } else {
            r.u = static_cast<uint64_t>(t);
        }
        return r;
    }
    // From an integer: the bit pattern, sign- or zero-extended to 64 bits.
    if (to.is_float()) {
        r.f = from.is_int() ? int_to_float(v.i, to) : uint_to_float(v.u, to);
    } else if (to.is_int()) {
        r.i = wrap_to_signed(static_cast<int64_t>(v.u), to.bits());
    } else {
        r.u = wrap_to_unsigned(v.u, to.bits());
    }
    return r;
}

}  // namespace

uint64_t scalar_bits(Type t, Scalar v) {
    if (!t.is_float()) return wrap_to_unsigned(v.u, t.bits());
    if (t.is_bfloat()) return bfloat16_bits(v.f);
    if (t.bits() == 16) return float16_bits(v.f);
    if (t.bits() == 32) {
        float f = static_cast<float>(v.f);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return u;
    }
    uint64_t u;
    std::memcpy(&u, &v.f, 8);
    return u;
}

Scalar scalar_from_bits(Type t, uint64_t bits) {
    Scalar r;
    if (t.is_int()) {
        r.i = wrap_to_signed(static_cast<int64_t>(bits), t.bits());
    } else if (t.is_uint()) {
        r.u = wrap_to_unsigned(bits, t.bits());
    } else if (t.is_bfloat()) {
        r.f = bfloat16_from_bits(static_cast<uint16_t>(bits));
    } else if (t.bits() == 16) {
        r.f = float16_from_bits(static_cast<uint16_t>(bits));
    } else if (t.bits() == 32) {
        uint32_t u = static_cast<uint32_t>(bits);
        float f;
        std::memcpy(&f, &u, 4);
        r.f = f;
    } else {
        std::memcpy(&r.f, &bits, 8);
    }
    return r;
}

namespace {

uint64_t shift_lane(bool left, Type t, Scalar a, Type amount_type, Scalar amount_value) {
    int bits = t.bits();
    // Normalise to a left or right shift by a non-negative amount.
    int64_t amount = amount_type.is_int()
                         ? amount_value.i
                         : static_cast<int64_t>(std::min<uint64_t>(amount_value.u, 1u << 16));
    if (amount < 0) {
        left = !left;
        amount = amount < -(1 << 16) ? (1 << 16) : -amount;
    }
    uint64_t pattern = wrap_to_unsigned(a.u, bits);
    if (left) {
        if (amount >= bits) return 0;
        return wrap_to_unsigned(pattern << amount, bits);
    }
    bool negative = t.is_int() && a.i < 0;
    if (amount >= bits) return negative ? wrap_to_unsigned(~uint64_t(0), bits) : 0;
    if (!negative) return pattern >> amount;
    // Arithmetic shift of the sign-extended value.
    return wrap_to_unsigned(static_cast<uint64_t>(a.i >> amount), bits);
}

double math_lane(Call::Intrinsic op, double x, double y) {
    switch (op) {
        case Call::Intrinsic::Sqrt:
            return std::sqrt(x);
        case Call::Intrinsic::Exp:
            return std::exp(x);
        case Call::Intrinsic::Log:
            return std::log(x);
        case Call::Intrinsic::Pow:
            return std::pow(x, y);
        case Call::Intrinsic::Sin:
            return std::sin(x);
        case Call::Intrinsic::Cos:
            return std::cos(x);
        case Call::Intrinsic::Tan:
            return std::tan(x);
        case Call::Intrinsic::Atan2:
            return std::atan2(x, y);
        case Call::Intrinsic::Floor:
            return std::floor(x);
        case Call::Intrinsic::Ceil:
            return std::ceil(x);
        case Call::Intrinsic::Round:
            return std::nearbyint(x);
        case Call::Intrinsic::Trunc:
            return std::trunc(x);
        default:
            internal_error << "not a math intrinsic: " << Call::intrinsic_name(op);
    }
    return 0;
}

/// Lane `i` of `v`, treating a scalar as a broadcast.
Scalar lane(const Value &v, int i) {
    return v.lanes[v.type.is_scalar() ? 0 : i];
}

Value make_value(Type t) {
    Value v;
    v.type = t;
    v.lanes.resize(t.lanes());
    return v;
}

}  // namespace

Value Value::of_int(Type t, int64_t v) {
    Value r = make_value(t);
    for (Scalar &s : r.lanes)
        s.i = wrap_to_signed(v, t.bits());
    return r;
}

Value Value::of_uint(Type t, uint64_t v) {
    Value r = make_value(t);
    for (Scalar &s : r.lanes)
        s.u = wrap_to_unsigned(v, t.bits());
    return r;
}

Value Value::of_float(Type t, double v) {
    Value r = make_value(t);
    for (Scalar &s : r.lanes)
        s.f = round_to(v, t);
    return r;
}

Value Value::of_bool(bool v, int lanes) {
    return of_uint(Bool(lanes), v ? 1 : 0);
}

double Value::as_double(int i) const {
    if (type.is_float()) return lanes[i].f;
    if (type.is_int()) return static_cast<double>(lanes[i].i);
    return static_cast<double>(lanes[i].u);
}

bool Value::same_values(const Value &o) const {
    if (type != o.type) return false;
    for (size_t i = 0; i < lanes.size(); i++) {
        if (type.is_float()) {
            double x = lanes[i].f, y = o.lanes[i].f;
            if (std::isnan(x) && std::isnan(y)) continue;
            if (x != y) return false;
        } else if (lanes[i].u != o.lanes[i].u) {
            return false;
        }
    }
    return true;
}

std::string Value::to_string() const {
    std::ostringstream ss;
    ss << type << (undefined ? " (undefined)" : "") << " ";
    if (type.is_vector()) ss << '<';
    for (size_t i = 0; i < lanes.size(); i++) {
        if (i) ss << ", ";
        if (type.is_float()) {
            ss.precision(17);
            ss << lanes[i].f;
        } else if (type.is_int()) {
            ss << lanes[i].i;
        } else {
            ss << lanes[i].u;
        }
    }
    if (type.is_vector()) ss << '>';
    return ss.str();
}

Value ReferenceEvaluator::eval(const Expr &e) {
    internal_assert(e.defined()) << "evaluating an undefined Expr";
    const Type t = e.type();
    switch (e.node_type()) {
        case IRNodeType::IntImm:
            return Value::of_int(t, e.as<IntImm>()->value);
        case IRNodeType::UIntImm:
            return Value::of_uint(t, e.as<UIntImm>()->value);
        case IRNodeType::FloatImm:
            return Value::of_float(t, e.as<FloatImm>()->value);
        case IRNodeType::Cast: {
            Value v = eval(e.as<Cast>()->value);
            Value r = make_value(t);
            r.undefined = v.undefined;
            for (int i = 0; i < t.lanes(); i++) {
                r.lanes[i] =
                    cast_lane(v.type.element_of(), t.element_of(), v.lanes[i], r.undefined);
            }
            return r;
        }
        case IRNodeType::Variable: {
            const auto *op = e.as<Variable>();
            const Value *v = vars.find(op->name);
            if (!v && variable_handler) return variable_handler(op);
            internal_assert(v) << "the evaluator has no value for the variable " << op->name;
            internal_assert(v->type == t)
                << "variable " << op->name << " is " << t << " but its value is " << v->type;
            return *v;
        }
#define DSL_EVAL_ARITH(T)                                                                       \
    case IRNodeType::T: {                                                                       \
        const auto *op = e.as<T>();                                                             \
        Value a = eval(op->a), b = eval(op->b);                                                 \
        Value r = make_value(t);                                                                \
        r.undefined = a.undefined || b.undefined;                                               \
        for (int i = 0; i < t.lanes(); i++) {                                                   \
            r.lanes[i] =                                                                        \
                arith_lane(IRNodeType::T, t.element_of(), a.lanes[i], b.lanes[i], r.undefined); \
        }                                                                                       \
        return r;                                                                               \
    }
            DSL_EVAL_ARITH(Add)
            DSL_EVAL_ARITH(Sub)
            DSL_EVAL_ARITH(Mul)
            DSL_EVAL_ARITH(Div)
            DSL_EVAL_ARITH(Mod)
            DSL_EVAL_ARITH(Min)
            DSL_EVAL_ARITH(Max)
#undef DSL_EVAL_ARITH
#define DSL_EVAL_COMPARE(T)                                                               \
    case IRNodeType::T: {                                                                 \
        const auto *op = e.as<T>();                                                       \
        Value a = eval(op->a), b = eval(op->b);                                           \
        Value r = make_value(t);                                                          \
        r.undefined = a.undefined || b.undefined;                                         \
        for (int i = 0; i < t.lanes(); i++) {                                             \
            r.lanes[i].u =                                                                \
                compare_lane(IRNodeType::T, a.type.element_of(), a.lanes[i], b.lanes[i]); \
        }                                                                                 \
        return r;                                                                         \
    }
            DSL_EVAL_COMPARE(EQ)
            DSL_EVAL_COMPARE(NE)
            DSL_EVAL_COMPARE(LT)
            DSL_EVAL_COMPARE(LE)
            DSL_EVAL_COMPARE(GT)
            DSL_EVAL_COMPARE(GE)
#undef DSL_EVAL_COMPARE
        case IRNodeType::And:
        case IRNodeType::Or: {
            bool is_and = e.node_type() == IRNodeType::And;
            Expr ea = is_and ? e.as<And>()->a : e.as<Or>()->a;
            Expr eb = is_and ? e.as<And>()->b : e.as<Or>()->b;
            Value a = eval(ea), b = eval(eb);
            Value r = make_value(t);
            r.undefined = a.undefined || b.undefined;
            for (int i = 0; i < t.lanes(); i++) {
                r.lanes[i].u =
                    is_and ? (a.lanes[i].u && b.lanes[i].u) : (a.lanes[i].u || b.lanes[i].u);
            }
            return r;
        }
        case IRNodeType::Not: {
            Value a = eval(e.as<Not>()->a);
            for (Scalar &s : a.lanes)
                s.u = !s.u;
            return a;
        }
        case IRNodeType::Select: {
            const auto *op = e.as<Select>();
            Value c = eval(op->condition), a = eval(op->true_value), b = eval(op->false_value);
            Value r = make_value(t);
            r.undefined = c.undefined;
            bool used_a = false, used_b = false;
            for (int i = 0; i < t.lanes(); i++) {
                bool take_a = lane(c, i).u != 0;
                r.lanes[i] = take_a ? a.lanes[i] : b.lanes[i];
                (take_a ? used_a : used_b) = true;
            }
            // Only the lanes actually selected matter.
            r.undefined |= (used_a && a.undefined) || (used_b && b.undefined);
            return r;
        }
        case IRNodeType::Load: {
            const auto *op = e.as<Load>();
            Value index = eval(op->index), pred = eval(op->predicate);
            auto it = buffers.find(op->name);
            internal_assert(it != buffers.end()) << "the evaluator has no buffer " << op->name;
            internal_assert(it->second.type == t.element_of())
                << "buffer " << op->name << " holds " << it->second.type << ", loaded as " << t;
            Value r = make_value(t);
            r.undefined = index.undefined || pred.undefined;
            for (int i = 0; i < t.lanes(); i++) {
                if (!pred.lanes[i].u) continue;  // masked-off lanes read as zero
                int64_t idx = index.lanes[i].i;
                internal_assert(idx >= 0 && idx < static_cast<int64_t>(it->second.data.size()))
                    << "load of " << op->name << "[" << idx << "] out of bounds (size "
                    << it->second.data.size() << ")";
                r.lanes[i] = it->second.data[idx];
            }
            return r;
        }
        case IRNodeType::Ramp: {
            const auto *op = e.as<Ramp>();
            Value base = eval(op->base), stride = eval(op->stride);
            Value r = make_value(t);
            r.undefined = base.undefined || stride.undefined;
            int inner = base.type.lanes();
            Type elem = t.element_of();
            for (int k = 0; k < inner; k++) {
                Scalar acc = base.lanes[k];
                for (int i = 0; i < op->lanes; i++) {
                    r.lanes[i * inner + k] = acc;
                    if (i + 1 < op->lanes)
                        acc = arith_lane(IRNodeType::Add, elem, acc, stride.lanes[k], r.undefined);
                }
            }
            return r;
        }
        case IRNodeType::Broadcast: {
            const auto *op = e.as<Broadcast>();
            Value v = eval(op->value);
            Value r = make_value(t);
            r.undefined = v.undefined;
            int inner = v.type.lanes();
            for (int i = 0; i < t.lanes(); i++)
                r.lanes[i] = v.lanes[i % inner];
            return r;
        }
        case IRNodeType::Call:
            break;  // below
        case IRNodeType::Let: {
            const auto *op = e.as<Let>();
            Value v = eval(op->value);
            ScopedBinding<Value> bind(vars, op->name, v);
            return eval(op->body);
        }
        case IRNodeType::Shuffle: {
            const auto *op = e.as<Shuffle>();
            std::vector<Scalar> all;
            bool undefined = false;
            for (const Expr &v : op->vectors) {
                Value x = eval(v);
                undefined |= x.undefined;
                all.insert(all.end(), x.lanes.begin(), x.lanes.end());
            }
            Value r = make_value(t);
            r.undefined = undefined;
            for (size_t i = 0; i < op->indices.size(); i++)
                r.lanes[i] = all[op->indices[i]];
            return r;
        }
        case IRNodeType::VectorReduce: {
            const auto *op = e.as<VectorReduce>();
            Value v = eval(op->value);
            Value r = make_value(t);
            r.undefined = v.undefined;
            int group = v.type.lanes() / t.lanes();
            Type elem = t.element_of();
            for (int j = 0; j < t.lanes(); j++) {
                Scalar acc = v.lanes[j * group];
                for (int k = 1; k < group; k++) {
                    Scalar x = v.lanes[j * group + k];
                    switch (op->op) {
                        case VectorReduce::Op::Add:
                            acc = arith_lane(IRNodeType::Add, elem, acc, x, r.undefined);
                            break;
                        case VectorReduce::Op::Mul:
                            acc = arith_lane(IRNodeType::Mul, elem, acc, x, r.undefined);
                            break;
                        case VectorReduce::Op::Min:
                            acc = arith_lane(IRNodeType::Min, elem, acc, x, r.undefined);
                            break;
                        case VectorReduce::Op::Max:
                            acc = arith_lane(IRNodeType::Max, elem, acc, x, r.undefined);
                            break;
                        case VectorReduce::Op::And:
                            acc.u = acc.u && x.u;
                            break;
                        case VectorReduce::Op::Or:
                            acc.u = acc.u || x.u;
                            break;
                    }
                }
                r.lanes[j] = acc;
            }
            return r;
        }
        default:
            internal_error << "the evaluator cannot evaluate " << e;
    }

    // Calls.
    const auto *op = e.as<Call>();
    if (op->is_intrinsic(Call::Intrinsic::Print)) {
        // The reference computes values; it prints nothing. The value is the first value's.
        for (size_t i = 2; i < op->args.size(); i++)
            eval(op->args[i]);
        return op->args.size() > 2 ? eval(op->args[2]) : eval(make_zero(Int(32)));
    }
    if (op->is_intrinsic(Call::Intrinsic::Require)) {
        // The reference stops as the pipeline does, with the format (the values unformatted).
        Value condition = eval(op->args[0]);
        for (size_t i = 0; i < condition.lanes.size(); i++) {
            if (!condition.as_bool(static_cast<int>(i))) {
                throw RuntimeError("Error: " + op->args[2].as<StringImm>()->value);
            }
        }
        return eval(op->args[1]);
    }
    if (op->is_intrinsic(Call::Intrinsic::Trace)) {
        // Nothing is traced: a load's value is the value; other events' ids are 0.
        for (size_t i = 5; i < op->args.size(); i++)
            eval(op->args[i]);
        const auto *event = op->args[0].as<IntImm>();
        return event && event->value == 0 ? eval(op->args[4]) : eval(make_zero(Int(32)));
    }
    user_assert(!op->is_intrinsic(Call::Intrinsic::ExternStage))
        << "The reference evaluator cannot compute an extern stage (the function \""
        << op->args[0].as<StringImm>()->value
        << "\" of Func::define_extern fills buffers it does not see); compare "
        << "such a pipeline with plain C++ loops.";
    std::vector<Value> args;
    bool undefined = false;
    for (const Expr &a : op->args) {
        args.push_back(eval(a));
        undefined |= args.back().undefined;
    }
    if (op->call_type != Call::CallType::Intrinsic) {
        internal_assert(call_handler)
            << "the evaluator cannot call " << op->name << ": no call handler is installed";
        return call_handler(op, args);
    }
    Value r = make_value(t);
    r.undefined = undefined;
    Type elem = t.element_of();
    using I = Call::Intrinsic;
    switch (op->intrinsic) {
        case I::BitwiseAnd:
        case I::BitwiseOr:
        case I::BitwiseXor:
            for (int i = 0; i < t.lanes(); i++) {
                uint64_t x = args[0].lanes[i].u, y = args[1].lanes[i].u;
                uint64_t bits = op->intrinsic == I::BitwiseAnd  ? (x & y)
                                : op->intrinsic == I::BitwiseOr ? (x | y)
                                                                : (x ^ y);
                r.lanes[i] = scalar_from_bits(elem, bits);
            }
            return r;
        case I::BitwiseNot:
            for (int i = 0; i < t.lanes(); i++)
                r.lanes[i] = scalar_from_bits(elem, ~args[0].lanes[i].u);
            return r;
        case I::Popcount:
        case I::CountLeadingZeros:
        case I::CountTrailingZeros:
            for (int i = 0; i < t.lanes(); i++) {
                int bits = elem.bits();
                uint64_t x = wrap_to_unsigned(args[0].lanes[i].u, bits);
                int n = 0;
                if (op->intrinsic == I::Popcount) {
                    for (int b = 0; b < bits; b++)
                        n += static_cast<int>((x >> b) & 1);
                } else if (op->intrinsic == I::CountLeadingZeros) {
                    while (n < bits && !((x >> (bits - 1 - n)) & 1))
                        n++;
                } else {
                    while (n < bits && !((x >> n) & 1))
                        n++;
                }
                r.lanes[i] = scalar_from_bits(elem, static_cast<uint64_t>(n));
            }
            return r;
        case I::ShiftLeft:
        case I::ShiftRight:
            for (int i = 0; i < t.lanes(); i++) {
                uint64_t bits = shift_lane(op->intrinsic == I::ShiftLeft, elem, args[0].lanes[i],
                                           args[1].type.element_of(), args[1].lanes[i]);
                r.lanes[i] = scalar_from_bits(elem, bits);
            }
            return r;
        case I::Abs:
            for (int i = 0; i < t.lanes(); i++) {
                Scalar x = args[0].lanes[i];
                if (elem.is_float()) {
                    r.lanes[i].f = std::fabs(x.f);
                } else if (args[0].type.is_int()) {
                    r.lanes[i].u = x.i < 0 ? uint64_t(0) - static_cast<uint64_t>(x.i)
                                           : static_cast<uint64_t>(x.i);
                } else {
                    r.lanes[i].u = x.u;
                }
            }
            return r;
        case I::Absd:
            for (int i = 0; i < t.lanes(); i++) {
                Scalar x = args[0].lanes[i], y = args[1].lanes[i];
                if (elem.is_float()) {
                    r.lanes[i].f = std::fabs(round_to(x.f - y.f, elem));
                } else if (args[0].type.is_int()) {
                    r.lanes[i].u = x.i > y.i
                                       ? static_cast<uint64_t>(x.i) - static_cast<uint64_t>(y.i)
                                       : static_cast<uint64_t>(y.i) - static_cast<uint64_t>(x.i);
                } else {
                    r.lanes[i].u = x.u > y.u ? x.u - y.u : y.u - x.u;
                }
            }
            return r;
        case I::Reinterpret: {
            // Concatenate the bits of all lanes (lane 0 lowest), then cut them up again.
            Type from = args[0].type.element_of();
            internal_assert(from.bits() >= 8 && elem.bits() >= 8) << "reinterpret of bools";
            std::vector<uint8_t> bytes;
            for (const Scalar &s : args[0].lanes) {
                uint64_t bits = scalar_bits(from, s);
                for (int b = 0; b < from.bytes(); b++)
                    bytes.push_back(static_cast<uint8_t>(bits >> (8 * b)));
            }
            for (int i = 0; i < t.lanes(); i++) {
                uint64_t bits = 0;
                for (int b = 0; b < elem.bytes(); b++)
                    bits |= uint64_t(bytes[i * elem.bytes() + b]) << (8 * b);
                r.lanes[i] = scalar_from_bits(elem, bits);
            }
            return r;
        }
        case I::IsNan:
            for (int i = 0; i < t.lanes(); i++)
                r.lanes[i].u = std::isnan(args[0].lanes[i].f);
            return r;
        case I::Fma:
            // Rounded once in the type, or, for floats narrower than 32 bits, in float32 and
            // then to the type (as code generation computes them).
            for (int i = 0; i < t.lanes(); i++) {
                double a = args[0].lanes[i].f, b = args[1].lanes[i].f, c = args[2].lanes[i].f;
                double v = elem.bits() == 64 ? std::fma(a, b, c)
                                             : double(std::fmaf(float(a), float(b), float(c)));
                r.lanes[i].f = round_to(v, elem);
            }
            return r;
        case I::Likely:
        case I::PromiseClamped:
        case I::StrictFloat:
        case I::MemoizeTag:
            return args[0];
        case I::None:
            internal_error << "call to the intrinsic None";
            return r;
        default:
            for (int i = 0; i < t.lanes(); i++) {
                double y = args.size() > 1 ? args[1].lanes[i].f : 0.0;
                r.lanes[i].f = round_to(math_lane(op->intrinsic, args[0].lanes[i].f, y), elem);
            }
            return r;
    }
}

Value evaluate(const Expr &e, const std::map<std::string, Value> &env) {
    ReferenceEvaluator ev;
    for (const auto &[name, value] : env)
        ev.vars.push(name, value);
    return ev.eval(e);
}

}  // namespace dsl::ir
