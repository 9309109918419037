#include "lang/Function.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <sstream>

#include "ir/BufferConstraints.h"
#include "ir/CSE.h"
#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/References.h"
#include "ir/Simplify.h"
#include "lang/FunctionReferences.h"
#include "lang/Random.h"

namespace dsl::lang {

namespace {
std::atomic<uint64_t> epoch{0};
}  // namespace

uint64_t pipeline_epoch() {
    return epoch.load(std::memory_order_acquire);
}

void bump_pipeline_epoch() {
    epoch.fetch_add(1, std::memory_order_acq_rel);
}

void Function::touch() const {
    contents_->version++;
    bump_pipeline_epoch();
}

using namespace ir;

namespace {

/// The variables of an expression, sorted into the kinds a definition cares about.
class CollectVariables : public IRVisitor {
  public:
    /// Plain Vars (not parameters, not RVars, not let-bound), in order of first use.
    std::vector<std::string> free_vars;
    std::vector<ReductionDomain> rdoms;
    std::vector<std::string> rvars;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->param.defined() || bound_.count(op->name)) return;
        if (op->reduction_domain.defined()) {
            bool known = false;
            for (const auto &r : rdoms)
                known |= r.same_as(op->reduction_domain);
            if (!known) rdoms.push_back(op->reduction_domain);
            add(rvars, op->name);
            return;
        }
        add(free_vars, op->name);
    }
    void visit(const Let *op) override {
        include(op->value);
        bound_.insert(op->name);
        include(op->body);
        bound_.erase(op->name);
    }

  private:
    static void add(std::vector<std::string> &v, const std::string &name) {
        for (const auto &n : v) {
            if (n == name) return;
        }
        v.push_back(name);
    }
    std::multiset<std::string> bound_;
};

std::string join(const std::vector<std::string> &names) {
    std::string s;
    for (size_t i = 0; i < names.size(); i++)
        s += (i ? ", " : "") + names[i];
    return s;
}

/// Whether `e` has undef<T>() inside it (not as the whole of it).
bool has_nested_undef(const Expr &e) {
    if (is_undef(e)) return false;
    return any_call(e, [](const Call *op) { return op->is_intrinsic(Call::Intrinsic::Undef); });
}

/// A value with undef<T>() as branches of selects, seen as a store that happens only where
/// the selects pick a defined value: `stored` is that condition (undefined where the value has
/// no such branch) and `value` the value without those branches.
struct ConditionalStore {
    Expr stored;
    Expr value;
};

ConditionalStore split_undef_branches(const Expr &e) {
    if (is_undef(e)) return {make_bool(false), e};
    const auto *s = e.as<Select>();
    if (!s) return {Expr(), e};
    ConditionalStore t = split_undef_branches(s->true_value);
    ConditionalStore f = split_undef_branches(s->false_value);
    if (!t.stored.defined() && !f.stored.defined()) return {Expr(), e};
    Expr t_stored = t.stored.defined() ? t.stored : make_bool(true);
    Expr f_stored = f.stored.defined() ? f.stored : make_bool(true);
    if (is_undef(t.value)) return {!s->condition && f_stored, f.value};
    if (is_undef(f.value)) return {s->condition && t_stored, t.value};
    return {Select::make(s->condition, t_stored, f_stored),
            Select::make(s->condition, t.value, f.value)};
}

/// Rewrites `values` without their undef<T>() select branches and returns where the point is
/// stored (const true for everywhere). The elements of a Tuple are stored together, so those
/// with such branches must agree on the condition.
Expr take_store_condition(const std::string &func, const char *what, std::vector<Expr> &values) {
    Expr stored;
    for (Expr &v : values) {
        if (!v.defined() || is_undef(v)) continue;
        ConditionalStore split = split_undef_branches(v);
        if (!split.stored.defined()) continue;
        user_assert(!stored.defined() || equal(stored, split.stored))
            << "Func \"" << func << "\": " << what << " leaves Tuple elements undef() under "
            << "different conditions (" << stored << " and " << split.stored
            << " are where they are stored); a point's elements are stored together, so give "
            << "each select() around undef<T>() the same condition.";
        stored = split.stored;
        v = split.value;
    }
    return stored.defined() ? simplify(stored) : make_bool(true);
}

