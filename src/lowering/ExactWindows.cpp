#include "lowering/ExactWindows.h"

#include <map>
#include <set>

#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The largest tile (in elements) worth a second copy of the code that computes it: what
/// registers can hold, with room to spare (32 AVX-512 registers hold 512 floats).
constexpr int64_t kMaxTileElements = 1024;

Stmt wrap(const std::vector<std::pair<std::string, Expr>> &lets, Stmt s) {
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
        s = LetStmt::make(it->first, it->second, s);
    return s;
}

}  // namespace

Stmt exact_window_realization(const lang::Function &f, const std::vector<Interval> &required,
                              const std::vector<std::pair<std::string, Expr>> &lets,
                              const std::vector<Stmt> &checks,
                              const std::vector<Stmt> &produce_consume,
                              const std::function<Stmt(const Stmt &)> &realize) {
    std::vector<Stmt> checked = checks;
    checked.insert(checked.end(), produce_consume.begin(), produce_consume.end());
    Stmt as_is = realize(Block::make(checked));

    // Where the consumer's needs start (before any clamping), by the let that starts f's region
    // along each dimension in this iteration: the bound_extent() window, else the region of the
    // last stage (which the earlier stages' regions and the storage start from).
    const std::set<std::string> bound = [&] {
        std::set<std::string> names;
        for (const auto &let : lets)
            names.insert(let.first);
        return names;
    }();
    std::map<std::string, Expr> needs_start;
    bool windows = false;
    for (size_t d = 0; d < f.args().size(); d++) {
        const std::string &arg = f.args()[d];
        std::string window = names::window_min(f.name(), arg);
        std::string region = names::min_of(names::stage_var(f.name(), f.stages() - 1, arg));
        if (bound.count(window)) {
            needs_start[window] = required[d].min;
            windows = true;
        } else if (bound.count(region)) {
            needs_start[region] = required[d].min;
        }
    }
    if (!windows) return wrap(lets, as_is);
    for (const auto &[let, start] : needs_start) {
        // The start must mean the same inside the lets (it names the consumer's loops and the
        // pipeline's bounds, which the lets do not rebind).
        for (const std::string &name : free_names(start, false)) {
            if (bound.count(name)) return wrap(lets, as_is);
        }
    }

    // Only a small tile of constant size: one the code generator can keep in registers. (The
    // extents are constant once the lets they name are substituted.)
    int64_t elements = 1;
    size_t extents = 0;
    for (size_t i = 0; i < lets.size(); i++) {
        for (const std::string &a : f.args()) {
            if (lets[i].first != names::realized_extent(f.name(), a)) continue;
            Expr extent = lets[i].second;
            for (size_t j = i; j-- > 0;)
                extent = substitute(lets[j].first, lets[j].second, extent);
            std::optional<int64_t> value = as_const_int(simplify(extent));
            if (!value) return wrap(lets, as_is);
            elements *= *value;
            extents++;
        }
    }
    if (extents != f.args().size() || elements > kMaxTileElements) return wrap(lets, as_is);
    // Where every window starts at the consumer's needs and the checks pass, the copy with the
    // starts substituted computes the same as the realization as it is, without the checks.
    Expr exact;
    for (const auto &[window, start] : needs_start) {
        Expr same = Variable::make(Int(32), window) == start;
        exact = exact.defined() ? exact && same : same;
    }
    for (const Stmt &check : checks) {
        const auto *a = check.as<AssertStmt>();
        internal_assert(a) << "a check of " << f.name() << "'s windows is not an assertion";
        exact = exact && a->condition;
    }
    // In the copy, the lets whose values become the starts plus constants (the stages' loops,
    // the storage) are substituted, so that the storage's size is a constant and the consumer's
    // reads of it are at constant offsets; the others stay lets.
    std::map<std::string, Expr> known = needs_start;
    std::vector<std::pair<std::string, Expr>> inner;
    auto simple = [&](const Expr &e) {
        if (is_const(e) || e.as<Variable>()) return true;
        for (const auto &[window, start] : needs_start) {
            if (is_const(simplify(e - start))) return true;
        }
        return false;
    };
    for (const auto &[name, value] : lets) {
        if (needs_start.count(name)) continue;
        Expr v = simplify(substitute(known, value));
        if (simple(v)) {
            known[name] = v;
        } else {
            inner.push_back({name, v});
        }
    }
    // A substituted value must not name a let that stays (its name would mean that let's value
    // where the value lands).
    std::set<std::string> kept;
    for (const auto &let : inner)
        kept.insert(let.first);
    for (const auto &[name, value] : known) {
        for (const std::string &free : free_names(value, false)) {
            if (kept.count(free)) return wrap(lets, as_is);
        }
    }
    Stmt fast = wrap(inner, substitute(known, realize(Block::make(produce_consume))));
    return wrap(lets, IfThenElse::make(exact, fast, as_is));
}

}  // namespace dsl::lowering
