#include "lowering/ScheduleFunctions.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <utility>

#include "ir/BufferConstraints.h"
#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Interval.h"
#include "ir/Names.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/BoundsInference.h"
#include "lowering/ComputeWith.h"
#include "lowering/ComputedInside.h"
#include "lowering/ExactWindows.h"
#include "lowering/ExternStages.h"
#include "lowering/InlineFunctions.h"
#include "lowering/LinearBounds.h"
#include "lowering/Prefetches.h"
#include "lowering/Regions.h"
#include "lowering/SlidingWindow.h"
#include "lowering/SplitRanges.h"
#include "lowering/WrittenRegion.h"

namespace dsl::lowering {

using namespace ir;
using lang::Definition;
using lang::Function;

namespace {

/// How many iterations of the loop `var`, starting at `min`, pass the guard `a + var <= b` of a
/// GuardWithIf split (a and b free of `var`): b - a - min + 1, at most the loop's own extent
/// once the caller takes the minimum. Undefined for a guard of another shape.
Expr iterations_within(const Expr &guard, const std::string &var, const Expr &min) {
    const auto *le = guard.as<LE>();
    if (!le) return Expr();
    const auto *sum = le->a.as<Add>();
    const auto *v = sum ? sum->b.as<Variable>() : nullptr;
    if (!v || v->name != var || expr_uses_var(sum->a, var) || expr_uses_var(le->b, var))
        return Expr();
    return (le->b - sum->a) - min + 1;
}

/// Whether a where() condition can be tested outside loops the stage runs: it reads no Func
/// (which those loops may write, or compute inside them) and calls nothing outside.
bool movable_condition(const Expr &e) {
    class Finder : public IRVisitor {
      public:
        bool fixed = true;

      protected:
        using IRVisitor::visit;
        void visit(const Call *op) override {
            fixed &= op->call_type == Call::CallType::Intrinsic ||
                     op->call_type == Call::CallType::Image ||
                     op->call_type == Call::CallType::PureExtern;
            IRVisitor::visit(op);
        }
        void visit(const Load *op) override {
            fixed = false;
            IRVisitor::visit(op);
        }
    } finder;
    finder.include(e);
    return finder.fixed && e.type().is_scalar();
}

}  // namespace

std::vector<std::string> stage_pure_vars(const Function &f, int stage) {
    if (stage == 0) return f.args();
    std::vector<std::string> vars;
    const Definition &d = f.stage(stage);
    for (int i = 0; i < f.dimensions(); i++) {
        const auto *v = d.args[i].as<Variable>();
        if (v && v->name == f.args()[i]) vars.push_back(v->name);
    }
    return vars;
}

int last_stage_over(const Function &f, const std::string &var) {
    int last = f.stages() - 1;
    while (last > 0) {
        std::vector<std::string> pure = stage_pure_vars(f, last);
        if (std::find(pure.begin(), pure.end(), var) != pure.end()) break;
        last--;
    }
    return last;
}

lang::Definition rename_stage_vars(const Function &f, int stage) {
    const Definition &d = f.stage(stage);
    std::map<std::string, Expr> renames;
    for (const std::string &a : f.args())
        renames[a] = Variable::make(Int(32), names::stage_var(f.name(), stage, a));
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain()) {
            renames[rv.var] = Variable::make(Int(32), names::stage_var(f.name(), stage, rv.var));
        }
    }
    Definition r = d;
    for (Expr &e : r.args)
        e = substitute(renames, e);
    for (Expr &e : r.values)
        e = substitute(renames, e);
    r.predicate = substitute(renames, r.predicate);
    return r;
}

std::vector<std::string> derived_loops(const schedule::StageSchedule &schedule,
                                       const std::string &var) {
    std::vector<std::string> derived{var};
    for (const schedule::Split &s : schedule.splits) {
        bool from = false;
        for (const std::string &v : derived) {
            from |= v == s.old_var ||
                    (s.kind == schedule::Split::Kind::FuseVars && (v == s.inner || v == s.outer));
        }
        if (!from) continue;
        switch (s.kind) {
            case schedule::Split::Kind::SplitVar:
                derived.push_back(s.outer);
                derived.push_back(s.inner);
                break;
            case schedule::Split::Kind::FuseVars:
                derived.push_back(s.old_var);
                break;
            case schedule::Split::Kind::RenameVar:
                derived.push_back(s.outer);
                break;
        }
    }
    return derived;
}

Stmt wrap_lets(const std::vector<std::pair<std::string, Expr>> &lets, Stmt s) {
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
        s = LetStmt::make(it->first, it->second, s);
    return s;
}

namespace {

/// The coordinates of the calls to Funcs and inputs that use `var` (a fused loop), simplified
/// where they call nothing themselves: only an index changes (the stage's values as a whole
/// are not simplified, which could drop a call whose producer is scheduled inside the loops).
class SimplifyCallIndices : public IRMutator {
  public:
    explicit SimplifyCallIndices(std::string var) : var_(std::move(var)) {}

  private:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const auto *call = e.as<Call>();
        if (call->call_type != Call::CallType::Func && call->call_type != Call::CallType::Image)
            return e;
        std::vector<Expr> args = call->args;
        bool changed = false;
        for (Expr &a : args) {
            if (!expr_uses_var(a, var_) || any_call(a, [](const Call *) { return true; })) continue;
            Expr simpler = simplify(a);
            changed |= !simpler.same_as(a);
            a = simpler;
        }
        return changed ? call->with_args(std::move(args)) : e;
    }
    const std::string var_;
};

/// The bound() of `f`'s pure dimension `var`, where it gives both a min and an extent and no
/// alignment widens the region past it: the range every stage's loop over `var` runs.
const schedule::Bound *exact_bound(const Function &f, const std::string &var) {
    const schedule::FuncSchedule &s = f.schedule();
    for (const schedule::BoundAlignment &a : s.alignments) {
        if (a.var == var) return nullptr;
    }
    for (const schedule::Bound &b : s.bounds) {
        if (b.var == var && b.min.defined() && b.extent.defined()) return &b;
    }
    return nullptr;
}

/// Extern stage `f`, stored further out than it is computed, was sized there by one bounds
/// query over all the iterations inside; one iteration's may widen its region past that
/// storage (rounding it to a tile, say). A runtime check that it does not.
void check_extern_region_in_storage(const Function &f, std::vector<Stmt> *checks) {
    for (const std::string &var : f.args()) {
        std::string loop = names::stage_var(f.name(), 0, var);
        checks->push_back(
            extern_region_check(f, var, Variable::make(Int(32), names::min_of(loop)),
                                Variable::make(Int(32), names::max_of(loop)),
                                Variable::make(Int(32), names::realized_min(f.name(), var)),
                                Variable::make(Int(32), names::realized_max(f.name(), var)),
                                "dsl_runtime_error_extern_region_outside_storage"));
    }
}

bool is_realized_name(const Function &f, const std::string &name) {
    for (const std::string &a : f.args()) {
        if (name == names::realized_min(f.name(), a) || name == names::realized_max(f.name(), a) ||
            name == names::realized_extent(f.name(), a)) {
            return true;
        }
    }
    return false;
}

