#include "RandomExpr.h"

#include <cmath>
#include <cstdlib>

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"

namespace dsl::test {

using namespace ir;

uint64_t seed_from_env(uint64_t default_seed) {
    const char *s = std::getenv("DSL_TEST_SEED");
    return s ? std::strtoull(s, nullptr, 10) : default_seed;
}

int scale_from_env() {
    const char *s = std::getenv("DSL_TEST_SCALE");
    int scale = s ? std::atoi(s) : 1;
    return scale > 0 ? scale : 1;
}

RandomExprGenerator::RandomExprGenerator(uint64_t seed, RandomExprOptions options)
    : options_(std::move(options)), rng_(seed) {
    if (!options_.allow_floats) {
        std::vector<Type> ints;
        for (Type t : options_.types) {
            if (!t.is_float()) ints.push_back(t);
        }
        options_.types = ints;
    }
    if (!options_.allow_vectors) options_.lanes = {1};
}

std::string RandomExprGenerator::var_name(Type t, int which) {
    return std::string(which == 0 ? "a_" : "b_") + t.to_string();
}

Type RandomExprGenerator::scalar_type() {
    return options_.types[uniform(0, static_cast<int>(options_.types.size()) - 1)];
}

Type RandomExprGenerator::type() {
    int lanes = options_.lanes[uniform(0, static_cast<int>(options_.lanes.size()) - 1)];
    return scalar_type().with_lanes(lanes);
}

Type RandomExprGenerator::other_type_with_lanes(int lanes) {
    return scalar_type().with_lanes(lanes);
}

Expr RandomExprGenerator::constant(Type t) {
    Type s = t.element_of();
    Expr c;
    if (s.is_bool()) {
        c = make_bool(coin());
    } else if (s.is_float()) {
        static const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.25, 1e10, 1e-3};
        if (coin(0.5)) {
            c = FloatImm::make(s, specials[uniform(0, 8)]);
        } else {
            c = FloatImm::make(s, uniform(-64, 64) / 4.0);
        }
    } else {
        int choice = uniform(0, 9);
        int64_t v;
        if (choice == 0) {
            v = s.int_min();
        } else if (choice == 1) {
            v = s.is_uint() ? static_cast<int64_t>(s.uint_max()) : s.int_max();
        } else if (choice <= 3) {
            v = uniform(-2, 2);
        } else {
            v = uniform(-20, 20);
        }
        c = s.is_int() ? IntImm::make(s, v) : UIntImm::make(s, static_cast<uint64_t>(v));
    }
    return broadcast_to(c, t.lanes());
}

Expr RandomExprGenerator::leaf(Type t) {
    // A let-bound name of the right type, a variable, or a constant.
    std::vector<std::string> candidates;
    for (const auto &[name, type] : lets_in_scope_) {
        if (type == t) candidates.push_back(name);
    }
    if (!candidates.empty() && coin(0.4)) {
        return Variable::make(t, candidates[uniform(0, static_cast<int>(candidates.size()) - 1)]);
    }
    if (coin(0.6)) return Variable::make(t, var_name(t, uniform(0, 1)));
    return constant(t);
}

Expr RandomExprGenerator::bool_expr(int lanes, int depth) {
    Type t = Bool(lanes);
    switch (uniform(0, 6)) {
        case 0:
        case 1: {
            Type ot = other_type_with_lanes(lanes);
            Expr a = expr(ot, depth - 1), b = expr(ot, depth - 1);
            switch (uniform(0, 5)) {
                case 0:
                    return EQ::make(a, b);
                case 1:
                    return NE::make(a, b);
                case 2:
                    return LT::make(a, b);
                case 3:
                    return LE::make(a, b);
                case 4:
                    return GT::make(a, b);
                default:
                    return GE::make(a, b);
            }
        }
        case 2:
            return And::make(expr(t, depth - 1), expr(t, depth - 1));
        case 3:
            return Or::make(expr(t, depth - 1), expr(t, depth - 1));
        case 4:
            return Not::make(expr(t, depth - 1));
        default:
            return common_expr(t, depth);
    }
}

