#include "autoschedule/Model.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "ir/Bounds.h"
#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Parameter.h"
#include "ir/Simplify.h"
#include "ir/Transcendental.h"
#include "lowering/Regions.h"

namespace dsl::autoschedule {

using namespace ir;
using lang::Definition;
using lang::Function;

int64_t points(const Box &b) {
    int64_t n = 1;
    for (const Span &s : b)
        n *= std::max<int64_t>(0, s.extent());
    return n;
}

void merge(Box &a, const Box &b) {
    if (a.empty()) {
        a = b;
        return;
    }
    for (size_t i = 0; i < a.size() && i < b.size(); i++) {
        if (b[i].extent() <= 0) continue;
        if (a[i].extent() <= 0) {
            a[i] = b[i];
            continue;
        }
        a[i].min = std::min(a[i].min, b[i].min);
        a[i].max = std::max(a[i].max, b[i].max);
    }
}

namespace {

/// Weighted operation and load counts of an expression, and the types it computes in.
class CostCounter : public IRVisitor {
  public:
    double ops = 0, loads = 0, index_ops = 0;
    int widest = 8;
    std::map<std::string, int> calls;
    std::vector<std::pair<std::string, std::set<std::string>>> operand_vars;
    std::set<std::string> likely_vars;

  protected:
    /// The reads counted so far (the expressions they are in outlive the counter).
    std::vector<const Call *> reads_;
    using IRVisitor::visit;
    void note(const Type &t) {
        if (t.is_bool() || t.is_handle()) return;
        widest = std::max(widest, t.bits());
    }
#define DSL_COUNT_BINARY(T, W)         \
    void visit(const T *op) override { \
        ops += (W);                    \
        note(op->type);                \
        IRVisitor::visit(op);          \
    }
    DSL_COUNT_BINARY(Add, 1)
    DSL_COUNT_BINARY(Sub, 1)
    DSL_COUNT_BINARY(Mul, 1)
    DSL_COUNT_BINARY(Div, 4)
    DSL_COUNT_BINARY(Mod, 4)
    DSL_COUNT_BINARY(Min, 1)
    DSL_COUNT_BINARY(Max, 1)
    DSL_COUNT_BINARY(EQ, 1)
    DSL_COUNT_BINARY(NE, 1)
    DSL_COUNT_BINARY(LT, 1)
    DSL_COUNT_BINARY(LE, 1)
    DSL_COUNT_BINARY(GT, 1)
    DSL_COUNT_BINARY(GE, 1)
    DSL_COUNT_BINARY(And, 1)
    DSL_COUNT_BINARY(Or, 1)
    DSL_COUNT_BINARY(Select, 1)
#undef DSL_COUNT_BINARY
    void visit(const Cast *op) override {
        ops += 0.5;
        note(op->type);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        note(op->type);
        if (op->call_type == Call::CallType::Func || op->call_type == Call::CallType::Image) {
            // A read written twice at the same coordinates is computed once (CSE).
            for (const Call *seen : reads_) {
                if (seen->name != op->name || seen->args.size() != op->args.size()) continue;
                bool same = true;
                for (size_t i = 0; i < op->args.size() && same; i++)
                    same = equal(seen->args[i], op->args[i]);
                if (same) return;
            }
            reads_.push_back(op);
            loads += 1;
            if (op->call_type == Call::CallType::Func) calls[op->name]++;
            std::set<std::string> vars;
            for (const Expr &a : op->args) {
                for (const std::string &v : free_names(a, false))
                    vars.insert(v);
            }
            operand_vars.push_back({op->name, std::move(vars)});
            // Coordinates (clamps of a boundary condition, offsets) are address arithmetic:
            // counted apart from the values computed.
            double before = ops;
            IRVisitor::visit(op);
            index_ops += ops - before;
            ops = before;
            return;
        } else if (op->call_type == Call::CallType::Intrinsic) {
            switch (op->intrinsic) {
                case Call::Intrinsic::Sqrt:
                    ops += 4;
                    break;
                case Call::Intrinsic::Likely:
                    for (const Expr &a : op->args) {
                        for (const std::string &v : free_names(a, false))
                            likely_vars.insert(v);
                    }
                    break;
                case Call::Intrinsic::PromiseClamped:
                case Call::Intrinsic::StrictFloat:
                    break;
                default:
                    ops += is_transcendental(op->intrinsic) ? 20 : 1;
            }
        } else {
            ops += 20;  // a C function
        }
        IRVisitor::visit(op);
    }
};

/// Whether an expression reads a Func or an input.
class ReadsValues : public IRVisitor {
  public:
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == Call::CallType::Func || op->call_type == Call::CallType::Image)
            found = true;
        IRVisitor::visit(op);
    }
};