/// Builds the loop nests of the pipeline's Funcs, remembering how sliding windows fold the
/// storage of the producers they apply to.
class NestBuilder {
  public:
    explicit NestBuilder(Environment &env)
        : env_(env), extern_inputs_(extern_stage_inputs(env.funcs)) {}

    /// produce f { every stage's loops }
    Stmt produce(const Function &f) {
        if (f.is_extern())
            return ProducerConsumer::make(f.name(), true, extern_stage_call(env_, f));
        // A group of Funcs compute_with fuses: all their stages run where the last is produced
        // (each is realized around it by then).
        auto group = env_.fused.find(f.name());
        if (group != env_.fused.end()) {
            Stmt stages = Evaluate::make(make_zero(Int(32)));
            if (group->second.back() == f.name()) {
                stages = fused_group_stages(env_, f.name(),
                                            [&](const Function &g, int k) { return stage(g, k); });
            }
            return ProducerConsumer::make(f.name(), true, stages);
        }
        std::vector<Stmt> stages;
        for (int s = 0; s < f.stages(); s++)
            stages.push_back(stage(f, s));
        return ProducerConsumer::make(f.name(), true, Block::make(stages));
    }

    /// The storage of `f` around `body`, over the region that the lets `<f>.<x>.min_realized`
    /// and `<f>.<x>.extent_realized` define (folded if a sliding window allows it).
    Stmt storage(const Function &f, const Stmt &body) {
        Region bounds;
        for (const std::string &a : f.args()) {
            bounds.push_back({Variable::make(Int(32), names::realized_min(f.name(), a)),
                              Variable::make(Int(32), names::realized_extent(f.name(), a))});
        }
        Stmt s = Realize::make(f.name(), f.output_types(), f.schedule().memory_type, bounds,
                               make_bool(true), body);
        auto fold = folds_.find(f.name());
        user_assert(f.schedule().storage_folds.empty() || fold != folds_.end())
            << "Func \"" << f.name() << "\", fold_storage of \""
            << f.schedule().storage_folds.back().var << "\": the Func is stored where it is "
            << "computed, so there is no loop to fold over. Store it further out (e.g. " << f.name()
            << ".store_root().compute_at(consumer, y)), or remove fold_storage().";
        if (fold != folds_.end() && fold->second) {
            s = fold_storage(s, *fold->second);
            env_.store_notes[f.name()] = "folded: " + f.args()[fold->second->dimension] + " mod " +
                                         std::to_string(fold->second->factor);
        }
        return s;
    }

  private:
    /// The loops of one stage: its schedule, or, for each specialization in turn, a test of its
    /// condition and its schedule's loops.
    Stmt stage(const Function &f, int stage) { return specialized(f, stage, f.stage(stage)); }
    Stmt specialized(const Function &f, int stage, const Definition &variant) {
        Stmt s;
        if (variant.specialize_fail.empty()) {
            s = stage_loops(f, stage, variant);
        } else {
            // No loops: nothing runs there, so the Funcs computed in the stage's loops need
            // not find theirs in this variant's schedule (they may be loops of the
            // specializations alone).
            Expr report = Call::make(
                Int(32), "dsl_runtime_error_specialize_fail",
                {StringImm::make(f.name()), Expr(stage), StringImm::make(variant.specialize_fail)},
                Call::CallType::Extern);
            s = AssertStmt::make(make_bool(false), report);
        }
        const auto &specializations = variant.specializations;
        for (auto it = specializations.rbegin(); it != specializations.rend(); ++it) {
            // A condition on the Func's own output buffer needs the Func to be an output.
            if (!env_.is_output(f.name())) {
                const std::set<std::string> fields = lang::output_buffer_fields(f);
                for (const std::string &v : free_names(it->condition, false)) {
                    user_assert(!fields.count(v))
                        << "Func \"" << f.name() << "\" is specialized on the bounds of its "
                        << "output buffer (" << it->condition << "), but it is not an output of "
                        << "this pipeline, so it has no output buffer. Specialize on a Param "
                        << "instead.";
                }
            }
            s = IfThenElse::make(it->condition, specialized(f, stage, it->definition), s);
        }
        return s;
    }
    /// The loops of stage `stage` of `f` as the schedule of `variant` (the stage's definition or
    /// one of its specializations) says.
    Stmt stage_loops(const Function &f, int stage, const Definition &variant);

    /// Computes `producer` inside a loop of a consumer over the `required` region: the lets of
    /// its per-iteration bounds, then produce producer; consume producer { body }. Stored here
    /// too unless it is stored further out (`between`: the loops from here to its storage).
    /// `partial_loops`: the consumer's loops that a PartialTile split's guard may stop short of a
    /// tile. `mode`: Iteration, or ExactIteration where `required` lies inside the producer's
    /// whole-pipeline region.
    Stmt compute(const Function &producer, const Box &required, const Stmt &body, bool store_here,
                 const std::vector<EnclosingLoop> &between,
                 const std::set<std::string> &partial_loops, BoundsFor mode) {
        std::vector<Stmt> produce_consume = {produce(producer),
                                             ProducerConsumer::make(producer.name(), false, body)};
        if (store_here) {
            return exact_window_realization(
                producer, required,
                [&](const std::map<std::string, int> &extents, std::vector<Stmt> *checks) {
                    return func_bounds(producer, required, mode, checks, extents);
                },
                produce_consume, [&](const Stmt &s) { return storage(producer, s); },
                partial_loops);
        }
        std::vector<Stmt> checks;
        auto lets = func_bounds(producer, required, mode, &checks);
        if (producer.is_extern()) check_extern_region_in_storage(producer, &checks);
        // The storage's bounds come from further out; only the loop bounds are set here.
        std::vector<std::pair<std::string, Expr>> loop_lets;
        for (auto &let : lets) {
            if (!is_realized_name(producer, let.first)) loop_lets.push_back(let);
        }
        lets = loop_lets;
        // A Func of a compute_with group is produced with the others: no sliding window.
        SlideResult slide = env_.fused.count(producer.name())
                                ? SlideResult{}
                                : slide_window(producer, required, between, lets);
        if (slide.slid) {
            env_.produce_notes[producer.name()] = "sliding window over " + slide.over;
        }
        // The producer is computed here once per copy of the consumer's loops (each
        // specialization, each part of a partitioned loop), each with its own region per
        // iteration: its storage folds only if every copy allows it, by the largest factor.
        std::optional<Fold> mine;
        // An extern stage sees storage through strides: nothing it reads or writes folds.
        if (slide.slid && slide.fold.dimension >= 0 && !extern_related(producer)) mine = slide.fold;
        if (!producer.schedule().storage_folds.empty()) {
            mine = requested_fold(producer, required, between, &checks);
        }
        auto [it, first] = folds_.emplace(producer.name(), mine);
        if (!first) {
            std::optional<Fold> &all = it->second;
            if (!all || !mine || all->dimension != mine->dimension) {
                all.reset();
            } else {
                all->factor = std::max(all->factor, mine->factor);
            }
        }
        checks.insert(checks.end(), produce_consume.begin(), produce_consume.end());
        return wrap_lets(lets, Block::make(checks));
    }

