#pragma once
/// The data behind a `Func`: its name, pure arguments, definitions and schedule. Lowering reads
/// it; the public `Func` builds and checks it.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dsl/JIT.h"
#include "dsl/Target.h"
#include "ir/BufferConstraints.h"
#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "schedule/Schedule.h"

namespace dsl::lang {

struct Specialization;

/// One definition of a Func: the pure definition or an update.
struct Definition {
    /// The left side: pure Vars for the pure definition, any int32 Exprs for an update.
    std::vector<Expr> args;
    /// One value per Tuple element.
    std::vector<Expr> values;
    /// Where the definition applies (an RDom's `where` conditions); const true otherwise.
    Expr predicate;
    /// The reduction domain the update iterates over, if any.
    ir::ReductionDomain rdom;
    schedule::StageSchedule schedule;
    /// Other schedules of the same definition, each used when its condition holds (the first
    /// that holds wins; this schedule otherwise).
    std::vector<Specialization> specializations;
    /// Stage::specialize_fail(message): when none of the specializations holds, the pipeline
    /// stops with this message instead of running this schedule's loops. Empty: no failure.
    std::string specialize_fail;
};

/// `f.specialize(condition)`: a copy of a definition whose schedule applies when `condition`
/// (an expression of Params) is true. Only its schedule (and nested specializations) matter;
/// lowering takes the values from the definition it specializes.
struct Specialization {
    Expr condition;
    Definition definition;
};

struct FunctionContents {
    std::string name;
    /// Func::jit_handlers: the runtime's replacements when realize() runs this Func.
    JITHandlers jit_handlers;
    /// Pipeline::set_jit_externs: functions bound by name when realize() compiles this Func.
    std::map<std::string, JITExtern> jit_externs;
    /// The target of the last compile_jit(): what realize() without a target compiles for.
    std::optional<Target> jit_target;
    /// Names of the pure arguments, dimension 0 first.
    std::vector<std::string> args;
    std::vector<Type> output_types;
    bool has_pure_definition = false;
    /// An extern stage's C function (Func::define_extern; its arguments are in the ExternStage
    /// value of the pure definition); empty for other Funcs.
    std::string extern_function;
    Definition init;
    std::vector<Definition> updates;
    schedule::FuncSchedule schedule;
    /// The specializations directives can name: stage id -(k + 1) is the specialization at
    /// path k: the stage, then the index of the specialization at each level.
    std::vector<std::vector<int>> specialization_paths;
    /// Bumped by every change to a definition or schedule (for compile caches).
    uint64_t version = 0;
    /// How many Funcs rfactor has made from this one's updates (they are named after it).
    int rfactor_intermediates = 0;
    /// The updates rfactor replaced, by index, as they were before the first rfactor: an
    /// rfactor is a schedule, and resetting a Func's schedule (autoschedule::reset_schedules)
    /// puts them back.
    std::map<int, Definition> updates_before_rfactor;
    /// Func::trace_loads(), trace_stores(), trace_realizations(): print a line per event.
    bool trace_loads = false, trace_stores = false, trace_realizations = false;
    /// Func::add_trace_tag(): texts traced as tag events at the start of the pipeline.
    std::vector<std::string> trace_tags;
    /// Func::memoize(): realizations kept in the runtime's cache (lowering/Memoization.cpp),
    /// tagged with `eviction_key` where it is defined.
    bool memoized = false;
    Expr eviction_key;
    /// Func::in(): the wrappers that replace calls to this Func, by the name of the Func whose
    /// calls they replace ("" for the wrapper of every other call).
    std::map<std::string, std::shared_ptr<FunctionContents>> wrappers;
    /// Func::clone_in(): the copies that replace calls to this Func, by the name of the Func
    /// whose calls they replace.
    std::map<std::string, std::shared_ptr<FunctionContents>> clones;
    /// The constraints on the output buffers (output_buffer().dim(d).set_min(...), ...), one
    /// per output value once asked for.
    std::vector<std::shared_ptr<ir::BufferConstraints>> output_constraints;
};

/// A handle to a FunctionContents with the operations that keep it valid.
class Function {
  public:
    Function() = default;
    explicit Function(std::shared_ptr<FunctionContents> c) : contents_(std::move(c)) {}
    static Function make(const std::string &name);

