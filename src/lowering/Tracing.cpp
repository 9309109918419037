#include "lowering/Tracing.h"

#include <algorithm>
#include <functional>
#include <map>

#include "dsl/runtime/dsl_runtime.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The let naming the pipeline's event id (the parent of events outside any other).
const char *const kPipelineId = "pipeline.trace_id";

/// One tracing event (the Trace intrinsic, IR.h): a load's value is the value, the others' the
/// handler's id for the event.
Expr trace_event(int event, const std::string &func, Expr parent, int value_index, Expr value,
                 std::vector<Expr> coordinates) {
    bool load = event == dsl_trace_load;
    Type t = load ? value.type() : Int(32);
    std::vector<Expr> args{Expr(event), StringImm::make(func), std::move(parent), Expr(value_index),
                           value.defined() ? value : Expr(0)};
    for (Expr &c : coordinates)
        args.push_back(std::move(c));
    return Call::make(t, Call::Intrinsic::Trace, std::move(args));
}

std::vector<Expr> flattened(const Region &region) {
    std::vector<Expr> values;
    for (const Range &r : region) {
        values.push_back(r.min);
        values.push_back(r.extent);
    }
    return values;
}

class AddTracing : public IRMutator {
  public:
    AddTracing(const Environment &env, TraceAll all) : env_(env), all_(all) {}

    /// `inner` between the pipeline's begin and end events, with the tags and the traced
    /// outputs' realizations (over their buffers) after the begin event.
    Stmt pipeline(const Stmt &inner) {
        const std::string &name = env_.outputs.front();
        Expr id = Variable::make(Int(32), kPipelineId);
        std::vector<Stmt> stmts;
        for (const std::string &f : env_.order) {
            for (const std::string &tag : env_.func(f).contents().trace_tags) {
                stmts.push_back(
                    Evaluate::make(trace_event(dsl_trace_tag, f, id, 0, StringImm::make(tag), {})));
            }
        }
        stmts.push_back(outputs_realized(0, inner));
        stmts.push_back(
            Evaluate::make(trace_event(dsl_trace_end_pipeline, name, id, 0, Expr(), {})));
        Expr begin = trace_event(dsl_trace_begin_pipeline, name, Expr(0), 0, Expr(), {});
        return LetStmt::make(kPipelineId, begin, Block::make(stmts));
    }

  protected:
    using IRMutator::visit;

    const lang::FunctionContents *traced(const std::string &name) const {
        auto it = env_.funcs.find(name);
        return it == env_.funcs.end() ? nullptr : &it->second.contents();
    }
    bool traces_stores(const lang::FunctionContents *f) const {
        return f && (f->trace_stores || all_.stores);
    }
    bool traces_loads(const lang::FunctionContents *f) const {
        return f && (f->trace_loads || all_.loads);
    }
    bool traces_realizations(const lang::FunctionContents *f) const {
        return f && (f->trace_realizations || all_.realizations);
    }

    /// The id of the innermost event of `func` around this point (its consumption, production
    /// or realization), else the pipeline's.
    Expr parent_of(const std::string &func) const {
        auto it = ids_.find(func);
        const std::string &name =
            it == ids_.end() || it->second.empty() ? std::string(kPipelineId) : it->second.back();
        return Variable::make(Int(32), name);
    }

    /// `body` between a begin event of `func` over `region` and its end (the next code); the
    /// events inside take the begin event's id as their parent.
    Stmt bracketed(int begin, const std::string &func, const Region &region,
                   const std::function<Stmt()> &body) {
        std::string id = func + ".trace_id." + std::to_string(lets_++);
        Expr start = trace_event(begin, func, parent_of(func), 0, Expr(), flattened(region));
        ids_[func].push_back(id);
        Stmt inside = body();
        ids_[func].pop_back();
        Expr end =
            trace_event(begin + 1, func, Variable::make(Int(32), id), 0, Expr(), flattened(region));
        return LetStmt::make(id, start, Block::make({inside, Evaluate::make(end)}));
    }

    Stmt visit(const Atomic *op) override {
        atomic_.push_back(op->name);
        Stmt s = IRMutator::visit(op);
        atomic_.pop_back();
        return s;
    }

    Stmt visit(const Provide *op) override {
        Stmt s = IRMutator::visit(op);
        const lang::FunctionContents *f = traced(op->name);
        if (!traces_stores(f)) return s;
        const auto *p = s.as<Provide>();
        // The values and coordinates are computed once, for the events and the store; inside an
        // atomic update they stay in the store, which recomputes them from what it finds.
        const bool atomic = std::find(atomic_.begin(), atomic_.end(), op->name) != atomic_.end();
        std::vector<std::pair<std::string, Expr>> lets;
        auto bound = [&](const Expr &e, const std::string &what) -> Expr {
            if (atomic || is_const(e) || e.as<Variable>()) return e;
            std::string name = op->name + ".trace_" + what + "." + std::to_string(lets_++);
            lets.push_back({name, e});
            return Variable::make(e.type(), name);
        };
        std::vector<Expr> args, values;
        for (const Expr &a : p->args)
            args.push_back(bound(a, "coordinate"));
        std::vector<Stmt> stmts;
        for (size_t i = 0; i < p->values.size(); i++) {
            if (is_undef(p->values[i])) {
                values.push_back(p->values[i]);  // not stored, so not traced
                continue;
            }
            values.push_back(bound(p->values[i], "value"));
            stmts.push_back(
                Evaluate::make(trace_event(dsl_trace_store, op->name, parent_of(op->name),
                                           static_cast<int>(i), values.back(), args)));
        }
        stmts.push_back(Provide::make(p->name, values, args, p->predicate));
        Stmt result = Block::make(stmts);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            result = LetStmt::make(it->first, it->second, result);
        return result;
    }