    /// Allocates `producer`, computed deeper inside, over what all iterations of the loops
    /// inside this one read of it.
    Stmt store(const Function &producer, const Box &required, const Stmt &body) {
        std::vector<std::pair<std::string, Expr>> lets;
        for (auto &let : func_bounds(producer, required, BoundsFor::Storage)) {
            // The storage's bounds, and the windows of bound_extent() they start from.
            if (is_realized_name(producer, let.first) || is_window_let(producer, let.first))
                lets.push_back(let);
        }
        // Rounding splits computed per iteration may write more than the union of what the
        // iterations read: the storage holds every point the loops inside can write.
        if (has_rounding_split(producer)) widen_realized_to_writes(producer, body, lets);
        return wrap_lets(lets, storage(producer, body));
    }

    /// The fold_storage() of `producer`, computed over `required` inside the loops `between`
    /// (from its storage in), with the check that each computation fits in it.
    Fold requested_fold(const Function &producer, const Box &required,
                        const std::vector<EnclosingLoop> &between, std::vector<Stmt> *checks) {
        const schedule::StorageFold &fold = producer.schedule().storage_folds.back();
        const std::string what =
            "Func \"" + producer.name() + "\", fold_storage of \"" + fold.var + "\"";
        user_assert(!extern_related(producer))
            << what << ": an extern stage reads and writes it through strides, which cannot "
            << "wrap around; remove fold_storage().";
        int a = 0;
        while (producer.args()[a] != fold.var)
            a++;
        std::string moving;
        for (const EnclosingLoop &loop : between) {
            if (expr_uses_var(required[a].min, loop.var) ||
                expr_uses_var(required[a].max, loop.var)) {
                moving += (moving.empty() ? "" : " and ") + loop.var;
            }
        }
        user_assert(moving.find(" and ") == std::string::npos)
            << what << ": its region along " << fold.var << " moves with the loops " << moving
            << " between where it is stored and where it is computed, so a computation could "
            << "overwrite points a later one reuses. Store it at the loop just outside the one "
            << "it is computed in, or remove fold_storage().";
        Expr footprint = fold_footprint(producer, required, a);
        Expr report = Call::make(Int(32), "dsl_runtime_error_fold_too_small",
                                 {StringImm::make(producer.name()), StringImm::make(fold.var),
                                  Expr(fold.factor), footprint},
                                 Call::CallType::Extern);
        checks->push_back(AssertStmt::make(footprint <= fold.factor, report));
        return Fold{a, fold.factor};
    }

    /// Whether `f` is an extern stage or read by one.
    bool extern_related(const Function &f) const {
        return f.is_extern() || extern_inputs_.count(f.name());
    }

    Environment &env_;
    std::map<std::string, std::optional<Fold>> folds_;
    /// The Funcs extern stages read (extern_stage_inputs).
    std::map<std::string, std::string> extern_inputs_;
};

