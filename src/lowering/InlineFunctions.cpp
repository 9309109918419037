#include "lowering/InlineFunctions.h"

#include <set>
#include <unordered_map>

#include "ir/CSE.h"
#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lowering/ExternStages.h"
#include "lowering/Wrappers.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;
using schedule::LoopLevel;

namespace {

/// Replaces calls to inlined Funcs by their (recursively inlined) values. Each distinct call
/// (callee, value, arguments) is inlined once and each node shared in memory rewritten once,
/// the results shared: a chain of Funcs that each read the one before twice (Fibonacci-like)
/// stays a DAG of the chain's length instead of a tree exponential in it.
class InlineCalls : public IRMutator {
  public:
    explicit InlineCalls(const Environment &env) : env_(env) {}
    Expr mutate(const Expr &e) override {
        if (!e.defined() || !held_more_than_once(e)) return IRMutator::mutate(e);
        auto it = done_.find(e.get());
        if (it != done_.end()) return it->second.second;
        Expr result = IRMutator::mutate(e);
        // The key stays alive with its entry, so that its address is not reused.
        done_.emplace(e.get(), std::make_pair(e, result));
        return result;
    }
    using IRMutator::mutate;

  protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const auto *call = e.as<Call>();
        if (call->call_type != Call::CallType::Func) return e;
        const Function &f = env_.func(call->name);
        if (!is_inlined(f)) return e;
        std::vector<Inlined> &earlier = inlined_[call->name];
        for (const Inlined &i : earlier) {
            if (i.value_index != call->value_index || i.args.size() != call->args.size()) continue;
            bool same = true;
            for (size_t k = 0; k < i.args.size() && same; k++)
                same = equal(i.args[k], call->args[k]);
            if (same) return i.result;
        }
        std::map<std::string, Expr> args;
        for (int i = 0; i < f.dimensions(); i++)
            args[f.args()[i]] = call->args[i];
        // The callee's value may itself call inlined Funcs.
        Expr result = mutate(substitute_shared(args, f.init().values[call->value_index]));
        earlier.push_back({call->value_index, call->args, result});
        return result;
    }

  private:
    struct Inlined {
        int value_index;
        std::vector<Expr> args;
        Expr result;
    };
    const Environment &env_;
    std::map<std::string, std::vector<Inlined>> inlined_;
    std::unordered_map<const BaseExprNode *, std::pair<Expr, Expr>> done_;
};

Function private_copy(const Function &f) {
    return Function(std::make_shared<lang::FunctionContents>(f.contents()));
}

/// The variables the arguments of the calls to Func `callee` use, in a stage's definition;
/// `found` says whether there is a call at all.
class CallArguments : public IRVisitor {
  public:
    explicit CallArguments(const std::string &callee) : callee_(callee) {}
    bool found = false;
    std::set<std::string> vars;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == Call::CallType::Func && op->name == callee_) {
            found = true;
            for (const Expr &a : op->args) {
                for (const std::string &v : free_names(a, false))
                    vars.insert(v);
            }
        }
        IRVisitor::visit(op);
    }

  private:
    const std::string &callee_;
};

/// The names loop `loop` of a stage was made from by its splits (itself included).
std::set<std::string> origins(const std::vector<schedule::Split> &splits, const std::string &loop) {
    std::set<std::string> made{loop};
    for (auto it = splits.rbegin(); it != splits.rend(); ++it) {
        using Kind = schedule::Split::Kind;
        switch (it->kind) {
            case Kind::SplitVar:
                if (made.count(it->outer) || made.count(it->inner)) made.insert(it->old_var);
                break;
            case Kind::FuseVars:
                if (made.count(it->old_var)) {
                    made.insert(it->inner);
                    made.insert(it->outer);
                }
                break;
            case Kind::RenameVar:
                if (made.count(it->outer)) made.insert(it->old_var);
                break;
        }
    }
    return made;
}