    Expr visit(const Call *op) override {
        // An element whose address a descriptor takes (an extern stage's argument, a memoized
        // Func's storage) is not read there.
        if (op->is_intrinsic(Call::Intrinsic::AddressOf)) return op;
        Expr e = IRMutator::visit(op);
        const auto *c = e.as<Call>();
        // The target's trace_loads traces the loads of input buffers too, as Halide's does;
        // ImageParam::trace_loads() those of one input.
        if (op->call_type == Call::CallType::Image &&
            (all_.loads || (op->param.defined() && op->param.contents().trace_loads))) {
            return trace_event(dsl_trace_load, op->name, parent_of(op->name), c->value_index, e,
                               c->args);
        }
        if (op->call_type != Call::CallType::Func) return e;
        const lang::FunctionContents *f = traced(op->name);
        if (!traces_loads(f)) return e;
        return trace_event(dsl_trace_load, op->name, parent_of(op->name), c->value_index, e,
                           c->args);
    }

    Stmt visit(const Realize *op) override {
        const lang::FunctionContents *f = traced(op->name);
        if (!traces_realizations(f)) return IRMutator::visit(op);
        Stmt body = bracketed(dsl_trace_begin_realization, op->name, op->bounds,
                              [&] { return mutate(op->body); });
        return Realize::make(op->name, op->types, op->memory_type, op->bounds, op->condition, body);
    }

    Stmt visit(const ProducerConsumer *op) override {
        const lang::FunctionContents *f = traced(op->name);
        if (!traces_realizations(f)) return IRMutator::visit(op);
        // The region the pure definition computes here.
        Region region;
        for (const std::string &a : f->args) {
            std::string loop = names::stage_var(op->name, 0, a);
            Expr min = Variable::make(Int(32), names::min_of(loop));
            Expr max = Variable::make(Int(32), names::max_of(loop));
            region.push_back({min, max - min + 1});
        }
        Stmt body = bracketed(op->is_producer ? dsl_trace_produce : dsl_trace_consume, op->name,
                              region, [&] { return mutate(op->body); });
        return ProducerConsumer::make(op->name, op->is_producer, body);
    }

  private:
    /// `inner` inside the realization events of the traced outputs from the `i`th on.
    Stmt outputs_realized(size_t i, const Stmt &inner) {
        if (i == env_.outputs.size()) return mutate(inner);
        const std::string &o = env_.outputs[i];
        const lang::FunctionContents *f = traced(o);
        if (!traces_realizations(f)) return outputs_realized(i + 1, inner);
        const std::string buffer =
            names::func_buffer(o, 0, static_cast<int>(f->output_types.size()));
        Region region;
        for (size_t d = 0; d < f->args.size(); d++) {
            region.push_back(
                {Variable::make(Int(32), names::buffer_min(buffer, static_cast<int>(d))),
                 Variable::make(Int(32), names::buffer_extent(buffer, static_cast<int>(d)))});
        }
        return bracketed(dsl_trace_begin_realization, o, region,
                         [&] { return outputs_realized(i + 1, inner); });
    }

    const Environment &env_;
    const TraceAll all_;
    /// Per Func, the lets naming the ids of the events around this point, innermost last.
    std::map<std::string, std::vector<std::string>> ids_;
    /// The Funcs whose atomic updates are around this point.
    std::vector<std::string> atomic_;
    int lets_ = 0;
};

}  // namespace

Stmt add_tracing(const Environment &env, const Stmt &s, TraceAll all) {
    bool any = all.loads || all.stores || all.realizations || all.pipeline;
    for (const auto &[name, f] : env.funcs) {
        const lang::FunctionContents &c = f.contents();
        any |= c.trace_loads || c.trace_stores || c.trace_realizations;
    }
    any = any || any_call(s, [](const Call *c) {
              return c->call_type == Call::CallType::Image && c->param.defined() &&
                     c->param.contents().trace_loads;
          });
    if (!any) return s;
    // The pipeline's events (named after its first output) around everything but the lets of
    // the bounds at the top, where the buffer checks go too (after the begin event's let).
    AddTracing tracing(env, all);
    std::function<Stmt(const Stmt &)> around = [&](const Stmt &inner) -> Stmt {
        if (const auto *let = inner.as<LetStmt>())
            return LetStmt::make(let->name, let->value, around(let->body));
        return tracing.pipeline(inner);
    };
    return around(s);
}

}  // namespace dsl::lowering
