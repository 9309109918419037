#include "lowering/BoundsInference.h"

#include <algorithm>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "lowering/BoundsOverflow.h"
#include "lowering/Regions.h"
#include "lowering/ScheduleFunctions.h"
#include "lowering/SplitRanges.h"
#include "lowering/WrittenRegion.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;

namespace {

struct Lets {
    std::vector<std::pair<std::string, Expr>> bindings;  // outermost first
    void add(const std::string &name, const Expr &value) {
        bindings.push_back({name, simplify(value)});
    }
    Stmt wrap(Stmt s) const {
        for (auto it = bindings.rbegin(); it != bindings.rend(); ++it)
            s = LetStmt::make(it->first, it->second, s);
        return s;
    }
};

/// The region an output's buffer covers.
Box output_region(const Function &f) {
    std::string buffer = names::func_buffer(f.name(), 0, f.outputs());
    Box box;
    for (int d = 0; d < f.dimensions(); d++) {
        Expr min = Variable::make(Int(32), names::buffer_min(buffer, d));
        Expr extent = Variable::make(Int(32), names::buffer_extent(buffer, d));
        box.push_back(Interval(min, min + extent - 1));
    }
    return box;
}

/// What the consumers of `f` (other Funcs) read of it.
Box required_by_consumers(const Environment &env, const Function &f) {
    Box box;
    for (const std::string &name : env.order) {
        if (name == f.name()) continue;
        const Function &c = env.func(name);
        for (int s = 0; s < c.stages(); s++) {
            Box b = box_of_calls(c, s, f.name());
            require_bounded(b, f.name(), c.name());
            merge_boxes(box, b);
        }
    }
    return box;
}

}  // namespace

std::vector<std::pair<std::string, Expr>> func_bounds(const Function &f, const Box &required_in,
                                                      bool output, bool clamp_to_enclosing) {
    Lets lets;
    Box required = required_in;
    internal_assert(static_cast<int>(required.size()) == f.dimensions())
        << "no consumer reads " << f.name();
    // Never beyond the region the whole pipeline needs of stage k (defined by an enclosing let
    // of the same name): a split's last iteration may ask for points past the end, and an
    // update's footprint allows for rounding over any region (rounding_overshoot), which the
    // enclosing region holds but one iteration's does not need. Clamped into that region, so
    // that the bounds stay ordered (an iteration whose points all lie outside it, skipped by a
    // guard, still gets a non-empty region).
    auto clamp_to_stage = [&](Box &box, int k) {
        std::vector<std::string> pure = stage_pure_vars(f, k);
        for (int a = 0; a < f.dimensions(); a++) {
            // An update's loops cover only its pure Vars.
            if (std::find(pure.begin(), pure.end(), f.args()[a]) == pure.end()) continue;
            std::string loop = names::stage_var(f.name(), k, f.args()[a]);
            Expr lo = Variable::make(Int(32), names::min_of(loop));
            Expr hi = Variable::make(Int(32), names::max_of(loop));
            box[a].min = min(max(box[a].min, lo), hi);
            box[a].max = min(max(box[a].max, box[a].min), hi);
        }
    };
    if (clamp_to_enclosing) clamp_to_stage(required, 0);

    // Stages from last to first: each earlier stage also covers what later ones read.
    std::vector<Box> regions(f.stages());
    regions[f.stages() - 1] = required;
    for (int k = f.stages() - 1; k >= 0; k--) {
        for (const std::string &var : stage_pure_vars(f, k)) {
            int index = -1;
            for (int a = 0; a < f.dimensions(); a++) {
                if (f.args()[a] == var) index = a;
            }
            std::string loop = names::stage_var(f.name(), k, var);
            lets.add(names::min_of(loop), regions[k][index].min);
            lets.add(names::max_of(loop), regions[k][index].max);
        }
        if (k > 0) {
            Box self_reads = box_of_calls(f, k, f.name());
            require_bounded(self_reads, f.name(), f.name());
            regions[k - 1] = regions[k];
            merge_boxes(regions[k - 1], self_reads);
            if (clamp_to_enclosing) clamp_to_stage(regions[k - 1], k - 1);
        }
    }
    if (output) return lets.bindings;  // stored straight into the output buffer

    // The allocation: stage 0's region plus every point a stage writes (stage 0 writes more
    // when a split rounds up or shifts inwards).
    Box realized = regions[0];
    for (int k = 0; k < f.stages(); k++) {
        Box writes = box_of_writes(f, k);
        require_bounded(writes, f.name(), f.name());
        merge_boxes(realized, writes);
    }
    if (clamp_to_enclosing && f.stages() == 1 && split_footprints(f, 0).empty()) {
        // Computed per iteration of a consumer's loop: the clamped region holds no more than
        // the region asked for, which often has a constant size (a tile and its margin), and a
        // constant size lets the storage live on the stack.
        // The clamped region is never larger than that size, but an iteration asking only for
        // points outside the enclosing region (skipped by a guard) computes one point at its
        // edge: the storage slides to hold it.
        for (int a = 0; a < f.dimensions(); a++) {
            auto size = as_const_int(simplify(required_in[a].max - required_in[a].min + 1));
            if (size && *size >= 1) {
                Expr lo =
                    max(min(required_in[a].min, required[a].min), required[a].max - int(*size - 1));
                realized[a] = Interval(lo, lo + int(*size - 1));
            }
        }
    }
    for (int a = 0; a < f.dimensions(); a++) {
        const std::string &var = f.args()[a];
        lets.add(names::realized_min(f.name(), var), realized[a].min);
        lets.add(names::realized_max(f.name(), var), realized[a].max);
        // From the bounds themselves when that gives a constant (a constant-size allocation
        // can live on the stack), else from their names (shorter).
        Expr extent = simplify(realized[a].max - realized[a].min + 1);
        if (!as_const_int(extent)) {
            Expr min = Variable::make(Int(32), names::realized_min(f.name(), var));
            Expr max = Variable::make(Int(32), names::realized_max(f.name(), var));
            extent = max - min + 1;
        }
        lets.add(names::realized_extent(f.name(), var), extent);
    }
    return lets.bindings;
}