void check_values(const std::string &func, const std::vector<Expr> &values, const char *what) {
    user_assert(!values.empty()) << "Func \"" << func << "\": " << what << " has no value.";
    for (const Expr &v : values) {
        user_assert(!v.defined() || !has_nested_undef(v))
            << "Func \"" << func << "\": " << what << " uses undef() inside the value " << v
            << "; undef<T>() may only be a whole value (that element is not stored), or a branch "
               "of a select() that is the whole value (the point is not stored where the select "
               "picks it).";
        user_assert(v.defined()) << "Func \"" << func << "\": " << what
                                 << " is an undefined Expr; give it a value.";
        user_assert(!v.type().is_handle())
            << "Func \"" << func << "\": " << what << " has the handle value " << v
            << "; Funcs hold numbers.";
        user_assert(v.type().is_scalar())
            << "Func \"" << func << "\": " << what << " has the vector value " << v << " of type "
            << v.type() << "; Func values are scalars (vectorize with a schedule instead).";
    }
}

}  // namespace

Function Function::make(const std::string &name) {
    auto c = std::make_shared<FunctionContents>();
    c->name = name;
    return Function(c);
}

void Function::define(const std::vector<std::string> &args, const std::vector<Expr> &values_in) {
    FunctionContents &c = contents();
    user_assert(!c.has_pure_definition)
        << "Func \"" << c.name << "\" already has a pure definition. Give it an update instead "
        << "(e.g. " << c.name << "(...) = " << c.name << "(...) + ...) or define a new Func.";
    // A value built as a DAG far larger as a tree (e[i] = e[i - 1] + e[i - 2]) keeps its
    // shared parts in lets, so that the checks below and lowering walk what is in memory.
    std::vector<Expr> values;
    for (const Expr &v : values_in)
        values.push_back(share_if_blown_up(v));
    Expr stored = take_store_condition(c.name, "the pure definition", values);
    check_values(c.name, values, "the pure definition");
    // A value undef<T>() leaves that element uncomputed here (Halide's way to give a Func
    // only updates, e.g. one that fills itself in place): its memory holds whatever it held
    // until an update writes it.
    std::set<std::string> seen;
    for (const std::string &a : args) {
        user_assert(seen.insert(a).second)
            << "Func \"" << c.name << "\": the Var " << a
            << " appears twice on the left of the pure definition; each argument must be a "
               "distinct Var.";
    }
    CollectVariables vars;
    for (const Expr &v : values)
        vars.include(v);
    user_assert(vars.rvars.empty())
        << "Func \"" << c.name << "\": the pure definition uses the RVar " << vars.rvars[0]
        << ". Reductions need an update definition, e.g. " << c.name << "(x) = 0; " << c.name
        << "(x) += g(x, r);";
    for (const std::string &v : vars.free_vars) {
        user_assert(seen.count(v)) << "Func \"" << c.name << "\": the pure definition uses the Var "
                                   << v << ", which is not one of its arguments (" << join(args)
                                   << "). Add it to the left side or replace it by an expression.";
    }
    // Nothing refers to a Func before its pure definition (calls to it are refused), so this
    // definition closes no cycle of references (lang/FunctionReferences.h).
    std::vector<Expr> prepared, coordinates;
    for (const std::string &a : args)
        coordinates.push_back(Variable::make(Int(32), a));
    for (const Expr &v : values) {
        prepared.push_back(with_strong_references(lower_random(v, coordinates),
                                                  "the definition of Func \"" + c.name + "\""));
    }
    set_pure_definition(args, prepared);
    c.init.predicate = with_strong_references(lower_random(stored, coordinates),
                                              "the definition of Func \"" + c.name + "\"");
}

void Function::set_pure_definition(const std::vector<std::string> &args,
                                   const std::vector<Expr> &values) {
    FunctionContents &c = contents();
    c.args = args;
    c.output_types.clear();
    for (const Expr &v : values)
        c.output_types.push_back(v.type());
    c.init.args.clear();
    for (const std::string &a : args)
        c.init.args.push_back(Variable::make(Int(32), a));
    c.init.values = values;
    c.init.predicate = make_bool(true);
    c.init.schedule.dims.clear();
    for (const std::string &a : args)
        c.init.schedule.dims.push_back({a});
    c.has_pure_definition = true;
    touch();
}

