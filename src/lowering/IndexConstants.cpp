#include "lowering/IndexConstants.h"

#include <cstdlib>
#include <vector>

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The largest constant moved out of an index: a stencil's taps and a vector's offsets, far
/// from the ends of int32.
constexpr int64_t kLargestMovedConstant = 1 << 20;

/// The terms of a sum or difference of int32 values, with the constants added up apart.
struct Sum {
    struct Term {
        Expr e;
        bool negated;
    };
    std::vector<Term> terms;
    int64_t constant = 0;
    int constants = 0;  // how many constant terms there were

    void add(const Expr &e, bool negated) {
        if (const auto *a = e.as<Add>()) {
            add(a->a, negated);
            add(a->b, negated);
        } else if (const auto *s = e.as<Sub>()) {
            add(s->a, negated);
            add(s->b, !negated);
        } else if (const auto *imm = e.as<IntImm>()) {
            constant += negated ? -imm->value : imm->value;
            constants++;
        } else {
            terms.push_back({e, negated});
        }
    }
};

Expr constants_last(const Expr &index) {
    if (index.type() != Int(32) || !(index.as<Add>() || index.as<Sub>())) return index;
    Sum sum;
    sum.add(index, false);
    if (sum.constants == 0 || std::llabs(sum.constant) > kLargestMovedConstant) return index;
    // Already in shape: the only constant is the last term.
    const auto *top = index.as<Add>();
    if (sum.constants == 1 && top && top->b.as<IntImm>()) return index;
    // Start from the first term that is added (the order of the terms changes no value).
    size_t first = 0;
    while (first < sum.terms.size() && sum.terms[first].negated)
        first++;
    if (first == sum.terms.size()) return index;
    Expr e = sum.terms[first].e;
    for (size_t i = 0; i < sum.terms.size(); i++) {
        if (i == first) continue;
        const Sum::Term &t = sum.terms[i];
        e = t.negated ? Sub::make(e, t.e) : Add::make(e, t.e);
    }
    return sum.constant == 0 ? e : Add::make(e, make_const(Int(32), sum.constant));
}

/// A scalar index, or the base of a ramp, with its constants last.
Expr reshaped(const Expr &index) {
    if (const auto *ramp = index.as<Ramp>()) {
        Expr base = constants_last(ramp->base);
        return base.same_as(ramp->base) ? index : Ramp::make(base, ramp->stride, ramp->lanes);
    }
    return index.type().is_scalar() ? constants_last(index) : index;
}

class IndexConstants : public IRMutator {
  protected:
    using IRMutator::visit;

    Expr visit(const Load *op) override {
        Expr index = reshaped(mutate(op->index));
        Expr predicate = mutate(op->predicate);
        if (index.same_as(op->index) && predicate.same_as(op->predicate)) return op;
        return Load::make(op->type, op->name, index, predicate, op->alignment);
    }

    Stmt visit(const Store *op) override {
        Expr value = mutate(op->value);
        Expr index = reshaped(mutate(op->index));
        Expr predicate = mutate(op->predicate);
        if (value.same_as(op->value) && index.same_as(op->index) &&
            predicate.same_as(op->predicate)) {
            return op;
        }
        return Store::make(op->name, value, index, predicate, op->alignment);
    }
};

}  // namespace

Stmt move_index_constants_out(const Stmt &s) {
    return IndexConstants().mutate(s);
}

}  // namespace dsl::lowering
