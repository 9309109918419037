#include "ir/FreeNames.h"

#include <set>

#include "ir/IRVisitor.h"

namespace dsl::ir {

namespace {

class FreeNames : public IRVisitor {
  public:
    explicit FreeNames(bool buffers) : buffers_(buffers) {}
    std::vector<std::string> names;

  protected:
    using IRVisitor::visit;
    void use(const std::string &n) {
        if (bound_.count(n) || seen_.count(n)) return;
        seen_.insert(n);
        names.push_back(n);
    }
    void visit(const Variable *op) override { use(op->name); }
    void visit(const Load *op) override {
        if (buffers_) use(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        if (buffers_) use(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override { bind(op->name, op->value, op->body); }
    void visit(const LetStmt *op) override { bind(op->name, op->value, op->body); }
    void visit(const For *op) override {
        include(op->min);
        bind(op->name, op->extent, op->body);
    }
    void visit(const Allocate *op) override {
        if (!buffers_) {
            IRVisitor::visit(op);
            return;
        }
        for (const Expr &e : op->extents)
            include(e);
        bind(op->name, op->condition, op->body);
    }

  private:
    /// `value` is outside the binding of `name`, `body` inside it.
    template <typename Body>
    void bind(const std::string &name, const Expr &value, const Body &body) {
        include(value);
        bound_.insert(name);
        include(body);
        bound_.erase(bound_.find(name));
    }

    bool buffers_;
    std::multiset<std::string> bound_;
    std::set<std::string> seen_;
};

}  // namespace

std::vector<std::string> free_names(const Stmt &s, bool buffers) {
    FreeNames collect(buffers);
    collect.include(s);
    return std::move(collect.names);
}

std::vector<std::string> free_names(const Expr &e, bool buffers) {
    FreeNames collect(buffers);
    collect.include(e);
    return std::move(collect.names);
}

namespace {

class BoundNames : public IRVisitor {
  public:
    std::set<std::string> names;

  protected:
    using IRVisitor::visit;
    void visit(const Let *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
};

}  // namespace

std::set<std::string> bound_names(const Stmt &s) {
    BoundNames collect;
    collect.include(s);
    return std::move(collect.names);
}

bool reads_memory(const Expr &e) {
    class Finder : public IRVisitor {
      public:
        bool found = false;

      protected:
        using IRVisitor::visit;
        void visit(const Load *) override { found = true; }
        void visit(const Call *op) override {
            found |= op->call_type == Call::CallType::Func ||
                     op->call_type == Call::CallType::Image ||
                     op->call_type == Call::CallType::Extern;
            if (!found) IRVisitor::visit(op);
        }
    } finder;
    finder.include(e);
    return finder.found;
}

}  // namespace dsl::ir
