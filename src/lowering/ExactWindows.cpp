#include "lowering/ExactWindows.h"

#include <optional>
#include <set>

#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/ScheduleFunctions.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The largest tile (in elements) worth copies of the code that computes it: what registers can
/// hold, with room to spare (32 AVX-512 registers hold 512 floats).
constexpr int64_t kMaxTileElements = 1024;
/// The largest window (in points along its dimension) whose smaller counts of needed points
/// get copies of their own (one per count).
constexpr int kMaxPartialCopies = 8;

/// `e` with `lets` substituted, innermost first: in terms of the names outside them.
Expr inline_lets(const LetList &lets, Expr e) {
    for (size_t j = lets.size(); j-- > 0;)
        e = substitute(lets[j].first, lets[j].second, e);
    return simplify(e);
}

/// How many points f's storage holds under `lets`, where that is a constant.
std::optional<int64_t> constant_size(const lang::Function &f, const LetList &lets) {
    int64_t elements = 1;
    size_t extents = 0;
    for (size_t i = 0; i < lets.size(); i++) {
        for (const std::string &a : f.args()) {
            if (lets[i].first != names::realized_extent(f.name(), a)) continue;
            LetList before(lets.begin(), lets.begin() + static_cast<std::ptrdiff_t>(i));
            std::optional<int64_t> value = as_const_int(inline_lets(before, lets[i].second));
            if (!value) return std::nullopt;
            elements *= *value;
            extents++;
        }
    }
    if (extents != f.args().size()) return std::nullopt;
    return elements;
}

/// `realization` under `lets`, with the lets named in `starts` replaced by the expressions there
/// (where the consumer's needs start). The lets whose values become those starts plus
/// constants (the stages' loops, the storage) are substituted too, so that the storage's size
/// is a constant and the consumer reads it at constant offsets; the others stay lets.
/// Undefined where a substituted value would name a let that stays.
Stmt at_needs(const LetList &lets, const std::map<std::string, Expr> &starts,
              const Stmt &realization) {
    std::map<std::string, Expr> known = starts;
    LetList kept;
    auto simple = [&](const Expr &e) {
        if (is_const(e) || e.as<Variable>()) return true;
        for (const auto &[name, start] : starts) {
            if (is_const(simplify(e - start))) return true;
        }
        return false;
    };
    for (const auto &[name, value] : lets) {
        if (starts.count(name)) continue;
        Expr v = simplify(substitute(known, value));
        if (simple(v)) {
            known[name] = v;
        } else {
            kept.push_back({name, v});
        }
    }
    std::set<std::string> kept_names;
    for (const auto &let : kept)
        kept_names.insert(let.first);
    for (const auto &[name, value] : known) {
        for (const std::string &free : free_names(value, false)) {
            if (kept_names.count(free)) return Stmt();
        }
    }
    return wrap_lets(kept, substitute(known, realization));
}

/// The conjunction of `a` (if defined) and `b`.
Expr both(const Expr &a, const Expr &b) {
    return a.defined() ? a && b : b;
}

/// A copy for a partial tile and when it applies (in terms of the names `lets` bind).
struct PartialCopy {
    Stmt copy;
    Expr when;
};

/// The copies for a consumer's tile that a guard stops short along dimension `d`, where f's
/// window there holds a few points: one per smaller count of needed points, computing exactly
/// those (which the window as it is, slid back, holds). None along a dimension f vectorizes
/// (fewer points than a vector is the vectorizer's business, its masks), or where the needs
/// along `d` depend on no loop that a guard stops short (one of `partial_loops`). Each applies
/// where the needs, as func_bounds clamps them into the pipeline's region (a partial tile's
/// unrolled loop asks for a whole tile, behind guards), start at the consumer's needs and hold
/// that many points inside the window; the caller adds that the other windows start at theirs.
std::vector<PartialCopy> partial_copies(const lang::Function &f, int d, const Interval &required,
                                        const LetList &lets,
                                        const std::map<std::string, Expr> &starts,
                                        const IterationBounds &bounds, const Stmt &realization,
                                        const std::set<std::string> &partial_loops) {
    const std::string &arg = f.args()[d];
    std::optional<int64_t> extent;
    for (const schedule::Bound &b : f.schedule().bounds) {
        if (b.var == arg && !b.min.defined()) extent = as_const_int(b.extent);
    }
    if (!extent || *extent < 2 || *extent > kMaxPartialCopies) return {};
    bool partial = false;
    for (const Expr &e : {required.min, required.max}) {
        for (const std::string &name : free_names(e, false))
            partial |= partial_loops.count(name) > 0;
    }
    if (!partial) return {};
    for (int k = 0; k < f.stages(); k++) {
        const schedule::StageSchedule &schedule = f.stage(k).schedule;
        for (const std::string &loop : derived_loops(schedule, arg)) {
            for (const schedule::Dim &dim : schedule.dims) {
                if (dim.var == loop && dim.for_type == ForType::Vectorized) return {};
            }
        }
    }
    // The needs of the last stage that loops over the dimension (the window's).
    const int last = last_stage_over(f, arg);
    const Expr w = Variable::make(Int(32), names::window_min(f.name(), arg));
    const Expr lo = Variable::make(Int(32), names::needed_min(f.name(), arg, last));
    const Expr hi = Variable::make(Int(32), names::needed_max(f.name(), arg, last));
    std::vector<PartialCopy> copies;
    for (int points = 1; points < *extent; points++) {
        Stmt copy = at_needs(bounds({{arg, points}}, nullptr), starts, realization);
        if (!copy.defined()) continue;
        Expr when = lo == required.min && hi - lo == points - 1 && w <= lo &&
                    hi <= w + static_cast<int>(*extent - 1);
        copies.push_back({copy, when});
    }
    return copies;
}

}  // namespace