void Function::define_extern(const std::string &function, const std::vector<std::string> &args,
                             const std::vector<Expr> &values) {
    FunctionContents &c = contents();
    user_assert(!c.has_pure_definition)
        << "Func \"" << c.name << "\" already has a definition; define_extern must be its only "
        << "one. Use a new Func for the extern stage.";
    std::vector<Expr> prepared;
    for (const Expr &v : values) {
        prepared.push_back(
            with_strong_references(v, "the extern stage of Func \"" + c.name + "\""));
    }
    c.extern_function = function;
    c.schedule.compute_level = schedule::LoopLevel::root();
    set_pure_definition(args, prepared);
}

void Function::define_update(const std::vector<Expr> &args, const std::vector<Expr> &values,
                             const ReductionDomain &rdom) {
    Definition d = checked_update(args, values, rdom);
    contents().updates.push_back(std::move(d));
    weaken_references_back_to(contents());
    touch();
}

void Function::replace_update(int index, const std::vector<Expr> &args,
                              const std::vector<Expr> &values, const ReductionDomain &rdom) {
    internal_assert(index >= 0 && index < static_cast<int>(contents().updates.size()))
        << contents().name << " has no update " << index;
    Definition d = checked_update(args, values, rdom);
    contents().updates[index] = std::move(d);
    weaken_references_back_to(contents());
    touch();
}

