#pragma once

#include <functional>
/// Walking the IR. `IRVisitor` visits every node (default: all children); `IRMutator` rebuilds a
/// tree, making a new node only when one of its children changed.

#include "ir/IR.h"

namespace dsl::ir {

#define DSL_FOR_EACH_EXPR_NODE(X) \
    X(IntImm)                     \
    X(UIntImm)                    \
    X(FloatImm)                   \
    X(StringImm)                  \
    X(Cast)                       \
    X(Variable)                   \
    X(Add)                        \
    X(Sub)                        \
    X(Mul)                        \
    X(Div)                        \
    X(Mod)                        \
    X(Min)                        \
    X(Max)                        \
    X(EQ)                         \
    X(NE)                         \
    X(LT)                         \
    X(LE)                         \
    X(GT)                         \
    X(GE)                         \
    X(And)                        \
    X(Or)                         \
    X(Not)                        \
    X(Select)                     \
    X(Load)                       \
    X(Ramp)                       \
    X(Broadcast)                  \
    X(Call)                       \
    X(Let)                        \
    X(Shuffle)                    \
    X(VectorReduce)

#define DSL_FOR_EACH_STMT_NODE(X) \
    X(LetStmt)                    \
    X(AssertStmt)                 \
    X(ProducerConsumer)           \
    X(For)                        \
    X(Store)                      \
    X(Provide)                    \
    X(Allocate)                   \
    X(Free)                       \
    X(Realize)                    \
    X(Block)                      \
    X(IfThenElse)                 \
    X(Evaluate)                   \
    X(Atomic)

/// Visits every node of a tree. Override the `visit` of the nodes you care about and call the
/// base version to keep walking into children.
class IRVisitor {
  public:
    virtual ~IRVisitor() = default;
    /// Visits `e` (nothing if undefined).
    virtual void include(const Expr &e);
    virtual void include(const Stmt &s);

  protected:
#define DSL_DECLARE_VISIT(T) virtual void visit(const T *op);
    DSL_FOR_EACH_EXPR_NODE(DSL_DECLARE_VISIT)
    DSL_FOR_EACH_STMT_NODE(DSL_DECLARE_VISIT)
#undef DSL_DECLARE_VISIT
};

/// Rebuilds a tree bottom-up. `mutate` dispatches on the node kind to `visit`; the default
/// `visit` mutates the children and returns the original node when none changed.
class IRMutator {
  public:
    virtual ~IRMutator() = default;
    /// Mutates `e`; an undefined Expr stays undefined.
    virtual Expr mutate(const Expr &e);
    virtual Stmt mutate(const Stmt &s);

  protected:
#define DSL_DECLARE_VISIT(T) virtual Expr visit(const T *op);
    DSL_FOR_EACH_EXPR_NODE(DSL_DECLARE_VISIT)
#undef DSL_DECLARE_VISIT
#define DSL_DECLARE_VISIT(T) virtual Stmt visit(const T *op);
    DSL_FOR_EACH_STMT_NODE(DSL_DECLARE_VISIT)
#undef DSL_DECLARE_VISIT

    /// Mutates each element; returns true if any changed.
    bool mutate_exprs(const std::vector<Expr> &in, std::vector<Expr> *out);
};

/// Whether some Call in `e` (or `s`) satisfies `matches`; stops at the first.
bool any_call(const Expr &e, const std::function<bool(const Call *)> &matches);
bool any_call(const Stmt &s, const std::function<bool(const Call *)> &matches);
/// Whether some Load in `e` satisfies `matches`; stops at the first.
bool any_load(const Expr &e, const std::function<bool(const Load *)> &matches);

}  // namespace dsl::ir