/// Whether every specialization of `d` (recursively) has the loop `var`.
bool every_variant_has_loop(const lang::Definition &d, const std::string &var) {
    bool found = false;
    for (const schedule::Dim &dim : d.schedule.dims)
        found |= dim.var == var;
    for (const lang::Specialization &s : d.specializations)
        found = found && every_variant_has_loop(s.definition, var);
    return found;
}

/// Where a Func scheduled LoopLevel::innermost() goes: in the one stage of the one Func that
/// reads it, the innermost loop the call's arguments depend on, other than a vectorized loop
/// (its loops then run inside the vector's outer loop). Halide computes it in the innermost
/// loop whatever the arguments; here loops inside that the arguments do not depend on (the
/// channels of a softmax reading the sum over channels) do not recompute it. Root when several
/// stages read it, when no loop qualifies, or when the Func has no dimension.
LoopLevel innermost_level(const Environment &env, const std::string &name) {
    // A reduction to one value (no dimension) is computed once.
    if (env.func(name).dimensions() == 0) return LoopLevel::root();
    std::string reader;
    int stage = -1;
    std::set<std::string> used;
    for (const auto &[other, g] : env.funcs) {
        if (other == name || is_inlined(g)) continue;
        for (int k = 0; k < g.stages(); k++) {
            CallArguments calls(name);
            lang::visit_definition(g.stage(k), calls);
            if (!calls.found) continue;
            if (stage >= 0) return LoopLevel::root();  // a second reader
            reader = other;
            stage = k;
            used = calls.vars;
        }
    }
    if (stage < 0) return LoopLevel::root();
    const lang::Definition &d = env.func(reader).stage(stage);
    for (const schedule::Dim &dim : d.schedule.dims) {
        if (dim.for_type == ForType::Vectorized) continue;
        bool depends = false;
        for (const std::string &v : origins(d.schedule.splits, dim.var))
            depends |= used.count(v) > 0;
        if (!depends) continue;
        // The loop must be the same in every specialization of the stage.
        if (!every_variant_has_loop(d, dim.var)) break;
        return LoopLevel::at(reader, dim.var);
    }
    return LoopLevel::root();
}

}  // namespace

bool is_inlined(const Function &f) {
    return f.schedule().compute_level.is_inlined();
}