Stmt bounds_inference(const Environment &env, const Stmt &s) {
    Lets lets;
    std::vector<Stmt> checks;
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const Function &f = env.func(*it);
        bool output = env.is_output(f.name());
        Box required = output ? output_region(f) : required_by_consumers(env, f);
        // A user's bound() replaces the inferred region of that dimension; it must cover it.
        for (const schedule::Bound &b : f.schedule().bounds) {
            int d = 0;
            while (d < f.dimensions() && f.args()[d] != b.var)
                d++;
            std::string need_min = f.name() + "." + b.var + ".needed_min";
            std::string need_max = f.name() + "." + b.var + ".needed_max";
            lets.add(need_min, required[d].min);
            lets.add(need_max, required[d].max);
            Expr bound_min = b.min, bound_max = b.min + b.extent - 1;
            Expr needed_min = Variable::make(Int(32), need_min),
                 needed_max = Variable::make(Int(32), need_max);
            Expr report = Call::make(Int(32), "dsl_runtime_error_bound_too_small",
                                     {StringImm::make(f.name()), StringImm::make(b.var), needed_min,
                                      needed_max, bound_min, bound_max},
                                     Call::CallType::Extern);
            checks.push_back(
                AssertStmt::make(bound_min <= needed_min && needed_max <= bound_max, report));
            required[d] = Interval(bound_min, bound_max);
        }
        auto bounds = func_bounds(f, required, output, false);
        // Stored at root but computed inside loops: hold every point those loops can write.
        if (!output && f.schedule().store_level.is_root() &&
            f.schedule().compute_level.kind == schedule::LoopLevel::Kind::At &&
            has_rounding_split(f)) {
            widen_realized_to_writes(f, s, bounds);
        }
        for (Stmt &check : bounds_overflow_checks(f, bounds))
            checks.push_back(check);
        for (auto &b : bounds)
            lets.bindings.push_back(b);
    }
    checks.push_back(s);
    return lets.wrap(Block::make(checks));
}

}  // namespace dsl::lowering
