#include "lang/FuncEvaluator.h"

#include "jit/ExternFunctions.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Names.h"

namespace dsl::lang {

using namespace ir;

namespace {

std::string point_key(const std::string &func, const std::vector<int64_t> &coords) {
    std::string key = func;
    for (int64_t c : coords)
        key += "," + std::to_string(c);
    return key;
}

/// One element of a buffer as a scalar Value.
Value read_buffer(const Buffer<> &b, const std::vector<int64_t> &coords, const std::string &name) {
    std::vector<int> pos;
    for (size_t d = 0; d < coords.size(); d++) {
        user_assert(coords[d] >= b.dim(static_cast<int>(d)).min() &&
                    coords[d] <= b.dim(static_cast<int>(d)).max())
            << "the reference evaluator read input \"" << name << "\" at " << coords[d]
            << " in dimension " << d << ", outside the buffer [" << b.dim(static_cast<int>(d)).min()
            << ", " << b.dim(static_cast<int>(d)).max() << "].";
        pos.push_back(static_cast<int>(coords[d]));
    }
    Type t = b.type();
    uint64_t bits = 0;
    std::memcpy(&bits, b.byte_address(pos.data()), t.bytes());
    Value v;
    v.type = t;
    v.lanes.push_back(scalar_from_bits(t, bits));
    return v;
}

int64_t as_coordinate(const Value &v) {
    return v.type.is_int() ? v.as_int() : static_cast<int64_t>(v.as_uint());
}

}  // namespace

struct FuncEvaluator::Materialized {
    std::vector<int64_t> min, max;         // the box, inclusive
    std::vector<std::vector<Value>> data;  // [flat point][value index]

