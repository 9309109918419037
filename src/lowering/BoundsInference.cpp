#include "lowering/BoundsInference.h"

#include "lowering/AutoTails.h"

#include <algorithm>

#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/StackAllocation.h"
#include "lowering/AutoTails.h"
#include "lowering/BoundsOverflow.h"
#include "lowering/ConstantUpperBound.h"
#include "lowering/ExternStages.h"
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

/// What the consumers of `f` (other Funcs) read of it; with `through_selects`, what they use
/// of it (box_of_calls).
Box required_by_consumers(const Environment &env, const Function &f, bool through_selects = false) {
    Box box;
    for (const std::string &name : env.order) {
        if (name == f.name()) continue;
        const Function &c = env.func(name);
        for (int s = 0; s < c.stages(); s++) {
            Box b = box_of_calls(c, s, f.name(), through_selects);
            require_bounded(b, f.name(), c.name());
            merge_boxes(box, b);
        }
    }
    return box;
}

}  // namespace

std::vector<std::pair<std::string, Expr>> func_bounds(const Function &f, const Box &required_in,
                                                      BoundsFor mode, std::vector<Stmt> *checks,
                                                      const std::map<std::string, int> &extents) {
    const bool output = mode == BoundsFor::Output;
    const bool storage = mode == BoundsFor::Storage || mode == BoundsFor::ExactStorage;
    const bool clamp_to_enclosing = mode == BoundsFor::Iteration || mode == BoundsFor::Storage;
    const bool iteration = mode == BoundsFor::Iteration || mode == BoundsFor::ExactIteration;
    Lets lets;
    Box required = required_in;
    internal_assert(static_cast<int>(required.size()) == f.dimensions())
        << "no consumer reads " << f.name();
    auto is_pure = [&](int k, const std::string &var) {
        std::vector<std::string> pure = stage_pure_vars(f, k);
        return std::find(pure.begin(), pure.end(), var) != pure.end();
    };
    // Never beyond the region the whole pipeline needs of stage k (defined by an enclosing let
    // of the same name): a split's last iteration may ask for points past the end, and an
    // update's footprint allows for rounding over any region (rounding_overshoot), which the
    // enclosing region holds but one iteration's does not need. Clamped into that region, so
    // that the bounds stay ordered (an iteration whose points all lie outside it, skipped by a
    // guard, still gets a non-empty region).
    auto enclosing = [&](int k, int a) {
        std::string loop = names::stage_var(f.name(), k, f.args()[a]);
        return Interval(Variable::make(Int(32), names::min_of(loop)),
                        Variable::make(Int(32), names::max_of(loop)));
    };
    auto clamp_to_stage = [&](Box &box, int k) {
        for (int a = 0; a < f.dimensions(); a++) {
            // An update's loops cover only its pure Vars.
            if (!is_pure(k, f.args()[a])) continue;
            Interval e = enclosing(k, a);
            // A single point stays one, visibly (a region of constant size).
            const bool point = equal(box[a].min, box[a].max);
            box[a].min = min(max(box[a].min, e.min), e.max);
            box[a].max = point ? box[a].min : min(max(box[a].max, box[a].min), e.max);
        }
    };
    // Whether `i` is exactly the range of stage k's loop over dimension a (an update that reads
    // or writes the Func at its own pure Var): what that stage's region already holds.
    auto is_loop_range = [&](const Interval &i, int k, int a) {
        std::string loop = names::stage_var(f.name(), k, f.args()[a]);
        const auto *lo = i.min.as<Variable>();
        const auto *hi = i.max.as<Variable>();
        return lo && hi && lo->name == names::min_of(loop) && hi->name == names::max_of(loop);
    };
    if (clamp_to_enclosing) clamp_to_stage(required, 0);
    // An extern stage computes the region its function answers when asked for what is needed:
    // it may widen it (round it to its tiles, say). Not an output's: that is its buffer's.
    if (f.is_extern() && !output) {
        const Box needed = required;
        required = queried_region(f, needed);
        if (checks && !storage) {
            for (int a = 0; a < f.dimensions(); a++)
                checks->push_back(extern_region_check(f, f.args()[a], needed[a].min, needed[a].max,
                                                      required[a].min, required[a].max,
                                                      "dsl_runtime_error_extern_region_too_small"));
        }
    }
    // bound(var, min, extent): wherever the Func is computed, it computes exactly that range, as
    // in Halide (the check at root says whether it holds what the consumers need), so that a
    // loop over var inside a consumer's loop keeps a constant extent and can be unrolled.
    if (iteration || storage) {
        for (const schedule::Bound &b : f.schedule().bounds) {
            if (!b.min.defined()) continue;
            auto arg = std::find(f.args().begin(), f.args().end(), b.var);
            if (arg == f.args().end()) continue;
            required[arg - f.args().begin()] = Interval(b.min, simplify(b.min + b.extent - 1));
        }
    }
    // align_bounds / align_extent: the region widened outwards to the alignment. Inside a
    // loop, the whole pipeline's region it was clamped into is aligned too, so the aligned
    // region stays inside it.
    if (!output) {
        for (const schedule::BoundAlignment &al : f.schedule().alignments) {
            auto arg = std::find(f.args().begin(), f.args().end(), al.var);
            if (arg == f.args().end()) continue;
            Interval &r = required[arg - f.args().begin()];
            Expr m = static_cast<int>(al.modulus), rem = static_cast<int>(al.remainder);
            Expr lo = al.extent_only ? r.min : ((r.min - rem) / m) * m + rem;
            // The extent rounded up to a multiple of m; an empty region stays empty.
            Expr hi = lo + ((r.max - lo + m) / m) * m - 1;
            r = Interval(simplify(lo), simplify(select(r.min <= r.max, hi, r.max)));
        }
    }

    // bound_extent(var, extent): every stage computes exactly `extent` points of var wherever
    // the Func is computed, a runtime error if they do not hold what it needs. Computed at
    // root, the window starts where the needs start. Computed inside a loop, the whole
    // pipeline's region of each stage is widened to at least that many points (the regions of
    // earlier stages hold those of later ones), and each iteration's window is slid into the
    // region of the last stage that loops over var, starting where that stage's needs start.
    struct FixedExtent {
        int dim;
        Expr extent;
        int last_stage;  // the last stage that loops over the dimension
    };
    std::vector<FixedExtent> fixed;
    for (const schedule::Bound &b : f.schedule().bounds) {
        if (b.min.defined()) continue;
        int a =
            static_cast<int>(std::find(f.args().begin(), f.args().end(), b.var) - f.args().begin());
        auto other = extents.find(b.var);
        fixed.push_back({a, other == extents.end() ? b.extent : Expr(other->second),
                         last_stage_over(f, b.var)});
    }
    // A Func that unrolls or vectorizes a loop over its whole region, computed per iteration of
    // a consumer's loop whose region has a constant size (a tile the consumer's split shifts
    // inwards or rounds up): as with bound_extent(), it computes a window of that size slid
    // into the whole pipeline's region, whose loops have that constant extent. Clamped into the
    // whole pipeline's region instead, the extent could not be proved constant. A runtime check
    // (below) makes sure that region holds a window.
    if (iteration && unrolls_whole_region(f)) {
        const size_t explicit_windows = fixed.size();
        for (int a = 0; a < f.dimensions(); a++) {
            bool explicit_window = false;
            for (size_t i = 0; i < explicit_windows; i++)
                explicit_window |= fixed[i].dim == a;
            // Per iteration and unclamped (ExactIteration), a partial tile's region stops at a
            // guard: its size is at most the tile's (a constant bound), not a constant. The
            // window then takes that bound, as it took the tile's size when the region was
            // the loops' whole box (Halide's unroll_dynamic_loop: a producer unrolled per tile
            // of 8 under a GuardWithIf split).
            const Expr extent_in = simplify(required_in[a].max - required_in[a].min + 1);
            auto size = as_const_int(extent_in);
            if (!size && mode == BoundsFor::ExactIteration)
                size = constant_upper_bound(extent_in, Scope<ConstantBounds>{});
            auto clamped = as_const_int(simplify(required[a].max - required[a].min + 1));
            if (explicit_window || !size || *size < 1 || clamped) continue;
            const int last = last_stage_over(f, f.args()[a]);
            const Expr extent = static_cast<int>(*size);
            fixed.push_back({a, extent, last});
            if (!checks) continue;
            Interval e = enclosing(last, a);
            Expr report = Call::make(
                Int(32), "dsl_runtime_error_region_smaller_than_window",
                {StringImm::make(f.name()), StringImm::make(f.args()[a]), extent, e.min, e.max},
                Call::CallType::Extern);
            checks->push_back(AssertStmt::make(e.max - e.min + 1 >= extent, report));
        }
    }
    auto window = [&](const FixedExtent &fx, const Interval &needed) {
        Interval e = enclosing(fx.last_stage, fx.dim);
        Expr first = e.max - (fx.extent - 1);
        Expr lo = max(min(needed.min, first), e.min);
        if (storage) {
            // Every window of the iterations inside: they start between these two points.
            return Interval(lo, max(min(needed.max, first), e.min) + fx.extent - 1);
        }
        return Interval(lo, lo + fx.extent - 1);
    };
    // A Func computed at root computes the window that starts where its needs start.
    const bool at_root = f.schedule().compute_level.is_root();
    std::vector<Interval> windows(fixed.size());
    auto apply_fixed = [&](Box &box, int k) {
        for (size_t i = 0; i < fixed.size(); i++) {
            const FixedExtent &fx = fixed[i];
            Interval &r = box[fx.dim];
            if (mode == BoundsFor::Root && !at_root) {
                // An empty region (an empty RDom's) stays empty: nothing is computed. (Any other
                // region holds one point.)
                if (!is_const_one(fx.extent))
                    r.max = select(r.min <= r.max, max(r.max, r.min + fx.extent - 1), r.max);
                continue;
            }
            if (k > fx.last_stage) continue;
            // The window and the region each stage needs are named by lets here, where the
            // names they mention mean what they mean now: the stages' own lets come later
            // and reuse the enclosing ones' names.
            auto bind = [&](const std::string &name, const Expr &value) {
                lets.add(name, value);
                return Variable::make(Int(32), name);
            };
            if (k == fx.last_stage) {
                Interval w = mode == BoundsFor::Root ? Interval(r.min, r.min + fx.extent - 1)
                                                     : window(fx, r);
                Expr lo = bind(names::window_min(f.name(), f.args()[fx.dim]), w.min);
                Expr hi = storage ? bind(names::window_max(f.name(), f.args()[fx.dim]), w.max)
                                  : lo + (fx.extent - 1);
                windows[i] = Interval(lo, hi);
            }
            if (checks && !storage) {
                const Interval &w = windows[i];
                const std::string &var = f.args()[fx.dim];
                Expr need_min = bind(names::needed_min(f.name(), var, k), r.min);
                Expr need_max = bind(names::needed_max(f.name(), var, k), r.max);
                Expr report =
                    Call::make(Int(32), "dsl_runtime_error_bound_too_small",
                               {StringImm::make(f.name()), StringImm::make(f.args()[fx.dim]),
                                need_min, need_max, w.min, w.max},
                               Call::CallType::Extern);
                checks->push_back(AssertStmt::make(w.min <= need_min && need_max <= w.max, report));
            }
            r = windows[i];
        }
    };
    if (mode != BoundsFor::Output) apply_fixed(required, f.stages() - 1);

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
            const Interval &r = regions[k][index];
            if (k + 1 < f.stages() && is_pure(k + 1, var) &&
                equal(r.min, regions[k + 1][index].min) &&
                equal(r.max, regions[k + 1][index].max)) {
                // The same region as the next stage's: named as that, so that the simplifier
                // sees that both stages (and the storage) start at the same point.
                std::string next = names::stage_var(f.name(), k + 1, var);
                lets.add(names::min_of(loop), Variable::make(Int(32), names::min_of(next)));
                lets.add(names::max_of(loop), Variable::make(Int(32), names::max_of(next)));
                continue;
            }
            lets.add(names::min_of(loop), r.min);
            // A region of constant size ends at its min plus a constant, which the simplifier
            // sees through: the loop's extent is a constant.
            Expr size = simplify(r.max - r.min);
            if (is_const(size)) {
                lets.add(names::max_of(loop), Variable::make(Int(32), names::min_of(loop)) + size);
            } else {
                lets.add(names::max_of(loop), r.max);
            }
        }
        if (k > 0) {
            Box self_reads = box_of_calls(f, k, f.name());
            require_bounded(self_reads, f.name(), f.name());
            // Reads at the stage's own loops add nothing to its region (and merging them would
            // hide that the region is, say, a single row).
            std::vector<bool> unchanged(f.dimensions(), self_reads.empty());
            for (int a = 0; a < static_cast<int>(self_reads.size()); a++) {
                if (is_loop_range(self_reads[a], k, a)) {
                    self_reads[a] = regions[k][a];
                    unchanged[a] = true;
                }
            }
            regions[k - 1] = regions[k];
            merge_boxes(regions[k - 1], self_reads);
            // A region stage k-1 takes unchanged from stage k lies inside the whole pipeline's
            // region of stage k-1 already when stage k's was clamped into its own (which the
            // earlier stage's holds) or into stage 0's: no clamp, so that it stays the same
            // expression.
            const bool already_inside = k < f.stages() - 1 || k - 1 == 0;
            if (clamp_to_enclosing) {
                Box clamped = regions[k - 1];
                clamp_to_stage(clamped, k - 1);
                for (int a = 0; a < f.dimensions(); a++) {
                    if (!(unchanged[a] && already_inside)) regions[k - 1][a] = clamped[a];
                }
            }
            if (mode != BoundsFor::Output) apply_fixed(regions[k - 1], k - 1);
        }
    }
    if (output) return lets.bindings;  // stored straight into the output buffer

    // The allocation: stage 0's region plus every point a stage writes (stage 0 writes more
    // when a split rounds up or shifts inwards).
    // Per iteration, the loops' bounds are the iteration's own, so the writes are exactly the
    // footprint of that region (with no allowance for other iterations' smaller regions, which
    // would misalign the storage: a ShiftInwards vector loop would start its rows a vector
    // early).
    Box realized = regions[0];
    const Regions writes_over = iteration ? Regions::One : Regions::Any;
    for (int k = 0; k < f.stages(); k++) {
        Box writes = box_of_writes(f, k, writes_over);
        require_bounded(writes, f.name(), f.name());
        // A stage writing exactly its loops' region writes inside stage 0's: each earlier stage
        // covers the later ones' regions (clamped into the whole pipeline's region of the
        // stage, which holds the later stages' regions). Not where bound_extent() moves the
        // windows.
        for (int a = 0; a < static_cast<int>(writes.size()); a++) {
            bool windowed = false;
            for (const FixedExtent &fx : fixed)
                windowed |= fx.dim == a;
            if (!windowed && is_loop_range(writes[a], k, a)) writes[a] = realized[a];
        }
        merge_boxes(realized, writes);
    }
    // (Not an extern stage's: its function may widen the region it is asked for.)
    const bool exact = mode == BoundsFor::ExactIteration || mode == BoundsFor::ExactStorage;
    if ((clamp_to_enclosing || mode == BoundsFor::Root || exact) && fixed.empty() &&
        f.stages() == 1 && !f.is_extern() && split_footprints(f, 0).empty()) {
        // Computed per iteration of a consumer's loop: the clamped region holds no more than
        // the region asked for, which often has a constant size (a tile and its margin), and a
        // constant size lets the storage live on the stack.
        // The clamped region is never larger than that size, but an iteration asking only for
        // points outside the enclosing region (skipped by a guard) computes one point at its
        // edge: the storage slides to hold it.
        // A producer of such a Func, computed at the same loop, is asked for the Func's clamped
        // region and its margin: a size with a constant upper bound (the Func's tile plus the
        // margin), not a constant. Its storage takes that bound where the whole allocation then
        // has a constant size small enough for the stack (a loose bound could be far larger
        // than any region), so that it lives on the stack as well.
        // Computed at root, likewise: a region whose size varies with the output but has a
        // small constant bound (f(x % 1000)) is stored in that bound, on the stack.
        // Per iteration and unclamped (ExactIteration), where a guard inside the consumer's
        // loop stops a partial tile short, the region is the tile's points up to the guard:
        // at most a tile, not a constant. Its storage takes that bound likewise; a region of
        // constant size keeps its storage as it is.
        std::vector<std::optional<int64_t>> sizes(f.dimensions()), bounds(f.dimensions());
        int64_t bound_elements = 1;
        for (int a = 0; a < f.dimensions(); a++) {
            const Expr extent = required_in[a].max - required_in[a].min + 1;
            sizes[a] = as_const_int(simplify(extent));
            bounds[a] = sizes[a] ? sizes[a] : constant_upper_bound(extent, Scope<ConstantBounds>{});
            bound_elements = bounds[a] && *bounds[a] >= 1 && bound_elements <= kMaxStackAllocation
                                 ? bound_elements * std::min(*bounds[a], kMaxStackAllocation + 1)
                                 : kMaxStackAllocation + 1;
        }
        int bytes = 0;
        for (const Type &t : f.output_types())
            bytes += t.bytes();
        const std::vector<std::optional<int64_t>> constant_sizes = sizes;
        if (bound_elements * bytes <= kMaxStackAllocation) sizes = bounds;
        for (int a = 0; a < f.dimensions(); a++) {
            std::optional<int64_t> size = sizes[a];
            if (exact && constant_sizes[a]) continue;
            if (size && *size >= 1) {
                // Aligned (see above), the region may be larger: at most the size rounded up
                // to the modulus, plus a modulus less one for align_bounds' shifted start.
                for (const schedule::BoundAlignment &al : f.schedule().alignments) {
                    if (al.var != f.args()[a]) continue;
                    int64_t span = *size + (al.extent_only ? 0 : al.modulus - 1);
                    size = (span + al.modulus - 1) / al.modulus * al.modulus;
                }
                Expr lo =
                    max(min(required_in[a].min, required[a].min), required[a].max - int(*size - 1));
                realized[a] = Interval(lo, lo + int(*size - 1));
            }
        }
    }
    for (int a = 0; a < f.dimensions(); a++) {
        const std::string &var = f.args()[a];
        if (equal(realized[a].min, regions[0][a].min) &&
            equal(realized[a].max, regions[0][a].max)) {
            // Stage 0's region, by its name (see the stages' lets above).
            std::string loop = names::stage_var(f.name(), 0, var);
            realized[a] = Interval(Variable::make(Int(32), names::min_of(loop)),
                                   Variable::make(Int(32), names::max_of(loop)));
        }
        lets.add(names::realized_min(f.name(), var), realized[a].min);
        lets.add(names::realized_max(f.name(), var), realized[a].max);
        // From the bounds themselves when that gives a constant (a constant-size allocation
        // can live on the stack), else from their names (shorter).
        Expr extent = simplify(realized[a].max - realized[a].min + 1);
        if (!as_const_int(extent)) {
            Expr min = Variable::make(Int(32), names::realized_min(f.name(), var));
            Expr max = Variable::make(Int(32), names::realized_max(f.name(), var));
            // An empty region (an empty RDom's) allocates nothing.
            extent = dsl::max(max - min + 1, 0);
        }
        lets.add(names::realized_extent(f.name(), var), extent);
    }
    return lets.bindings;
}