Stmt NestBuilder::stage_loops(const Function &f, int stage, const Definition &variant) {
    Definition d = rename_stage_vars(f, stage);
    d.schedule = variant.schedule;
    auto loop_var = [&](const std::string &v) { return names::stage_var(f.name(), stage, v); };
    // The Funcs computed inside this stage's loops, by loop, in realization order.
    // The Funcs stored at one of them and computed further in, likewise.
    std::map<std::string, std::vector<std::string>> producers_at, stored_at;
    auto at_this_stage = [&](const schedule::LoopLevel &level) {
        return level.in_stage(f.name(), stage);
    };
    for (const std::string &name : env_.order) {
        const schedule::FuncSchedule &sched = env_.func(name).schedule();
        const bool computed_here = at_this_stage(sched.compute_level);
        if (computed_here) producers_at[sched.compute_level.var].push_back(name);
        // Stored at a loop of this stage and computed further in: in this stage, or in a Func
        // computed inside it.
        if (at_this_stage(sched.store_level) &&
            (!computed_here || sched.store_level.var != sched.compute_level.var)) {
            stored_at[sched.store_level.var].push_back(name);
        }
    }

    // Var::outermost(): a loop of one iteration outside all the others holds what is placed
    // there.
    const bool has_outermost =
        producers_at.count(schedule::kOutermost) || stored_at.count(schedule::kOutermost);
    if (has_outermost) d.schedule.dims.push_back({schedule::kOutermost});
    for (const auto *placed : {&producers_at, &stored_at}) {
        for (const auto &[var, funcs] : *placed) {
            bool found = false;
            for (const schedule::Dim &dim : d.schedule.dims)
                found |= dim.var == var;
            user_assert(found) << "Func \"" << funcs[0] << "\" is placed at the loop " << f.name()
                               << "." << var << ", but a specialization of " << f.name()
                               << " has no loop \"" << var
                               << "\". Give every specialization that loop, or compute \""
                               << funcs[0] << "\" at root.";
        }
    }

    check_prefetches(f, stage, d.schedule);

    // The loops before any split, over the bounds that bounds inference (or the RDom) defines.
    std::map<std::string, LoopRange> ranges;
    std::vector<std::string> original = stage_pure_vars(f, stage);
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain())
            original.push_back(rv.var);
    }
    for (const std::string &v : original) {
        Expr min = Variable::make(Int(32), names::min_of(loop_var(v)));
        Expr max = Variable::make(Int(32), names::max_of(loop_var(v)));
        ranges[v] = {min, max - min + 1};
    }
    if (has_outermost) ranges[schedule::kOutermost] = {make_zero(Int(32)), make_one(Int(32))};
    for (const schedule::Dim &dim : d.schedule.dims) {
        if (dim.var == schedule::kGPUSingleThread)
            ranges[schedule::kGPUSingleThread] = {make_zero(Int(32)), make_one(Int(32))};
    }

    // Apply the splits in order, rewriting the definition in terms of the new loops.
    std::vector<Expr> guards;        // one per split with a tail to guard
    std::vector<bool> partial_tile;  // whose split is a TailStrategy::PartialTile
    struct Partition {
        std::string outer;
        size_t guard;
        Expr main_extent;  // outer iterations that need no guard
        Expr tail_extent;  // the most iterations after them (one, times the extents of the
                           // loops fused inside), or undefined: the rest of the loop
    };
    std::vector<Partition> partitions;
    // What the stage reads and writes (its arguments, values and predicate) as `d` holds them,
    // but with each guarded split's value as min(value, cap.g), where the variable cap.g
    // stands for the end of guard g's range: the points past it are never computed (the guard
    // skips them, or masks their vector lanes, loads included). Where guard g is tested inside
    // a loop that producers are computed at, what the iterations that run read is bounded with
    // cap.g bound to that end (the guard's right-hand side); elsewhere to the value itself (its
    // left-hand side), which leaves the value as it is.
    std::vector<Expr> capped = d.args;
    capped.insert(capped.end(), d.values.begin(), d.values.end());
    capped.push_back(d.predicate);
    auto cap_name = [&](size_t g) { return loop_var("cap." + std::to_string(g)); };
    auto rewrite = [&](const std::map<std::string, Expr> &values,
                       const std::map<std::string, Expr> &capped_as) {
        for (Expr &e : d.args)
            e = substitute(values, e);
        for (Expr &e : d.values)
            e = substitute(values, e);
        d.predicate = substitute(values, d.predicate);
        for (Expr &g : guards)
            g = substitute(values, g);
        for (Expr &e : capped)
            e = substitute(capped_as, e);
    };
    // Loops compute_with merges with another stage's keep one loop per level: not partitioned.
    const std::set<std::string> fused_with_others = fused_loops(env_, f, stage);
    auto position = [&](const std::string &var) {
        for (size_t i = 0; i < d.schedule.dims.size(); i++) {
            if (d.schedule.dims[i].var == var) return static_cast<int>(i);
        }
        return -1;
    };
    // The stage's dimensions that no split has replaced yet (a split may give its outer or inner
    // loop the name of the dimension it splits: that loop is not the dimension).
    std::set<std::string> unsplit(original.begin(), original.end());
    for (size_t si = 0; si < d.schedule.splits.size(); si++) {
        const schedule::Split &split = d.schedule.splits[si];
        // A partitioned loop fused as the outer loop of a fuse: the main part is the fused
        // loop's first iterations, the inner loop's extent times as many. Split again: the outer
        // loop's first iterations, whose inner ones all lie in the main part. (A tiling's
        // guarded tiles in blocks, fused with the loops outside them into one parallel loop of
        // tasks, keep their tail apart.) Fused as the inner loop, its main part is no longer
        // one range of iterations (a split may even reuse its name): keep the guard.
        for (auto p = partitions.begin(); p != partitions.end();) {
            if (split.kind == schedule::Split::Kind::FuseVars && p->outer == split.outer &&
                !fused_with_others.count(split.old_var)) {
                p->outer = split.old_var;
                p->main_extent = p->main_extent * ranges.at(split.inner).extent;
                if (p->tail_extent.defined())
                    p->tail_extent = p->tail_extent * ranges.at(split.inner).extent;
                ++p;
                continue;
            }
            if (split.kind == schedule::Split::Kind::SplitVar && p->outer == split.old_var &&
                !fused_with_others.count(split.outer) && split.factor.defined()) {
                p->outer = split.outer;
                p->main_extent = p->main_extent / split.factor;
                p->tail_extent = Expr();
                ++p;
                continue;
            }
            bool replaced =
                split.kind == schedule::Split::Kind::FuseVars
                    ? (p->outer == split.inner || p->outer == split.outer)
                    : split.kind == schedule::Split::Kind::SplitVar && p->outer == split.old_var;
            if (split.kind == schedule::Split::Kind::RenameVar && p->outer == split.old_var)
                p->outer = split.outer;
            p = replaced ? partitions.erase(p) : p + 1;
        }
        switch (split.kind) {
            case schedule::Split::Kind::SplitVar: {
                LoopRange old = ranges.at(split.old_var);
                Expr outer = Variable::make(Int(32), loop_var(split.outer));
                Expr inner = Variable::make(Int(32), loop_var(split.inner));
                Expr value = split_value(split, old, outer, inner);
                // RoundUp computes past the end and ShiftInwards recomputes points before it:
                // neither needs a test (bounds inference makes room).
                if (split.tail == TailStrategy::RoundUp ||
                    split.tail == TailStrategy::ShiftInwards) {
                    rewrite({{loop_var(split.old_var), value}}, {{loop_var(split.old_var), value}});
                    break;
                }
                // Capped at the end of the range. (Not at anything larger that varies with the
                // loops, such as max(end, the outer loop's first point): the bounds are taken
                // over every value of the loops, those of masked lanes and guarded iterations
                // included, and an outer loop's first point passes the end there (fuzz case
                // 14220 wrote past a producer's storage). The cap's lower bound, min(start, end),
                // meets the loops' own start in the intersection below.)
                const Expr cap = Variable::make(Int(32), cap_name(guards.size()));
                rewrite({{loop_var(split.old_var), value}},
                        {{loop_var(split.old_var), min(value, cap)}});
                // GuardWithIf: the last outer iteration may pass the end (simplify drops the test
                // when the factor provably divides the extent).
                guards.push_back(value <= old.min + old.extent - 1);
                partial_tile.push_back(split.tail == TailStrategy::PartialTile);
                // A vectorized or unrolled loop made from the inner loop (it, or a loop a later
                // split makes of it, as in a tile with vectorize(xi, 8)) inside the outer loop:
                // run the outer iterations that stay inside the extent without the guard (no
                // masks, no branches), and only the last one with it. (Not for a short serial
                // inner loop around straight-line code, though LLVM would then unroll it: with
                // nested tiles the copies multiply, and a fuzz case compiled 4.6x slower.)
                // Not when a split of the inner loop rounds up: its values then pass the factor
                // and reach past the end from earlier outer iterations too.
                std::vector<std::string> from_inner = derived_loops(d.schedule, split.inner);
                bool inner_rounds_up = false;
                for (const schedule::Split &later : d.schedule.splits) {
                    inner_rounds_up |= later.kind == schedule::Split::Kind::SplitVar &&
                                       later.tail == TailStrategy::RoundUp &&
                                       std::find(from_inner.begin(), from_inner.end(),
                                                 later.old_var) != from_inner.end();
                }
                // The loop the outer one ends up as: itself, or the loop that the splits after
                // this one make of it as their outer loop (the partition follows it there, see
                // above).
                std::string outer_loop = split.outer;
                for (size_t lj = si + 1; lj < d.schedule.splits.size(); lj++) {
                    const schedule::Split &later = d.schedule.splits[lj];
                    if (later.kind == schedule::Split::Kind::FuseVars && later.outer == outer_loop)
                        outer_loop = later.old_var;
                    if (later.kind == schedule::Split::Kind::SplitVar &&
                        later.old_var == outer_loop)
                        outer_loop = later.outer;
                }
                int o = inner_rounds_up || fused_with_others.count(outer_loop)
                            ? -1
                            : position(outer_loop);
                // Nor when the outer loop is a GPU loop: a kernel is one loop nest over its
                // blocks and threads, and each thread tests its own lanes.
                if (o >= 0 && (d.schedule.dims[o].for_type == ForType::GPUBlock ||
                               d.schedule.dims[o].for_type == ForType::GPUThread))
                    o = -1;
                for (const std::string &v : from_inner) {
                    int i = position(v);
                    if (i < 0 || o <= i) continue;
                    ir::ForType inner_type = d.schedule.dims[i].for_type;
                    if (inner_type == ForType::Vectorized || inner_type == ForType::Unrolled) {
                        partitions.push_back({split.outer, guards.size() - 1,
                                              old.extent / split.factor, make_one(Int(32))});
                        break;
                    }
                }
                break;
            }
            case schedule::Split::Kind::FuseVars: {
                LoopRange inner = ranges.at(split.inner), outer = ranges.at(split.outer);
                // A pure dimension (not a loop a split named after it) with a bound() runs over
                // exactly that range: its extent as given (a row's length that the stage's own
                // index multiplies by) keeps a fused loop's coordinates y * extent + x in sight
                // of the simplifier, which sees the point back (x + y * W of a dense buffer is
                // the fused point).
                const schedule::Bound *b = nullptr;
                if (unsplit.count(split.inner) && (b = exact_bound(f, split.inner)))
                    inner = {b->min, b->extent};
                if (unsplit.count(split.outer) && (b = exact_bound(f, split.outer)))
                    outer = {b->min, b->extent};
                Expr fused = Variable::make(Int(32), loop_var(split.old_var));
                const std::map<std::string, Expr> unfused = {
                    {loop_var(split.inner), inner.min + fused % inner.extent},
                    {loop_var(split.outer), outer.min + fused / inner.extent}};
                rewrite(unfused, unfused);
                // A call that reads the two coordinates back as one offset, (p / W) * W + p % W,
                // reads p: simplified now, bounds inference sees a tile of the fused loop read a
                // tile of its producer (not the whole rows it crosses).
                SimplifyCallIndices indices(loop_var(split.old_var));
                for (Expr &e : d.args)
                    e = indices.mutate(e);
                for (Expr &e : d.values)
                    e = indices.mutate(e);
                for (Expr &e : capped)
                    e = indices.mutate(e);
                break;
            }
            case schedule::Split::Kind::RenameVar: {
                const std::map<std::string, Expr> renamed = {
                    {loop_var(split.old_var), Variable::make(Int(32), loop_var(split.outer))}};
                rewrite(renamed, renamed);
                break;
            }
        }
        unsplit.erase(split.old_var);
        unsplit.erase(split.inner);
        unsplit.erase(split.outer);
        apply_split_to_ranges(split, ranges);
    }

    // The RDom's where() conditions: each part of their conjunction that reads no Func and calls
    // nothing outside (whose value no iteration of the loops can change) is a guard like a
    // split's, so that a loop that a part bounds runs only where it holds (a triangular domain,
    // the taps of a convolution inside the image). The rest stays at the store.
    const size_t split_guards = guards.size();
    Expr at_store = make_bool(true);
    for (const Expr &part : conjuncts(simplify(d.predicate))) {
        if (is_const_true(part)) continue;
        if (movable_condition(part)) {
            guards.push_back(part);
            partial_tile.push_back(false);
        } else {
            at_store = at_store && part;
        }
    }

    // The loops, outermost first, with the partitioned ones split in a main part and a tail.
    const std::vector<schedule::Dim> &dims = d.schedule.dims;
    // Each guard goes just inside the innermost loop it depends on: a test of outer loops runs
    // once per their iteration, not at every point. A where() condition that depends on no loop
    // goes inside the outermost one.
    std::vector<int> guard_level(guards.size(), 0);
    for (size_t g = 0; g < guards.size(); g++) {
        if (g >= split_guards) guard_level[g] = static_cast<int>(dims.size()) - 1;
        for (size_t q = 0; q < dims.size(); q++) {
            if (expr_uses_var(guards[g], loop_var(dims[q].var))) {
                // A test of a vector lane becomes a mask on the store: keep it at the store, so
                // that serial loops inside the vector loop do not sit under it.
                guard_level[g] = dims[q].for_type == ForType::Vectorized ? -1 : static_cast<int>(q);
                break;
            }
        }
        // A where() condition stays at the store if a Func is computed at its loop or inside
        // (the guard would skip that Func's computation in some iterations, where a sliding
        // window over the loop counts on it), or if it tests a vector lane (a loop inside
        // whose bounds depend on the lane would keep the vector loop scalar).
        for (int q = 0; g >= split_guards && q < static_cast<int>(dims.size()); q++) {
            if ((q <= guard_level[g] && producers_at.count(dims[q].var)) ||
                (dims[q].for_type == ForType::Vectorized &&
                 expr_uses_var(guards[g], loop_var(dims[q].var)))) {
                guard_level[g] = -1;
            }
        }
    }
    auto guarded = [&](int p, const std::set<size_t> &dropped, const Stmt &body) {
        Expr condition = make_bool(true);
        for (size_t g = 0; g < guards.size(); g++) {
            if (guard_level[g] == p && !dropped.count(g)) condition = condition && guards[g];
        }
        condition = simplify(condition);
        return is_const_true(condition) ? body : IfThenElse::make(condition, body);
    };
    std::function<Stmt(int, const std::set<size_t> &)> nest =
        [&](int p, const std::set<size_t> &dropped) -> Stmt {
        if (p < 0) {
            Stmt body = Provide::make(f.name(), d.values, d.args, make_bool(true));
            // atomic() with loops over RVars whose iterations run at the same time (threads or
            // GPU threads): each update of a point is one indivisible read-modify-write.
            bool concurrent_rvar = false;
            for (const schedule::Dim &loop : dims) {
                concurrent_rvar |= loop.is_rvar && (loop.for_type == ForType::Parallel ||
                                                    loop.for_type == ForType::GPUBlock ||
                                                    loop.for_type == ForType::GPUThread);
            }
            if (d.schedule.atomic && concurrent_rvar) body = Atomic::make(f.name(), body);
            Expr condition = simplify(at_store);
            body = is_const_true(condition) ? body : IfThenElse::make(condition, body);
            return guarded(-1, dropped, body);
        }
        const schedule::Dim &dim = dims[p];
        const LoopRange &r = ranges.at(dim.var);
        // Producers computed at this loop, inside each of its iterations (earlier ones outside).
        auto with_producers = [&](const std::set<size_t> &guards_dropped) {
            Stmt body = nest(p - 1, guards_dropped);
            auto computed = producers_at.find(dim.var);
            auto stored = stored_at.find(dim.var);
            bool prefetching = false;
            for (const schedule::Prefetch &prefetch : d.schedule.prefetches)
                prefetching |= prefetch.at == dim.var;
            if (computed == producers_at.end() && stored == stored_at.end() && !prefetching) {
                return body;
            }
            Scope<Interval> inner_loops;
            for (int q = 0; q < p; q++) {
                const LoopRange &inner = ranges.at(dims[q].var);
                inner_loops.push(loop_var(dims[q].var),
                                 Interval(inner.min, inner.min + inner.extent - 1));
            }
            // A split guard still in force inside this loop (tested in it, or a mask on a
            // vector's lanes) skips the points past its end: what the iterations read is then
            // bounded by the capped uses too. (With every guard tested around the body, the
            // plain uses alone bound it.)
            bool guard_inside = false;
            for (size_t g = 0; g < split_guards; g++)
                guard_inside |= !guards_dropped.count(g) && guard_level[g] < p;
            std::vector<Expr> uses = d.args;
            uses.insert(uses.end(), d.values.begin(), d.values.end());
            uses.push_back(d.predicate);
            // Where no split rounds up or shifts inwards and no loops are fused (a fused loop's
            // coordinates are a quotient and a remainder, whose bounds over an iteration can
            // pass the stage's region: fuzz case 914817 wrote past a producer's root storage),
            // the iterations that reach the body, and the loops inside, run only points of the
            // stage's region (a guard tested around the body skips the others; one inside is
            // in the capped uses), so what they read lies inside each producer's
            // whole-pipeline region: the producers' regions per iteration need no clamp into
            // it, and a tile's region keeps its constant size in sight of the simplifier (a
            // vector of the consumer needs exactly a vector of the producer: no loop, no tail;
            // Halide's conv_layer stages filter.in() at an RVar loop around a vectorized
            // channel loop, and unrolls the wrapper's vectors over that constant size).
            bool inside_region = true;
            for (const schedule::Split &split : d.schedule.splits) {
                inside_region &= split.kind == schedule::Split::Kind::RenameVar ||
                                 (split.kind == schedule::Split::Kind::SplitVar &&
                                  split.tail != TailStrategy::RoundUp &&
                                  split.tail != TailStrategy::ShiftInwards);
            }
            // What the iterations of this loop read: the stage itself, and the Funcs computed
            // inside it (at this loop or further in).
            std::set<std::string> here_and_inside;
            for (int q = 0; q <= p; q++)
                here_and_inside.insert(dims[q].var);
            std::vector<std::string> inside =
                computed_inside(env_, f.name(), stage, here_and_inside);
            // The capped uses, each cap.g bound as above for this loop.
            std::vector<Expr> capped_reads;
            if (guard_inside) {
                std::map<std::string, Expr> cap_at;
                for (size_t g = 0; g < split_guards; g++) {
                    const auto *test = guards[g].as<LE>();
                    internal_assert(test)
                        << "the guard of a split of " << f.name() << " is not a test value <= end";
                    const bool in_force = !guards_dropped.count(g) && guard_level[g] < p;
                    cap_at[cap_name(g)] = in_force ? test->b : test->a;
                }
                for (const Expr &e : capped)
                    capped_reads.push_back(substitute(cap_at, e));
            }
            auto direct = [&](const std::string &callee) {
                Box required = box_of_calls_in(uses, callee, inner_loops);
                require_bounded(required, callee, f.name());
                if (guard_inside) {
                    // Both bound what runs; their intersection keeps the loops' constant size
                    // (a tile's) in sight where the cap's expression hides it.
                    Box within = box_of_calls_in(capped_reads, callee, inner_loops);
                    internal_assert(within.size() == required.size())
                        << "the capped reads of " << f.name() << " call " << callee
                        << " with another number of coordinates";
                    require_bounded(within, callee, f.name());
                    for (size_t a = 0; a < required.size(); a++) {
                        required[a].min = simplify(max(required[a].min, within[a].min));
                        required[a].max = simplify(min(required[a].max, within[a].max));
                    }
                }
                return required;
            };
            auto required_of = [&](const Function &producer) {
                return required_over_loop(env_, inside, producer.name(), direct, false,
                                          inside_region);
            };
            // The loops inside this one that the guard of a PartialTile split, still in force,
            // stops short: some iterations then need fewer points than a tile.
            std::set<std::string> partial;
            for (size_t g = 0; g < guards.size(); g++) {
                if (!partial_tile[g] || guard_level[g] >= p || guards_dropped.count(g)) continue;
                for (const schedule::Dim &loop : dims) {
                    if (expr_uses_var(guards[g], loop_var(loop.var)))
                        partial.insert(loop_var(loop.var));
                }
            }
            const BoundsFor mode = inside_region ? BoundsFor::ExactIteration : BoundsFor::Iteration;
            if (computed != producers_at.end()) {
                for (auto it = computed->second.rbegin(); it != computed->second.rend(); ++it) {
                    const Function &producer = env_.func(*it);
                    const schedule::LoopLevel &store = producer.schedule().store_level;
                    bool store_here = store.kind == schedule::LoopLevel::Kind::At &&
                                      store.func == f.name() && store.var == dim.var;
                    // The loops from this one out to the storage, for sliding windows.
                    std::vector<EnclosingLoop> between;
                    for (int q = p; !store_here && q < static_cast<int>(dims.size()); q++) {
                        if (store.func == f.name() && dims[q].var == store.var) break;
                        between.push_back(
                            {loop_var(dims[q].var), ranges.at(dims[q].var).min, dims[q].for_type});
                    }
                    // An extern stage answers the query of one iteration's region as it
                    // likes, which may ask for more than it asked for the whole pipeline
                    // (Halide's non_nesting_extern_bounds_query): what it reads gets the
                    // intersection, its region clamped into the whole pipeline's.
                    const BoundsFor producer_mode =
                        extern_inputs_.count(producer.name()) ? BoundsFor::Iteration : mode;
                    body = compute(producer, required_of(producer), body, store_here, between,
                                   partial, producer_mode);
                }
            }
            if (stored != stored_at.end()) {
                for (auto it = stored->second.rbegin(); it != stored->second.rend(); ++it) {
                    const Function &producer = env_.func(*it);
                    body = store(producer, required_of(producer), body);
                }
            }
            if (prefetching) {
                auto reads = [&](const std::string &name) {
                    return required_over_loop(env_, inside, name, direct, true);
                };
                Stmt fetch = prefetches_at(env_, f, stage, d.schedule.prefetches, dim.var, inside,
                                           reads, env_.prefetch_notes);
                body = Block::make(fetch, body);
            }
            return body;
        };
        auto inside = [&](const std::set<size_t> &guards_dropped) {
            return guarded(p, guards_dropped, with_producers(guards_dropped));
        };
        for (const Partition &part : partitions) {
            if (part.outer != dim.var || dropped.count(part.guard)) continue;
            std::set<size_t> without = dropped;
            without.insert(part.guard);
            if (dim.for_type == ForType::Parallel) {
                // One parallel loop whose iterations branch: two would wait for each other.
                Expr in_main =
                    Variable::make(Int(32), loop_var(dim.var)) < r.min + part.main_extent;
                return For::make(loop_var(dim.var), r.min, r.extent, dim.for_type, dim.device_api,
                                 IfThenElse::make(in_main, inside(without), inside(dropped)));
            }
            Stmt main = For::make(loop_var(dim.var), r.min, part.main_extent, dim.for_type,
                                  dim.device_api, inside(without));
            // The tail runs at most tail_extent times (once, unless loops inside were fused into
            // this one); its extent says so, which keeps PartitionLoops from copying its body
            // three times for the one iteration.
            Expr rest = r.extent - part.main_extent;
            Stmt tail = For::make(loop_var(dim.var), r.min + part.main_extent,
                                  part.tail_extent.defined() ? min(rest, part.tail_extent) : rest,
                                  dim.for_type, dim.device_api, inside(dropped));
            return Block::make(main, tail);
        }
        // A guard on this loop's own variable (a split's `outer * factor + inner <= max` just
        // inside the inner loop) ends the loop instead: no test in every iteration, and the
        // loop's body is not a branch.
        // A where() condition that bounds this loop's variable linearly starts or ends it.
        Expr start = r.min, extent = r.extent;
        std::set<size_t> ended = dropped;
        if (dim.for_type == ForType::Serial || dim.for_type == ForType::Parallel) {
            std::vector<VarBound> bounds;
            for (size_t g = 0; g < guards.size(); g++) {
                if (guard_level[g] != p || dropped.count(g)) continue;
                if (g >= split_guards) {
                    auto bound = bound_from_condition(guards[g], loop_var(dim.var),
                                                      [](const Expr &) { return true; });
                    if (bound) {
                        bounds.push_back(*bound);
                        ended.insert(g);
                    }
                } else if (Expr count = iterations_within(guards[g], loop_var(dim.var), r.min);
                           count.defined()) {
                    extent = min(extent, count);
                    ended.insert(g);
                }
            }
            if (!bounds.empty()) {
                Expr end = r.min + extent;
                for (const VarBound &b : bounds) {
                    if (b.lower)
                        start = max(start, b.value);
                    else
                        end = min(end, b.value + 1);
                }
                extent = max(end - start, 0);
            }
        }
        return For::make(loop_var(dim.var), simplify(start), simplify(extent), dim.for_type,
                         dim.device_api, inside(ended));
    };
    Stmt body = nest(static_cast<int>(dims.size()) - 1, {});
    // RDom bounds come from the RDom itself.
    if (d.rdom.defined()) {
        const auto &domain = d.rdom.domain();
        for (auto it = domain.rbegin(); it != domain.rend(); ++it) {
            std::string loop = loop_var(it->var);
            body = LetStmt::make(names::max_of(loop), it->min + it->extent - 1, body);
            body = LetStmt::make(names::min_of(loop), it->min, body);
        }
    }
    return body;
}