/// The value a scalar Param was set to, as a constant.
Expr value_of(const ParameterContents &p) {
    uint64_t bits = p.scalar_bits;
    if (p.type.is_float()) {
        if (p.type.bits() == 32) {
            float f;
            uint32_t b = static_cast<uint32_t>(bits);
            std::memcpy(&f, &b, 4);
            return make_const(p.type, static_cast<double>(f));
        }
        double d;
        std::memcpy(&d, &bits, 8);
        return make_const(p.type, d);
    }
    int n = p.type.bits();
    if (p.type.is_bool()) return make_const(p.type, static_cast<int64_t>(bits & 1));
    if (p.type.is_uint()) {
        uint64_t v = n >= 64 ? bits : (bits & ((uint64_t(1) << n) - 1));
        return make_const(p.type, static_cast<int64_t>(v));
    }
    int64_t v = static_cast<int64_t>(bits << (64 - n)) >> (64 - n);
    return make_const(p.type, v);
}

/// The argument lists of the calls of one Func.
class CallArgs : public IRVisitor {
  public:
    explicit CallArgs(const std::string &callee) : callee_(callee) {}
    std::vector<std::vector<Expr>> found;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == Call::CallType::Func && op->name == callee_) found.push_back(op->args);
        IRVisitor::visit(op);
    }

  private:
    const std::string &callee_;
};

/// Replaces Params and the bounds of inputs by their estimates.
class Estimates : public IRMutator {
  protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        if (!op->param.defined()) return op;
        const ParameterContents &p = *op->param.shared();
        if (!p.is_buffer) {
            // Its estimate, else its default, else the value set.
            if (p.estimate.defined()) return cast(op->type, p.estimate);
            if (p.default_value.defined()) return cast(op->type, p.default_value);
            if (p.has_value) return cast(op->type, value_of(p));
            return op;
        }
        // A bound of an input buffer: its estimate, or the bound buffer's.
        std::string field = op->name.substr(names::field_buffer(op->name).size());
        int dim = std::stoi(field.substr(field.rfind('.') + 1));
        bool is_min = field.rfind(".min.", 0) == 0, is_extent = field.rfind(".extent.", 0) == 0;
        if (p.constraints && dim < static_cast<int>(p.constraints->dims.size())) {
            const DimensionConstraint &d = p.constraints->dims[dim];
            if (is_min && d.estimate_min.defined()) return mutate(d.estimate_min);
            if (is_extent && d.estimate_extent.defined()) return mutate(d.estimate_extent);
            if (is_min && d.min.defined()) return mutate(d.min);
            if (is_extent && d.extent.defined()) return mutate(d.extent);
        }
        if (p.buffer.defined() && dim < p.buffer.dimensions()) {
            if (is_min) return make_const(Int(32), p.buffer.dim(dim).min());
            if (is_extent) return make_const(Int(32), p.buffer.dim(dim).extent());
        }
        return op;
    }
};

/// The name of the ImageParam or Param an expression still depends on, for messages.
class FirstParam : public IRVisitor {
  public:
    std::string name;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (name.empty() && op->param.defined()) name = op->name;
    }
};

}  // namespace

