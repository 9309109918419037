#include "ir/IRVisitor.h"

#include "ir/Error.h"

namespace dsl::ir {

// ---------------------------------------------------------------------------------------------
// IRVisitor

void IRVisitor::include(const Expr &e) {
    if (!e.defined()) return;
    switch (e.node_type()) {
#define DSL_DISPATCH(T)                         \
    case IRNodeType::T:                         \
        visit(static_cast<const T *>(e.get())); \
        return;
        DSL_FOR_EACH_EXPR_NODE(DSL_DISPATCH)
#undef DSL_DISPATCH
        default:
            internal_error << "statement node inside an Expr";
    }
}

void IRVisitor::include(const Stmt &s) {
    if (!s.defined()) return;
    switch (s.node_type()) {
#define DSL_DISPATCH(T)                         \
    case IRNodeType::T:                         \
        visit(static_cast<const T *>(s.get())); \
        return;
        DSL_FOR_EACH_STMT_NODE(DSL_DISPATCH)
#undef DSL_DISPATCH
        default:
            internal_error << "expression node inside a Stmt";
    }
}

void IRVisitor::visit(const IntImm *) {}
void IRVisitor::visit(const UIntImm *) {}
void IRVisitor::visit(const FloatImm *) {}
void IRVisitor::visit(const StringImm *) {}
void IRVisitor::visit(const Cast *op) {
    include(op->value);
}
void IRVisitor::visit(const Variable *) {}

#define DSL_VISIT_BINARY(T)              \
    void IRVisitor::visit(const T *op) { \
        include(op->a);                  \
        include(op->b);                  \
    }
DSL_VISIT_BINARY(Add)
DSL_VISIT_BINARY(Sub)
DSL_VISIT_BINARY(Mul)
DSL_VISIT_BINARY(Div)
DSL_VISIT_BINARY(Mod)
DSL_VISIT_BINARY(Min)
DSL_VISIT_BINARY(Max)
DSL_VISIT_BINARY(EQ)
DSL_VISIT_BINARY(NE)
DSL_VISIT_BINARY(LT)
DSL_VISIT_BINARY(LE)
DSL_VISIT_BINARY(GT)
DSL_VISIT_BINARY(GE)
DSL_VISIT_BINARY(And)
DSL_VISIT_BINARY(Or)
#undef DSL_VISIT_BINARY

void IRVisitor::visit(const Not *op) {
    include(op->a);
}
void IRVisitor::visit(const Select *op) {
    include(op->condition);
    include(op->true_value);
    include(op->false_value);
}
void IRVisitor::visit(const Load *op) {
    include(op->index);
    include(op->predicate);
}
void IRVisitor::visit(const Ramp *op) {
    include(op->base);
    include(op->stride);
}
void IRVisitor::visit(const Broadcast *op) {
    include(op->value);
}
void IRVisitor::visit(const Call *op) {
    for (const Expr &a : op->args)
        include(a);
}
void IRVisitor::visit(const Let *op) {
    include(op->value);
    include(op->body);
}
void IRVisitor::visit(const Shuffle *op) {
    for (const Expr &v : op->vectors)
        include(v);
}
void IRVisitor::visit(const VectorReduce *op) {
    include(op->value);
}

void IRVisitor::visit(const LetStmt *op) {
    include(op->value);
    include(op->body);
}
void IRVisitor::visit(const AssertStmt *op) {
    include(op->condition);
    include(op->message);
}
void IRVisitor::visit(const ProducerConsumer *op) {
    include(op->body);
}
void IRVisitor::visit(const For *op) {
    include(op->min);
    include(op->extent);
    include(op->body);
}
void IRVisitor::visit(const Store *op) {
    include(op->value);
    include(op->index);
    include(op->predicate);
}
void IRVisitor::visit(const Provide *op) {
    for (const Expr &v : op->values)
        include(v);
    for (const Expr &a : op->args)
        include(a);
    include(op->predicate);
}
void IRVisitor::visit(const Allocate *op) {
    for (const Expr &e : op->extents)
        include(e);
    include(op->condition);
    include(op->body);
}
void IRVisitor::visit(const Free *) {}
void IRVisitor::visit(const Realize *op) {
    for (const Range &r : op->bounds) {
        include(r.min);
        include(r.extent);
    }
    include(op->condition);
    include(op->body);
}
void IRVisitor::visit(const Block *op) {
    include(op->first);
    include(op->rest);
}
void IRVisitor::visit(const IfThenElse *op) {
    include(op->condition);
    include(op->then_case);
    include(op->else_case);
}
void IRVisitor::visit(const Evaluate *op) {
    include(op->value);
}
void IRVisitor::visit(const Atomic *op) {
    include(op->body);
}

// ---------------------------------------------------------------------------------------------
// IRMutator

Expr IRMutator::mutate(const Expr &e) {
    if (!e.defined()) return e;
    switch (e.node_type()) {
#define DSL_DISPATCH(T) \
    case IRNodeType::T: \
        return visit(static_cast<const T *>(e.get()));
        DSL_FOR_EACH_EXPR_NODE(DSL_DISPATCH)
#undef DSL_DISPATCH
        default:
            internal_error << "statement node inside an Expr";
    }
    return Expr();
}

Stmt IRMutator::mutate(const Stmt &s) {
    if (!s.defined()) return s;
    switch (s.node_type()) {
#define DSL_DISPATCH(T) \
    case IRNodeType::T: \
        return visit(static_cast<const T *>(s.get()));
        DSL_FOR_EACH_STMT_NODE(DSL_DISPATCH)
#undef DSL_DISPATCH
        default:
            internal_error << "expression node inside a Stmt";
    }
    return Stmt();
}

bool IRMutator::mutate_exprs(const std::vector<Expr> &in, std::vector<Expr> *out) {
    bool changed = false;
    out->clear();
    out->reserve(in.size());
    for (const Expr &e : in) {
        out->push_back(mutate(e));
        changed |= !out->back().same_as(e);
    }
    return changed;
}

Expr IRMutator::visit(const IntImm *op) {
    return op;
}
Expr IRMutator::visit(const UIntImm *op) {
    return op;
}
Expr IRMutator::visit(const FloatImm *op) {
    return op;
}
Expr IRMutator::visit(const StringImm *op) {
    return op;
}
Expr IRMutator::visit(const Variable *op) {
    return op;
}

Expr IRMutator::visit(const Cast *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return Cast::make(op->type, std::move(value));
}

#define DSL_MUTATE_BINARY(T)                                 \
    Expr IRMutator::visit(const T *op) {                     \
        Expr a = mutate(op->a), b = mutate(op->b);           \
        if (a.same_as(op->a) && b.same_as(op->b)) return op; \
        return T::make(std::move(a), std::move(b));          \
    }
DSL_MUTATE_BINARY(Add)
DSL_MUTATE_BINARY(Sub)
DSL_MUTATE_BINARY(Mul)
DSL_MUTATE_BINARY(Div)
DSL_MUTATE_BINARY(Mod)
DSL_MUTATE_BINARY(Min)
DSL_MUTATE_BINARY(Max)
DSL_MUTATE_BINARY(EQ)
DSL_MUTATE_BINARY(NE)
DSL_MUTATE_BINARY(LT)
DSL_MUTATE_BINARY(LE)
DSL_MUTATE_BINARY(GT)
DSL_MUTATE_BINARY(GE)
DSL_MUTATE_BINARY(And)
DSL_MUTATE_BINARY(Or)
#undef DSL_MUTATE_BINARY

Expr IRMutator::visit(const Not *op) {
    Expr a = mutate(op->a);
    if (a.same_as(op->a)) return op;
    return Not::make(std::move(a));
}

Expr IRMutator::visit(const Select *op) {
    Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
        return op;
    }
    return Select::make(std::move(c), std::move(t), std::move(f));
}