/// The loop lists of a stage's definition and of each of its specializations, recursively;
/// with `live_only`, those of the schedules that can run (without specialize_fail()).
void add_variants(const Definition &d, std::vector<const std::vector<schedule::Dim> *> &out,
                  bool live_only = false) {
    if (!live_only || d.specialize_fail.empty()) out.push_back(&d.schedule.dims);
    for (const lang::Specialization &s : d.specializations)
        add_variants(s.definition, out, live_only);
}
std::vector<const std::vector<schedule::Dim> *> stage_variants(const schedule::LoopLevel &level,
                                                               const Environment &env) {
    // The schedules that can run; all of them if none can (a stage that always fails).
    std::vector<const std::vector<schedule::Dim> *> variants;
    for (bool live_only : {true, false}) {
        if (level.stages.empty()) {
            add_variants(env.func(level.func).stage(level.stage), variants, live_only);
        } else {
            for (int k : level.stages)
                add_variants(env.func(level.func).stage(k), variants, live_only);
        }
        if (!variants.empty()) break;
    }
    return variants;
}

/// The loops of `dims`, outermost first, from the outermost loop down to the loop `innermost`
/// (all of them if there is no such loop).
std::vector<schedule::Dim> loops_down_to(const std::vector<schedule::Dim> &dims,
                                         const std::string &innermost) {
    std::vector<schedule::Dim> result;
    if (innermost == schedule::kOutermost) return result;  // outside them all
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        result.push_back(*it);
        if (it->var == innermost) break;
    }
    return result;
}

