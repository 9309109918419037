#include "ir/CSE.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"

namespace dsl::ir {

namespace {

/// Inlines every Let, innermost first, so that no substitution can be captured by a deeper Let.
class InlineLets : public IRMutator {
  protected:
    using IRMutator::visit;
    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        Expr body = mutate(op->body);
        return substitute(op->name, value, body);
    }
};

bool is_trivial(const Expr &e) {
    switch (e.node_type()) {
        case IRNodeType::IntImm:
        case IRNodeType::UIntImm:
        case IRNodeType::FloatImm:
        case IRNodeType::StringImm:
        case IRNodeType::Variable:
            return true;
        case IRNodeType::Broadcast:
            return is_trivial(e.as<Broadcast>()->value);
        default:
            return false;
    }
}

bool has_side_effects(const Expr &e) {
    const auto *call = e.as<Call>();
    return call && !call->is_pure();
}

/// Global value numbering: maps every subexpression to one canonical instance, so that the tree
/// becomes a DAG in which equal subexpressions are the same node. Children are made canonical
/// first, so a node can be looked up by its own fields and its children's identities.
class ValueNumbering : public IRMutator {
  public:
    /// Canonical nodes in post-order: children before parents.
    std::vector<Expr> nodes;

    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        auto seen = by_pointer_.find(e.get());
        if (seen != by_pointer_.end()) return nodes[seen->second];
        Expr with_canonical_children = IRMutator::mutate(e);
        auto [it, inserted] =
            by_value_.emplace(with_canonical_children, static_cast<int>(nodes.size()));
        if (inserted) nodes.push_back(with_canonical_children);
        by_pointer_[e.get()] = it->second;
        by_pointer_[nodes[it->second].get()] = it->second;
        return nodes[it->second];
    }
    using IRMutator::mutate;

  private:
    struct ShallowHash {
        size_t operator()(const Expr &e) const { return shallow_hash(e); }
    };
    std::unordered_map<Expr, int, ShallowHash, ExprEqual> by_value_;
    /// Nodes already numbered, so that a subtree shared by pointer is walked once. The map holds
    /// raw pointers of nodes kept alive by `entries` or by the input tree.
    std::unordered_map<const BaseExprNode *, int> by_pointer_;
};

/// Counts, for each node of a DAG, how many parents refer to it (the root counts once).
class CountUses : public IRVisitor {
  public:
    std::unordered_map<const BaseExprNode *, int> uses;
    void include(const Expr &e) override {
        if (!e.defined()) return;
        if (uses[e.get()]++ == 0) IRVisitor::include(e);
    }
    using IRVisitor::include;
};

/// Replaces the chosen shared subexpressions by variables.
class ReplaceShared : public IRMutator {
  public:
    explicit ReplaceShared(const std::unordered_map<const BaseExprNode *, Expr> &replacements)
        : replacements_(replacements) {}
    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        auto it = replacements_.find(e.get());
        if (it != replacements_.end() && !skip_once_.same_as(e)) return it->second;
        skip_once_ = Expr();
        return IRMutator::mutate(e);
    }
    using IRMutator::mutate;
    /// Mutates the value of a shared node itself (not replacing the node by its own variable).
    Expr mutate_value(const Expr &e) {
        skip_once_ = e;
        return mutate(e);
    }

  private:
    const std::unordered_map<const BaseExprNode *, Expr> &replacements_;
    Expr skip_once_;
};

/// Collects every variable name so that the names CSE makes cannot clash.
class CollectNames : public IRVisitor {
  public:
    std::unordered_set<std::string> names;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override { names.insert(op->name); }
    void visit(const Let *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
};

class CSEInStmt : public IRMutator {
  public:
    Expr mutate(const Expr &e) override { return common_subexpression_elimination(e); }
    using IRMutator::mutate;
};

}  // namespace

Expr common_subexpression_elimination(const Expr &e) {
    if (!e.defined() || is_trivial(e)) return e;
    Expr inlined = InlineLets().mutate(e);

    ValueNumbering gvn;
    Expr canonical = gvn.mutate(inlined);

    // Shared, non-trivial, side-effect-free nodes, children before parents (entries are in
    // post-order already).
    CountUses counter;
    counter.include(canonical);
    std::vector<Expr> shared;
    for (const Expr &node : gvn.nodes) {
        if (counter.uses[node.get()] < 2 || is_trivial(node) || has_side_effects(node)) continue;
        shared.push_back(node);
    }
    if (shared.empty()) return canonical;

    CollectNames names;
    names.include(e);
    std::unordered_map<const BaseExprNode *, Expr> replacements;
    std::vector<std::pair<std::string, Expr>> lets;
    int next_name = 0;
    for (const Expr &node : shared) {
        std::string name;
        do {
            name = "cse" + std::to_string(next_name++);
        } while (names.names.count(name));
        replacements[node.get()] = Variable::make(node.type(), name);
        lets.push_back({name, node});
    }

    ReplaceShared replace(replacements);
    Expr body = replace.mutate(canonical);
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
        Expr value = replace.mutate_value(it->second);
        body = Let::make(it->first, value, body);
    }
    return body;
}

Stmt common_subexpression_elimination(const Stmt &s) {
    return CSEInStmt().mutate(s);
}

}  // namespace dsl::ir