    bool defined() const { return contents_ != nullptr; }
    FunctionContents &contents() const { return *contents_; }
    const std::shared_ptr<FunctionContents> &shared() const { return contents_; }
    const std::string &name() const { return contents_->name; }
    const std::vector<std::string> &args() const { return contents_->args; }
    int dimensions() const { return static_cast<int>(contents_->args.size()); }
    int outputs() const { return static_cast<int>(contents_->output_types.size()); }
    const std::vector<Type> &output_types() const { return contents_->output_types; }
    bool has_pure_definition() const { return contents_->has_pure_definition; }
    bool has_update_definition() const { return !contents_->updates.empty(); }
    const Definition &init() const { return contents_->init; }
    const std::vector<Definition> &updates() const { return contents_->updates; }
    /// Stage 0 is the pure definition, stage i the update i - 1; a negative id names a
    /// specialization (see FunctionContents::specialization_paths).
    Definition &stage(int i) const {
        if (i < 0) return specialization(i);
        return i == 0 ? contents_->init : contents_->updates[i - 1];
    }
    /// The stage a stage id belongs to (itself for a stage, the specialized one otherwise).
    int stage_of(int id) const { return id < 0 ? contents_->specialization_paths[-id - 1][0] : id; }
    /// The stage id of the specialization of stage id `id` for `condition`, if it has one.
    std::optional<int> existing_specialization(int id, const Expr &condition) const;
    /// Adds a specialization of stage id `id` for `condition` (a copy of its definition, without
    /// specializations of its own) and returns its stage id; asked again for a condition it
    /// has, the existing specialization's.
    int add_specialization(int id, const Expr &condition);
    /// The condition of the specialization with stage id `id` (negative).
    const Expr &specialization_condition(int id) const;
    int stages() const { return 1 + static_cast<int>(contents_->updates.size()); }
    schedule::FuncSchedule &schedule() const { return contents_->schedule; }
    bool same_as(const Function &o) const { return contents_ == o.contents_; }

    /// Gives the Func its pure definition `f(args) = values`; checks it (CompileError).
    void define(const std::vector<std::string> &args, const std::vector<Expr> &values);
    /// Adds the update `f(args) = values`; checks it (CompileError). It iterates over the
    /// reduction domain its RVars belong to, or over `rdom` when given (which then holds every
    /// RVar it uses, and may hold more).
    void define_update(const std::vector<Expr> &args, const std::vector<Expr> &values,
                       const ir::ReductionDomain &rdom = {});
    /// Replaces update `index` by `f(args) = values`; checks it like `define_update`. Its
    /// schedule starts afresh.
    void replace_update(int index, const std::vector<Expr> &args, const std::vector<Expr> &values,
                        const ir::ReductionDomain &rdom = {});
    /// Makes the Func an extern stage of `function` over the pure Vars `args`, whose value
    /// per output type is `values` (ExternStage calls); computed at root by default.
    void define_extern(const std::string &function, const std::vector<std::string> &args,
                       const std::vector<Expr> &values);
    bool is_extern() const { return !contents_->extern_function.empty(); }
    /// Marks a change of definition or schedule (see pipeline_epoch()).
    void touch() const;

  private:
    /// Sets the pure definition `f(args) = values` (values ready: references strong).
    void set_pure_definition(const std::vector<std::string> &args, const std::vector<Expr> &values);
    Definition checked_update(const std::vector<Expr> &args, const std::vector<Expr> &values,
                              const ir::ReductionDomain &rdom) const;
    Definition &specialization(int id) const;
    std::shared_ptr<FunctionContents> contents_;
};

/// A counter bumped by every change to any Func's definition or schedule and to any Param's
/// range: while it stays the same, lowering any pipeline gives the same result, so realize()
/// reuses the code it compiled without lowering again.
uint64_t pipeline_epoch();
void bump_pipeline_epoch();

/// The names of the variables that stand for the bounds of `f`'s output buffers (min,
/// extent and stride of each dimension of each value's buffer), as output_buffer() makes them.
std::set<std::string> output_buffer_fields(const Function &f);

/// Redirects the calls to Funcs in every definition of `f` (left sides, values, predicates,
/// specializations; not RDom bounds): a call of Func `callee` becomes a call of
/// `target(callee)` when that is defined (the same value index and arguments). Returns whether
/// any call changed. Func::in / clone_in and their lowering use it.
bool redirect_calls(FunctionContents &f,
                    const std::function<ir::FunctionPtr(const FunctionContents &callee)> &target);

/// The same for the calls of input buffers (ImageParams): a call of the parameter `param`
/// becomes a call of the Func `target(param)` when that is defined.
bool redirect_image_calls(
    FunctionContents &f,
    const std::function<ir::FunctionPtr(const ir::ParameterContents &param)> &target);

/// Walks every expression of every definition of `f` with `visitor`: left sides, values,
/// predicates, specializations' conditions and RDom bounds.
void visit_definitions(const Function &f, ir::IRVisitor &visitor);
/// The same for one definition (one stage).
void visit_definition(const Definition &d, ir::IRVisitor &visitor);

/// Every Func reachable from `outputs` through calls, by name. With `use`, each Func found is
/// replaced by use(Func) before its calls are followed (lowering's copies with the calls to
/// wrappers redirected).
std::map<std::string, Function> find_transitive_calls(
    const std::vector<Function> &outputs,
    const std::function<Function(const Function &)> &use = nullptr);

}  // namespace dsl::lang