Stmt exact_window_realization(const lang::Function &f, const std::vector<Interval> &required,
                              const IterationBounds &bounds,
                              const std::vector<Stmt> &produce_consume,
                              const std::function<Stmt(const Stmt &)> &realize,
                              const std::set<std::string> &partial_loops) {
    std::vector<Stmt> checks;
    const LetList lets = bounds({}, &checks);
    std::vector<Stmt> checked = checks;
    checked.insert(checked.end(), produce_consume.begin(), produce_consume.end());
    const Stmt as_is = wrap_lets(lets, realize(Block::make(checked)));

    // Where the consumer's needs start (before any clamping), by the let that starts f's region
    // along each dimension in this iteration: the bound_extent() window, else the region of the
    // last stage (which the earlier stages' regions and the storage start from).
    std::set<std::string> bound;
    for (const auto &let : lets)
        bound.insert(let.first);
    std::map<std::string, Expr> starts;
    std::vector<int> windowed;  // the dimensions with a window
    for (size_t d = 0; d < f.args().size(); d++) {
        const std::string &arg = f.args()[d];
        std::string window = names::window_min(f.name(), arg);
        std::string region = names::min_of(names::stage_var(f.name(), f.stages() - 1, arg));
        if (bound.count(window)) {
            starts[window] = required[d].min;
            windowed.push_back(static_cast<int>(d));
        } else if (bound.count(region)) {
            starts[region] = required[d].min;
        }
    }
    if (windowed.empty()) return as_is;
    for (const auto &[let, start] : starts) {
        // The start must mean the same inside the lets (it names the consumer's loops and the
        // pipeline's bounds, which the lets do not rebind).
        for (const std::string &name : free_names(start, false)) {
            if (bound.count(name)) return as_is;
        }
    }
    // Only a small tile of constant size: one the code generator can keep in registers.
    std::optional<int64_t> size = constant_size(f, lets);
    if (!size || *size > kMaxTileElements) return as_is;

    // Where every window starts at the consumer's needs and the checks pass, the copy computes
    // what the realization as it is computes, without the checks. The tests are in terms of the
    // names outside the lets, as the copies are: the lets rebind names of the pipeline's bounds.
    Expr windows_hold;
    for (const Stmt &check : checks) {
        const auto *a = check.as<AssertStmt>();
        internal_assert(a) << "a check of " << f.name() << "'s windows is not an assertion";
        windows_hold = both(windows_hold, a->condition);
    }
    auto starts_at_needs = [&](const std::string &except) {
        Expr all = windows_hold;
        for (const auto &[let, start] : starts) {
            if (let != except) all = both(all, Variable::make(Int(32), let) == start);
        }
        return all;
    };
    // The realization without the checks, which every copy starts from.
    const Stmt realization = realize(Block::make(produce_consume));
    Stmt exact = at_needs(lets, starts, realization);
    if (!exact.defined()) return as_is;
    Stmt result = as_is;

    for (int d : windowed) {
        for (const PartialCopy &copy :
             partial_copies(f, d, required[d], lets, starts, bounds, realization, partial_loops)) {
            Expr applies = starts_at_needs(names::window_min(f.name(), f.args()[d])) && copy.when;
            result = IfThenElse::make(inline_lets(lets, applies), copy.copy, result);
        }
    }
    return IfThenElse::make(inline_lets(lets, starts_at_needs("")), exact, result);
}

}  // namespace dsl::lowering