void inline_functions(Environment &env, const std::vector<Function> &outputs) {
    std::map<std::string, Function> originals = pipeline_funcs(outputs);
    const std::map<std::string, std::string> read_by_extern = extern_stage_inputs(originals);
    for (const Function &o : outputs) {
        user_assert(o.has_pure_definition())
            << "Func \"" << o.name() << "\" has no definition; define it before realizing it.";
        env.outputs.push_back(o.name());
    }
    for (const auto &[name, original] : originals) {
        Function f = private_copy(original);
        LoopLevel &level = f.schedule().compute_level;
        bool output = env.is_output(name);
        auto reader = read_by_extern.find(name);
        // undef<T>() in the pure definition leaves points unstored: there is no value to inline.
        bool partly_undefined = !is_const_true(f.init().predicate);
        for (const Expr &v : f.init().values)
            partly_undefined |= is_undef(v);
        if (level.is_default()) {
            // An extern stage reads a buffer of what it needs: its inputs are computed.
            level = (output || f.has_update_definition() || reader != read_by_extern.end() ||
                     partly_undefined)
                        ? LoopLevel::root()
                        : LoopLevel::inlined();
        }
        user_assert(!level.is_inlined() || reader == read_by_extern.end())
            << "Func \"" << name << "\" is read by the extern stage \"" << reader->second
            << "\", which takes it as a buffer, so it cannot be computed inline. Remove "
            << "compute_inline(), or schedule it compute_root() or compute_at(...).";
        if (f.is_extern()) {
            user_assert(!level.is_inlined())
                << "Func \"" << name
                << "\" is an extern stage (its values come from the function \""
                << f.contents().extern_function << "\"), so it cannot be computed inline. Schedule "
                << "it compute_root() or compute_at(...).";
            const schedule::StageSchedule &sched = f.init().schedule;
            bool plain = sched.splits.empty();
            for (const schedule::Dim &dim : sched.dims)
                plain &= dim.for_type == ForType::Serial && dim.device_api == DeviceAPI::None;
            user_assert(plain)
                << "Func \"" << name << "\" is an extern stage (the function \""
                << f.contents().extern_function << "\" computes its whole region in one call), so "
                << "it has no loops to split, reorder, vectorize, unroll or parallelize. Schedule "
                << "the Func that reads it instead.";
        }
        if (level.is_inlined()) {
            user_assert(!output)
                << "Func \"" << name
                << "\" is an output of the pipeline, so it cannot be computed inline; "
                   "remove compute_inline().";
            user_assert(!f.has_update_definition())
                << "Func \"" << name
                << "\" has update definitions, so it cannot be computed inline; "
                << "use compute_root() (or leave it unscheduled).";
            user_assert(!partly_undefined)
                << "Func \"" << name
                << "\" leaves points undef<T>() in its pure definition, so it has no value to "
                   "compute inline; use compute_root() (or leave it unscheduled).";
        }
        if (level.is_inlined()) {
            const schedule::StageSchedule &sched = f.init().schedule;
            bool has_loop_directives = !sched.splits.empty();
            for (const schedule::Dim &dim : sched.dims)
                has_loop_directives |= dim.for_type != ForType::Serial;
            if (has_loop_directives) {
                user_warning
                    << "Func \"" << name << "\" is computed inline, so its loop directives (split, "
                    << "vectorize, parallel, ...) have no effect. Schedule it compute_root() or "
                    << "compute_at(...) for them to apply.";
            }
        }
        const LoopLevel &store = f.schedule().store_level;
        if (level.is_inlined() && !store.is_default() && !store.is_inlined()) {
            user_warning << "Func \"" << name << "\" is computed inline, so store_at / "
                         << "store_root has no effect. Schedule it compute_at(...) for the "
                         << "storage to apply.";
        }
        if (level.is_inlined() && !f.schedule().bounds.empty()) {
            const schedule::Bound &b = f.schedule().bounds[0];
            user_warning << "Func \"" << name << "\" is computed inline, so "
                         << (b.min.defined() ? "bound(" : "bound_extent(") << b.var
                         << ", ...) has no effect. Schedule it "
                         << "compute_root() or compute_at(...) for the bound to apply.";
        }
        if ((output || level.is_inlined()) && !f.schedule().storage_folds.empty()) {
            user_warning << "Func \"" << name << "\" is "
                         << (output ? "an output, so its layout is its buffer's"
                                    : "computed inline, so it has no storage")
                         << ": fold_storage has no effect.";
        }
        const std::vector<std::string> &storage = f.schedule().storage_order;
        if ((output || level.is_inlined()) && !storage.empty() && storage != f.args()) {
            user_warning << "Func \"" << name << "\" is "
                         << (output ? "an output, so its layout is its buffer's"
                                    : "computed inline, so it has no storage")
                         << ": reorder_storage has no effect.";
        }
        if (f.schedule().store_level.is_default()) f.schedule().store_level = level;
        env.funcs[name] = f;
    }
    // Substitute inlined Funcs everywhere else.
    InlineCalls inliner(env);
    for (auto &[name, f] : env.funcs) {
        if (is_inlined(f)) continue;
        for (int s = 0; s < f.stages(); s++) {
            lang::Definition &d = f.stage(s);
            // A value far larger as a tree than in memory has its shared parts in lets from
            // here on (ir/CSE.h).
            for (Expr &e : d.args)
                e = share_if_blown_up(inliner.mutate(e));
            for (Expr &e : d.values)
                e = share_if_blown_up(inliner.mutate(e));
            d.predicate = share_if_blown_up(inliner.mutate(d.predicate));
        }
    }
    // The readers of each Func are known now that the inlined ones are substituted.
    for (auto &[name, f] : env.funcs) {
        if (f.schedule().compute_level.kind != LoopLevel::Kind::Innermost) continue;
        f.schedule().compute_level = innermost_level(env, name);
        if (f.schedule().store_level.kind == LoopLevel::Kind::Innermost)
            f.schedule().store_level = f.schedule().compute_level;
    }
}

}  // namespace dsl::lowering
