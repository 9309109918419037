#include "ir/CSE.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Substitute.h"

namespace dsl::ir {

namespace {

/// Inlines every Let in one walk: a variable bound by a Let becomes its value, itself already
/// without lets and never walked again, so no deeper Let can capture its names. The values are
/// shared, not copied: a chain of lets each using the one before twice becomes a DAG of the
/// chain's size (substituting each let into the body in turn walked 2^length nodes).
class InlineLets : public IRMutator {
  protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        const Expr *value = values_.find(op->name);
        return value ? *value : Expr(op);
    }
    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        ScopedBinding<Expr> bind(values_, op->name, value);
        return mutate(op->body);
    }

  private:
    Scope<Expr> values_;
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

/// A scalar variable times or plus a constant (6 * yb, x + 1): no dearer to repeat than to keep
/// in a let, and left in place it keeps indices linear in the loop variables, which codegen
/// sorts into a sum of terms and a constant (index_value) so that LLVM sees the accesses of a
/// tile at constant distances.
bool is_scaled_variable(const Expr &e) {
    auto scaled = [](const Expr &a, const Expr &b) {
        return (a.as<Variable>() && is_const(b)) || (b.as<Variable>() && is_const(a));
    };
    if (!e.type().is_scalar()) return false;
    if (const auto *op = e.as<Mul>()) return scaled(op->a, op->b);
    if (const auto *op = e.as<Add>()) return scaled(op->a, op->b);
    if (const auto *op = e.as<Sub>()) return scaled(op->a, op->b);
    return false;
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

/// A visitor that walks each node shared in memory once (a node held once is reached once).
class OncePerNode : public IRVisitor {
  public:
    void include(const Expr &e) override {
        if (e.defined() && (!held_more_than_once(e) || seen_.insert(e.get()).second))
            IRVisitor::include(e);
    }
    using IRVisitor::include;

  private:
    std::unordered_set<const BaseExprNode *> seen_;
};

/// Collects every variable name so that the names CSE makes cannot clash.
class CollectNames : public OncePerNode {
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

/// Whether an expression has a Let.
class HasLet : public OncePerNode {
  public:
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Let *) override { found = true; }
};

/// The size of an expression as a tree and its number of distinct nodes, each node shared in
/// memory walked once (its tree size remembered). Tree sizes are doubles: they may exceed any
/// integer.
class TreeSize : public IRVisitor {
  public:
    double tree = 0;
    size_t distinct = 0;
    void include(const Expr &e) override {
        if (!e.defined()) return;
        if (!held_more_than_once(e)) {
            tree += 1;
            distinct++;
            IRVisitor::include(e);
            return;
        }
        auto it = sizes_.find(e.get());
        if (it != sizes_.end()) {
            tree += it->second;
            return;
        }
        const double before = tree;
        tree += 1;
        distinct++;
        IRVisitor::include(e);
        sizes_[e.get()] = tree - before;
    }
    using IRVisitor::include;

  private:
    std::unordered_map<const BaseExprNode *, double> sizes_;
};

class CSEInStmt : public IRMutator {
  public:
    Expr mutate(const Expr &e) override { return common_subexpression_elimination(e); }
    using IRMutator::mutate;

  protected:
    using IRMutator::visit;
    /// A store's value, index and predicate share their subexpressions through lets around the
    /// store. An accumulator's update reads and writes one address: computed once, LLVM sees
    /// that the load and the store are the same location, and keeps the value in a register
    /// across the loop around it (a tile of sums over k). Eliminated in each part alone, the
    /// two addresses came out as different computations of one value.
    Stmt visit(const Store *op) override {
        // A pure call that is never emitted holds the three parts while they are eliminated
        // together.
        Expr parts = Call::make(Int(32), "store_parts", {op->value, op->index, op->predicate},
                                Call::CallType::PureExtern);
        Expr shared = common_subexpression_elimination(parts);
        std::vector<std::pair<std::string, Expr>> lets;
        while (const auto *let = shared.as<Let>()) {
            lets.emplace_back(let->name, let->value);
            shared = let->body;
        }
        const auto *call = shared.as<Call>();
        internal_assert(call && call->args.size() == 3) << "CSE lost the parts of a store";
        // Scalar lets go around the store. Vector lets (and those that depend on them) stay in
        // the value, where codegen sees a shared clamp of a ramp as the index of the loads it
        // serves; the store is left as before if its index or predicate needs one of them.
        std::unordered_set<std::string> inside;
        std::vector<std::pair<std::string, Expr>> outer_lets, inner_lets;
        for (const auto &[name, value] : lets) {
            bool needs_inner = !value.type().is_scalar();
            for (const std::string &n : inside)
                needs_inner = needs_inner || expr_uses_var(value, n);
            if (needs_inner) {
                inside.insert(name);
                inner_lets.emplace_back(name, value);
            } else {
                outer_lets.emplace_back(name, value);
            }
        }
        for (const std::string &n : inside) {
            if (expr_uses_var(call->args[1], n) || expr_uses_var(call->args[2], n))
                return IRMutator::visit(op);
        }
        Expr value = call->args[0];
        for (auto it = inner_lets.rbegin(); it != inner_lets.rend(); ++it)
            value = Let::make(it->first, it->second, value);
        Stmt result = Store::make(op->name, value, call->args[1], call->args[2], op->alignment);
        for (auto it = outer_lets.rbegin(); it != outer_lets.rend(); ++it)
            result = LetStmt::make(it->first, it->second, result);
        return result;
    }
};

}  // namespace

Expr common_subexpression_elimination(const Expr &e) {
    if (!e.defined() || is_trivial(e)) return e;
    HasLet has_let;
    has_let.include(e);
    Expr inlined = has_let.found ? InlineLets().mutate(e) : e;

    ValueNumbering gvn;
    Expr canonical = gvn.mutate(inlined);

    // Shared, non-trivial, side-effect-free nodes, children before parents (entries are in
    // post-order already).
    CountUses counter;
    counter.include(canonical);
    std::vector<Expr> shared;
    for (const Expr &node : gvn.nodes) {
        // A ramp stays where it is (its base is shared instead): a load or store whose index is
        // a ramp is dense, one whose index is a variable a gather or scatter.
        if (counter.uses[node.get()] < 2 || is_trivial(node) || has_side_effects(node) ||
            node.as<Ramp>() || is_scaled_variable(node)) {
            continue;
        }
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

bool is_blown_up(const Expr &e) {
    TreeSize size;
    size.include(e);
    return size.tree > 500 && size.tree > 12 * double(size.distinct);
}

bool tree_larger_than(const Expr &e, double nodes) {
    TreeSize size;
    size.include(e);
    return size.tree > nodes;
}

Expr share_if_blown_up(const Expr &e) {
    return is_blown_up(e) ? common_subexpression_elimination(e) : e;
}

Stmt common_subexpression_elimination(const Stmt &s) {
    return CSEInStmt().mutate(s);
}

}  // namespace dsl::ir