Definition Function::checked_update(const std::vector<Expr> &args,
                                    const std::vector<Expr> &values_given,
                                    const ReductionDomain &rdom) const {
    FunctionContents &c = contents();
    internal_assert(c.has_pure_definition)
        << "update of " << c.name << " without a pure definition";
    user_assert(c.extern_function.empty())
        << "Func \"" << c.name << "\" is an extern stage (define_extern of \"" << c.extern_function
        << "\"), which has no updates. Update a Func that reads it instead.";
    user_assert(static_cast<int>(args.size()) == dimensions())
        << "Func \"" << c.name << "\" has " << dimensions() << " dimension"
        << (dimensions() == 1 ? "" : "s") << " (" << join(c.args) << ") but its update gives "
        << args.size() << " argument" << (args.size() == 1 ? "" : "s") << ".";
    std::vector<Expr> values_in;
    for (const Expr &v : values_given)
        values_in.push_back(share_if_blown_up(v));  // as in define()
    Expr stored = take_store_condition(c.name, "the update", values_in);
    check_values(c.name, values_in, "the update");
    user_assert(values_in.size() == c.output_types.size())
        << "Func \"" << c.name << "\" has " << c.output_types.size()
        << " values per point, but the update gives " << values_in.size() << ".";
    for (size_t i = 0; i < values_in.size(); i++) {
        user_assert(values_in[i].type() == c.output_types[i])
            << "Func \"" << c.name << "\": the update's value " << values_in[i] << " has type "
            << values_in[i].type() << ", but the pure definition has type " << c.output_types[i]
            << ". Cast it, e.g. cast<" << c.output_types[i] << ">(...).";
    }

    // Each pure Var on the left appears alone, at its own position; a computed coordinate may
    // use those too (as in `hist(x, y, bin(x, y, r), c) += ...`: the iterations of different x
    // and y still write different points).
    std::vector<std::string> pure_vars_used;
    for (size_t i = 0; i < args.size(); i++) {
        user_assert(args[i].defined() && args[i].type() == Int(32))
            << "Func \"" << c.name << "\": argument " << i << " of the update is "
            << (args[i].defined() ? args[i].type().to_string() : std::string("undefined"))
            << "; coordinates must be int32.";
        if (const auto *v = args[i].as<Variable>(); v && v->name == c.args[i])
            pure_vars_used.push_back(v->name);
    }
    auto in = [](const std::vector<std::string> &names, const std::string &name) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    for (size_t i = 0; i < args.size(); i++) {
        if (const auto *v = args[i].as<Variable>(); v && v->name == c.args[i]) continue;
        CollectVariables in_arg;
        in_arg.include(args[i]);
        for (const std::string &name : in_arg.free_vars) {
            const bool is_pure = in(c.args, name);
            if (is_pure && in(pure_vars_used, name)) continue;
            user_assert(!is_pure) << "Func \"" << c.name << "\": the update's argument " << i
                                  << " is " << args[i] << ", which uses the pure Var " << name
                                  << ", but " << name << " is not also alone at its own position "
                                  << "(as in the pure definition " << c.name << "(" << join(c.args)
                                  << ")). Put " << name << " at its own position, or iterate "
                                  << "over those values with an RDom.";
            user_error << "Func \"" << c.name << "\": the update's argument " << i
                       << " uses the Var " << name << ", which is not an argument of " << c.name
                       << ". Use an RDom to iterate over values that are not coordinates of "
                       << c.name << ".";
        }
    }

    CollectVariables vars;
    for (const Expr &a : args)
        vars.include(a);
    for (const Expr &v : values_in)
        vars.include(v);
    user_assert(vars.rdoms.size() <= 1)
        << "Func \"" << c.name << "\": an update may iterate over one RDom only, but this one uses "
        << vars.rdoms.size() << " (with the RVars " << join(vars.rvars)
        << "). Make one multi-dimensional RDom instead.";
    for (const std::string &v : vars.free_vars) {
        bool on_left = false;
        for (const std::string &p : pure_vars_used)
            on_left |= p == v;
        user_assert(on_left) << "Func \"" << c.name << "\": the update uses the Var " << v
                             << " on the right but not on the left. Every pure Var of an update "
                                "must appear on its left, at its own position.";
    }

    Definition d;
    if (rdom.defined()) {
        internal_assert(vars.rdoms.empty() || vars.rdoms[0].same_as(rdom))
            << "update of " << c.name << " given another domain than its RVars'";
        vars.rdoms = {rdom};
    }
    if (!vars.rdoms.empty()) {
        d.rdom = vars.rdoms[0].strengthened();
        user_assert(d.rdom.defined())
            << "Func \"" << c.name << "\": the update iterates over an RDom that no longer exists.";
        d.rdom.freeze();
        for (const ReductionVariable &rv : d.rdom.domain())
            d.schedule.dims.push_back({rv.var, ForType::Serial, DeviceAPI::None, true});
    }
    // Strong references only; the caller weakens those that close a cycle once `d` is stored.
    const std::string what = "the update of Func \"" + c.name + "\"";
    for (const Expr &a : args)
        d.args.push_back(with_strong_references(a, what));
    // A random variable differs at each point written and each iteration of the RDom.
    std::vector<Expr> coordinates = args;
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain())
            coordinates.push_back(Variable::make(Int(32), rv.var, {}, d.rdom));
    }
    for (const Expr &v : values_in)
        d.values.push_back(with_strong_references(lower_random(v, coordinates), what));
    d.predicate = d.rdom.defined() ? d.rdom.predicate() : make_bool(true);
    if (!is_const_true(stored))
        d.predicate =
            d.predicate && with_strong_references(lower_random(stored, coordinates), what);
    for (const std::string &p : pure_vars_used)
        d.schedule.dims.push_back({p});
    return d;
}

namespace {

bool same_definition(const Definition &a, const Definition &b) {
    auto same = [](const std::vector<Expr> &x, const std::vector<Expr> &y) {
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); i++) {
            if (!ir::equal(x[i], y[i])) return false;
        }
        return true;
    };
    return same(a.args, b.args) && same(a.values, b.values) && ir::equal(a.predicate, b.predicate);
}

/// Whether two Funcs compute the same values (two copies of one Func: either can stand for the
/// other).
bool same_values(const FunctionContents &a, const FunctionContents &b) {
    if (a.args != b.args || a.extern_function != b.extern_function ||
        a.updates.size() != b.updates.size() || !same_definition(a.init, b.init)) {
        return false;
    }
    for (size_t i = 0; i < a.updates.size(); i++) {
        if (!same_definition(a.updates[i], b.updates[i])) return false;
    }
    return true;
}

