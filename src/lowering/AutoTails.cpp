#include "lowering/AutoTails.h"

#include <set>
#include <string>
#include <vector>

namespace dsl::lowering {

using schedule::Split;

namespace {

/// `split`'s own loop and the loops the splits after it (from index `from`) make of it.
std::set<std::string> loops_made_from(const std::vector<Split> &splits, size_t from,
                                      const std::string &var) {
    std::set<std::string> made{var};
    for (size_t k = from; k < splits.size(); k++) {
        const Split &s = splits[k];
        switch (s.kind) {
            case Split::Kind::SplitVar:
                if (made.count(s.old_var)) {
                    made.insert(s.outer);
                    made.insert(s.inner);
                }
                break;
            case Split::Kind::FuseVars:
                if (made.count(s.inner) || made.count(s.outer)) made.insert(s.old_var);
                break;
            case Split::Kind::RenameVar:
                if (made.count(s.old_var)) made.insert(s.outer);
                break;
        }
    }
    return made;
}

/// Position of loop `var` in `dims` (innermost first), or -1.
int position(const std::vector<schedule::Dim> &dims, const std::string &var) {
    for (size_t i = 0; i < dims.size(); i++) {
        if (dims[i].var == var) return static_cast<int>(i);
    }
    return -1;
}

/// Whether some loop of `loops` sits inside position `at` (`inside`) or at or outside it.
bool any_loop(const std::vector<schedule::Dim> &dims, const std::set<std::string> &loops, int at,
              bool inside) {
    for (const std::string &v : loops) {
        int p = position(dims, v);
        if (p < 0) continue;
        if (inside ? p < at : p >= at) return true;
    }
    return false;
}

/// Resolves the Auto splits of a pure definition (and of its specializations), given the loops
/// of its stage that producers are computed at. (A pure definition has no RDom: every split is
/// of a pure Var.)
void resolve(lang::Definition &d, const std::vector<std::string> &producer_loops) {
    std::vector<Split> &splits = d.schedule.splits;
    for (size_t i = 0; i < splits.size(); i++) {
        Split &s = splits[i];
        if (s.kind != Split::Kind::SplitVar || s.tail != TailStrategy::Auto) continue;
        std::set<std::string> outer = loops_made_from(splits, i + 1, s.outer);
        std::set<std::string> inner = loops_made_from(splits, i + 1, s.inner);
        for (const std::string &loop : producer_loops) {
            int at = position(d.schedule.dims, loop);
            if (at >= 0 && any_loop(d.schedule.dims, inner, at, true) &&
                any_loop(d.schedule.dims, outer, at, false)) {
                s.tail = TailStrategy::ShiftInwards;
                break;
            }
        }
    }
    for (lang::Specialization &spec : d.specializations)
        resolve(spec.definition, producer_loops);
}

/// Whether a stage's schedule unrolls or vectorizes a pure loop whose extent is the region
/// computed: a Var of the Func, or a loop made from one other than the inner loop of a split
/// by a factor (renamed or fused with another such inner loop, it keeps its constant extent).
bool unrolls_its_region(const lang::Definition &d) {
    std::set<std::string> constant;  // loops of a constant extent
    for (const Split &s : d.schedule.splits) {
        switch (s.kind) {
            case Split::Kind::SplitVar:
                constant.insert(s.inner);
                if (constant.count(s.old_var)) constant.insert(s.outer);
                break;
            case Split::Kind::RenameVar:
                if (constant.count(s.old_var)) constant.insert(s.outer);
                break;
            case Split::Kind::FuseVars:
                if (constant.count(s.inner) && constant.count(s.outer)) constant.insert(s.old_var);
                break;
        }
    }
    for (const schedule::Dim &dim : d.schedule.dims) {
        bool fixed_size =
            dim.for_type == ir::ForType::Unrolled || dim.for_type == ir::ForType::Vectorized;
        if (fixed_size && !dim.is_rvar && !constant.count(dim.var)) return true;
    }
    for (const lang::Specialization &spec : d.specializations) {
        if (unrolls_its_region(spec.definition)) return true;
    }
    return false;
}

}  // namespace

bool unrolls_whole_region(const lang::Function &f) {
    for (int k = 0; k < f.stages(); k++) {
        if (unrolls_its_region(f.stage(k))) return true;
    }
    return false;
}

void resolve_auto_tails(Environment &env) {
    for (const std::string &name : env.order) {
        const lang::Function &f = env.func(name);
        // A Func computed inside a loop keeps GuardWithIf: its region there can be smaller
        // than a factor.
        if (f.schedule().compute_level.kind == schedule::LoopLevel::Kind::At) continue;
        // Only the pure definition may shift inwards: an update must not run twice at a point.
        std::vector<std::string> producer_loops;
        for (const std::string &producer : env.order) {
            const schedule::LoopLevel &level = env.func(producer).schedule().compute_level;
            if (level.kind == schedule::LoopLevel::Kind::At && level.func == name &&
                level.stage == 0 && unrolls_whole_region(env.func(producer))) {
                producer_loops.push_back(level.var);
            }
        }
        if (producer_loops.empty()) continue;
        resolve(f.stage(0), producer_loops);
    }
}

}  // namespace dsl::lowering
