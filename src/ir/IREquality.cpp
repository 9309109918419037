#include "ir/IREquality.h"

#include <cstring>

#include "ir/Error.h"
#include "ir/IRVisitor.h"

namespace dsl::ir {

namespace {

/// Compares two trees node by node. Shared subtrees (same pointer) compare equal at once.
class Comparer {
  public:
    int cmp(const Expr &a, const Expr &b) {
        if (a.same_as(b)) return 0;
        if (!a.defined()) return -1;
        if (!b.defined()) return 1;
        if (int c = cmp_value(a.node_type(), b.node_type())) return c;
        if (int c = cmp_type(a.type(), b.type())) return c;
        switch (a.node_type()) {
            case IRNodeType::IntImm:
                return cmp_value(a.as<IntImm>()->value, b.as<IntImm>()->value);
            case IRNodeType::UIntImm:
                return cmp_value(a.as<UIntImm>()->value, b.as<UIntImm>()->value);
            case IRNodeType::FloatImm: {
                // Compare bit patterns so that NaN equals itself and -0 differs from +0.
                double x = a.as<FloatImm>()->value, y = b.as<FloatImm>()->value;
                uint64_t bx, by;
                std::memcpy(&bx, &x, 8);
                std::memcpy(&by, &y, 8);
                return cmp_value(bx, by);
            }
            case IRNodeType::StringImm:
                return cmp_value(a.as<StringImm>()->value, b.as<StringImm>()->value);
            case IRNodeType::Cast:
                return cmp(a.as<Cast>()->value, b.as<Cast>()->value);
            case IRNodeType::Variable:
                return cmp_value(a.as<Variable>()->name, b.as<Variable>()->name);
#define DSL_CMP_BINARY(T)                                                                   \
    case IRNodeType::T: {                                                                   \
        const T *x = static_cast<const T *>(a.get()), *y = static_cast<const T *>(b.get()); \
        if (int c = cmp(x->a, y->a)) return c;                                              \
        return cmp(x->b, y->b);                                                             \
    }
                DSL_CMP_BINARY(Add)
                DSL_CMP_BINARY(Sub)
                DSL_CMP_BINARY(Mul)
                DSL_CMP_BINARY(Div)
                DSL_CMP_BINARY(Mod)
                DSL_CMP_BINARY(Min)
                DSL_CMP_BINARY(Max)
                DSL_CMP_BINARY(EQ)
                DSL_CMP_BINARY(NE)
                DSL_CMP_BINARY(LT)
                DSL_CMP_BINARY(LE)
                DSL_CMP_BINARY(GT)
                DSL_CMP_BINARY(GE)
                DSL_CMP_BINARY(And)
                DSL_CMP_BINARY(Or)
#undef DSL_CMP_BINARY
            case IRNodeType::Not:
                return cmp(a.as<Not>()->a, b.as<Not>()->a);
            case IRNodeType::Select: {
                const auto *x = a.as<Select>(), *y = b.as<Select>();
                if (int c = cmp(x->condition, y->condition)) return c;
                if (int c = cmp(x->true_value, y->true_value)) return c;
                return cmp(x->false_value, y->false_value);
            }
            case IRNodeType::Load: {
                const auto *x = a.as<Load>(), *y = b.as<Load>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp(x->index, y->index)) return c;
                if (int c = cmp(x->predicate, y->predicate)) return c;
                if (int c = cmp_value(x->alignment.modulus, y->alignment.modulus)) return c;
                return cmp_value(x->alignment.remainder, y->alignment.remainder);
            }
            case IRNodeType::Ramp: {
                const auto *x = a.as<Ramp>(), *y = b.as<Ramp>();
                if (int c = cmp_value(x->lanes, y->lanes)) return c;
                if (int c = cmp(x->base, y->base)) return c;
                return cmp(x->stride, y->stride);
            }
            case IRNodeType::Broadcast: {
                const auto *x = a.as<Broadcast>(), *y = b.as<Broadcast>();
                if (int c = cmp_value(x->lanes, y->lanes)) return c;
                return cmp(x->value, y->value);
            }
            case IRNodeType::Call: {
                const auto *x = a.as<Call>(), *y = b.as<Call>();
                if (int c = cmp_value(x->call_type, y->call_type)) return c;
                if (int c = cmp_value(x->intrinsic, y->intrinsic)) return c;
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp_value(x->value_index, y->value_index)) return c;
                return cmp_exprs(x->args, y->args);
            }
            case IRNodeType::Let: {
                const auto *x = a.as<Let>(), *y = b.as<Let>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp(x->value, y->value)) return c;
                return cmp(x->body, y->body);
            }
            case IRNodeType::Shuffle: {
                const auto *x = a.as<Shuffle>(), *y = b.as<Shuffle>();
                if (int c = cmp_value(x->indices, y->indices)) return c;
                return cmp_exprs(x->vectors, y->vectors);
            }
            case IRNodeType::VectorReduce: {
                const auto *x = a.as<VectorReduce>(), *y = b.as<VectorReduce>();
                if (int c = cmp_value(x->op, y->op)) return c;
                return cmp(x->value, y->value);
            }
            default:
                internal_error << "statement node inside an Expr";
        }
        return 0;
    }

    int cmp(const Stmt &a, const Stmt &b) {
        if (a.same_as(b)) return 0;
        if (!a.defined()) return -1;
        if (!b.defined()) return 1;
        if (int c = cmp_value(a.node_type(), b.node_type())) return c;
        switch (a.node_type()) {
            case IRNodeType::LetStmt: {
                const auto *x = a.as<LetStmt>(), *y = b.as<LetStmt>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp(x->value, y->value)) return c;
                return cmp(x->body, y->body);
            }
            case IRNodeType::AssertStmt: {
                const auto *x = a.as<AssertStmt>(), *y = b.as<AssertStmt>();
                if (int c = cmp(x->condition, y->condition)) return c;
                return cmp(x->message, y->message);
            }
            case IRNodeType::ProducerConsumer: {
                const auto *x = a.as<ProducerConsumer>(), *y = b.as<ProducerConsumer>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp_value(x->is_producer, y->is_producer)) return c;
                return cmp(x->body, y->body);
            }
            case IRNodeType::For: {
                const auto *x = a.as<For>(), *y = b.as<For>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp_value(x->for_type, y->for_type)) return c;
                if (int c = cmp_value(x->device_api, y->device_api)) return c;
                if (int c = cmp(x->min, y->min)) return c;
                if (int c = cmp(x->extent, y->extent)) return c;
                return cmp(x->body, y->body);
            }
            case IRNodeType::Store: {
                const auto *x = a.as<Store>(), *y = b.as<Store>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp(x->value, y->value)) return c;
                if (int c = cmp(x->index, y->index)) return c;
                if (int c = cmp(x->predicate, y->predicate)) return c;
                if (int c = cmp_value(x->alignment.modulus, y->alignment.modulus)) return c;
                return cmp_value(x->alignment.remainder, y->alignment.remainder);
            }
            case IRNodeType::Provide: {
                const auto *x = a.as<Provide>(), *y = b.as<Provide>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp_exprs(x->values, y->values)) return c;
                if (int c = cmp_exprs(x->args, y->args)) return c;
                return cmp(x->predicate, y->predicate);
            }
            case IRNodeType::Allocate: {
                const auto *x = a.as<Allocate>(), *y = b.as<Allocate>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp_type(x->type, y->type)) return c;
                if (int c = cmp_value(x->memory_type, y->memory_type)) return c;
                if (int c = cmp_exprs(x->extents, y->extents)) return c;
                if (int c = cmp(x->condition, y->condition)) return c;
                return cmp(x->body, y->body);
            }
            case IRNodeType::Free:
                return cmp_value(a.as<Free>()->name, b.as<Free>()->name);
            case IRNodeType::Realize: {
                const auto *x = a.as<Realize>(), *y = b.as<Realize>();
                if (int c = cmp_value(x->name, y->name)) return c;
                if (int c = cmp_value(x->types.size(), y->types.size())) return c;
                for (size_t i = 0; i < x->types.size(); i++) {
                    if (int c = cmp_type(x->types[i], y->types[i])) return c;
                }
                if (int c = cmp_value(x->memory_type, y->memory_type)) return c;
                if (int c = cmp_value(x->bounds.size(), y->bounds.size())) return c;
                for (size_t i = 0; i < x->bounds.size(); i++) {
                    if (int c = cmp(x->bounds[i].min, y->bounds[i].min)) return c;
                    if (int c = cmp(x->bounds[i].extent, y->bounds[i].extent)) return c;
                }
                if (int c = cmp(x->condition, y->condition)) return c;
                return cmp(x->body, y->body);
            }
            case IRNodeType::Block: {
                const auto *x = a.as<Block>(), *y = b.as<Block>();
                if (int c = cmp(x->first, y->first)) return c;
                return cmp(x->rest, y->rest);
            }
            case IRNodeType::IfThenElse: {
                const auto *x = a.as<IfThenElse>(), *y = b.as<IfThenElse>();
                if (int c = cmp(x->condition, y->condition)) return c;
                if (int c = cmp(x->then_case, y->then_case)) return c;
                return cmp(x->else_case, y->else_case);
            }
            case IRNodeType::Evaluate:
                return cmp(a.as<Evaluate>()->value, b.as<Evaluate>()->value);
            case IRNodeType::Atomic: {
                const auto *x = a.as<Atomic>(), *y = b.as<Atomic>();
                if (x->name != y->name) return x->name < y->name ? -1 : 1;
                return cmp(x->body, y->body);
            }
            default:
                internal_error << "expression node inside a Stmt";
        }
        return 0;
    }

  private:
    template <typename T>
    static int cmp_value(const T &x, const T &y) {
        if (x < y) return -1;
        if (y < x) return 1;
        return 0;
    }
    static int cmp_type(Type x, Type y) {
        return x < y ? -1 : y < x ? 1 : 0;
    }
    int cmp_exprs(const std::vector<Expr> &x, const std::vector<Expr> &y) {
        if (int c = cmp_value(x.size(), y.size())) return c;
        for (size_t i = 0; i < x.size(); i++) {
            if (int c = cmp(x[i], y[i])) return c;
        }
        return 0;
    }
};