Expr RandomExprGenerator::int_expr(Type t, int depth) {
    auto sub = [&] { return expr(t, depth - 1); };
    switch (uniform(0, 16)) {
        case 0:
        case 1:
            return Add::make(sub(), sub());
        case 2:
        case 3:
            return Sub::make(sub(), sub());
        case 4:
            return Mul::make(sub(), sub());
        case 5:
            return Div::make(sub(), sub());
        case 6:
            return Mod::make(sub(), sub());
        case 7:
            return Div::make(sub(), constant(t));
        case 8:
            return Mod::make(sub(), constant(t));
        case 9: {
            Call::Intrinsic ops[] = {Call::Intrinsic::BitwiseAnd, Call::Intrinsic::BitwiseOr,
                                     Call::Intrinsic::BitwiseXor};
            return Call::make(t, ops[uniform(0, 2)], {sub(), sub()});
        }
        case 10: {
            // Shift by a small amount of a random integer type.
            Type at = coin() ? Int(32, t.lanes()) : t;
            Expr amount =
                coin(0.7)
                    ? broadcast_to(at.is_int()
                                       ? IntImm::make(at.element_of(), uniform(-3, t.bits() + 1))
                                       : UIntImm::make(at.element_of(), uniform(0, t.bits() + 1)),
                                   t.lanes())
                    : expr(at, depth - 1);
            return Call::make(t, coin() ? Call::Intrinsic::ShiftLeft : Call::Intrinsic::ShiftRight,
                              {sub(), amount});
        }
        case 11:
            if (t.is_uint()) {
                Type st = signed_of(t);
                return coin() ? Call::make(t, Call::Intrinsic::Abs, {expr(st, depth - 1)})
                              : Call::make(t, Call::Intrinsic::Absd,
                                           {expr(st, depth - 1), expr(st, depth - 1)});
            }
            return Call::make(t, Call::Intrinsic::BitwiseNot, {sub()});
        default:
            return common_expr(t, depth);
    }
}

Expr RandomExprGenerator::float_expr(Type t, int depth) {
    auto sub = [&] { return expr(t, depth - 1); };
    switch (uniform(0, 10)) {
        case 0:
        case 1:
            return Add::make(sub(), sub());
        case 2:
            return Sub::make(sub(), sub());
        case 3:
            return Mul::make(sub(), sub());
        case 4:
            return Div::make(sub(), sub());
        case 5:
            if (options_.allow_math) {
                Call::Intrinsic ops[] = {Call::Intrinsic::Floor, Call::Intrinsic::Ceil,
                                         Call::Intrinsic::Round, Call::Intrinsic::Trunc,
                                         Call::Intrinsic::Abs,   Call::Intrinsic::Sqrt};
                return Call::make(t, ops[uniform(0, 5)], {sub()});
            }
            return Mod::make(sub(), sub());
        default:
            return common_expr(t, depth);
    }
}

Expr RandomExprGenerator::vector_expr(Type t, int depth) {
    int lanes = t.lanes();
    Type s = t.element_of();
    switch (uniform(0, 4)) {
        case 0:
            return Broadcast::make(expr(s, depth - 1), lanes);
        case 1:
            if (s.is_int_or_uint() && !s.is_bool()) {
                return Ramp::make(expr(s, depth - 1), expr(s, depth - 1), lanes);
            }
            return Broadcast::make(expr(s, depth - 1), lanes);
        case 2: {
            // A slice of a wider vector.
            int stride = uniform(1, 2);
            Expr wide = expr(s.with_lanes(lanes * 2), depth - 1);
            int begin = uniform(0, lanes * 2 - 1 - (lanes - 1) * stride);
            return Shuffle::make_slice(wide, begin, stride, lanes);
        }
        case 3:
            if (lanes % 2 == 0) {
                Type half = s.with_lanes(lanes / 2);
                return coin() ? Shuffle::make_concat({expr(half, depth - 1), expr(half, depth - 1)})
                              : Shuffle::make_interleave(
                                    {expr(half, depth - 1), expr(half, depth - 1)});
            }
            return Broadcast::make(expr(s, depth - 1), lanes);
        default: {
            int factor = uniform(2, 3);
            VectorReduce::Op ops[] = {VectorReduce::Op::Add, VectorReduce::Op::Min,
                                      VectorReduce::Op::Max, VectorReduce::Op::Mul};
            VectorReduce::Op op = s.is_bool()
                                      ? (coin() ? VectorReduce::Op::And : VectorReduce::Op::Or)
                                      : ops[uniform(0, 3)];
            return VectorReduce::make(op, expr(t.with_lanes(lanes * factor), depth - 1), lanes);
        }
    }
}