std::vector<std::vector<Expr>> Model::call_args(const std::string &consumer, int stage,
                                                const std::string &callee) const {
    CallArgs c(callee);
    lang::visit_definition(funcs_.at(consumer).func.stage(stage), c);
    return c.found;
}

Expr Model::with_estimates(const Expr &e) const {
    if (!e.defined()) return e;
    return simplify(Estimates().mutate(e));
}

std::optional<int64_t> Model::constant(const Expr &e) const {
    Expr c = with_estimates(e);
    if (!c.defined()) return std::nullopt;
    return as_const_int(c);
}

Model::Model(const std::vector<Func> &outputs, const Target &target) : target_(target) {
    std::vector<Function> outs;
    for (const Func &f : outputs) {
        user_assert(f.defined()) << "auto_schedule: the output Func \"" << f.name()
                                 << "\" is not defined; define it first.";
        outs.emplace_back(f.contents());
    }
    std::map<std::string, Function> all = lang::find_transitive_calls(outs);
    for (const auto &[name, f] : all) {
        FuncInfo info;
        info.func = f;
        info.name = name;
        for (const Function &o : outs)
            info.is_output |= o.name() == name;
        funcs_[name] = std::move(info);
    }
    for (const auto &[name, f] : all)
        analyse_func(f);
    // Producers first: a depth-first walk from the outputs.
    std::set<std::string> done;
    std::function<void(const std::string &)> visit = [&](const std::string &n) {
        if (!done.insert(n).second) return;
        for (const std::string &p : funcs_.at(n).producers)
            visit(p);
        order_.push_back(n);
    };
    for (const Function &o : outs)
        visit(o.name());
    infer_regions();
}

void Model::analyse_func(const Function &f) {
    FuncInfo &info = funcs_.at(f.name());
    for (const Type &t : f.output_types())
        info.bytes_per_point += t.bytes();
    for (int s = 0; s < f.stages(); s++) {
        const Definition &d = f.stage(s);
        StageInfo st;
        st.index = s;
        if (d.rdom.defined()) {
            for (const ReductionVariable &rv : d.rdom.domain()) {
                std::optional<int64_t> lo = constant(rv.min), ext = constant(rv.extent);
                if (!lo || !ext) {
                    FirstParam p;
                    p.include(rv.min);
                    p.include(rv.extent);
                    user_error << "auto_schedule: the RDom variable " << rv.var << " of Func \""
                               << f.name() << "\" has bounds [" << rv.min << ", +" << rv.extent
                               << ") that depend on "
                               << (p.name.empty() ? "values" : "\"" + p.name + "\"")
                               << ", which has no estimate; give it one "
                                  "(Param::set_estimate, ImageParam::dim(d).set_estimate).";
                }
                st.rvars.push_back({rv.var, {*lo, *lo + std::max<int64_t>(*ext, 1) - 1}});
            }
        }
        for (size_t i = 0; i < f.args().size(); i++) {
            const std::string &a = f.args()[i];
            const auto *v = i < d.args.size() ? d.args[i].as<Variable>() : nullptr;
            if (s == 0 || (v && v->name == a && !v->reduction_domain.defined()))
                st.pure_loops.push_back(a);
        }
        CostCounter cost;
        for (const Expr &v : d.values)
            cost.include(v);
        if (s > 0) {
            for (const Expr &a : d.args)
                cost.include(a);
        }
        cost.include(d.predicate);
        st.operand_vars = cost.operand_vars;
        st.likely_vars = cost.likely_vars;
        st.ops = cost.ops;
        st.index_ops = cost.index_ops;
        st.loads = cost.loads;
        st.widest_bits = cost.widest;
        for (const Type &t : f.output_types())
            st.widest_bits = std::max(st.widest_bits, t.bits());
        for (const auto &[callee, n] : cost.calls) {
            if (callee == f.name()) continue;
            st.calls[callee] = n;
            info.producers.insert(callee);
            FuncInfo &p = funcs_.at(callee);
            p.consumers.insert(f.name());
            // Pointwise: every call at the stage's own left side; data-dependent: some
            // coordinate reads a Func or an input.
            for (const std::vector<Expr> &args : call_args(f.name(), s, callee)) {
                p.pointwise &= !d.rdom.defined() && args.size() == d.args.size();
                for (size_t i = 0; i < args.size(); i++) {
                    p.pointwise &= i < d.args.size() && equal(args[i], d.args[i]);
                    ReadsValues r;
                    r.include(args[i]);
                    p.data_dependent |= r.found;
                }
            }
        }
        info.stages.push_back(std::move(st));
    }
}

