#include "lowering/FuzzFloatStores.h"

#include "ir/IROperator.h"
#include "ir/IRVisitor.h"

namespace dsl::lowering {

using namespace ir;

namespace {

class FuzzStores : public IRMutator {
    using IRMutator::visit;

    Stmt visit(const Store *op) override {
        Stmt s = IRMutator::visit(op);
        const auto *store = s.as<Store>();
        const Type t = store->value.type();
        if (!t.is_float() && !t.is_bfloat()) return s;
        // The same bits as an unsigned integer, the lowest cleared.
        const Type bits = UInt(t.bits(), t.lanes());
        Expr cleared = reinterpret(bits, store->value) & ~make_const(bits, 1);
        return Store::make(store->name, reinterpret(t, cleared), store->index, store->predicate,
                           store->alignment);
    }
};

}  // namespace

Stmt fuzz_float_stores(const Stmt &s) {
    return FuzzStores().mutate(s);
}

}  // namespace dsl::lowering
