#include "lowering/TrimNoOps.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/LinearBounds.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Whether `e` loads the value `store` overwrites: the same buffer at the same index.
bool is_stored_value(const Expr &e, const Store *store) {
    const auto *load = e.as<Load>();
    return load && load->name == store->name && load->type == store->value.type() &&
           equal(load->index, store->index) && is_const_true(load->predicate);
}

/// The condition under which `store` changes memory, when it is one of the forms trim_no_ops
/// knows (undefined otherwise).
Expr active_condition(const Store *store) {
    const Expr &v = store->value;
    // f[i] = select(c, x, f[i]), or select(c, f[i], x).
    if (const auto *sel = v.as<Select>()) {
        if (is_stored_value(sel->false_value, store)) return sel->condition;
        if (is_stored_value(sel->true_value, store)) return !sel->condition;
        return Expr();
    }
    // f[i] = f[i] + select(c, x, 0) (either order), f[i] - select(c, x, 0), or with the arms
    // the other way round. Integers only: -0.0 + 0.0 is +0.0.
    if (!v.type().is_int() && !v.type().is_uint()) return Expr();
    Expr other;
    if (const auto *add = v.as<Add>()) {
        if (is_stored_value(add->a, store)) other = add->b;
        if (!other.defined() && is_stored_value(add->b, store)) other = add->a;
    } else if (const auto *sub = v.as<Sub>()) {
        if (is_stored_value(sub->a, store)) other = sub->b;
    }
    const auto *sel = other.defined() ? other.as<Select>() : nullptr;
    if (!sel) return Expr();
    if (is_const_zero(sel->false_value)) return sel->condition;
    if (is_const_zero(sel->true_value)) return !sel->condition;
    return Expr();
}

class Trimmer : public IRMutator {
  protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        Stmt body = mutate(op->body);
        Stmt loop = body.same_as(op->body) ? Stmt(op)
                                           : For::make(op->name, op->min, op->extent, op->for_type,
                                                       op->device_api, body);
        if ((op->for_type != ForType::Serial && op->for_type != ForType::Parallel) ||
            op->device_api != DeviceAPI::None || !op->min.type().is_int())
            return loop;
        // The body: lets, then one scalar store.
        std::map<std::string, Expr> lets;
        Stmt inner = body;
        while (const auto *let = inner.as<LetStmt>()) {
            lets[let->name] = substitute(lets, let->value);
            inner = let->body;
        }
        const auto *store = inner.as<Store>();
        if (!store || !store->value.type().is_scalar() || !is_const_true(store->predicate))
            return loop;
        Expr active = active_condition(store);
        if (!active.defined()) return loop;
        active = simplify(substitute(lets, active));
        // Each linear comparison of the loop variable with values fixed over the loop bounds
        // the iterations that can do something.
        auto invariant = [&](const Expr &e) {
            return !expr_uses_var(e, op->name) && !reads_memory(e);
        };
        std::vector<Expr> lower = {op->min}, upper = {op->min + op->extent - 1};
        bool trimmed = false;
        for (const Expr &part : conjuncts(active)) {
            std::optional<VarBound> b = bound_from_condition(part, op->name, invariant);
            if (!b) continue;
            (b->lower ? lower : upper).push_back(b->value);
            trimmed = true;
        }
        if (!trimmed) return loop;
        Expr min = lower[0], max = upper[0];
        for (size_t i = 1; i < lower.size(); i++)
            min = Max::make(min, lower[i]);
        for (size_t i = 1; i < upper.size(); i++)
            max = Min::make(max, upper[i]);
        // In 64 bits: a bound that excludes every iteration may be far below the other (the
        // count, when positive, is at most the loop's own, which fits in 32 bits).
        const Expr count = cast(Int(64), max) - cast(Int(64), min) + 1;
        Expr extent = simplify(cast(Int(32), Max::make(count, make_zero(Int(64)))));
        return For::make(op->name, simplify(min), extent, op->for_type, op->device_api, body);
    }
};

}  // namespace

Stmt trim_no_ops(const Stmt &s) {
    return Trimmer().mutate(s);
}

}  // namespace dsl::lowering