Box Model::footprint(const FuncInfo &f, const StageInfo &s, const Box &box,
                     const std::string &callee) const {
    const Definition &d = f.func.stage(s.index);
    Scope<Interval> scope;
    for (size_t i = 0; i < f.func.args().size() && i < box.size(); i++) {
        scope.push(f.func.args()[i],
                   Interval(make_const(Int(32), box[i].min), make_const(Int(32), box[i].max)));
    }
    for (const auto &[name, span] : s.rvars)
        scope.push(name, Interval(make_const(Int(32), span.min), make_const(Int(32), span.max)));
    std::vector<Expr> exprs;
    for (const Expr &e : d.values)
        exprs.push_back(Estimates().mutate(e));
    if (s.index > 0) {
        for (const Expr &e : d.args)
            exprs.push_back(Estimates().mutate(e));
    }
    lowering::Box calls = lowering::box_of_calls_in(exprs, callee, scope);
    Box result;
    const FuncInfo &c = funcs_.at(callee);
    for (size_t i = 0; i < calls.size(); i++) {
        Span span;
        std::optional<int64_t> lo, hi;
        if (calls[i].has_lower_bound()) lo = as_const_int(simplify(calls[i].min));
        if (calls[i].has_upper_bound()) hi = as_const_int(simplify(calls[i].max));
        // Unbounded, or a whole type's range (a look-up by a loaded value): the estimate of
        // the callee if it has one, else what is known of it so far.
        constexpr int64_t kHuge = int64_t(1) << 28;
        if (!lo || !hi || *hi - *lo > kHuge) {
            const auto &est = c.func.schedule().estimates;
            bool found = false;
            for (const schedule::Bound &b : est) {
                if (i < c.func.args().size() && b.var == c.func.args()[i]) {
                    std::optional<int64_t> m = constant(b.min), e = constant(b.extent);
                    if (m && e) {
                        lo = *m;
                        hi = *m + *e - 1;
                        found = true;
                    }
                }
            }
            // Without an estimate, a whole 8- or 16-bit range (a look-up table) is kept.
            user_assert(found || (lo && hi && *hi - *lo <= (int64_t(1) << 16)))
                << "auto_schedule: Func \"" << f.name << "\" reads \"" << callee
                << "\" at coordinates that cannot be bounded in dimension " << i
                << "; clamp them, or give \"" << callee << "\" an estimate of that dimension ("
                << callee << ".set_estimate(" << c.func.args()[i] << ", min, extent)).";
        }
        span.min = *lo;
        span.max = *hi;
        result.push_back(span);
    }
    return result;
}

std::map<std::string, Box> Model::required(const std::string &func, const Box &box,
                                           const std::set<std::string> &into,
                                           const std::set<std::string> &through) const {
    std::map<std::string, Box> regions;
    regions[func] = box;
    // Consumers before producers: the reverse of order_.
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
        auto r = regions.find(*it);
        if (r == regions.end()) continue;
        if (*it != func && !into.count(*it) && !through.count(*it)) continue;
        const FuncInfo &f = funcs_.at(*it);
        for (const StageInfo &s : f.stages) {
            for (const auto &[callee, n] : s.calls) {
                (void)n;
                Box b = footprint(f, s, r->second, callee);
                merge(regions[callee], b);
            }
        }
    }
    std::map<std::string, Box> result;
    for (auto &[name, b] : regions) {
        if (name != func && into.count(name)) result[name] = b;
    }
    return result;
}

