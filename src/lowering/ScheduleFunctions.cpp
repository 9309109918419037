#include "lowering/ScheduleFunctions.h"

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;
using lang::Definition;
using lang::Function;

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

namespace {

Stmt build_stage(const Function &f, int stage) {
    Definition d = rename_stage_vars(f, stage);
    Stmt body = Provide::make(f.name(), d.values, d.args, make_bool(true));
    if (!is_const_true(d.predicate)) body = IfThenElse::make(d.predicate, body);
    // Loops, innermost first.
    for (const schedule::Dim &dim : d.schedule.dims) {
        std::string loop = names::stage_var(f.name(), stage, dim.var);
        Expr min = Variable::make(Int(32), names::min_of(loop));
        Expr max = Variable::make(Int(32), names::max_of(loop));
        body = For::make(loop, min, max - min + 1, dim.for_type, dim.device_api, body);
    }
    // RDom bounds come from the RDom itself.
    if (d.rdom.defined()) {
        const auto &domain = d.rdom.domain();
        for (auto it = domain.rbegin(); it != domain.rend(); ++it) {
            std::string loop = names::stage_var(f.name(), stage, it->var);
            body = LetStmt::make(names::max_of(loop), it->min + it->extent - 1, body);
            body = LetStmt::make(names::min_of(loop), it->min, body);
        }
    }
    return body;
}

Stmt build_produce(const Function &f) {
    std::vector<Stmt> stages;
    for (int s = 0; s < f.stages(); s++)
        stages.push_back(build_stage(f, s));
    return ProducerConsumer::make(f.name(), true, Block::make(stages));
}

}  // namespace

Stmt schedule_functions(const Environment &env) {
    std::vector<Stmt> outputs;
    for (const std::string &o : env.outputs)
        outputs.push_back(build_produce(env.func(o)));
    Stmt s = Block::make(outputs);
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        if (env.is_output(*it)) continue;
        const Function &f = env.func(*it);
        internal_assert(f.schedule().compute_level.is_root())
            << "only root and inline compute levels are lowered so far (" << f.name() << ")";
        Region bounds;
        for (const std::string &a : f.args()) {
            bounds.push_back({Variable::make(Int(32), names::realized_min(f.name(), a)),
                              Variable::make(Int(32), names::realized_extent(f.name(), a))});
        }
        Stmt body = Block::make(build_produce(f), ProducerConsumer::make(f.name(), false, s));
        s = Realize::make(f.name(), f.output_types(), f.schedule().memory_type, bounds,
                          make_bool(true), body);
    }
    return s;
}

}  // namespace dsl::lowering