/// Checks where `g` is stored: at root, or at its compute loop or a loop around it in the same
/// consumer stage; and that no parallel loop runs between its storage and its computation
/// (iterations running at once would write the same storage). Every specialization of the
/// consumer stages involved must satisfy both.
void resolve_store_level(const Environment &env, const Function &g) {
    const schedule::LoopLevel &compute = g.schedule().compute_level;
    schedule::LoopLevel &store = g.schedule().store_level;
    if (compute.is_inlined()) return;  // InlineFunctions warns about a store level
    std::string name = g.name();
    if (compute.is_root()) {
        user_assert(store.is_root())
            << "Func \"" << name << "\" is stored at " << store.to_string()
            << " but computed at root: its storage must be at or outside the loop where it is "
            << "computed. Use store_root(), or compute_at(" << store.func << ", " << store.var
            << ") too.";
        return;
    }
    std::string where =
        "Func \"" + name + "\" is scheduled compute_at(" + compute.func + ", " + compute.var + ")";
    if (store.kind == schedule::LoopLevel::Kind::At && store.func != compute.func) {
        // Stored at a loop of a consumer further out: a Func whose loops hold the one it is
        // computed in (directly, or through other Funcs computed inside each other).
        std::string legal = "root";
        for (schedule::LoopLevel level = compute; level.kind == schedule::LoopLevel::Kind::At;
             level = env.func(level.func).schedule().compute_level) {
            bool found = false, everywhere = true;
            const auto variants = stage_variants(level, env);
            for (const std::vector<schedule::Dim> *dims : variants) {
                bool here = false;
                for (const schedule::Dim &d : loops_down_to(*dims, level.var)) {
                    here |= level.func == store.func && d.var == store.var;
                    if (dims == variants[0]) legal += ", " + level.func + "." + d.var;
                }
                found |= here;
                everywhere &= here;
            }
            if (found) {
                user_assert(everywhere)
                    << where << " and store_at(" << store.func << ", " << store.var
                    << "), but a specialization of " << store.func << " has no loop \"" << store.var
                    << "\" around it. Give every specialization that loop, or "
                    << "store " << name << " at root.";
                store.stage = level.stage;
                store.stages = level.stages;
                break;
            }
            user_assert(env.func(level.func).schedule().compute_level.kind ==
                        schedule::LoopLevel::Kind::At)
                << where << " and store_at(" << store.func << ", " << store.var
                << "), but that loop is not around the loop where it is computed. Legal storage "
                << "locations for " << name << " are: " << legal << ".";
        }
    } else if (store.kind == schedule::LoopLevel::Kind::At) {
        auto variants = stage_variants(compute, env);
        for (const std::vector<schedule::Dim> *dims : variants) {
            // A variant without the compute loop is refused where the loop nest is built.
            bool has_compute_loop = false;
            for (const schedule::Dim &d : *dims)
                has_compute_loop |= d.var == compute.var;
            if (!has_compute_loop) continue;
            bool found = false;
            std::string legal = "root";
            for (const schedule::Dim &d : loops_down_to(*dims, compute.var)) {
                found |= store.func == compute.func && d.var == store.var;
                legal += ", " + compute.func + "." + d.var;
            }
            user_assert(found) << where << " and store_at(" << store.func << ", " << store.var
                               << "), but its storage must be at the loop where it is computed or "
                               << "around it"
                               << (dims == variants[0]
                                       ? ""
                                       : " (also in every specialization of " + compute.func + ")")
                               << ". Legal storage locations for " << name << " are: " << legal
                               << ".";
        }
        store.stage = compute.stage;
        store.stages = compute.stages;
    }
    // The loops between the storage (excluded) and the computation (included), through the
    // consumers' own compute levels when it is stored at root.
    schedule::LoopLevel level = compute;
    std::string innermost = compute.var;
    while (level.kind == schedule::LoopLevel::Kind::At) {
        // Stored at the outermost loop of the stage it is computed in: no loop between.
        if (innermost == schedule::kOutermost && store.kind == schedule::LoopLevel::Kind::At &&
            store.func == level.func && store.var == schedule::kOutermost) {
            return;
        }
        bool reached_storage = false;
        for (const std::vector<schedule::Dim> *dims : stage_variants(level, env)) {
            std::vector<schedule::Dim> loops = loops_down_to(*dims, innermost);
            for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
                if (store.kind == schedule::LoopLevel::Kind::At && it->var == store.var &&
                    level.func == store.func) {
                    reached_storage = true;
                    break;
                }
                user_assert(it->for_type != ForType::Parallel)
                    << "Func \"" << name << "\" is stored at " << store.to_string()
                    << " but computed inside the parallel loop " << level.func << "." << it->var
                    << ": iterations running at once would write the same storage. Store it "
                    << "inside that loop (store_at(" << level.func << ", " << it->var
                    << ") or a loop further in), or make the loop serial.";
            }
        }
        if (reached_storage) return;
        const schedule::LoopLevel &outer = env.func(level.func).schedule().compute_level;
        innermost = outer.var;
        level = outer;
    }
}

}  // namespace