void Model::infer_regions() {
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
        FuncInfo &f = funcs_.at(*it);
        if (f.is_output) {
            Box b;
            for (const std::string &a : f.func.args()) {
                bool found = false;
                for (const schedule::Bound &e : f.func.schedule().estimates) {
                    if (e.var != a) continue;
                    std::optional<int64_t> m = constant(e.min), x = constant(e.extent);
                    user_assert(m && x)
                        << "auto_schedule: the estimate of dimension " << a << " of Func \""
                        << f.name << "\" is not a constant once Params take their estimates; "
                        << "give every Param it uses an estimate (Param::set_estimate).";
                    b.push_back({*m, *m + std::max<int64_t>(*x, 1) - 1});
                    found = true;
                }
                user_assert(found)
                    << "auto_schedule: the output Func \"" << f.name
                    << "\" has no estimate of its dimension " << a << "; say how large it is, e.g. "
                    << f.name << ".set_estimate(" << a << ", 0, 1024).";
            }
            merge(f.region, b);
        }
        if (f.region.empty()) {
            // Read only at coordinates no consumer bounds: its own estimates, or one point.
            for (size_t i = 0; i < f.func.args().size(); i++)
                f.region.push_back({0, 0});
        }
        for (const StageInfo &s : f.stages) {
            for (const auto &[callee, n] : s.calls) {
                (void)n;
                merge(funcs_.at(callee).region, footprint(f, s, f.region, callee));
            }
        }
    }
}

namespace {
/// Puts every Func back on the default schedule: computed inline (at root for outputs and
/// Funcs with updates), each stage's loops as the definition made them. Bounds, estimates and
/// storage order stay: they are part of what the user said about the Func, not of a schedule.
void reset_schedule(const lang::Function &f) {
    lang::FunctionContents &c = f.contents();
    // rfactor changed the algorithm's updates: the originals come back, and the partial
    // results' Funcs drop out of the pipeline.
    // (Their names are free again: the next rfactor's Func is named as the first was.)
    if (!c.updates_before_rfactor.empty()) c.rfactor_intermediates = 0;
    for (auto &[index, original] : c.updates_before_rfactor)
        c.updates[index] = original;
    c.updates_before_rfactor.clear();
    c.schedule.compute_level = {};
    c.schedule.store_level = {};
    c.schedule.memory_type = ir::MemoryType::Auto;
    for (int s = 0; s < f.stages(); s++) {
        lang::Definition &d = f.stage(s);
        d.specializations.clear();
        schedule::StageSchedule fresh;
        if (s == 0) {
            for (const std::string &a : c.args)
                fresh.dims.push_back({a});
        } else {
            if (d.rdom.defined()) {
                for (const ir::ReductionVariable &rv : d.rdom.domain())
                    fresh.dims.push_back({rv.var, ir::ForType::Serial, ir::DeviceAPI::None, true});
            }
            // The pure Vars the update keeps (they must sit at their own place on its left).
            for (size_t i = 0; i < c.args.size() && i < d.args.size(); i++) {
                const auto *v = d.args[i].as<ir::Variable>();
                if (v && v->name == c.args[i] && !v->reduction_domain.defined())
                    fresh.dims.push_back({c.args[i]});
            }
        }
        fresh.allow_race_conditions = d.schedule.allow_race_conditions;
        fresh.atomic = d.schedule.atomic;
        d.schedule = fresh;
    }
    c.specialization_paths.clear();
    f.touch();
}

}  // namespace

void reset_schedules(const std::vector<Func> &outputs) {
    std::vector<Function> outs;
    for (const Func &f : outputs)
        outs.emplace_back(f.contents());
    for (const auto &[name, f] : lang::find_transitive_calls(outs))
        reset_schedule(f);
}

}  // namespace dsl::autoschedule
