#include "lowering/StorageFlattening.h"

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// How to index one flat buffer.
struct Layout {
    std::vector<Expr> mins, strides;
};

Layout buffer_argument_layout(const std::string &b, int dims) {
    Layout l;
    for (int d = 0; d < dims; d++) {
        l.mins.push_back(Variable::make(Int(32), names::buffer_min(b, d)));
        l.strides.push_back(Variable::make(Int(32), names::buffer_stride(b, d)));
    }
    return l;
}

Expr flat_index(const Layout &l, const std::vector<Expr> &args) {
    internal_assert(l.mins.size() == args.size()) << "flattening an access of the wrong rank";
    Expr index = make_zero(Int(32));
    for (size_t d = 0; d < args.size(); d++)
        index = index + (args[d] - l.mins[d]) * l.strides[d];
    return index;
}

class FlattenStorage : public IRMutator {
  public:
    explicit FlattenStorage(const Environment &env) : env_(env) {
        for (const std::string &o : env.outputs) {
            const lang::Function &f = env.func(o);
            for (int i = 0; i < f.outputs(); i++) {
                std::string b = names::func_buffer(f.name(), i, f.outputs());
                layouts_.push(b, buffer_argument_layout(b, f.dimensions()));
            }
        }
    }

  protected:
    using IRMutator::visit;

    Stmt visit(const Realize *op) override {
        const lang::Function &f = env_.func(op->name);
        Layout layout;
        Expr stride = make_one(Int(32));
        std::vector<Expr> extents;
        Expr elements = make_one(Int(64));
        layout.strides.resize(op->bounds.size());
        for (size_t d = 0; d < op->bounds.size(); d++)
            layout.mins.push_back(op->bounds[d].min);
        // Dimensions in storage order, innermost first (reorder_storage).
        std::vector<size_t> order;
        for (const std::string &v : f.schedule().storage_order) {
            for (size_t d = 0; d < f.args().size(); d++) {
                if (f.args()[d] == v) order.push_back(d);
            }
        }
        if (order.size() != op->bounds.size()) {
            order.clear();
            for (size_t d = 0; d < op->bounds.size(); d++)
                order.push_back(d);
        }
        for (size_t d : order) {
            const Range &r = op->bounds[d];
            // align_storage: the extent rounded up to a multiple of the alignment.
            Expr alignment;
            for (const schedule::StorageAlignment &a : f.schedule().storage_alignment) {
                if (d < f.args().size() && a.var == f.args()[d]) alignment = a.alignment;
            }
            Expr extent = r.extent;
            if (alignment.defined()) {
                alignment = max(alignment, 1);
                extent = simplify((extent + alignment - 1) / alignment * alignment);
            }
            layout.strides[d] = stride;
            stride = stride * extent;
            extents.push_back(extent);
            // Counted in 64 bits from the inclusive bounds: the int32 extent may have wrapped
            // (a constant one, e.g. of a folded dimension, cannot).
            if (as_const_int(extent)) {
                elements = elements * cast(Int(64), extent);
                continue;
            }
            Expr max = Variable::make(Int(32), names::realized_max(f.name(), f.args()[d]));
            Expr count = cast(Int(64), max) - cast(Int(64), r.min) + 1;
            if (alignment.defined()) {
                Expr a = cast(Int(64), alignment);
                count = (count + a - 1) / a * a;
            }
            elements = elements * count;
        }
        std::vector<std::string> buffers;
        for (int i = 0; i < f.outputs(); i++)
            buffers.push_back(names::func_buffer(f.name(), i, f.outputs()));
        for (const std::string &b : buffers)
            layouts_.push(b, layout);
        Stmt body = mutate(op->body);
        for (const std::string &b : buffers)
            layouts_.pop(b);
        for (int i = f.outputs() - 1; i >= 0; i--) {
            body = Allocate::make(buffers[i], op->types[i], op->memory_type, extents,
                                  make_bool(true), body);
        }
        Expr too_large = Call::make(Int(32), "dsl_runtime_error_buffer_too_large",
                                    {StringImm::make(f.name()), cast(Float(64), elements)},
                                    Call::CallType::Extern);
        Stmt check =
            AssertStmt::make(elements <= make_const(Int(64), int64_t(0x7fffffff)), too_large);
        return Block::make(check, body);
    }

