// Property tests of the simplifier: random expressions evaluated before and after simplifying.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "common/RandomExpr.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/ReferenceEvaluator.h"
#include "ir/Simplify.h"

namespace dsl {
namespace {

using namespace ir;

std::string env_to_string(const std::map<std::string, Value> &env) {
    std::string s;
    for (const auto &[name, v] : env)
        s += "  " + name + " = " + v.to_string() + "\n";
    return s;
}

/// Evaluates, reporting an exception (an evaluator limit such as a huge reinterpret) as empty.
std::optional<Value> try_evaluate(const Expr &e, const std::map<std::string, Value> &env) {
    try {
        return evaluate(e, env);
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

/// A constant scalar or vector: a constant, a broadcast or ramp of constants, or a shuffle of
/// those (the simplifier's form of a vector constant with unrelated lanes).
bool is_constant(const Expr &e) {
    if (is_const(e)) return true;
    if (const auto *r = e.as<Ramp>()) return is_const(r->base) && is_const(r->stride);
    if (const auto *s = e.as<Shuffle>()) {
        for (const Expr &v : s->vectors) {
            if (!is_constant(v)) return false;
        }
        return true;
    }
    return false;
}

struct FreeVariableCounter : IRVisitor {
    int count = 0;
    using IRVisitor::visit;
    void visit(const Variable *) override { count++; }
};

/// Whether `e` mentions no variable at all (lets included): a closed constant expression.
bool has_no_variables(const Expr &e) {
    FreeVariableCounter c;
    c.include(e);
    return c.count == 0;
}

/// How many constant-valued expressions that did not simplify to a constant to print
/// (DSL_SIMPLIFY_FUZZ_SHOW_MISSED), to find missing rules.
int show_missed = std::getenv("DSL_SIMPLIFY_FUZZ_SHOW_MISSED")
                      ? std::atoi(std::getenv("DSL_SIMPLIFY_FUZZ_SHOW_MISSED"))
                      : 0;

struct Stats {
    int expressions = 0, points = 0, compared = 0;
    int constant_valued = 0, reached_constant = 0;
    int closed = 0, closed_reached_constant = 0;
    void add(const Stats &o) {
        expressions += o.expressions;
        points += o.points;
        compared += o.compared;
        constant_valued += o.constant_valued;
        reached_constant += o.reached_constant;
        closed += o.closed;
        closed_reached_constant += o.closed_reached_constant;
    }
};

/// Simplifies `count` random expressions from `seed` and checks them at `points` points each.
Stats check_random_expressions(uint64_t seed, int count, int depth, int points,
                               test::RandomExprOptions options = {}) {
    test::RandomExprGenerator gen(seed, options);
    Stats stats;
    for (int n = 0; n < count; n++) {
        Type t = gen.type();
        Expr e = gen.expr(t, depth);
        Expr s;
        try {
            s = simplify(e);
        } catch (const std::exception &err) {
            ADD_FAILURE() << "seed " << seed << " expression " << n << ": simplify threw "
                          << err.what() << "\n  expr: " << e;
            continue;
        }
        stats.expressions++;
        if (s.type() != e.type()) {
            ADD_FAILURE() << "simplify changed the type: " << e << "\n -> " << s;
            return stats;
        }
        bool all_same = true, any_defined = false;
        std::optional<Value> first;
        for (int p = 0; p < points; p++) {
            auto env = gen.env_for(e);
            std::optional<Value> before = try_evaluate(e, env);
            if (!before) continue;
            stats.points++;
            if (first && !first->same_values(*before)) all_same = false;
            if (!first) first = before;
            if (before->undefined) continue;
            any_defined = true;
            std::optional<Value> after = try_evaluate(s, env);
            stats.compared++;
            if (!after || !before->same_values(*after)) {
                ADD_FAILURE() << "seed " << seed << " expression " << n
                              << " differs after simplification\n"
                              << "  expr:       " << e << "\n  simplified: " << s << "\n  env:\n"
                              << env_to_string(env) << "  before: " << before->to_string()
                              << "\n  after:  " << (after ? after->to_string() : "(threw)");
                return stats;
            }
        }
        // An expression whose value never changed across the points is taken as constant.
        if (any_defined && all_same && points > 1) {
            stats.constant_valued++;
            if (is_constant(s)) {
                stats.reached_constant++;
            } else if (show_missed > 0) {
                show_missed--;
                std::cout
                    << "[simplify property] constant-valued but not simplified to a constant:\n  "
                    << e << "\n  -> " << s << "\n";
            }
        }
        if (any_defined && has_no_variables(e)) {
            stats.closed++;
            if (is_constant(s)) stats.closed_reached_constant++;
        }
    }
    return stats;
}

double percent(int part, int whole) {
    return whole ? 100.0 * part / whole : 100.0;
}

constexpr int kSeeds = 16;
constexpr int kExpressionsPerSeed = 2500;  // 40,000 in all
constexpr int kPointsPerExpression = 8;

/// Longer runs by hand: DSL_SIMPLIFY_FUZZ_SEEDS=500 (and optionally DSL_SIMPLIFY_FUZZ_DEPTH).
int env_int(const char *name, int fallback) {
    const char *v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

TEST(SimplifyProperty, RandomExpressionsKeepTheirValues) {
    auto start = std::chrono::steady_clock::now();
    Stats total;
    const int seeds = env_int("DSL_SIMPLIFY_FUZZ_SEEDS", kSeeds);
    const int depth = env_int("DSL_SIMPLIFY_FUZZ_DEPTH", 5);
    for (uint64_t seed = 1; seed <= static_cast<uint64_t>(seeds); seed++) {
        total.add(check_random_expressions(seed, kExpressionsPerSeed, depth, kPointsPerExpression));
        if (HasFailure()) break;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(total.expressions, kSeeds * kExpressionsPerSeed);
    std::cout << "[simplify property] " << total.expressions << " expressions, " << total.points
              << " evaluation points, " << total.compared << " compared, " << seconds << " s\n"
              << "[simplify property] constant-valued expressions reaching a constant: "
              << total.reached_constant << " / " << total.constant_valued << " ("
              << percent(total.reached_constant, total.constant_valued) << "%)\n"
              << "[simplify property] variable-free expressions reaching a constant: "
              << total.closed_reached_constant << " / " << total.closed << " ("
              << percent(total.closed_reached_constant, total.closed) << "%)" << std::endl;
}

TEST(SimplifyProperty, IntegerOnlyDeeperExpressions) {
    test::RandomExprOptions options;
    options.allow_floats = false;
    Stats total;
    const int seeds = env_int("DSL_SIMPLIFY_FUZZ_SEEDS", 4);
    for (uint64_t seed = 100; seed < 100 + static_cast<uint64_t>(seeds); seed++) {
        total.add(check_random_expressions(seed, 1000, env_int("DSL_SIMPLIFY_FUZZ_DEPTH", 6), 4,
                                           options));
        if (HasFailure()) break;
    }
    EXPECT_GE(total.expressions, 4000);
}

/// Expressions shaped like the left-hand sides of rules, with random operands: the random
/// generator alone rarely builds `x - (x / c) * c` or `min(x * c, y * c)`.
TEST(SimplifyProperty, RuleShapedExpressions) {
    test::RandomExprOptions options;
    options.allow_floats = false;
    test::RandomExprGenerator gen(7, options);
    int checked = 0;
    const int count = 6000 * env_int("DSL_SIMPLIFY_FUZZ_SEEDS", 1);
    for (int n = 0; n < count; n++) {
        Type t = gen.scalar_type().with_lanes(gen.coin(0.8) ? 1 : 4);
        if (t.is_bool()) continue;
        Expr x = gen.expr(t, 2), y = gen.expr(t, 2), z = gen.expr(t, 2);
        auto k = [&](int lo, int hi) { return make_const(t, int64_t(gen.uniform(lo, hi))); };
        Expr c = k(1, 9), d = k(-9, 9);
        Expr shapes[] = {
            Sub::make(x, Mul::make(Div::make(x, c), c)),
            Add::make(Mul::make(Div::make(x, c), c), Mod::make(x, c)),
            Min::make(Div::make(x, c), Div::make(y, c)),
            Max::make(Mul::make(x, d), Mul::make(y, d)),
            Add::make(Add::make(x, c), Add::make(y, d)),
            Sub::make(Add::make(x, y), Add::make(x, z)),
            Sub::make(Add::make(x, c), Add::make(y, d)),
            LT::make(Div::make(x, c), d),
            LE::make(d, Div::make(x, c)),
            LT::make(Add::make(x, c), Add::make(y, d)),
            EQ::make(Add::make(x, c), Add::make(y, d)),
            LT::make(Mul::make(x, c), d),
            Select::make(LT::make(x, d), Min::make(x, c), Max::make(x, d)),
            Add::make(Call::make(t, Call::Intrinsic::BitwiseNot, {x}), x),
            Mod::make(Add::make(Mul::make(x, c), d), c),
            Div::make(Add::make(Mul::make(x, c), d), c),
            Mul::make(Add::make(x, d), c),
            Min::make(Add::make(x, c), Add::make(x, d)),
            Call::make(t, Call::Intrinsic::ShiftLeft, {x, k(-3, t.bits() + 1)}),
            Call::make(t, Call::Intrinsic::ShiftRight, {x, k(-3, t.bits() + 1)}),
            And::make(LT::make(x, d), LT::make(Min::make(x, c), y)),
        };
        for (const Expr &e : shapes) {
            Expr simplified = simplify(e);
            for (int p = 0; p < 6; p++) {
                auto env = gen.env_for(e);
                Value before = evaluate(e, env);
                if (before.undefined) continue;
                Value after = evaluate(simplified, env);
                checked++;
                if (!before.same_values(after)) {
                    ADD_FAILURE() << "expression " << n
                                  << " differs after simplification\n  expr:       " << e
                                  << "\n  simplified: " << simplified << "\n  env:\n"
                                  << env_to_string(env) << "  before: " << before.to_string()
                                  << "\n  after:  " << after.to_string();
                    return;
                }
            }
        }
    }
    EXPECT_GT(checked, 100000);
}

}  // namespace
}  // namespace dsl