    bool contains(const std::vector<int64_t> &c) const {
        for (size_t d = 0; d < c.size(); d++) {
            if (c[d] < min[d] || c[d] > max[d]) return false;
        }
        return true;
    }
    size_t offset(const std::vector<int64_t> &c) const {
        size_t o = 0, stride = 1;
        for (size_t d = 0; d < c.size(); d++) {
            o += static_cast<size_t>(c[d] - min[d]) * stride;
            stride *= static_cast<size_t>(max[d] - min[d] + 1);
        }
        return o;
    }
    size_t size() const {
        size_t n = 1;
        for (size_t d = 0; d < min.size(); d++)
            n *= static_cast<size_t>(max[d] - min[d] + 1);
        return n;
    }
    /// Grows the box to the smallest one that also holds `c`. (No slack: an update's pure Vars
    /// range over the whole box, and a larger box could read inputs outside their bounds.)
    void grow(const std::vector<int64_t> &c) {
        for (size_t d = 0; d < c.size(); d++) {
            min[d] = std::min(min[d], c[d]);
            max[d] = std::max(max[d], c[d]);
        }
    }
};

FuncEvaluator::FuncEvaluator() {
    ev_.call_handler = [this](const Call *op, const std::vector<Value> &args) {
        return call(op, args);
    };
    ev_.variable_handler = [this](const Variable *op) { return variable(op); };
}

FuncEvaluator::~FuncEvaluator() = default;

Value FuncEvaluator::eval(const Expr &e) {
    return ev_.eval(e);
}

Value FuncEvaluator::variable(const Variable *op) {
    internal_assert(op->param.defined()) << "the reference evaluator has no value for " << op->name;
    const ParameterContents &p = op->param.contents();
    if (!p.is_buffer) {
        user_assert(p.has_value) << "Param \"" << p.name << "\" has no value.";
        Value v;
        v.type = p.type;
        v.lanes.push_back(scalar_from_bits(p.type, p.scalar_bits));
        return v;
    }
    // A field of an ImageParam's buffer: "<name>.min.<d>", "<name>.extent.<d>", ...
    const Buffer<> &b = p.buffer;
    user_assert(b.defined()) << "ImageParam \"" << p.name << "\" has no buffer.";
    for (int d = 0; d < b.dimensions(); d++) {
        if (op->name == names::buffer_min(p.name, d)) return Value::of_int(Int(32), b.dim(d).min());
        if (op->name == names::buffer_extent(p.name, d))
            return Value::of_int(Int(32), b.dim(d).extent());
        if (op->name == names::buffer_stride(p.name, d))
            return Value::of_int(Int(32), b.dim(d).stride());
    }
    internal_error << "unknown buffer field " << op->name;
    return Value();
}

/// A call of a DSL_EXTERN function: made lane by lane through its recorded signature.
Value FuncEvaluator::call_extern(const Call *op, const std::vector<Value> &args) {
    auto f = jit::find_extern_function(op->name);
    user_assert(f && f->invoker)
        << "The reference evaluator cannot call the extern function \"" << op->name
        << "\": declare it with DSL_EXTERN or DSL_PURE_EXTERN (dsl/Extern.h), which records how "
        << "to call it.";
    internal_assert(f->args.size() == args.size()) << "extern " << op->name << ": argument count";
    const int lanes = op->type.lanes();
    Value r;
    r.type = op->type;
    for (int lane = 0; lane < lanes; lane++) {
        std::vector<uint64_t> storage(args.size());
        std::vector<const void *> pointers(args.size());
        for (size_t i = 0; i < args.size(); i++) {
            const int from = args[i].lanes.size() == 1 ? 0 : lane;
            r.undefined |= args[i].undefined;
            // Little-endian: the low bytes of the 64-bit word are the C value of the type.
            storage[i] = scalar_bits(args[i].type.element_of(), args[i].lanes[from]);
            pointers[i] = &storage[i];
        }
        uint64_t result = 0;
        f->invoker(f->address, pointers.data(), &result);
        r.lanes.push_back(scalar_from_bits(op->type.element_of(), result));
    }
    return r;
}

Value FuncEvaluator::call(const Call *op, const std::vector<Value> &args) {
    if (op->call_type == Call::CallType::Extern || op->call_type == Call::CallType::PureExtern)
        return call_extern(op, args);
    std::vector<int64_t> coords;
    for (const Value &a : args)
        coords.push_back(as_coordinate(a));
    if (op->call_type == Call::CallType::Image) {
        Buffer<> b = op->image.defined() ? op->image : op->param.contents().buffer;
        user_assert(b.defined()) << "ImageParam \"" << op->name << "\" has no buffer.";
        return read_buffer(b, coords, op->name);
    }
    internal_assert(op->call_type == Call::CallType::Func)
        << "the reference evaluator cannot call " << op->name;
    auto f = op->func.lock();
    internal_assert(f) << "call to a destroyed Func " << op->name;
    return at(Function(f), coords, op->value_index);
}

Value FuncEvaluator::pure_value(const Function &f, const std::vector<int64_t> &coords,
                                int value_index) {
    std::string key = point_key(f.name(), coords);
    auto it = pure_cache_.find(key);
    if (it == pure_cache_.end()) {
        std::vector<Value> values;
        for (size_t d = 0; d < coords.size(); d++)
            ev_.vars.push(f.args()[d], Value::of_int(Int(32), coords[d]));
        // An undef() pure value leaves memory as allocated, and so does a point where a select
        // picks undef() (the definition's predicate is false): the evaluator takes 0.
        bool stored = ev_.eval(f.init().predicate).as_bool();
        for (const Expr &v : f.init().values)
            values.push_back(ev_.eval(!stored || is_undef(v) ? make_zero(v.type()) : v));
        for (size_t d = 0; d < coords.size(); d++)
            ev_.vars.pop(f.args()[d]);
        it = pure_cache_.emplace(key, values).first;
    }
    return it->second[value_index];
}

Value FuncEvaluator::at(const Function &f, const std::vector<int64_t> &coords, int value_index) {
    internal_assert(static_cast<int>(coords.size()) == f.dimensions())
        << "evaluating " << f.name() << " with the wrong rank";
    if (!f.has_update_definition()) return pure_value(f, coords, value_index);
    Materialized &m = materialize(f, coords);
    return m.data[m.offset(coords)][value_index];
}

FuncEvaluator::Materialized &FuncEvaluator::materialize(const Function &f,
                                                        const std::vector<int64_t> &coords) {
    auto it = materialized_.find(f.name());
    if (it == materialized_.end() || !it->second->contains(coords))
        require_region(f, coords, coords);
    return *materialized_[f.name()];
}

void FuncEvaluator::require_region(const Function &f, const std::vector<int64_t> &min,
                                   const std::vector<int64_t> &max) {
    if (!f.has_update_definition()) return;
    auto it = materialized_.find(f.name());
    if (it != materialized_.end() && it->second->contains(min) && it->second->contains(max)) return;
    std::unique_ptr<Materialized> m = std::make_unique<Materialized>();
    if (it != materialized_.end()) {
        *m = *it->second;
        m->grow(min);
        m->grow(max);
    } else {
        m->min = min;
        m->max = max;
    }
    // Grow until no update writes outside the box.
    while (!try_materialize(f, *m)) {
    }
    materialized_[f.name()] = std::move(m);
}

bool FuncEvaluator::try_materialize(const Function &f, Materialized &m) {
    user_assert(m.size() <= (size_t(1) << 24))
        << "the reference evaluator would materialise more than 2^24 points of Func \"" << f.name()
        << "\".";
    m.data.assign(m.size(), {});
    int dims = f.dimensions();
    // Stage 0 everywhere in the box.
    std::vector<int64_t> p(m.min);
    for (size_t i = 0; i < m.size(); i++) {
        std::vector<Value> values;
        for (int v = 0; v < f.outputs(); v++)
            values.push_back(pure_value(f, p, v));
        m.data[m.offset(p)] = values;
        for (int d = 0; d < dims; d++) {
            if (++p[d] <= m.max[d]) break;
            p[d] = m.min[d];
        }
    }
    for (const Definition &u : f.updates()) {
        // Loops, innermost first: the RVars, then the pure Vars used on the left.
        struct Loop {
            std::string var;
            int64_t min, max;
        };
        std::vector<Loop> loops;
        if (u.rdom.defined()) {
            for (const ReductionVariable &rv : u.rdom.domain()) {
                int64_t lo = as_coordinate(ev_.eval(rv.min));
                loops.push_back({rv.var, lo, lo + as_coordinate(ev_.eval(rv.extent)) - 1});
            }
        }
        for (int d = 0; d < dims; d++) {
            const auto *v = u.args[d].as<Variable>();
            if (v && v->name == f.args()[d]) loops.push_back({v->name, m.min[d], m.max[d]});
        }
        bool empty = false;
        for (const Loop &l : loops)
            empty |= l.max < l.min;
        if (empty) continue;
        std::vector<int64_t> index;
        for (const Loop &l : loops)
            index.push_back(l.min);
        for (;;) {
            for (size_t i = 0; i < loops.size(); i++)
                ev_.vars.push(loops[i].var, Value::of_int(Int(32), index[i]));
            // Reads of f itself see the box as the updates so far left it; outside the box (a
            // recurrence reaching past the region computed) they see the pure definition, as
            // the compiled code does, whose first stage covers what later stages read.
            auto saved_handler = ev_.call_handler;
            ev_.call_handler = [&](const Call *op, const std::vector<Value> &args) {
                if (op->call_type == Call::CallType::Func && op->name == f.name()) {
                    std::vector<int64_t> c;
                    for (const Value &a : args)
                        c.push_back(as_coordinate(a));
                    if (!m.contains(c)) return pure_value(f, c, op->value_index);
                    return m.data[m.offset(c)][op->value_index];
                }
                return saved_handler(op, args);
            };
            bool grown = false;
            if (ev_.eval(u.predicate).as_bool()) {
                std::vector<int64_t> target;
                for (const Expr &a : u.args)
                    target.push_back(as_coordinate(ev_.eval(a)));
                if (!m.contains(target)) {
                    m.grow(target);  // an update writes outside: start over with a larger box
                    grown = true;
                } else {
                    std::vector<Value> values;
                    for (size_t i = 0; i < u.values.size(); i++) {
                        // undef<T>(): the element keeps its value.
                        values.push_back(is_undef(u.values[i]) ? m.data[m.offset(target)][i]
                                                               : ev_.eval(u.values[i]));
                    }
                    m.data[m.offset(target)] = values;
                }
            }
            ev_.call_handler = saved_handler;
            for (size_t i = 0; i < loops.size(); i++)
                ev_.vars.pop(loops[i].var);
            if (grown) return false;
            size_t i = 0;
            for (; i < loops.size(); i++) {
                if (++index[i] <= loops[i].max) break;
                index[i] = loops[i].min;
            }
            if (i == loops.size()) break;
        }
    }
    return true;
}

}  // namespace dsl::lang