Expr RandomExprGenerator::common_expr(Type t, int depth) {
    switch (uniform(0, 6)) {
        case 0:
            if (!t.is_bool()) return Min::make(expr(t, depth - 1), expr(t, depth - 1));
            return expr(t, depth - 1);
        case 1:
            if (!t.is_bool()) return Max::make(expr(t, depth - 1), expr(t, depth - 1));
            return expr(t, depth - 1);
        case 2: {
            Expr c = coin(0.3) ? bool_expr(1, depth - 1) : bool_expr(t.lanes(), depth - 1);
            return Select::make(c, expr(t, depth - 1), expr(t, depth - 1));
        }
        case 3: {
            Type from = other_type_with_lanes(t.lanes());
            return Cast::make(t, expr(from, depth - 1));
        }
        case 4:
            if (options_.allow_lets) {
                Type vt = coin() ? t : type();
                Expr value = expr(vt, depth - 1);
                std::string name = "t" + std::to_string(let_counter_++);
                lets_in_scope_.push_back({name, vt});
                Expr body = expr(t, depth - 1);
                lets_in_scope_.pop_back();
                return Let::make(name, value, body);
            }
            return leaf(t);
        case 5:
            if (t.is_vector()) return vector_expr(t, depth);
            return leaf(t);
        default:
            return leaf(t);
    }
}

Expr RandomExprGenerator::expr(Type t, int depth) {
    if (depth <= 0 || coin(0.1)) return leaf(t);
    if (t.is_bool()) return bool_expr(t.lanes(), depth);
    if (t.is_float()) return float_expr(t, depth);
    return int_expr(t, depth);
}

ir::Value RandomExprGenerator::value(Type t) {
    Value v;
    v.type = t;
    v.lanes.resize(t.lanes());
    Type s = t.element_of();
    for (Scalar &lane : v.lanes) {
        int choice = uniform(0, 19);
        if (s.is_float()) {
            double f = choice == 0 ? 1e6 : choice == 1 ? -0.0 : uniform(-64, 64) / 8.0;
            lane = Value::of_float(s, f).lanes[0];
        } else if (s.is_bool()) {
            lane.u = coin();
        } else {
            int64_t x = choice == 0 ? s.int_min()
                        : choice == 1
                            ? (s.is_uint() ? static_cast<int64_t>(s.uint_max()) : s.int_max())
                            : uniform(-16, 16);
            lane = s.is_int() ? Value::of_int(s, x).lanes[0]
                              : Value::of_uint(s, static_cast<uint64_t>(x)).lanes[0];
        }
    }
    return v;
}

namespace {
class FreeVars : public IRVisitor {
  public:
    std::map<std::string, Type> vars;
    std::map<std::string, int> bound;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (!bound.count(op->name) || bound[op->name] == 0) vars[op->name] = op->type;
    }
    void visit(const Let *op) override {
        include(op->value);
        bound[op->name]++;
        include(op->body);
        bound[op->name]--;
    }
};
}  // namespace

std::map<std::string, ir::Value> RandomExprGenerator::env_for(const Expr &e) {
    FreeVars fv;
    fv.include(e);
    std::map<std::string, Value> env;
    for (const auto &[name, t] : fv.vars)
        env[name] = value(t);
    return env;
}

}  // namespace dsl::test
