// Func and FuncRef: building definitions from C++ syntax, with the checks that make mistakes
// CompileErrors that name the Func.
#include "dsl/Func.h"

#include <algorithm>
#include <atomic>
#include <optional>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "lang/Function.h"

namespace dsl {

using namespace ir;
using lang::Function;

namespace {

std::string join_args(const std::vector<std::string> &args) {
    std::string s;
    for (const std::string &a : args)
        s += (s.empty() ? "" : ", ") + a;
    return s;
}

/// Refuses a storage directive's Var that is not a pure Var of the Func.
void require_pure_var(const lang::FunctionContents &f, const char *directive, const Var &var) {
    user_assert(std::find(f.args.begin(), f.args.end(), var.name()) != f.args.end())
        << "Func \"" << f.name << "\", " << directive << ": \"" << var.name()
        << "\" is not one of its pure Vars (" << join_args(f.args) << ").";
}

std::string fresh_func_name() {
    static std::atomic<int> counter{0};
    return "f" + std::to_string(counter.fetch_add(1));
}

/// Coordinates are int32; narrower integers (e.g. a uint8 pixel used as a histogram bin) are
/// widened, floats are refused.
Expr coordinate(const std::string &func, size_t i, const Expr &e) {
    user_assert(e.defined()) << "Func \"" << func << "\": argument " << i
                             << " is an undefined Expr.";
    user_assert(e.type().is_scalar()) << "Func \"" << func << "\": argument " << i
                                      << " is the vector " << e << "; coordinates are scalars.";
    user_assert(e.type().is_int_or_uint() && !e.type().is_bool())
        << "Func \"" << func << "\": argument " << i << " is " << e << " of type " << e.type()
        << "; coordinates must be integers (cast with cast<int>(...)).";
    return e.type() == Int(32) ? e : cast(Int(32), e);
}

/// The name of `e` if it is a plain Var (not an RVar or a Param).
const Variable *as_pure_var(const Expr &e) {
    const auto *v = e.as<Variable>();
    if (v && !v->param.defined() && !v->reduction_domain.defined()) return v;
    return nullptr;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// FuncRef

namespace {
/// `current op value` for the compound assignments (0: +, 1: -, 2: *, 3: /), cast back to
/// `current`'s type.
Expr compound(int op, const Expr &current, const Expr &value) {
    Expr e = op == 0   ? current + value
             : op == 1 ? current - value
             : op == 2 ? current * value
                       : current / value;
    return e.type() == current.type() ? e : cast(current.type(), e);
}
}  // namespace

FuncRef::FuncRef(const Func &f, std::vector<Expr> args) : func_(f.contents()) {
    // `_` stands for the remaining dimensions; on the left of a Func's first definition, for
    // the implicit variables its right side uses (expanded in define()).
    if (Function(func_).has_pure_definition())
        args = detail::expand_remaining_dims(args, f.dimensions(), "Func \"" + f.name() + "\"");
    for (size_t i = 0; i < args.size(); i++)
        args_.push_back(coordinate(func_->name, i, args[i]));
}

namespace {
/// The number of implicit variables (_0, _1, ...) that `values` use: one past the highest.
int implicit_count(const std::vector<Expr> &values) {
    int count = 0;
    class Find : public IRVisitor {
      public:
        int *count;
        using IRVisitor::visit;
        void visit(const Variable *op) override {
            if (!op->param.defined() && !op->reduction_domain.defined() &&
                Var::is_implicit(op->name)) {
                *count = std::max(*count, std::stoi(op->name.substr(1)) + 1);
            }
        }
    } find;
    find.count = &count;
    for (const Expr &v : values)
        find.include(v);
    return count;
}
}  // namespace

void FuncRef::define(const std::vector<Expr> &values) {
    Function f(func_);
    if (!f.has_pure_definition() && detail::has_remaining_dims(args_)) {
        int n = implicit_count(values);
        args_ = detail::expand_remaining_dims(args_, static_cast<int>(args_.size()) - 1 + n,
                                              "Func \"" + func_->name + "\"");
    }
    if (!f.has_pure_definition()) {
        std::vector<std::string> names;
        for (size_t i = 0; i < args_.size(); i++) {
            const Variable *v = as_pure_var(args_[i]);
            user_assert(v) << "Func \"" << func_->name
                           << "\" has no pure definition yet, so its first definition must have "
                              "distinct Vars as arguments, but argument "
                           << i << " is " << args_[i] << ". Define it over Vars first, e.g. "
                           << func_->name << "(x) = 0;";
            names.push_back(v->name);
        }
        f.define(names, values);
        return;
    }
    f.define_update(args_, values);
}

FuncRef &FuncRef::operator=(const Expr &value) {
    define({value});
    return *this;
}

FuncRef &FuncRef::operator=(const Tuple &values) {
    define(values.as_vector());
    return *this;
}

FuncRef &FuncRef::operator=(const FuncRef &other) {
    if (other.size() > 1) return *this = Tuple(other);
    return *this = Expr(other);
}

FuncRef &FuncRef::operator+=(const FuncRef &call) {
    return call.size() > 1 ? update_tuple_with(0, Tuple(call)) : update_with(0, Expr(call));
}
FuncRef &FuncRef::operator-=(const FuncRef &call) {
    return call.size() > 1 ? update_tuple_with(1, Tuple(call)) : update_with(1, Expr(call));
}
FuncRef &FuncRef::operator*=(const FuncRef &call) {
    return call.size() > 1 ? update_tuple_with(2, Tuple(call)) : update_with(2, Expr(call));
}
FuncRef &FuncRef::operator/=(const FuncRef &call) {
    return call.size() > 1 ? update_tuple_with(3, Tuple(call)) : update_with(3, Expr(call));
}

FuncRef &FuncRef::update_with(int op, const Expr &value) {
    Function f(func_);
    user_assert(value.defined()) << "Func \"" << func_->name
                                 << "\": update with an undefined Expr.";
    if (!f.has_pure_definition()) {
        // The pure definition is the operator's identity, over fresh Vars (or the given ones).
        std::vector<std::string> names;
        for (size_t i = 0; i < args_.size(); i++) {
            const Variable *v = as_pure_var(args_[i]);
            names.push_back(v ? v->name : func_->name + ".v" + std::to_string(i));
        }
        Type t = value.type();
        f.define(names, {make_const(t, int64_t(op < 2 ? 0 : 1))});
    }
    user_assert(f.outputs() == 1) << "Func \"" << func_->name
                                  << "\" is a Tuple; update its elements with f(...) = Tuple(...).";
    Expr updated = compound(op, Expr(*this), value);
    f.define_update(args_, {updated});
    return *this;
}

FuncRef &FuncRef::operator+=(const Expr &value) {
    return update_with(0, value);
}
FuncRef &FuncRef::operator-=(const Expr &value) {
    return update_with(1, value);
}
FuncRef &FuncRef::operator*=(const Expr &value) {
    return update_with(2, value);
}
FuncRef &FuncRef::operator/=(const Expr &value) {
    return update_with(3, value);
}

FuncRef::operator Expr() const {
    Function f(func_);
    user_assert(f.outputs() <= 1 || !f.has_pure_definition())
        << "Func \"" << func_->name << "\" has " << f.outputs()
        << " values per point (a Tuple); use " << func_->name << "(...)[i] to pick one.";
    return value(0);
}

FuncRef::operator Stage() const {
    Function f(func_);
    user_assert(f.has_pure_definition())
        << "Func \"" << func_->name << "\" has no definition, so no stage to name.";
    return Stage(func_, f.stages() - 1);
}

FuncTupleElementRef FuncRef::operator[](int i) const {
    return FuncTupleElementRef(*this, i);
}

FuncRef &FuncRef::update_tuple_with(int op, const Tuple &values) {
    Function f(func_);
    user_assert(f.has_pure_definition())
        << "Func \"" << func_->name << "\": a Tuple update (+=, -=, *=, /=) needs a pure "
        << "definition first, e.g. " << func_->name << "(x) = Tuple(0, 0.0f);";
    user_assert(values.size() == static_cast<size_t>(f.outputs()))
        << "Func \"" << func_->name << "\" has " << f.outputs()
        << " values per point, but the update gives a Tuple of " << values.size() << ".";
    std::vector<Expr> updated;
    for (size_t i = 0; i < values.size(); i++) {
        Expr current = value(static_cast<int>(i));
        user_assert(values[i].defined()) << "Func \"" << func_->name << "\": element " << i
                                         << " of the update is an undefined Expr.";
        updated.push_back(compound(op, current, values[i]));
    }
    f.define_update(args_, updated);
    return *this;
}

FuncRef &FuncRef::operator+=(const Tuple &values) {
    return update_tuple_with(0, values);
}
FuncRef &FuncRef::operator-=(const Tuple &values) {
    return update_tuple_with(1, values);
}
FuncRef &FuncRef::operator*=(const Tuple &values) {
    return update_tuple_with(2, values);
}
FuncRef &FuncRef::operator/=(const Tuple &values) {
    return update_tuple_with(3, values);
}

FuncTupleElementRef &FuncTupleElementRef::operator=(const Expr &v) {
    Function f(ref_.func_);
    user_assert(f.has_pure_definition())
        << "Func \"" << f.name() << "\": f(...)[" << index_
        << "] = ... updates one element, so the Func needs a pure definition first.";
    user_assert(index_ >= 0 && index_ < f.outputs())
        << "Func \"" << f.name() << "\" has " << f.outputs() << " value"
        << (f.outputs() == 1 ? "" : "s") << " per point; there is no element " << index_ << ".";
    user_assert(v.defined()) << "Func \"" << f.name() << "\": element " << index_
                             << " is given an undefined Expr.";
    std::vector<Expr> values;
    for (int i = 0; i < f.outputs(); i++) {
        Type t = f.output_types()[i];
        values.push_back(i == index_ ? (v.type() == t ? v : cast(t, v)) : undef(t));
    }
    f.define_update(ref_.args_, values);
    return *this;
}

namespace {
FuncTupleElementRef &element_update(FuncTupleElementRef &ref, int op, const Expr &v) {
    return ref = compound(op, Expr(ref), v);
}
}  // namespace

FuncTupleElementRef &FuncTupleElementRef::operator+=(const Expr &v) {
    return element_update(*this, 0, v);
}
FuncTupleElementRef &FuncTupleElementRef::operator-=(const Expr &v) {
    return element_update(*this, 1, v);
}
FuncTupleElementRef &FuncTupleElementRef::operator*=(const Expr &v) {
    return element_update(*this, 2, v);
}
FuncTupleElementRef &FuncTupleElementRef::operator/=(const Expr &v) {
    return element_update(*this, 3, v);
}

Expr undef(Type t) {
    return Call::make(t, Call::Intrinsic::Undef, {});
}

Expr FuncRef::value(int i) const {
    Function f(func_);
    user_assert(f.has_pure_definition())
        << "Func \"" << func_->name << "\" is used but has not been defined. Define it before "
        << "using it, e.g. " << func_->name << "(x, ...) = ...;";
    user_assert(static_cast<int>(args_.size()) == f.dimensions())
        << "Func \"" << func_->name << "\" has " << f.dimensions() << " dimension"
        << (f.dimensions() == 1 ? "" : "s") << " but is called with " << args_.size() << " argument"
        << (args_.size() == 1 ? "" : "s") << ".";
    user_assert(i >= 0 && i < f.outputs())
        << "Func \"" << func_->name << "\" has " << f.outputs() << " value"
        << (f.outputs() == 1 ? "" : "s") << " per point; there is no element " << i << ".";
    return Call::make(f.output_types()[i], func_->name, args_, Call::CallType::Func, i,
                      FunctionPtr(func_));
}

size_t FuncRef::size() const {
    Function f(func_);
    user_assert(f.has_pure_definition())
        << "Func \"" << func_->name << "\" is used but has not been defined. Define it before "
        << "using it, e.g. " << func_->name << "(x, ...) = ...;";
    return static_cast<size_t>(f.outputs());
}

Tuple::Tuple(const FuncRef &call) {
    const size_t n = call.size();
    for (size_t i = 0; i < n; i++)
        exprs_.push_back(n == 1 ? Expr(call) : call.value(static_cast<int>(i)));
}

// ---------------------------------------------------------------------------------------------
// evaluate, lambda

Buffer<> evaluate_to_buffer(const Expr &e, Type t) {
    user_assert(e.defined()) << "evaluate: the expression is undefined.";
    user_assert(e.type() == t) << "evaluate<" << t << ">(" << e << "): the expression has type "
                               << e.type() << "; cast it to " << t << " first, or evaluate<"
                               << e.type() << ">.";
    Func f("evaluate");
    f() = e;
    Realization r = f.realize();
    return r[0];
}

Realization evaluate_tuple(const Tuple &t, const std::vector<Type> &types) {
    user_assert(t.size() == types.size())
        << "evaluate: the Tuple has " << t.size() << " elements but " << types.size()
        << " outputs were given; pass one pointer per element.";
    for (size_t i = 0; i < t.size(); i++) {
        user_assert(t[i].defined()) << "evaluate: element " << i << " of the Tuple is undefined.";
        user_assert(t[i].type() == types[i])
            << "evaluate: element " << i << " of the Tuple (" << t[i] << ") has type "
            << t[i].type() << ", but its output is a " << types[i] << "; cast the element or "
            << "pass a pointer to " << t[i].type() << ".";
    }
    Func f("evaluate");
    f() = t;
    return f.realize();
}

Tuple tuple_select(const Expr &condition, const Tuple &t, const Tuple &f) {
    user_assert(t.size() == f.size()) << "tuple_select: the Tuples have " << t.size() << " and "
                                      << f.size() << " elements; they must have the same size.";
    std::vector<Expr> values;
    for (size_t i = 0; i < t.size(); i++)
        values.push_back(select(condition, t[i], f[i]));
    return Tuple(values);
}

Tuple tuple_select(const Tuple &condition, const Tuple &t, const Tuple &f) {
    user_assert(t.size() == f.size() && condition.size() == t.size())
        << "tuple_select: the condition and the Tuples have " << condition.size() << ", "
        << t.size() << " and " << f.size() << " elements; they must have the same size.";
    std::vector<Expr> values;
    for (size_t i = 0; i < t.size(); i++)
        values.push_back(select(condition[i], t[i], f[i]));
    return Tuple(values);
}

Expr mux(const Expr &id, const std::vector<Expr> &values) {
    user_assert(id.defined() && id.type().is_int_or_uint())
        << "mux: the index must be an integer Expr" << (id.defined() ? ", not " : "")
        << (id.defined() ? id.type().to_string() : std::string()) << ".";
    user_assert(!values.empty()) << "mux(" << id << ", {}): give at least one value.";
    std::vector<Expr> typed = values;
    for (size_t i = 0; i < typed.size(); i++) {
        user_assert(typed[i].defined()) << "mux: value " << i << " is undefined.";
        if (typed[i].type() == typed[0].type()) continue;
        user_assert(ir::is_const(typed[i]))
            << "mux(" << id << ", ...): value " << i << " (" << typed[i] << ") has type "
            << typed[i].type() << " but the first has type " << typed[0].type()
            << "; cast the values to one type.";
        typed[i] = cast(typed[0].type(), typed[i]);
    }
    // From the last value down: id <= k picks value k (so ids below 0 pick the first).
    Expr result = typed.back();
    for (size_t k = typed.size() - 1; k-- > 0;)
        result = select(id <= static_cast<int>(k), typed[k], result);
    return result;
}

Expr mux(const Expr &id, std::initializer_list<Expr> values) {
    return mux(id, std::vector<Expr>(values));
}

Expr mux(const Expr &id, const Tuple &values) {
    return mux(id, values.as_vector());
}

Func lambda(const Expr &e) {
    // `lambda(g(_) + 1)`: the implicit variables e uses are the Func's arguments.
    Func f;
    f(_) = e;
    return f;
}
Func lambda(const Var &x, const Expr &e) {
    Func f;
    f(x) = e;
    return f;
}
Func lambda(const Var &x, const Var &y, const Expr &e) {
    Func f;
    f(x, y) = e;
    return f;
}
Func lambda(const Var &x, const Var &y, const Var &z, const Expr &e) {
    Func f;
    f(x, y, z) = e;
    return f;
}
Func lambda(const Var &x, const Var &y, const Var &z, const Var &w, const Expr &e) {
    Func f;
    f(x, y, z, w) = e;
    return f;
}

// ---------------------------------------------------------------------------------------------
// Func

Func::Func() : Func(fresh_func_name()) {}

Func::Func(const std::string &name) : contents_(Function::make(name).shared()) {
    user_assert(!name.empty()) << "a Func needs a non-empty name.";
}

Func::Func(const Buffer<> &buffer)
    : Func("wrapped_" + (buffer.defined() ? buffer.name() : std::string("undefined"))) {
    user_assert(buffer.defined()) << "Func of an undefined buffer.";
    std::vector<std::string> names;
    std::vector<Expr> args;
    for (int i = 0; i < buffer.dimensions(); i++) {
        names.push_back(contents_->name + ".v" + std::to_string(i));
        args.push_back(Variable::make(Int(32), names.back()));
    }
    Function(contents_).define(names, {buffer(args)});
}

FuncRef Func::operator()(const std::vector<Var> &args) const {
    std::vector<Expr> exprs(args.begin(), args.end());
    return FuncRef(*this, exprs);
}

const std::string &Func::name() const {
    return contents_->name;
}
bool Func::defined() const {
    return contents_->has_pure_definition;
}
int Func::dimensions() const {
    return Function(contents_).dimensions();
}
int Func::outputs() const {
    return Function(contents_).outputs();
}
bool Func::has_update_definition() const {
    return Function(contents_).has_update_definition();
}
int Func::num_update_definitions() const {
    return static_cast<int>(contents_->updates.size());
}

std::vector<Var> Func::args() const {
    std::vector<Var> vars;
    for (const std::string &a : contents_->args)
        vars.emplace_back(a);
    return vars;
}

Type Func::type() const {
    user_assert(defined()) << "Func \"" << name() << "\" has no definition, so no type.";
    user_assert(outputs() == 1) << "Func \"" << name() << "\" is a Tuple; use types().";
    return contents_->output_types[0];
}

std::vector<Type> Func::types() const {
    return contents_->output_types;
}

std::vector<Expr> Func::values() const {
    Function f(contents_);
    user_assert(f.has_pure_definition())
        << "Func \"" << name() << "\" has no definition, so no value. Define it first, e.g. "
        << name() << "(x, ...) = ...;";
    return f.init().values;
}

Expr Func::value() const {
    std::vector<Expr> v = values();
    user_assert(v.size() == 1) << "Func \"" << name() << "\" is a Tuple of " << v.size()
                               << " values; use values().";
    return v[0];
}

namespace {
const lang::Definition &update_definition(const Function &f, int idx) {
    const int n = static_cast<int>(f.updates().size());
    user_assert(idx >= 0 && idx < n)
        << "Func \"" << f.name() << "\" has " << n << " update definitions, so no update " << idx
        << (n > 0 ? "; ask for one of 0 to " + std::to_string(n - 1) + "."
                  : "; define one first, e.g. " + f.name() + "(x) += ...;");
    return f.updates()[idx];
}
}  // namespace

std::vector<Expr> Func::update_args(int idx) const {
    return update_definition(Function(contents_), idx).args;
}

std::vector<Expr> Func::update_values(int idx) const {
    return update_definition(Function(contents_), idx).values;
}

Expr Func::update_value(int idx) const {
    std::vector<Expr> v = update_values(idx);
    user_assert(v.size() == 1) << "Func \"" << name() << "\" is a Tuple of " << v.size()
                               << " values; use update_values(" << idx << ").";
    return v[0];
}

Func &Func::compute_root() {
    contents_->schedule.compute_level = schedule::LoopLevel::root();
    Function(contents_).touch();
    return *this;
}

Func &Func::compute_at(const Func &f, const VarOrRVar &var) {
    user_assert(f.contents() != contents_)
        << "Func \"" << name() << "\" cannot be computed at its own loop.";
    contents_->schedule.compute_level = schedule::LoopLevel::at(f.name(), var.name());
    Function(contents_).touch();
    return *this;
}

Func &Func::store_at(const Func &f, const VarOrRVar &var) {
    user_assert(f.contents() != contents_)
        << "Func \"" << name() << "\" cannot be stored at its own loop.";
    contents_->schedule.store_level = schedule::LoopLevel::at(f.name(), var.name());
    Function(contents_).touch();
    return *this;
}

Func &Func::store_root() {
    contents_->schedule.store_level = schedule::LoopLevel::root();
    Function(contents_).touch();
    return *this;
}

std::ostream &operator<<(std::ostream &out, TailStrategy t) {
    // The name after "TailStrategy::".
    return out << (tail_strategy_code(t) + 14);
}

std::ostream &operator<<(std::ostream &out, LoopAlignStrategy a) {
    switch (a) {
        case LoopAlignStrategy::AlignStart:
            return out << "AlignStart";
        case LoopAlignStrategy::AlignEnd:
            return out << "AlignEnd";
        case LoopAlignStrategy::NoAlign:
            return out << "NoAlign";
        case LoopAlignStrategy::Auto:
            break;
    }
    return out << "Auto";
}

std::ostream &operator<<(std::ostream &out, MemoryType m) {
    switch (m) {
        case MemoryType::Auto:
            return out << "Auto";
        case MemoryType::Heap:
            return out << "Heap";
        case MemoryType::Stack:
            return out << "Stack";
        case MemoryType::Register:
            return out << "Register";
        case MemoryType::GPUShared:
            return out << "GPUShared";
        case MemoryType::NPUBuffer:
            break;
    }
    return out << "NPUBuffer";
}

std::ostream &operator<<(std::ostream &out, DeviceAPI d) {
    switch (d) {
        case DeviceAPI::None:
            return out << "None";
        case DeviceAPI::Host:
            return out << "Host";
        case DeviceAPI::Default_GPU:
            return out << "Default_GPU";
        case DeviceAPI::OpenCL:
            return out << "OpenCL";
        case DeviceAPI::CUDA:
            return out << "CUDA";
        case DeviceAPI::NPU:
            break;
    }
    return out << "NPU";
}

const char *tail_strategy_code(TailStrategy t) {
    switch (t) {
        case TailStrategy::Auto:
            return "TailStrategy::Auto";
        case TailStrategy::RoundUp:
            return "TailStrategy::RoundUp";
        case TailStrategy::GuardWithIf:
            return "TailStrategy::GuardWithIf";
        case TailStrategy::ShiftInwards:
            return "TailStrategy::ShiftInwards";
        case TailStrategy::PartialTile:
            return "TailStrategy::PartialTile";
    }
    return "TailStrategy::Auto";
}

namespace {

/// Replaces the entry of pure Var `var` in `ranges` (a Func's bounds or estimates) by
/// [min, min + extent), checking the Var and the types; `what` names the directive.
void set_range_of(const lang::FunctionContents &f, std::vector<schedule::Bound> &ranges,
                  const char *what, const Var &var, const Expr &min, const Expr &extent) {
    bool known = false;
    for (const std::string &a : f.args)
        known |= a == var.name();
    user_assert(known) << "Func \"" << f.name << "\": " << what << "() of \"" << var.name()
                       << "\", which is not one of its pure Vars.";
    for (const Expr *e : {&min, &extent}) {
        user_assert(e->defined() && e->type().is_int_or_uint() && e->type().is_scalar() &&
                    !e->type().is_bool())
            << "Func \"" << f.name << "\": the bounds given to " << what << "(" << var.name()
            << ") must be integers.";
    }
    for (auto it = ranges.begin(); it != ranges.end();)
        it = it->var == var.name() ? ranges.erase(it) : it + 1;
    ranges.push_back({var.name(), cast(Int(32), min), cast(Int(32), extent)});
}

}  // namespace

Func &Func::bound(const Var &var, const Expr &min, const Expr &extent) {
    set_range_of(*contents_, contents_->schedule.bounds, "bound", var, min, extent);
    Function(contents_).touch();
    return *this;
}

Func &Func::set_estimate(const Var &var, const Expr &min, const Expr &extent) {
    set_range_of(*contents_, contents_->schedule.estimates, "set_estimate", var, min, extent);
    return *this;
}

Func &Func::set_estimates(const Region &estimates) {
    user_assert(static_cast<int>(estimates.size()) == dimensions())
        << "Func \"" << name() << "\" has " << dimensions() << " dimensions but set_estimates was "
        << "given " << estimates.size() << " ranges; give one {min, extent} per dimension.";
    for (int d = 0; d < dimensions(); d++)
        set_estimate(Var(contents_->args[d]), estimates[d].min, estimates[d].extent);
    return *this;
}

Func &Func::bound_extent(const Var &var, const Expr &extent) {
    bool known = false;
    for (const std::string &a : contents_->args)
        known |= a == var.name();
    user_assert(known) << "Func \"" << name() << "\": bound_extent() of \"" << var.name()
                       << "\", which is not one of its pure Vars.";
    user_assert(extent.defined() && extent.type().is_int_or_uint() && extent.type().is_scalar() &&
                !extent.type().is_bool())
        << "Func \"" << name() << "\": the extent given to bound_extent(" << var.name()
        << ") must be an integer.";
    if (auto e = ir::as_const_int(extent)) {
        user_assert(*e >= 1) << "Func \"" << name() << "\": bound_extent(" << var.name() << ", "
                             << *e << ") must compute at least one point.";
    }
    auto &bounds = contents_->schedule.bounds;
    for (auto it = bounds.begin(); it != bounds.end();)
        it = it->var == var.name() ? bounds.erase(it) : it + 1;
    bounds.push_back({var.name(), Expr(), cast(Int(32), extent)});
    Function(contents_).touch();
    return *this;
}

namespace {

void add_alignment(const std::shared_ptr<lang::FunctionContents> &contents, const char *directive,
                   const Var &var, const Expr &modulus, const Expr &remainder, bool extent_only) {
    lang::FunctionContents &f = *contents;
    require_pure_var(f, directive, var);
    std::optional<int64_t> m = modulus.defined() ? as_const_int(modulus) : std::nullopt;
    user_assert(m && *m > 0 && *m <= 0x7fffffff)
        << "Func \"" << f.name << "\", " << directive << " of \"" << var.name()
        << "\": the modulus " << (modulus.defined() ? modulus : Expr(std::string("(undefined)")))
        << " must be a positive integer constant.";
    std::optional<int64_t> r = remainder.defined() ? as_const_int(remainder) : std::nullopt;
    user_assert(r.has_value()) << "Func \"" << f.name << "\", " << directive << " of \""
                               << var.name() << "\": the remainder "
                               << (remainder.defined() ? remainder
                                                       : Expr(std::string("(undefined)")))
                               << " must be an integer constant.";
    auto &all = f.schedule.alignments;
    all.erase(
        std::remove_if(all.begin(), all.end(), [&](const auto &a) { return a.var == var.name(); }),
        all.end());
    // The remainder is taken modulo the modulus, into [0, modulus).
    const int64_t mod = m.value_or(1), rem = r.value_or(0);
    all.push_back({var.name(), mod, ((rem % mod) + mod) % mod, extent_only});
    Function(contents).touch();
}

}  // namespace

Func &Func::align_bounds(const Var &var, const Expr &modulus, const Expr &remainder) {
    add_alignment(contents_, "align_bounds", var, modulus, remainder, false);
    return *this;
}

Func &Func::align_extent(const Var &var, const Expr &modulus) {
    add_alignment(contents_, "align_extent", var, modulus, 0, true);
    return *this;
}

Func &Func::reorder_storage(const std::vector<Var> &order) {
    std::vector<std::string> &storage = contents_->schedule.storage_order;
    if (storage.empty()) storage = contents_->args;
    std::vector<size_t> positions;
    for (size_t a = 0; a < order.size(); a++) {
        for (size_t b = 0; b < a; b++) {
            user_assert(order[a].name() != order[b].name())
                << "Func \"" << name() << "\", reorder_storage: \"" << order[a].name()
                << "\" is listed twice.";
        }
        auto it = std::find(storage.begin(), storage.end(), order[a].name());
        user_assert(it != storage.end())
            << "Func \"" << name() << "\", reorder_storage: \"" << order[a].name()
            << "\" is not one of its pure Vars (" << join_args(contents_->args) << ").";
        positions.push_back(static_cast<size_t>(it - storage.begin()));
    }
    std::sort(positions.begin(), positions.end());
    for (size_t k = 0; k < positions.size(); k++)
        storage[positions[k]] = order[k].name();
    Function(contents_).touch();
    return *this;
}

Func &Func::align_storage(const Var &var, const Expr &alignment) {
    require_pure_var(*contents_, "align_storage", var);
    user_assert(alignment.defined() && alignment.type().is_int_or_uint() &&
                alignment.type().is_scalar())
        << "Func \"" << name() << "\", align_storage of \"" << var.name()
        << "\": the alignment must be an integer (a number of elements).";
    auto constant = as_const_int(alignment);
    user_assert(!constant || *constant > 0)
        << "Func \"" << name() << "\", align_storage of \"" << var.name() << "\": the alignment "
        << *constant << " must be positive.";
    std::vector<schedule::StorageAlignment> &all = contents_->schedule.storage_alignment;
    all.erase(
        std::remove_if(all.begin(), all.end(), [&](const auto &a) { return a.var == var.name(); }),
        all.end());
    all.push_back({var.name(), cast(Int(32), alignment)});
    Function(contents_).touch();
    return *this;
}

Func &Func::fold_storage(const Var &var, const Expr &extent, bool fold_forward) {
    require_pure_var(*contents_, "fold_storage", var);
    int64_t factor = 0;
    if (extent.defined()) factor = as_const_int(extent).value_or(0);
    user_assert(factor > 0 && factor <= 0x7fffffff)
        << "Func \"" << name() << "\", fold_storage of \"" << var.name() << "\": the extent "
        << extent << " must be a positive integer constant (the points the circular buffer holds).";
    std::vector<schedule::StorageFold> &all = contents_->schedule.storage_folds;
    all.erase(
        std::remove_if(all.begin(), all.end(), [&](const auto &f) { return f.var == var.name(); }),
        all.end());
    all.push_back({var.name(), static_cast<int>(factor), fold_forward});
    Function(contents_).touch();
    return *this;
}

Func &Func::compute_inline() {
    contents_->schedule.compute_level = schedule::LoopLevel::inlined();
    Function(contents_).touch();
    return *this;
}

Func &Func::store_in(MemoryType type) {
    contents_->schedule.memory_type = type;
    Function(contents_).touch();
    return *this;
}

Func &Func::trace_stores() {
    contents_->trace_stores = true;
    Function(contents_).touch();
    return *this;
}

Func &Func::trace_loads() {
    contents_->trace_loads = true;
    Function(contents_).touch();
    return *this;
}

Func &Func::trace_realizations() {
    contents_->trace_realizations = true;
    Function(contents_).touch();
    return *this;
}

Func &Func::memoize(const EvictionKey &eviction_key) {
    const Expr &key = eviction_key.key();
    if (key.defined()) {
        user_assert(key.type().is_scalar() &&
                    (key.type().is_int_or_uint() || key.type().is_handle()))
            << "Func \"" << name() << "\": memoize(EvictionKey(" << key << ")): the key has type "
            << key.type() << "; an eviction key is a scalar integer or handle (cast it).";
    }
    contents_->memoized = true;
    contents_->eviction_key = key;
    Function(contents_).touch();
    return *this;
}

Func &Func::add_trace_tag(const std::string &tag) {
    contents_->trace_tags.push_back(tag);
    Function(contents_).touch();
    return *this;
}

}  // namespace dsl
