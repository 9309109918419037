#include "lowering/Tracing.h"

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// "Store f.0({1}, {2}) = {0}": value 0 is the value, the coordinates follow.
std::string access_format(const char *event, const std::string &func, int index, size_t dims,
                          bool with_value) {
    std::string s =
        std::string(event) + " " + escape_print_format(func) + "." + std::to_string(index) + "(";
    for (size_t d = 0; d < dims; d++)
        s += (d ? ", {" : "{") + std::to_string(d + 1) + "}";
    return s + ")" + (with_value ? " = {0}" : "");
}

/// One line naming a region: "Begin realization f.0(min0, extent0, min1, extent1)".
Stmt region_line(const char *event, const std::string &func, int index, const Region &region) {
    std::string format =
        std::string(event) + " " + escape_print_format(func) + "." + std::to_string(index) + "(";
    std::vector<Expr> values;
    for (const Range &r : region) {
        format += values.empty() ? "" : ", ";
        format +=
            "{" + std::to_string(values.size()) + "}, {" + std::to_string(values.size() + 1) + "}";
        values.push_back(r.min);
        values.push_back(r.extent);
    }
    return Evaluate::make(make_print(make_bool(true), format + ")", values));
}

class AddTracing : public IRMutator {
  public:
    explicit AddTracing(const Environment &env) : env_(env) {}

  protected:
    using IRMutator::visit;

    const lang::FunctionContents *traced(const std::string &name) const {
        auto it = env_.funcs.find(name);
        return it == env_.funcs.end() ? nullptr : &it->second.contents();
    }

    Stmt visit(const Provide *op) override {
        Stmt s = IRMutator::visit(op);
        const lang::FunctionContents *f = traced(op->name);
        if (!f || !f->trace_stores) return s;
        const auto *p = s.as<Provide>();
        std::vector<Expr> values;
        for (size_t i = 0; i < p->values.size(); i++) {
            if (is_undef(p->values[i])) {
                values.push_back(p->values[i]);  // not stored, so not traced
                continue;
            }
            std::vector<Expr> printed{p->values[i]};
            printed.insert(printed.end(), p->args.begin(), p->args.end());
            values.push_back(make_print(
                make_bool(true),
                access_format("Store", op->name, static_cast<int>(i), p->args.size(), true),
                printed));
        }
        return Provide::make(p->name, values, p->args, p->predicate);
    }

    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        if (op->call_type != Call::CallType::Func) return e;
        const lang::FunctionContents *f = traced(op->name);
        if (!f || !f->trace_loads) return e;
        const auto *c = e.as<Call>();
        std::vector<Expr> printed{e};
        printed.insert(printed.end(), c->args.begin(), c->args.end());
        return make_print(make_bool(true),
                          access_format("Load", op->name, c->value_index, c->args.size(), true),
                          printed);
    }

    Stmt visit(const Realize *op) override {
        Stmt s = IRMutator::visit(op);
        const lang::FunctionContents *f = traced(op->name);
        if (!f || !f->trace_realizations) return s;
        const auto *r = s.as<Realize>();
        Stmt body = Block::make({region_line("Begin realization", op->name, 0, op->bounds), r->body,
                                 region_line("End realization", op->name, 0, op->bounds)});
        return Realize::make(r->name, r->types, r->memory_type, r->bounds, r->condition, body);
    }

    Stmt visit(const ProducerConsumer *op) override {
        Stmt s = IRMutator::visit(op);
        const lang::FunctionContents *f = traced(op->name);
        if (!f || !f->trace_realizations || !op->is_producer) return s;
        // The region the pure definition computes here.
        Region region;
        for (const std::string &a : f->args) {
            std::string loop = names::stage_var(op->name, 0, a);
            Expr min = Variable::make(Int(32), names::min_of(loop));
            Expr max = Variable::make(Int(32), names::max_of(loop));
            region.push_back({min, max - min + 1});
        }
        const auto *pc = s.as<ProducerConsumer>();
        return ProducerConsumer::make(
            pc->name, true,
            Block::make({region_line("Produce", op->name, 0, region), pc->body,
                         region_line("End produce", op->name, 0, region)}));
    }

  private:
    const Environment &env_;
};

}  // namespace

Stmt add_tracing(const Environment &env, const Stmt &s) {
    bool any = false;
    for (const auto &[name, f] : env.funcs) {
        const lang::FunctionContents &c = f.contents();
        any |= c.trace_loads || c.trace_stores || c.trace_realizations;
    }
    return any ? AddTracing(env).mutate(s) : s;
}

}  // namespace dsl::lowering