Expr IRMutator::visit(const Load *op) {
    Expr index = mutate(op->index), predicate = mutate(op->predicate);
    if (index.same_as(op->index) && predicate.same_as(op->predicate)) return op;
    return Load::make(op->type, op->name, std::move(index), std::move(predicate), op->alignment);
}

Expr IRMutator::visit(const Ramp *op) {
    Expr base = mutate(op->base), stride = mutate(op->stride);
    if (base.same_as(op->base) && stride.same_as(op->stride)) return op;
    return Ramp::make(std::move(base), std::move(stride), op->lanes);
}

Expr IRMutator::visit(const Broadcast *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return Broadcast::make(std::move(value), op->lanes);
}

Expr IRMutator::visit(const Call *op) {
    std::vector<Expr> args;
    if (!mutate_exprs(op->args, &args)) return op;
    return op->with_args(std::move(args));
}

Expr IRMutator::visit(const Let *op) {
    Expr value = mutate(op->value), body = mutate(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return op;
    return Let::make(op->name, std::move(value), std::move(body));
}

Expr IRMutator::visit(const Shuffle *op) {
    std::vector<Expr> vectors;
    if (!mutate_exprs(op->vectors, &vectors)) return op;
    return Shuffle::make(std::move(vectors), op->indices);
}

Expr IRMutator::visit(const VectorReduce *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return VectorReduce::make(op->op, std::move(value), op->type.lanes());
}

Stmt IRMutator::visit(const LetStmt *op) {
    Expr value = mutate(op->value);
    Stmt body = mutate(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return op;
    return LetStmt::make(op->name, std::move(value), std::move(body));
}

Stmt IRMutator::visit(const AssertStmt *op) {
    Expr condition = mutate(op->condition), message = mutate(op->message);
    if (condition.same_as(op->condition) && message.same_as(op->message)) return op;
    return AssertStmt::make(std::move(condition), std::move(message));
}

Stmt IRMutator::visit(const ProducerConsumer *op) {
    Stmt body = mutate(op->body);
    if (body.same_as(op->body)) return op;
    return ProducerConsumer::make(op->name, op->is_producer, std::move(body));
}

Stmt IRMutator::visit(const For *op) {
    Expr min = mutate(op->min), extent = mutate(op->extent);
    Stmt body = mutate(op->body);
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return op;
    return For::make(op->name, std::move(min), std::move(extent), op->for_type, op->device_api,
                     std::move(body));
}

Stmt IRMutator::visit(const Store *op) {
    Expr value = mutate(op->value), index = mutate(op->index), predicate = mutate(op->predicate);
    if (value.same_as(op->value) && index.same_as(op->index) && predicate.same_as(op->predicate)) {
        return op;
    }
    return Store::make(op->name, std::move(value), std::move(index), std::move(predicate),
                       op->alignment);
}

Stmt IRMutator::visit(const Provide *op) {
    std::vector<Expr> values, args;
    bool changed = mutate_exprs(op->values, &values);
    changed |= mutate_exprs(op->args, &args);
    Expr predicate = mutate(op->predicate);
    if (!changed && predicate.same_as(op->predicate)) return op;
    return Provide::make(op->name, std::move(values), std::move(args), std::move(predicate));
}

Stmt IRMutator::visit(const Allocate *op) {
    std::vector<Expr> extents;
    bool changed = mutate_exprs(op->extents, &extents);
    Expr condition = mutate(op->condition);
    Stmt body = mutate(op->body);
    if (!changed && condition.same_as(op->condition) && body.same_as(op->body)) return op;
    return Allocate::make(op->name, op->type, op->memory_type, std::move(extents),
                          std::move(condition), std::move(body));
}

Stmt IRMutator::visit(const Free *op) {
    return op;
}

Stmt IRMutator::visit(const Realize *op) {
    Region bounds;
    bool changed = false;
    for (const Range &r : op->bounds) {
        Expr min = mutate(r.min), extent = mutate(r.extent);
        changed |= !min.same_as(r.min) || !extent.same_as(r.extent);
        bounds.push_back({std::move(min), std::move(extent)});
    }
    Expr condition = mutate(op->condition);
    Stmt body = mutate(op->body);
    if (!changed && condition.same_as(op->condition) && body.same_as(op->body)) return op;
    return Realize::make(op->name, op->types, op->memory_type, std::move(bounds),
                         std::move(condition), std::move(body));
}

Stmt IRMutator::visit(const Block *op) {
    Stmt first = mutate(op->first), rest = mutate(op->rest);
    if (first.same_as(op->first) && rest.same_as(op->rest)) return op;
    // A mutator may delete a statement by returning an undefined one.
    if (!first.defined()) return rest;
    if (!rest.defined()) return first;
    return Block::make(std::move(first), std::move(rest));
}

Stmt IRMutator::visit(const IfThenElse *op) {
    Expr condition = mutate(op->condition);
    Stmt then_case = mutate(op->then_case), else_case = mutate(op->else_case);
    if (condition.same_as(op->condition) && then_case.same_as(op->then_case) &&
        else_case.same_as(op->else_case)) {
        return op;
    }
    return IfThenElse::make(std::move(condition), std::move(then_case), std::move(else_case));
}

Stmt IRMutator::visit(const Evaluate *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return Evaluate::make(std::move(value));
}

Stmt IRMutator::visit(const Atomic *op) {
    Stmt body = mutate(op->body);
    if (body.same_as(op->body)) return op;
    return Atomic::make(op->name, std::move(body));
}

namespace {

/// Finds a node of type Node that satisfies a predicate; stops looking once one does.
template <typename Node>
class FindNode : public IRVisitor {
  public:
    explicit FindNode(const std::function<bool(const Node *)> &matches) : matches_(matches) {}
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Node *op) override {
        found = found || matches_(op);
        if (!found) IRVisitor::visit(op);
    }

  private:
    const std::function<bool(const Node *)> &matches_;
};

template <typename Node, typename Tree>
bool any_node(const Tree &t, const std::function<bool(const Node *)> &matches) {
    FindNode<Node> find(matches);
    find.include(t);
    return find.found;
}

}  // namespace

bool any_call(const Expr &e, const std::function<bool(const Call *)> &matches) {
    return any_node(e, matches);
}

bool any_call(const Stmt &s, const std::function<bool(const Call *)> &matches) {
    return any_node(s, matches);
}

bool any_load(const Expr &e, const std::function<bool(const Load *)> &matches) {
    return any_node(e, matches);
}

}  // namespace dsl::ir
