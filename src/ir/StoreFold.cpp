// Stores that fold a term into the element they overwrite (see StoreFold.h).
#include "ir/StoreFold.h"

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"

namespace dsl::ir {

namespace {

class LoadsBuffer : public IRVisitor {
  public:
    explicit LoadsBuffer(const std::string &name) : name_(name) {}
    bool found = false;

  protected:
    using IRVisitor::visit;
    void visit(const Load *op) override {
        found |= op->name == name_;
        IRVisitor::visit(op);
    }

  private:
    const std::string &name_;
};

}  // namespace

bool loads_buffer(const Expr &e, const std::string &name) {
    LoadsBuffer v(name);
    v.include(e);
    return v.found;
}

std::optional<StoreFold> find_store_fold(const Store *store) {
    auto is_running = [&](const Expr &e) {
        const auto *load = e.as<Load>();
        return load && load->name == store->name && equal(load->index, store->index);
    };
    auto fold = [&](VectorReduce::Op op, const Expr &a, const Expr &b) -> std::optional<StoreFold> {
        for (const auto &[running, term] : {std::pair(a, b), std::pair(b, a)}) {
            if (is_running(running) && !loads_buffer(term, store->name))
                return StoreFold{op, running, term};
        }
        return std::nullopt;
    };
    const Expr &v = store->value;
    if (const auto *op = v.as<Add>()) {
        // f + a + b is (f + a) + b: the running value may sit deeper on the left.
        if (auto f = fold(VectorReduce::Op::Add, op->a, op->b)) return f;
        if (const auto *inner = op->a.as<Add>()) {
            if (auto f = fold(VectorReduce::Op::Add, inner->a, Add::make(inner->b, op->b)))
                return f;
        }
        return std::nullopt;
    }
    if (const auto *op = v.as<Sub>()) {
        if (is_running(op->a) && !loads_buffer(op->b, store->name))
            return StoreFold{VectorReduce::Op::Add, op->a, op->b, true};
        return std::nullopt;
    }
    if (const auto *op = v.as<Mul>()) return fold(VectorReduce::Op::Mul, op->a, op->b);
    if (const auto *op = v.as<Min>()) return fold(VectorReduce::Op::Min, op->a, op->b);
    if (const auto *op = v.as<Max>()) return fold(VectorReduce::Op::Max, op->a, op->b);
    if (const auto *op = v.as<And>()) return fold(VectorReduce::Op::And, op->a, op->b);
    if (const auto *op = v.as<Or>()) return fold(VectorReduce::Op::Or, op->a, op->b);
    return std::nullopt;
}

Expr fold_identity(VectorReduce::Op op, Type t) {
    switch (op) {
        case VectorReduce::Op::Add:
            return make_zero(t);
        case VectorReduce::Op::Mul:
            return make_one(t);
        case VectorReduce::Op::Min:
            return type_max(t);
        case VectorReduce::Op::Max:
            return type_min(t);
        case VectorReduce::Op::And:
            return make_bool(true, t.lanes());
        case VectorReduce::Op::Or:
            return make_bool(false, t.lanes());
    }
    return Expr();
}

Expr fold_combine(VectorReduce::Op op, const Expr &a, const Expr &b) {
    switch (op) {
        case VectorReduce::Op::Add:
            return Add::make(a, b);
        case VectorReduce::Op::Mul:
            return Mul::make(a, b);
        case VectorReduce::Op::Min:
            return Min::make(a, b);
        case VectorReduce::Op::Max:
            return Max::make(a, b);
        case VectorReduce::Op::And:
            return And::make(a, b);
        case VectorReduce::Op::Or:
            return Or::make(a, b);
    }
    return Expr();
}

}  // namespace dsl::ir
