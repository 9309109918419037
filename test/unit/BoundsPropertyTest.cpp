// Soundness and tightness of bounds_of_expr_in_scope on random expressions: every value an
// expression takes at random points of its variables' intervals must lie in the computed
// interval.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <vector>

#include "common/RandomExpr.h"
#include "ir/Bounds.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/ReferenceEvaluator.h"

namespace dsl {
namespace {

using namespace ir;
__extension__ typedef __int128 int128;

constexpr int kExpressions = 40000;
constexpr int kPointsPerExpression = 32;
constexpr int kMaxDepth = 6;

/// Longer runs by hand: DSL_BOUNDS_SEED=<n> DSL_BOUNDS_EXPRESSIONS=<n> DSL_BOUNDS_DEPTH=<n>.
long env_or(const char *name, long otherwise) {
    const char *v = std::getenv(name);
    return v ? std::atol(v) : otherwise;
}

/// A variable's interval, as scalar values of its element type.
struct VarRange {
    Type type;
    Scalar lo, hi;
};

int128 as_int128(Type t, Scalar s) {
    return t.is_int() ? int128(s.i) : int128(s.u);
}

/// A random interval for a variable: mostly small, sometimes wide or at the type's extremes,
/// sometimes a single value.
VarRange random_range(std::mt19937_64 &rng, Type type) {
    Type t = type.element_of();
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    VarRange r{type, {}, {}};
    if (t.is_bool()) {
        int k = pick(0, 2);
        r.lo.u = k == 1;
        r.hi.u = k != 0;
        return r;
    }
    if (t.is_float()) {
        double a = pick(-64, 64) / 4.0, b = pick(-64, 64) / 4.0;
        if (pick(0, 9) == 0) b = a;
        if (pick(0, 9) == 0) a *= 1000;
        r.lo.f = Value::of_float(t, std::min(a, b)).lanes[0].f;
        r.hi.f = Value::of_float(t, std::max(a, b)).lanes[0].f;
        return r;
    }
    int128 tlo = t.is_int() ? int128(t.int_min()) : 0;
    int128 thi = t.is_int() ? int128(t.int_max()) : int128(t.uint_max());
    int128 a, b;
    switch (pick(0, 9)) {
        case 0:  // one end at an extreme of the type
            a = pick(0, 1) ? tlo : thi;
            b = a + (a == tlo ? pick(0, 20) : -pick(0, 20));
            break;
        case 1:  // the whole type
            a = tlo;
            b = thi;
            break;
        case 2:  // a single value
            a = b = pick(-20, 20);
            break;
        default:
            a = pick(-20, 20);
            b = a + pick(0, 30);
    }
    a = std::clamp(a, tlo, thi);
    b = std::clamp(b, tlo, thi);
    if (a > b) std::swap(a, b);
    if (t.is_int()) {
        r.lo.i = static_cast<int64_t>(a);
        r.hi.i = static_cast<int64_t>(b);
    } else {
        r.lo.u = static_cast<uint64_t>(a);
        r.hi.u = static_cast<uint64_t>(b);
    }
    return r;
}

/// A value of the variable: every lane in its interval, often at an end.
Value random_point(std::mt19937_64 &rng, const VarRange &r) {
    Type t = r.type.element_of();
    Value v;
    v.type = r.type;
    v.lanes.resize(r.type.lanes());
    for (Scalar &lane : v.lanes) {
        int k = std::uniform_int_distribution<int>(0, 3)(rng);
        if (k == 0) {
            lane = r.lo;
        } else if (k == 1) {
            lane = r.hi;
        } else if (t.is_float()) {
            double f = std::uniform_real_distribution<double>(r.lo.f, r.hi.f)(rng);
            lane.f = std::clamp(Value::of_float(t, f).lanes[0].f, r.lo.f, r.hi.f);
        } else {
            int128 lo = as_int128(t, r.lo), hi = as_int128(t, r.hi);
            uint64_t span = static_cast<uint64_t>(hi - lo);
            uint64_t off = span == ~uint64_t(0)
                               ? rng()
                               : std::uniform_int_distribution<uint64_t>(0, span)(rng);
            int128 x = lo + off;
            if (t.is_int()) {
                lane.i = static_cast<int64_t>(x);
            } else {
                lane.u = static_cast<uint64_t>(x);
            }
        }
    }
    return v;
}

Expr scalar_const(Type t, Scalar s) {
    if (t.is_int()) return IntImm::make(t, s.i);
    if (t.is_uint()) return UIntImm::make(t, s.u);
    return FloatImm::make(t, s.f);
}

/// An interval end as a number, or nothing if it is unbounded or undefined to evaluate.
struct End {
    bool known = false;
    int128 i = 0;
    double f = 0;
};

End evaluate_end(const Expr &e, const std::map<std::string, Value> &env) {
    End r;
    if (!e.defined()) return r;
    Value v = evaluate(e, env);
    if (v.undefined) return r;
    r.known = true;
    if (v.type.is_float()) {
        r.f = v.lanes[0].f;
        if (std::isnan(r.f)) r.known = false;
    } else {
        r.i = as_int128(v.type, v.lanes[0]);
    }
    return r;
}

/// How the variables of an expression are bounded.
enum class Mode {
    Constant,  ///< every variable has a constant interval
    Symbolic,  ///< some are left free, some int32/int64 ones get ends `k + c` with a free `k`
};

struct Stats {
    long expressions = 0, points = 0, lanes_checked = 0, failures = 0;
    long constant_results = 0, exact = 0, single_points = 0, full_range = 0, symbolic_results = 0;
    std::vector<double> ratios;  // observed width / interval width, non-single-point results
};

/// How one variable of the expression is bounded, and how its values are drawn.
struct Binding {
    enum Kind { Constant, Offset, Free } kind = Constant;
    VarRange range;
    std::string offset_name;  // Offset: the interval is [k + lo, k + hi] with k this variable
};

Value value_for(std::mt19937_64 &rng, test::RandomExprGenerator &gen, const Binding &b,
                std::map<std::string, Value> &free_env) {
    if (b.kind == Binding::Free) return gen.value(b.range.type);
    Value v = random_point(rng, b.range);
    if (b.kind == Binding::Offset) {
        // Chosen so that k + c never wraps or overflows (see run_property).
        Type t = b.range.type.element_of();
        Scalar k = free_env.at(b.offset_name).lanes[0];
        for (Scalar &lane : v.lanes) {
            if (t.is_float()) {
                lane.f = Value::of_float(t, k.f + lane.f).lanes[0].f;
            } else if (t.is_int()) {
                lane.i += k.i;
            } else {
                lane.u += k.u;
            }
        }
    }
    return v;
}

void run_property(Mode mode, long seed, long expressions, int max_depth, Stats &stats) {
    // Every fourth expression comes from a generator without math intrinsics, which makes float
    // modulo instead.
    test::RandomExprOptions no_math;
    no_math.allow_math = false;
    test::RandomExprGenerator with_math(static_cast<uint64_t>(seed));
    test::RandomExprGenerator without_math(static_cast<uint64_t>(seed) + 1000, no_math);
    std::mt19937_64 rng(static_cast<uint64_t>(seed) * 31 + 7);
    auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
    for (long n = 0; n < expressions; n++) {
        test::RandomExprGenerator &gen = n % 4 == 3 ? without_math : with_math;
        Type t = gen.type();
        Expr e = gen.expr(t, gen.uniform(1, max_depth));
        if (t.is_float() && chance(0.15)) {
            // Math intrinsics the generator does not make.
            using I = Call::Intrinsic;
            const I ops[] = {I::Exp, I::Log,   I::Sin,   I::Cos,    I::Tan,
                             I::Pow, I::Atan2, I::IsNan, I::Likely, I::Sqrt};
            I op = ops[std::uniform_int_distribution<int>(0, 9)(rng)];
            std::vector<Expr> args(op == I::Pow || op == I::Atan2 ? 2 : 1);
            args[0] = e;
            if (args.size() == 2) args[1] = gen.expr(t, 2);
            e = Call::make(op == I::IsNan ? Bool(t.lanes()) : t, op, args);
            t = e.type();
        }
        Type et = t.element_of();
        std::map<std::string, Value> env = gen.env_for(e);
        Scope<Interval> scope;
        std::map<std::string, Binding> bindings;
        std::map<std::string, Type> offsets;  // the free k variables
        for (const auto &[name, value] : env) {
            Binding b;
            b.range = random_range(rng, value.type);
            Type vt = value.type.element_of();
            Interval i(scalar_const(vt, b.range.lo), scalar_const(vt, b.range.hi));
            if (mode == Mode::Symbolic && chance(0.25)) {
                b.kind = Binding::Free;
            } else if (mode == Mode::Symbolic && !vt.is_bool() && chance(0.4)) {
                // [k + lo, k + hi] with a free k. Small offsets only, so that k + c (k is in
                // [-50, 50], or [0, 100] unsigned) cannot wrap or overflow.
                b.kind = Binding::Offset;
                if (vt.is_int()) {
                    int64_t limit = vt.bits() == 8 ? 70 : 1000;
                    b.range.lo.i = std::clamp<int64_t>(b.range.lo.i, -limit, limit);
                    b.range.hi.i = std::clamp<int64_t>(b.range.hi.i, b.range.lo.i, limit);
                } else if (vt.is_uint()) {
                    uint64_t limit = vt.bits() == 8 ? 150 : 1000;
                    b.range.lo.u = std::min(b.range.lo.u, limit);
                    b.range.hi.u = std::clamp(b.range.hi.u, b.range.lo.u, limit);
                }
                b.offset_name = "k_" + vt.to_string();
                offsets[b.offset_name] = vt;
                Expr k = Variable::make(vt, b.offset_name);
                i = Interval(Add::make(k, scalar_const(vt, b.range.lo)),
                             Add::make(k, scalar_const(vt, b.range.hi)));
            }
            if (b.kind != Binding::Free) scope.push(name, i);
            bindings[name] = b;
        }
        Interval bounds = bounds_of_expr_in_scope(e, scope);
        ASSERT_FALSE(bounds.is_empty()) << e;
        // Ends are scalars of the expression's element type.
        for (const Expr &end : {bounds.min, bounds.max}) {
            ASSERT_TRUE(!end.defined() || end.type() == et) << e << "\nbounds " << bounds;
        }
        stats.expressions++;
        bool is_constant = is_const(bounds.min) && is_const(bounds.max);
        stats.symbolic_results += (bounds.min.defined() && !is_const(bounds.min)) ||
                                  (bounds.max.defined() && !is_const(bounds.max));
        End lo, hi;
        if (is_constant) {
            lo = evaluate_end(bounds.min, {});
            hi = evaluate_end(bounds.max, {});
        }
        bool seen = false;
        int128 seen_lo = 0, seen_hi = 0;
        double seen_flo = 0, seen_fhi = 0;
        for (int p = 0; p < kPointsPerExpression; p++) {
            // Free values first (the k offsets and the unbounded variables), then the rest.
            std::map<std::string, Value> free_env;
            for (const auto &[name, type] : offsets) {
                int v = std::uniform_int_distribution<int>(-50, 50)(rng);
                if (type.is_float()) {
                    free_env[name] = Value::of_float(type, v);
                } else if (type.is_int()) {
                    free_env[name] = Value::of_int(type, v);
                } else {
                    free_env[name] = Value::of_uint(type, static_cast<uint64_t>(v + 50));
                }
            }
            for (const auto &[name, b] : bindings) {
                env[name] = value_for(rng, gen, b, free_env);
                if (b.kind == Binding::Free) free_env[name] = env[name];
            }
            if (!is_constant) {
                // The ends may only mention free variables: evaluating them without the scoped
                // ones proves that no name leaked out of the scope or out of a Let.
                lo = evaluate_end(bounds.min, free_env);
                hi = evaluate_end(bounds.max, free_env);
            }
            Value v = evaluate(e, env);
            stats.points++;
            if (v.undefined) continue;
            for (int lane = 0; lane < t.lanes(); lane++) {
                stats.lanes_checked++;
                bool ok = true;
                if (et.is_float()) {
                    double x = v.lanes[lane].f;
                    if (std::isnan(x)) {
                        // NaN is only allowed where the interval does not rule it out.
                        ok = !is_constant;
                    } else {
                        ok = (!lo.known || lo.f <= x) && (!hi.known || x <= hi.f);
                        seen_flo = seen ? std::min(seen_flo, x) : x;
                        seen_fhi = seen ? std::max(seen_fhi, x) : x;
                        seen = true;
                    }
                } else {
                    int128 x = as_int128(et, v.lanes[lane]);
                    ok = (!lo.known || lo.i <= x) && (!hi.known || x <= hi.i);
                    seen_lo = seen ? std::min(seen_lo, x) : x;
                    seen_hi = seen ? std::max(seen_hi, x) : x;
                    seen = true;
                }
                if (!ok && stats.failures++ < 10) {
                    std::ostringstream vars;
                    for (const auto &[name, value] : env) {
                        vars << name << " = " << value.to_string() << "; ";
                    }
                    for (const auto &[name, value] : free_env) {
                        vars << name << " = " << value.to_string() << "; ";
                    }
                    ADD_FAILURE() << "expression " << e << "\nbounds " << bounds << "\nvalue "
                                  << v.to_string() << " (lane " << lane << ")\n"
                                  << vars.str();
                }
            }
        }
        if (is_constant && lo.known && hi.known && seen) {
            stats.constant_results++;
            if (bounds.is_single_point()) {
                stats.single_points++;
                continue;
            }
            if (et.is_int_or_uint()) {
                Interval full(type_min(et), type_max(et));
                if (equal(bounds, full)) stats.full_range++;
            }
            double width = et.is_float() ? hi.f - lo.f : static_cast<double>(hi.i - lo.i);
            double observed =
                et.is_float() ? seen_fhi - seen_flo : static_cast<double>(seen_hi - seen_lo);
            bool same = et.is_float() ? (seen_flo == lo.f && seen_fhi == hi.f)
                                      : (seen_lo == lo.i && seen_hi == hi.i);
            stats.exact += same;
            stats.ratios.push_back(observed / width);
        }
    }
}

TEST(BoundsProperty, RandomExpressionsStayInsideConstantIntervals) {
    auto start = std::chrono::steady_clock::now();
    Stats stats;
    run_property(Mode::Constant, env_or("DSL_BOUNDS_SEED", 20261129),
                 env_or("DSL_BOUNDS_EXPRESSIONS", kExpressions),
                 static_cast<int>(env_or("DSL_BOUNDS_DEPTH", kMaxDepth)), stats);
    EXPECT_EQ(stats.failures, 0);
    std::vector<double> &r = stats.ratios;
    std::sort(r.begin(), r.end());
    auto quantile = [&](double q) {
        return r.empty() ? 0.0 : r[static_cast<size_t>(q * (r.size() - 1))];
    };
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    long ranged = stats.constant_results - stats.single_points;
    std::printf(
        "[bounds] constant scopes: %ld expressions, %ld points, %ld lanes checked, %.1f s\n"
        "[bounds] constant results: %ld (%.1f%%), of which single points %ld; of the %ld "
        "others: observed range == interval %.1f%%, full type range %.1f%%, observed/interval "
        "width median %.3f, p25 %.3f, p10 %.3f\n",
        stats.expressions, stats.points, stats.lanes_checked, seconds, stats.constant_results,
        100.0 * stats.constant_results / stats.expressions, stats.single_points, ranged,
        ranged ? 100.0 * stats.exact / ranged : 0.0,
        ranged ? 100.0 * stats.full_range / ranged : 0.0, quantile(0.5), quantile(0.25),
        quantile(0.1));
}

TEST(BoundsProperty, RandomExpressionsStayInsideSymbolicIntervals) {
    auto start = std::chrono::steady_clock::now();
    Stats stats;
    run_property(Mode::Symbolic, env_or("DSL_BOUNDS_SEED", 20261129) + 1,
                 env_or("DSL_BOUNDS_EXPRESSIONS", kExpressions) / 2,
                 static_cast<int>(env_or("DSL_BOUNDS_DEPTH", kMaxDepth)), stats);
    EXPECT_EQ(stats.failures, 0);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "[bounds] symbolic scopes: %ld expressions (%ld with symbolic ends), %ld points, %ld "
        "lanes checked, %.1f s\n",
        stats.expressions, stats.symbolic_results, stats.points, stats.lanes_checked, seconds);
}

}  // namespace
}  // namespace dsl