    Stmt visit(const Provide *op) override {
        const lang::Function &f = env_.func(op->name);
        std::vector<Expr> args, values;
        mutate_exprs(op->args, &args);
        mutate_exprs(op->values, &values);
        if (values.size() == 1) {
            if (is_undef(values[0])) return Evaluate::make(make_zero(Int(32)));  // undef<T>()
            std::string b = names::func_buffer(f.name(), 0, 1);
            return Store::make(b, values[0], flat_index(layouts_.get(b), args), make_bool(true));
        }
        // Compute every element first: a value may read the Func at the point being written.
        // An element whose value is undef<T>() is not stored.
        std::vector<Stmt> stores;
        std::vector<std::pair<std::string, Expr>> lets;
        for (size_t i = 0; i < values.size(); i++) {
            if (is_undef(values[i])) continue;
            std::string b = names::func_buffer(f.name(), static_cast<int>(i), f.outputs());
            std::string value_name = b + ".value";
            lets.push_back({value_name, values[i]});
            stores.push_back(Store::make(b, Variable::make(values[i].type(), value_name),
                                         flat_index(layouts_.get(b), args), make_bool(true)));
        }
        if (stores.empty()) return Evaluate::make(make_zero(Int(32)));
        Stmt s = Block::make(stores);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            s = LetStmt::make(it->first, it->second, s);
        return s;
    }

    Expr visit(const Call *op) override {
        if (op->is_intrinsic(Call::Intrinsic::MakeDescriptor)) return descriptor(op);
        if (op->call_type != Call::CallType::Func && op->call_type != Call::CallType::Image) {
            return IRMutator::visit(op);
        }
        std::vector<Expr> args;
        mutate_exprs(op->args, &args);
        std::string b;
        Layout layout;
        if (op->call_type == Call::CallType::Image) {
            b = op->name;
            layout = buffer_argument_layout(b, static_cast<int>(args.size()));
        } else {
            const lang::Function &f = env_.func(op->name);
            b = names::func_buffer(f.name(), op->value_index, f.outputs());
            internal_assert(layouts_.contains(b))
                << "call to " << op->name << " outside its realization";
            layout = layouts_.get(b);
        }
        return Load::make(op->type, b, flat_index(layout, args), make_bool(true));
    }

  private:
    /// A descriptor of a Func's storage (an extern stage's argument): its element's address
    /// and the strides of the Func's layout.
    Expr descriptor(const Call *op) {
        std::vector<Expr> args;
        mutate_exprs(op->args, &args);
        const auto *address = op->args[0].as<Call>();
        if (!address || !address->is_intrinsic(Call::Intrinsic::AddressOf))
            return Call::make(op->type, op->intrinsic, args);
        const auto *element = address->args[0].as<Call>();
        internal_assert(element && element->call_type == Call::CallType::Func)
            << "a descriptor of something other than a Func: " << address->args[0];
        const lang::Function &f = env_.func(element->name);
        std::string b = names::func_buffer(f.name(), element->value_index, f.outputs());
        internal_assert(layouts_.contains(b)) << "a descriptor of " << b << " outside its storage";
        const Layout &layout = layouts_.get(b);
        for (size_t d = 0; d < layout.strides.size(); d++)
            args[2 + 3 * d + 2] = layout.strides[d];
        return Call::make(op->type, op->intrinsic, args);
    }

    const Environment &env_;
    Scope<Layout> layouts_;
};

}  // namespace

Stmt storage_flattening(const Environment &env, const Stmt &s) {
    return FlattenStorage(env).mutate(s);
}

namespace {

class FlattenInputCalls : public IRMutator {
  protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->call_type != Call::CallType::Image) return IRMutator::visit(op);
        std::vector<Expr> args;
        mutate_exprs(op->args, &args);
        return Load::make(
            op->type, op->name,
            flat_index(buffer_argument_layout(op->name, static_cast<int>(args.size())), args),
            make_bool(true));
    }
};

}  // namespace

Stmt flatten_input_calls(const Stmt &s) {
    return FlattenInputCalls().mutate(s);
}

}  // namespace dsl::lowering