bool is_window_let(const Function &f, const std::string &name) {
    for (const std::string &var : f.args()) {
        if (name == names::window_min(f.name(), var) || name == names::window_max(f.name(), var))
            return true;
    }
    return false;
}

Stmt bounds_inference(const Environment &env, const Stmt &s) {
    Lets lets;
    std::vector<Stmt> checks;
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const Function &f = env.func(*it);
        bool output = env.is_output(f.name());
        Box required = output ? output_region(f) : required_by_consumers(env, f);
        // A Func computed and stored at root is computed where its consumers use it: a select
        // reads both branches, but keeps only one (`select(x < 100, f(x), g(x))` uses f at
        // x < 100). Its storage still holds all that is read (the other branch's loads read
        // points never computed, and drop them). Not for an extern stage, which computes what
        // its buffer covers.
        Box loaded;
        if (!output && !f.is_extern() && f.schedule().compute_level.is_root() &&
            f.schedule().store_level.is_root()) {
            Box used = required_by_consumers(env, f, true);
            bool narrower = false;
            if (used.size() == required.size()) {
                for (size_t d = 0; d < used.size(); d++) {
                    narrower |= !equal(used[d].min, required[d].min) ||
                                !equal(used[d].max, required[d].max);
                }
            }
            if (narrower) {
                loaded = required;
                required = used;
            }
        }
        if (output) {
            // An output that other outputs read is computed over what they read too; its
            // buffer must hold that (the check of the region it writes says so otherwise).
            Box read = required_by_consumers(env, f);
            if (!read.empty()) merge_boxes(required, read);
        }
        user_assert(!output || f.schedule().alignments.empty())
            << "Func \"" << f.name() << "\" is an output: align_bounds / align_extent("
            << f.schedule().alignments[0].var << ", ...) cannot change the region its buffer "
            << "covers. Align a Func it reads, or give the output a buffer of the aligned size.";
        // A user's bound() replaces the inferred region of that dimension; it must cover it.
        for (const schedule::Bound &b : f.schedule().bounds) {
            if (!b.min.defined()) {
                // bound_extent(): see func_bounds.
                user_assert(!output)
                    << "Func \"" << f.name() << "\" is an output: bound_extent(" << b.var
                    << ", ...) cannot change the region its buffer covers. Use bound(" << b.var
                    << ", min, extent) to fix that region, or bound_extent on a Func it reads.";
                continue;
            }
            int d = 0;
            while (d < f.dimensions() && f.args()[d] != b.var)
                d++;
            std::string need_min = f.name() + "." + b.var + ".needed_min";
            std::string need_max = f.name() + "." + b.var + ".needed_max";
            // (Where the loads reach past what is used, the bound must hold them too.)
            const Interval &needed = loaded.empty() ? required[d] : loaded[d];
            lets.add(need_min, needed.min);
            lets.add(need_max, needed.max);
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
            if (!loaded.empty()) loaded[d] = required[d];
        }
        auto bounds =
            func_bounds(f, required, output ? BoundsFor::Output : BoundsFor::Root, &checks);
        // Stored at root but computed inside loops: hold every point those loops can write.
        if (!output && f.schedule().store_level.is_root() &&
            f.schedule().compute_level.kind == schedule::LoopLevel::Kind::At &&
            has_rounding_split(f)) {
            widen_realized_to_writes(f, s, bounds);
        }
        if (!loaded.empty()) widen_realized(f, loaded, bounds);
        for (Stmt &check : bounds_overflow_checks(f, bounds))
            checks.push_back(check);
        for (auto &b : bounds)
            lets.bindings.push_back(b);
    }
    checks.push_back(s);
    return lets.wrap(Block::make(checks));
}

}  // namespace dsl::lowering