class FindCalls : public IRVisitor {
  public:
    std::map<std::string, Function> *found;
    std::vector<Function> pending;
    /// The Func whose definitions are being visited.
    std::string caller;
    /// The Func first met under each name, and the Func that called it ("" for an output).
    std::map<std::string, std::pair<const FunctionContents *, std::string>> seen;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type != Call::CallType::Func) return;
        auto f = op->func.lock();
        user_assert(f) << "Func \"" << caller << "\" calls the Func \"" << op->name
                       << "\", which no longer exists. \"" << op->name << "\" depends on \""
                       << caller << "\" (the two form a cycle), so the call does not keep \""
                       << op->name << "\" alive; keep a handle to \"" << op->name << "\" while \""
                       << caller << "\" is used.";
        auto [it, first] = seen.insert({f->name, {f.get(), caller}});
        // Lowering tells Funcs apart by name: a second Func of the same name would be taken
        // for the first (silently computing one in place of the other), which only copies of
        // one definition may be.
        const std::string &other = it->second.second;
        user_assert(first || it->second.first == f.get() || same_values(*it->second.first, *f))
            << (other.empty() ? "Func \"" + caller + "\" calls a Func named \"" + f->name +
                                    "\", but the pipeline's output \"" + f->name +
                                    "\" is another Func of that name"
                : other == caller
                    ? "Func \"" + caller + "\" calls two different Funcs named \"" + f->name + "\""
                    : "Funcs \"" + other + "\" and \"" + caller +
                          "\" call two different Funcs named \"" + f->name + "\"")
            << ". Funcs of one pipeline need distinct names: give one of the two another name.";
        if (!found->count(f->name)) {
            (*found)[f->name] = Function(f);
            pending.push_back(Function(f));
        }
    }
};
}  // namespace

Definition &Function::specialization(int id) const {
    const std::vector<int> &path = contents_->specialization_paths.at(-id - 1);
    Definition *d = &stage(path[0]);
    for (size_t k = 1; k < path.size(); k++)
        d = &d->specializations.at(path[k]).definition;
    return *d;
}

const Expr &Function::specialization_condition(int id) const {
    const std::vector<int> &path = contents_->specialization_paths.at(-id - 1);
    const Specialization *s = nullptr;
    const Definition *d = &stage(path[0]);
    for (size_t k = 1; k < path.size(); k++) {
        s = &d->specializations.at(path[k]);
        d = &s->definition;
    }
    internal_assert(s) << "stage id " << id << " is not a specialization";
    return s->condition;
}

std::optional<int> Function::existing_specialization(int id, const Expr &condition) const {
    const Definition &d = stage(id);
    for (size_t k = 0; k < d.specializations.size(); k++) {
        if (!equal(d.specializations[k].condition, condition)) continue;
        std::vector<int> path =
            id < 0 ? contents_->specialization_paths[-id - 1] : std::vector<int>{id};
        path.push_back(static_cast<int>(k));
        auto &paths = contents_->specialization_paths;
        auto found = std::find(paths.begin(), paths.end(), path);
        if (found == paths.end()) found = paths.insert(paths.end(), path);
        return -static_cast<int>(found - paths.begin()) - 1;
    }
    return std::nullopt;
}

int Function::add_specialization(int id, const Expr &condition) {
    if (std::optional<int> existing = existing_specialization(id, condition)) return *existing;
    Definition &d = stage(id);
    Definition copy = d;
    copy.specializations.clear();
    copy.specialize_fail.clear();
    d.specializations.push_back({condition, copy});
    std::vector<int> path =
        id < 0 ? contents_->specialization_paths[-id - 1] : std::vector<int>{id};
    path.push_back(static_cast<int>(d.specializations.size()) - 1);
    contents_->specialization_paths.push_back(path);
    touch();
    return -static_cast<int>(contents_->specialization_paths.size());
}

namespace {

/// Walks the conditions of a definition's specializations, nested ones included.
/// The expressions of a stage's schedule: split factors and prefetch offsets may read Params.
void visit_schedule(const schedule::StageSchedule &s, IRVisitor &visitor) {
    for (const schedule::Split &split : s.splits)
        visitor.include(split.factor);
    for (const schedule::Prefetch &p : s.prefetches)
        visitor.include(p.offset);
}

void visit_specializations(const Definition &d, IRVisitor &visitor) {
    for (const Specialization &s : d.specializations) {
        visitor.include(s.condition);
        visit_schedule(s.definition.schedule, visitor);
        visit_specializations(s.definition, visitor);
    }
}

}  // namespace

