#include "lowering/InlineFunctions.h"

#include "ir/Error.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lowering/Wrappers.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;
using schedule::LoopLevel;

namespace {

/// Replaces calls to inlined Funcs by their (recursively inlined) values.
class InlineCalls : public IRMutator {
  public:
    explicit InlineCalls(const Environment &env) : env_(env) {}

  protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const auto *call = e.as<Call>();
        if (call->call_type != Call::CallType::Func) return e;
        const Function &f = env_.func(call->name);
        if (!is_inlined(f)) return e;
        std::map<std::string, Expr> args;
        for (int i = 0; i < f.dimensions(); i++)
            args[f.args()[i]] = call->args[i];
        // The callee's value may itself call inlined Funcs.
        return mutate(substitute(args, f.init().values[call->value_index]));
    }

  private:
    const Environment &env_;
};

Function private_copy(const Function &f) {
    return Function(std::make_shared<lang::FunctionContents>(f.contents()));
}

}  // namespace

bool is_inlined(const Function &f) {
    return f.schedule().compute_level.is_inlined();
}

void inline_functions(Environment &env, const std::vector<Function> &outputs) {
    std::map<std::string, Function> originals = pipeline_funcs(outputs);
    for (const Function &o : outputs) {
        user_assert(o.has_pure_definition())
            << "Func \"" << o.name() << "\" has no definition; define it before realizing it.";
        env.outputs.push_back(o.name());
    }
    for (const auto &[name, original] : originals) {
        Function f = private_copy(original);
        LoopLevel &level = f.schedule().compute_level;
        bool output = env.is_output(name);
        if (level.is_default()) {
            level =
                (output || f.has_update_definition()) ? LoopLevel::root() : LoopLevel::inlined();
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
            for (Expr &e : d.args)
                e = inliner.mutate(e);
            for (Expr &e : d.values)
                e = inliner.mutate(e);
            d.predicate = inliner.mutate(d.predicate);
        }
    }
}

}  // namespace dsl::lowering
