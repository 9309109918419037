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

constexpr int kExpressions = 20000;
constexpr int kPointsPerExpression = 24;

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

End evaluate_end(const Expr &e) {
    End r;
    if (!e.defined()) return r;
    Value v = evaluate(e);
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

TEST(BoundsProperty, RandomExpressionsStayInsideTheirIntervals) {
    auto start = std::chrono::steady_clock::now();
    const long seed = env_or("DSL_BOUNDS_SEED", 20261129);
    const long expressions = env_or("DSL_BOUNDS_EXPRESSIONS", kExpressions);
    const int max_depth = static_cast<int>(env_or("DSL_BOUNDS_DEPTH", 4));
    test::RandomExprGenerator gen(static_cast<uint64_t>(seed));
    std::mt19937_64 rng(static_cast<uint64_t>(seed) * 31 + 7);
    long points = 0, lanes_checked = 0, failures = 0, constant_results = 0, exact = 0;
    std::vector<double> ratios;
    for (long n = 0; n < expressions; n++) {
        Type t = gen.type();
        Expr e = gen.expr(t, gen.uniform(1, max_depth));
        std::map<std::string, Value> env = gen.env_for(e);
        Scope<Interval> scope;
        std::map<std::string, VarRange> ranges;
        for (const auto &[name, value] : env) {
            VarRange r = random_range(rng, value.type);
            ranges[name] = r;
            Type et = value.type.element_of();
            scope.push(name, Interval(scalar_const(et, r.lo), scalar_const(et, r.hi)));
        }
        Interval bounds = bounds_of_expr_in_scope(e, scope);
        ASSERT_FALSE(bounds.is_empty()) << e;
        End lo = evaluate_end(bounds.min), hi = evaluate_end(bounds.max);
        bool is_constant = is_const(bounds.min) && is_const(bounds.max);
        Type et = t.element_of();
        bool seen = false;
        int128 seen_lo = 0, seen_hi = 0;
        double seen_flo = 0, seen_fhi = 0;
        for (int p = 0; p < kPointsPerExpression; p++) {
            for (const auto &[name, r] : ranges)
                env[name] = random_point(rng, r);
            Value v = evaluate(e, env);
            points++;
            if (v.undefined) continue;
            for (int lane = 0; lane < t.lanes(); lane++) {
                lanes_checked++;
                bool ok = true;
                if (et.is_float()) {
                    double x = v.lanes[lane].f;
                    if (std::isnan(x)) {
                        // NaN is only allowed where the interval does not rule it out.
                        ok = !is_constant || !bounds.min.defined() || !bounds.max.defined();
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
                if (!ok && failures++ < 10) {
                    std::ostringstream vars;
                    for (const auto &[name, value] : env) {
                        const VarRange &r = ranges[name];
                        Type vt = r.type.element_of();
                        vars << name << " in "
                             << Interval(scalar_const(vt, r.lo), scalar_const(vt, r.hi)) << " = "
                             << value.to_string() << "; ";
                    }
                    ADD_FAILURE() << "expression " << e << "\nbounds " << bounds << "\nvalue "
                                  << v.to_string() << " (lane " << lane << ")\n"
                                  << vars.str();
                }
            }
        }
        if (is_constant && lo.known && hi.known && seen) {
            constant_results++;
            double width = et.is_float() ? hi.f - lo.f : static_cast<double>(hi.i - lo.i);
            double observed =
                et.is_float() ? seen_fhi - seen_flo : static_cast<double>(seen_hi - seen_lo);
            bool same = et.is_float() ? (seen_flo == lo.f && seen_fhi == hi.f)
                                      : (seen_lo == lo.i && seen_hi == hi.i);
            exact += same;
            ratios.push_back(width == 0 ? 1.0 : observed / width);
        }
    }
    EXPECT_EQ(failures, 0);
    std::sort(ratios.begin(), ratios.end());
    auto quantile = [&](double q) {
        return ratios.empty() ? 0.0 : ratios[static_cast<size_t>(q * (ratios.size() - 1))];
    };
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "[bounds] %ld expressions, %ld points, %ld lanes checked, %.1f s\n"
        "[bounds] constant intervals: %ld (%.1f%%); observed range == interval: %.1f%%; "
        "observed/interval width: median %.3f, p25 %.3f, p10 %.3f\n",
        expressions, points, lanes_checked, seconds, constant_results,
        100.0 * constant_results / expressions,
        constant_results ? 100.0 * exact / constant_results : 0.0, quantile(0.5), quantile(0.25),
        quantile(0.1));
}

}  // namespace
}  // namespace dsl
