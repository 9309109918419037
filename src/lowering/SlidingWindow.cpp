#include "lowering/SlidingWindow.h"

#include <algorithm>

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Monotonic.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/BoundsInference.h"
#include "lowering/LinearBounds.h"
#include "lowering/SplitRanges.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The largest circular buffer worth folding into: beyond it the saving is small and the modulo
/// on every access is not worth it.
constexpr int64_t kMaxFoldFactor = 1024;

Expr *find_let(std::vector<std::pair<std::string, Expr>> &lets, const std::string &name) {
    for (auto &[n, value] : lets) {
        if (n == name) return &value;
    }
    return nullptr;
}

bool non_decreasing(Monotonic m) {
    return m == Monotonic::Increasing || m == Monotonic::Constant;
}

bool non_increasing(Monotonic m) {
    return m == Monotonic::Decreasing || m == Monotonic::Constant;
}

/// Replaces coordinate `dimension` of every access to `func` by its value modulo `factor`.
class FoldAccesses : public IRMutator {
  public:
    FoldAccesses(std::string func, const Fold &fold) : func_(std::move(func)), fold_(fold) {}

  protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const auto *call = e.as<Call>();
        if (call->call_type != Call::CallType::Func || call->name != func_) return e;
        return call->with_args(folded(call->args));
    }
    Stmt visit(const Provide *op) override {
        Stmt s = IRMutator::visit(op);
        const auto *p = s.as<Provide>();
        if (p->name != func_) return s;
        return Provide::make(p->name, p->values, folded(p->args), p->predicate);
    }

  private:
    std::vector<Expr> folded(std::vector<Expr> args) const {
        Expr &a = args[fold_.dimension];
        a = a % make_const(a.type(), int64_t(fold_.factor));
        return args;
    }
    std::string func_;
    Fold fold_;
};

/// Whether the region `r`, linear in the loop variable `var`, never overlaps the one of the
/// previous iteration: both ends advance by the same step, and the region is shorter than it.
bool never_overlap(const ir::Interval &r, const std::string &var) {
    auto any = [](const Expr &) { return true; };
    std::optional<LinearForm> lo = linear_form(r.min, var, any), hi = linear_form(r.max, var, any);
    return lo && hi && lo->coeff == hi->coeff && lo->coeff > 0 &&
           can_prove(hi->rest - lo->rest < Expr(static_cast<int>(lo->coeff)));
}

}  // namespace

Expr fold_footprint(const lang::Function &producer, const std::vector<Interval> &required, int a) {
    Expr extent = simplify(required[a].max - required[a].min + 1);
    // A bound_extent() window holds more than is read.
    for (const schedule::Bound &b : producer.schedule().bounds) {
        if (!b.min.defined() && b.var == producer.args()[a])
            extent = simplify(dsl::max(extent, b.extent));
    }
    // A split that rounds up writes points past the region (and ShiftInwards before it): the
    // circular buffer must hold those too, or they land on slots of points the consumer still
    // reads.
    Overshoot over = rounding_overshoot(producer.stage(0).schedule, producer.args()[a]);
    return simplify(extent + over.before + over.after);
}