void resolve_compute_levels(Environment &env) {
    // Consumers first: a Func may be computed at a loop of a Func that reads it only through
    // other Funcs computed inside that loop, whose levels must be known.
    for (auto order = env.order.rbegin(); order != env.order.rend(); ++order) {
        const std::string &name = *order;
        Function g = env.func(name);
        schedule::LoopLevel &level = g.schedule().compute_level;
        if (level.kind != schedule::LoopLevel::Kind::At) continue;
        std::string where =
            "Func \"" + name + "\" is scheduled compute_at(" + level.func + ", " + level.var + ")";
        user_assert(env.funcs.count(level.func) && !is_inlined(env.func(level.func)))
            << where << ", but \"" << level.func
            << "\" is not computed in this pipeline (is it inlined?). "
            << "Compute it at root, or compute \"" << name << "\" at root.";
        const Function &c = env.func(level.func);
        user_assert(!c.is_extern())
            << where << ", but \"" << level.func << "\" is an extern stage (its function \""
            << c.contents().extern_function << "\" computes its whole region in one call), which "
            << "has no loops. Compute \"" << name << "\" at root, or at a loop of a Func that "
            << "reads \"" << level.func << "\".";
        // The stages of c that read it, directly or through Funcs computed inside their loops.
        auto all_loops = [&](int k) {
            std::set<std::string> loops{schedule::kOutermost};
            for (const schedule::Dim &d : c.stage(k).schedule.dims)
                loops.insert(d.var);
            return loops;
        };
        const bool outermost = level.var == schedule::kOutermost;
        auto reads_it = [&](const std::string &reader) {
            return func_calls(env.func(reader), name);
        };
        std::vector<int> stages;
        for (int k = 0; k < c.stages(); k++) {
            bool uses = stage_calls(c, k, name);
            for (const std::string &inner : computed_inside(env, c.name(), k, all_loops(k)))
                uses |= inner != name && reads_it(inner);
            if (uses) stages.push_back(k);
        }
        user_assert(!stages.empty()) << where << ", but \"" << level.func
                                     << "\" does not use it, and neither does any Func computed "
                                     << "inside its loops.";
        // Several stages that use it each compute it in their own loop `var`, as Halide does:
        // in every schedule of the stage that can run (a specialize_fail() one never does).
        for (int k : stages) {
            std::vector<const std::vector<schedule::Dim> *> live;
            add_variants(c.stage(k), live, /*live_only=*/true);
            bool everywhere = !live.empty(), somewhere = false;
            std::string legal = "root";
            for (const std::vector<schedule::Dim> *dims : live) {
                bool here = false;
                for (auto it = dims->rbegin(); it != dims->rend(); ++it) {
                    here |= it->var == level.var;
                    if (dims == live[0]) legal += ", " + level.func + "." + it->var;
                }
                everywhere &= here;
                somewhere |= here;
            }
            const bool found = outermost || everywhere;
            user_assert(found || !somewhere)
                << "Func \"" << name << "\" is placed at the loop " << level.func << "."
                << level.var << ", but " << level.func
                << " has a schedule that can run (its own or a specialization's) without "
                << "that loop. Give every such schedule the loop \"" << level.var
                << "\" (or end one with specialize_fail()), or compute \"" << name << "\" at root.";
            user_assert(found) << where << ", but "
                               << (k == 0 ? level.func
                                          : "update " + std::to_string(k - 1) + " of " +
                                                level.func + ", which uses it too,")
                               << " has no loop \"" << level.var
                               << "\" at that point. Legal locations for " << name
                               << " are: " << legal << ".";
        }
        level.stage = stages[0];
        level.stages = stages;
        // Every other reader must be computed inside that loop of one of those stages, in the
        // stage's schedule and in each of its specializations (which may reorder the loops).
        for (const std::string &other : env.order) {
            if (other == name || other == level.func || !reads_it(other)) continue;
            bool inside_a_stage = false, in_main_schedule = false;
            for (int k : stages) {
                std::vector<const std::vector<schedule::Dim> *> variants;
                add_variants(c.stage(k), variants);
                bool everywhere = true;
                for (const std::vector<schedule::Dim> *variant : variants) {
                    std::set<std::string> at_or_inside{schedule::kOutermost};
                    bool has_loop = outermost;
                    for (const schedule::Dim &d : *variant) {  // innermost first
                        at_or_inside.insert(d.var);
                        if (d.var == level.var) {
                            has_loop = true;
                            break;
                        }
                    }
                    if (!has_loop) continue;  // refused where the loop nest is built
                    std::vector<std::string> inside =
                        computed_inside(env, c.name(), k, at_or_inside);
                    bool is_inside = std::find(inside.begin(), inside.end(), other) != inside.end();
                    if (variant == variants[0]) in_main_schedule |= is_inside;
                    everywhere &= is_inside;
                }
                inside_a_stage |= everywhere;
            }
            user_assert(inside_a_stage)
                << where << ", but \"" << other << "\" uses it too"
                << (env.func(other).schedule().compute_level.kind == schedule::LoopLevel::Kind::At
                        ? " and is computed at " +
                              env.func(other).schedule().compute_level.to_string() +
                              ", not inside " + level.func + "." + level.var
                        : "")
                << (in_main_schedule ? " in a specialization of " + level.func +
                                           " that orders its loops differently"
                                     : "")
                << "; a Func computed inside a loop is visible only to the Funcs computed "
                << "inside that same loop. Compute it at root, or at a loop that holds all "
                << "its readers.";
        }
    }
    for (const std::string &name : env.order)
        resolve_store_level(env, env.func(name));
}

Stmt schedule_functions(Environment &env) {
    NestBuilder builder(env);
    // Outputs in realization order: one may read another (Pipeline({h, g}) where h reads g).
    std::vector<Stmt> outputs;
    for (const std::string &o : env.order) {
        if (env.is_output(o)) outputs.push_back(builder.produce(env.func(o)));
    }
    Stmt s = Block::make(outputs);
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        if (env.is_output(*it)) continue;
        const Function &f = env.func(*it);
        if (!f.schedule().store_level.is_root()) continue;  // stored inside a consumer's loop
        Stmt body = s;
        if (f.schedule().compute_level.is_root()) {
            body = Block::make(builder.produce(f), ProducerConsumer::make(f.name(), false, s));
        }
        s = builder.storage(f, body);
    }
    return s;
}

}  // namespace dsl::lowering