/// Hashes a tree by mixing the hashes of its nodes in a fixed order.
class Hasher : public IRVisitor {
  public:
    size_t h = 0x9e3779b97f4a7c15ull;
    /// Hash children by identity instead of by structure.
    bool shallow = false;

    void include(const Expr &e) override {
        if (!e.defined()) {
            mix(0x51);
            return;
        }
        if (shallow && depth_ > 0) {
            mix(reinterpret_cast<size_t>(e.get()));
            return;
        }
        depth_++;
        include_node(e);
        depth_--;
    }
    void include_node(const Expr &e) {
        mix(static_cast<size_t>(e.node_type()));
        mix(static_cast<size_t>(e.type().code()) * 1000003 + e.type().bits() * 131 +
            e.type().lanes());
        IRVisitor::include(e);
    }
    void include(const Stmt &s) override {
        if (!s.defined()) {
            mix(0x53);
            return;
        }
        mix(static_cast<size_t>(s.node_type()) + 0x100);
        IRVisitor::include(s);
    }

  protected:
    using IRVisitor::visit;
    void visit(const IntImm *op) override { mix(static_cast<size_t>(op->value)); }
    void visit(const UIntImm *op) override { mix(static_cast<size_t>(op->value)); }
    void visit(const FloatImm *op) override {
        uint64_t bits;
        std::memcpy(&bits, &op->value, 8);
        mix(static_cast<size_t>(bits));
    }
    void visit(const StringImm *op) override { mix(std::hash<std::string>()(op->value)); }
    void visit(const Variable *op) override { mix(std::hash<std::string>()(op->name)); }
    void visit(const Load *op) override {
        mix(std::hash<std::string>()(op->name));
        IRVisitor::visit(op);
    }
    void visit(const Ramp *op) override {
        mix(op->lanes);
        IRVisitor::visit(op);
    }
    void visit(const Broadcast *op) override {
        mix(op->lanes);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        mix(std::hash<std::string>()(op->name));
        mix(static_cast<size_t>(op->call_type) * 7 + op->value_index);
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        mix(std::hash<std::string>()(op->name));
        IRVisitor::visit(op);
    }
    void visit(const Shuffle *op) override {
        for (int i : op->indices)
            mix(i);
        IRVisitor::visit(op);
    }
    void visit(const VectorReduce *op) override {
        mix(static_cast<size_t>(op->op));
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        mix(std::hash<std::string>()(op->name));
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        mix(std::hash<std::string>()(op->name));
        mix(static_cast<size_t>(op->for_type));
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        mix(std::hash<std::string>()(op->name));
        IRVisitor::visit(op);
    }
    void visit(const Provide *op) override {
        mix(std::hash<std::string>()(op->name));
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override {
        mix(std::hash<std::string>()(op->name));
        IRVisitor::visit(op);
    }
    void visit(const Free *op) override { mix(std::hash<std::string>()(op->name)); }
    void visit(const Realize *op) override {
        mix(std::hash<std::string>()(op->name));
        IRVisitor::visit(op);
    }
    void visit(const ProducerConsumer *op) override {
        mix(std::hash<std::string>()(op->name) + op->is_producer);
        IRVisitor::visit(op);
    }

  private:
    void mix(size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); }
    int depth_ = 0;
};

}  // namespace

bool equal(const Expr &a, const Expr &b) {
    return Comparer().cmp(a, b) == 0;
}
bool equal(const Stmt &a, const Stmt &b) {
    return Comparer().cmp(a, b) == 0;
}
int compare(const Expr &a, const Expr &b) {
    return Comparer().cmp(a, b);
}
int compare(const Stmt &a, const Stmt &b) {
    return Comparer().cmp(a, b);
}

size_t hash(const Expr &e) {
    Hasher h;
    h.include(e);
    return h.h;
}

size_t shallow_hash(const Expr &e) {
    Hasher h;
    h.shallow = true;
    h.include(e);
    return h.h;
}

size_t hash(const Stmt &s) {
    Hasher h;
    h.include(s);
    return h.h;
}

}  // namespace dsl::ir