SlideResult slide_window(const lang::Function &producer, const std::vector<Interval> &required,
                         const std::vector<EnclosingLoop> &loops,
                         std::vector<std::pair<std::string, Expr>> &lets) {
    SlideResult result;
    // A producer with updates slides along a dimension where every stage covers the same
    // region as the last (func_bounds names each earlier stage's bounds by the next one's):
    // each stage loops over that dimension as a pure Var and reads the Func itself only at the
    // point it writes, so the rows are independent and every stage computes the new rows. And
    // every stage computes exactly its region along it: a split that shifts inwards or rounds
    // up, a bound(), bound_extent() or align_bounds() would run the stages again over rows
    // already finished (an update applied twice, or the first stage writing over its result),
    // and so might a specialization's schedule.
    const int last = producer.stages() - 1;
    auto all_stages_alike = [&](int a) {
        if (last == 0) return true;
        const std::string &var = producer.args()[a];
        for (const schedule::Bound &b : producer.schedule().bounds) {
            if (b.var == var) return false;
        }
        for (const schedule::BoundAlignment &al : producer.schedule().alignments) {
            if (al.var == var) return false;
        }
        for (int k = 0; k <= last; k++) {
            // (A specialization's schedule may split it otherwise: not looked into.)
            if (!producer.stage(k).specializations.empty()) return false;
            if (split_footprints(producer, k).count(var)) return false;
            if (k == last) break;
            for (bool max : {false, true}) {
                auto name = [&](int stage) {
                    std::string loop = names::stage_var(producer.name(), stage, var);
                    return max ? names::max_of(loop) : names::min_of(loop);
                };
                const Expr *value = find_let(lets, name(k));
                const auto *alias = value ? value->as<Variable>() : nullptr;
                if (!alias || alias->name != name(k + 1)) return false;
            }
        }
        return true;
    };
    std::vector<int> slid_dims;
    // Outermost loops first: blur_x computed per vector of blur_y and stored per strip of rows
    // slides down the rows, each iteration computing one new row of its vector (the columns the
    // inner loop walks are kept whole), where sliding along the columns alone would compute
    // every row three times and fold the vectorized dimension.
    for (auto from_outside = loops.rbegin(); from_outside != loops.rend(); ++from_outside) {
        const EnclosingLoop &loop = *from_outside;
        std::vector<int> dependent;
        for (size_t a = 0; a < required.size(); a++) {
            if (expr_uses_var(required[a].min, loop.var) ||
                expr_uses_var(required[a].max, loop.var)) {
                dependent.push_back(static_cast<int>(a));
            }
        }
        // The same region in every iteration, or several dimensions moving: look further in
        // (within one iteration of this loop, a loop inside still runs in order).
        if (dependent.size() != 1 || std::count(slid_dims.begin(), slid_dims.end(), dependent[0]))
            continue;
        if (loop.for_type != ForType::Serial && loop.for_type != ForType::Unrolled) continue;
        int a = dependent[0];
        if (!all_stages_alike(a)) continue;
        std::string dim_loop = names::stage_var(producer.name(), last, producer.args()[a]);
        Expr *min = find_let(lets, names::min_of(dim_loop));
        Expr *max = find_let(lets, names::max_of(dim_loop));
        if (!min || !max) return result;
        // Analysed at the min's let, where the names the bounds mention mean what they mean
        // when defined (the max's let comes after the min's, which changes below).
        Expr min_value = *min, max_value = *max;
        // A region of constant size ends at its min plus a constant (func_bounds): that is the
        // min before sliding, named by a let of its own.
        if (expr_uses_var(max_value, names::min_of(dim_loop))) {
            std::string unslid = names::min_of(dim_loop) + "_unslid";
            *max = substitute(names::min_of(dim_loop), Variable::make(Int(32), unslid), *max);
            max_value = substitute(names::min_of(dim_loop), min_value, max_value);
            auto at = std::find_if(lets.begin(), lets.end(), [&](const auto &let) {
                return let.first == names::min_of(dim_loop);
            });
            lets.insert(at, {unslid, min_value});
            // (The insertion moved the lets after it.)
            min = find_let(lets, names::min_of(dim_loop));
            max = find_let(lets, names::max_of(dim_loop));
        }
        // A bound_extent() window is a let of its own: seen through, its dependence on the
        // loop shows.
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
            if (is_window_let(producer, it->first)) {
                min_value = substitute(it->first, it->second, min_value);
                max_value = substitute(it->first, it->second, max_value);
            }
        }
        // The region moves with the loop only through names bound inside it (a split RVar's
        // value, `r = ro * k + ri + min`): the previous iteration's bounds cannot be had by
        // stepping the loop variable back, so this loop does not slide (fuzz case 22142
        // computed no new column in any iteration but the first).
        auto hidden = [&](const Expr &bound, const Expr &value) {
            return expr_uses_var(bound, loop.var) && !expr_uses_var(value, loop.var);
        };
        if (hidden(required[a].min, min_value) || hidden(required[a].max, max_value)) continue;
        // The region moves forward (both ends never decrease as the loop advances) or backward
        // (neither ever increases: `g(100 - x)`), each iteration computing what is new at its
        // front.
        const Monotonic at_min = is_monotonic(min_value, loop.var),
                        at_max = is_monotonic(max_value, loop.var);
        const bool forward = non_decreasing(at_min) && non_decreasing(at_max);
        if (!forward && !(non_increasing(at_min) && non_increasing(at_max))) continue;
        Expr var = Variable::make(Int(32), loop.var);
        // Further in, a loop whose iterations read disjoint regions (blur_y's vectors read
        // disjoint columns of blur_x, but for the clamp at the end) has nothing to save, and
        // its test would cost in every iteration.
        if (result.slid && never_overlap(required[a], loop.var)) {
            continue;
        }
        // Every iteration but the first computes only what is new: the test is marked likely,
        // so that PartitionLoops peels the first iteration off and the steady state's region
        // (one row of blur_x per row of blur_y) is a constant size the simplifier sees.
        Expr later = dsl::likely(var > loop.min);
        if (forward) {
            Expr previous_max = substitute(loop.var, var - 1, max_value);
            *min = simplify(select(later, dsl::max(min_value, previous_max + 1), min_value));
        } else {
            Expr previous_min = substitute(loop.var, var - 1, min_value);
            *max = simplify(select(later, dsl::min(max_value, previous_min - 1), max_value));
        }
        result.over += (result.slid ? " and " : "") + loop.var;
        slid_dims.push_back(a);
        // A loop further in may slide another dimension too: a row that an outer loop's
        // previous iteration has not computed is computed a column at a time, each column once.
        // The storage then keeps every column: only the outermost slid dimension is folded.
        if (result.slid) continue;
        result.slid = true;
        // A region moving backward is not folded (the circular buffer's slots are laid out for
        // one moving forward), nor a producer with updates (whose loops may write past the
        // region: fold_footprint allows for its first stage's only).
        if (!forward || last > 0) continue;
        // The circular buffer holds the rows of one computation and those the next iteration
        // of this loop reuses; a loop further in that moves the same dimension (a tile's rows
        // inside a slide over tiles) computes more rows in between, which would land on the
        // slots of rows still to be reused: no fold then.
        bool moved_further_in = false;
        for (auto inner = loops.begin(); inner != from_outside.base() - 1; ++inner) {
            moved_further_in |= expr_uses_var(required[a].min, inner->var) ||
                                expr_uses_var(required[a].max, inner->var);
        }
        if (moved_further_in) continue;
        Expr extent = fold_footprint(producer, required, a);
        if (auto e = as_const_int(extent); e && *e > 0 && *e <= kMaxFoldFactor) {
            int factor = 1;
            while (factor < *e)
                factor *= 2;
            result.fold = {a, factor};
        }
    }
    return result;
}

Stmt fold_storage(const Stmt &realize, const Fold &fold) {
    const auto *r = realize.as<Realize>();
    Region bounds = r->bounds;
    bounds[fold.dimension] = {make_zero(Int(32)), make_const(Int(32), int64_t(fold.factor))};
    Stmt body = FoldAccesses(r->name, fold).mutate(r->body);
    return Realize::make(r->name, r->types, r->memory_type, bounds, r->condition, body);
}

}  // namespace dsl::lowering
