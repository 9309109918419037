#include "ir/Substitute.h"

#include <unordered_map>

#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"

namespace dsl::ir {

namespace {

class SubstituteVars : public IRMutator {
  public:
    /// With `shared`, a node shared in memory is rewritten once outside any binding (its result
    /// remembered), so that a DAG is walked in time linear in its distinct nodes.
    explicit SubstituteVars(const std::map<std::string, Expr> &replacements, bool shared = false)
        : replacements_(replacements), shared_(shared) {}
    Expr mutate(const Expr &e) override {
        if (!shared_ || !e.defined() || !shadowed_.empty() || !held_more_than_once(e))
            return IRMutator::mutate(e);
        auto it = done_.find(e.get());
        if (it != done_.end()) return it->second;
        Expr result = IRMutator::mutate(e);
        done_.emplace(e.get(), result);
        return result;
    }
    using IRMutator::mutate;

  protected:
    Expr visit(const Variable *op) override {
        if (shadowed_.contains(op->name)) return op;
        auto it = replacements_.find(op->name);
        return it == replacements_.end() ? Expr(op) : it->second;
    }
    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        Expr body;
        {
            ScopedBinding<int> bind(shadowed_, op->name, 0);
            body = mutate(op->body);
        }
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }
    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        Stmt body;
        {
            ScopedBinding<int> bind(shadowed_, op->name, 0);
            body = mutate(op->body);
        }
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }
    Stmt visit(const For *op) override {
        Expr min = mutate(op->min), extent = mutate(op->extent);
        Stmt body;
        {
            ScopedBinding<int> bind(shadowed_, op->name, 0);
            body = mutate(op->body);
        }
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return op;
        return For::make(op->name, min, extent, op->for_type, op->device_api, body);
    }

  private:
    const std::map<std::string, Expr> &replacements_;
    Scope<int> shadowed_;
    bool shared_;
    /// Keys are nodes of the input, kept alive by it.
    std::unordered_map<const BaseExprNode *, Expr> done_;
};

class SubstituteExpr : public IRMutator {
  public:
    SubstituteExpr(const Expr &find, const Expr &replacement)
        : find_(find), replacement_(replacement) {}
    Expr mutate(const Expr &e) override {
        if (equal(e, find_)) return replacement_;
        return IRMutator::mutate(e);
    }
    using IRMutator::mutate;

  private:
    const Expr &find_;
    const Expr &replacement_;
};

class UsesVar : public IRVisitor {
  public:
    explicit UsesVar(const std::string &name) : name_(name) {}
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->name == name_ && !shadowed_) found = true;
    }
    void visit(const Let *op) override {
        include(op->value);
        if (op->name == name_) shadowed_++;
        include(op->body);
        if (op->name == name_) shadowed_--;
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        if (op->name == name_) shadowed_++;
        include(op->body);
        if (op->name == name_) shadowed_--;
    }
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        if (op->name == name_) shadowed_++;
        include(op->body);
        if (op->name == name_) shadowed_--;
    }

  private:
    const std::string &name_;
    int shadowed_ = 0;
};

}  // namespace

Expr substitute(const std::string &name, const Expr &replacement, const Expr &e) {
    std::map<std::string, Expr> m{{name, replacement}};
    return SubstituteVars(m).mutate(e);
}

Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s) {
    std::map<std::string, Expr> m{{name, replacement}};
    return SubstituteVars(m).mutate(s);
}

Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e) {
    return SubstituteVars(replacements).mutate(e);
}

Expr substitute_shared(const std::map<std::string, Expr> &replacements, const Expr &e) {
    return SubstituteVars(replacements, true).mutate(e);
}

Stmt substitute(const std::map<std::string, Expr> &replacements, const Stmt &s) {
    return SubstituteVars(replacements).mutate(s);
}

Expr substitute(const Expr &find, const Expr &replacement, const Expr &e) {
    return SubstituteExpr(find, replacement).mutate(e);
}

bool expr_uses_var(const Expr &e, const std::string &name) {
    UsesVar v(name);
    v.include(e);
    return v.found;
}

bool stmt_uses_var(const Stmt &s, const std::string &name) {
    UsesVar v(name);
    v.include(s);
    return v.found;
}

}  // namespace dsl::ir