namespace {

class RedirectCalls : public IRMutator {
  public:
    using FuncTarget = std::function<FunctionPtr(const FunctionContents &)>;
    using ImageTarget = std::function<FunctionPtr(const ir::ParameterContents &)>;
    explicit RedirectCalls(const FuncTarget &target) : target_(&target) {}
    explicit RedirectCalls(const ImageTarget &target) : image_target_(&target) {}
    bool changed = false;

    void definition(Definition &d) {
        for (Expr &e : d.args)
            e = mutate(e);
        for (Expr &e : d.values)
            e = mutate(e);
        d.predicate = mutate(d.predicate);
        for (Specialization &s : d.specializations)
            definition(s.definition);
    }

  protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const auto *c = e.as<Call>();
        FunctionPtr to;
        if (c->call_type == Call::CallType::Func && target_) {
            std::shared_ptr<FunctionContents> callee = c->func.lock();
            if (callee) to = (*target_)(*callee);
        } else if (c->call_type == Call::CallType::Image && image_target_ && c->param.defined()) {
            to = (*image_target_)(*c->param.shared());
        }
        if (!to.defined()) return e;
        changed = true;
        return Call::make(c->type, to.lock()->name, c->args, Call::CallType::Func, c->value_index,
                          to);
    }

  private:
    const FuncTarget *target_ = nullptr;
    const ImageTarget *image_target_ = nullptr;
};

}  // namespace

std::set<std::string> output_buffer_fields(const Function &f) {
    std::set<std::string> fields;
    for (int i = 0; i < f.outputs(); i++) {
        std::string buffer = names::func_buffer(f.name(), i, f.outputs());
        for (int d = 0; d < f.dimensions(); d++) {
            for (BufferField field : kBufferFields)
                fields.insert(field_variable(buffer, d, field));
        }
    }
    return fields;
}

bool redirect_calls(FunctionContents &f,
                    const std::function<FunctionPtr(const FunctionContents &callee)> &target) {
    RedirectCalls r(target);
    r.definition(f.init);
    for (Definition &d : f.updates)
        r.definition(d);
    return r.changed;
}

bool redirect_image_calls(FunctionContents &f,
                          const std::function<FunctionPtr(const ir::ParameterContents &)> &target) {
    RedirectCalls r(target);
    r.definition(f.init);
    for (Definition &d : f.updates)
        r.definition(d);
    return r.changed;
}

void visit_definition(const Definition &d, IRVisitor &visitor) {
    for (const Expr &e : d.args)
        visitor.include(e);
    for (const Expr &e : d.values)
        visitor.include(e);
    visitor.include(d.predicate);
    visit_schedule(d.schedule, visitor);
    visit_specializations(d, visitor);
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain()) {
            visitor.include(rv.min);
            visitor.include(rv.extent);
        }
    }
}

void visit_definitions(const Function &f, IRVisitor &visitor) {
    for (int s = 0; s < f.stages(); s++)
        visit_definition(f.stage(s), visitor);
    // Func::bound and bound_extent may read Params too.
    for (const schedule::Bound &b : f.schedule().bounds) {
        visitor.include(b.min);
        visitor.include(b.extent);
    }
}

std::map<std::string, Function> find_transitive_calls(
    const std::vector<Function> &outputs, const std::function<Function(const Function &)> &use) {
    std::map<std::string, Function> found;
    FindCalls finder;
    finder.found = &found;
    for (const Function &f : outputs) {
        auto [it, first] = finder.seen.insert({f.name(), {&f.contents(), ""}});
        user_assert(first || it->second.first == &f.contents())
            << "Two outputs of one pipeline are different Funcs both named \"" << f.name()
            << "\". Funcs of one pipeline need distinct names: give one of the two another name.";
        if (!found.count(f.name())) {
            found[f.name()] = f;
            finder.pending.push_back(f);
        }
    }
    while (!finder.pending.empty()) {
        Function f = finder.pending.back();
        finder.pending.pop_back();
        if (use) {
            f = use(f);
            found[f.name()] = f;
        }
        finder.caller = f.name();
        visit_definitions(f, finder);
    }
    return found;
}

}  // namespace dsl::lang
