#include "lowering/ExternStages.h"

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;

namespace {

/// The region of `f`'s storage: its buffer's for an output, its realization's otherwise.
void storage_region(const Environment &env, const Function &f, std::vector<Expr> &mins,
                    std::vector<Expr> &extents) {
    for (int d = 0; d < f.dimensions(); d++) {
        const std::string &var = f.args()[d];
        if (env.is_output(f.name())) {
            std::string b = names::func_buffer(f.name(), 0, f.outputs());
            mins.push_back(Variable::make(Int(32), names::buffer_min(b, d)));
            extents.push_back(Variable::make(Int(32), names::buffer_extent(b, d)));
        } else {
            mins.push_back(Variable::make(Int(32), names::realized_min(f.name(), var)));
            extents.push_back(Variable::make(Int(32), names::realized_extent(f.name(), var)));
        }
    }
}

/// The ExternStage call that is extern stage `f`'s value.
const Call *extern_stage_value(const Function &f) {
    const auto *stage = f.init().values[0].as<Call>();
    internal_assert(stage && stage->is_intrinsic(Call::Intrinsic::ExternStage))
        << "extern stage " << f.name() << " without its call";
    return stage;
}

/// Its arguments (ExternArg calls), in order.
std::vector<const Call *> extern_stage_args(const Function &f) {
    const Call *stage = extern_stage_value(f);
    std::vector<const Call *> args;
    for (size_t i = 1; i < stage->args.size(); i++) {
        const auto *arg = stage->args[i].as<Call>();
        internal_assert(arg && arg->is_intrinsic(Call::Intrinsic::ExternArg))
            << "extern stage " << f.name() << ": argument " << i;
        args.push_back(arg);
    }
    return args;
}

}  // namespace

void computed_region(const Function &f, std::vector<Expr> *mins, std::vector<Expr> *extents) {
    for (const std::string &var : f.args()) {
        std::string loop = names::stage_var(f.name(), 0, var);
        Expr min = Variable::make(Int(32), names::min_of(loop));
        mins->push_back(min);
        extents->push_back(Variable::make(Int(32), names::max_of(loop)) - min + 1);
    }
}

Expr func_descriptor(const Function &f, int index, const std::vector<Expr> &mins,
                     const std::vector<Expr> &extents, const FunctionPtr &func) {
    Type t = f.output_types()[index];
    Expr element = Call::make(t, f.name(), mins, Call::CallType::Func, index, func);
    std::vector<Expr> args = {Call::make(Handle(), Call::Intrinsic::AddressOf, {element}),
                              make_zero(t)};
    for (size_t d = 0; d < mins.size(); d++) {
        args.push_back(mins[d]);
        args.push_back(extents[d]);
        args.push_back(make_zero(Int(32)));
    }
    return Call::make(Handle(), Call::Intrinsic::MakeDescriptor, args);
}

Box queried_region(const Function &f, const Box &needed) {
    const Call *query = nullptr;
    for (const Call *arg : extern_stage_args(f)) {
        if (is_const(arg->args[0], 3)) query = arg->args[1].as<Call>();
    }
    internal_assert(query && query->is_intrinsic(Call::Intrinsic::ExternBoundsQuery))
        << "extern stage " << f.name() << " without the query of its outputs";
    // The query's descriptors describe the stage's own region by its lets: asked for `needed`.
    std::map<std::string, Expr> region;
    for (int d = 0; d < f.dimensions(); d++) {
        std::string loop = names::stage_var(f.name(), 0, f.args()[d]);
        region[names::min_of(loop)] = needed[d].min;
        region[names::max_of(loop)] = needed[d].max;
    }
    Box answer;
    for (int d = 0; d < f.dimensions(); d++) {
        Interval i;
        for (int want_max = 0; want_max < 2; want_max++) {
            std::vector<Expr> args = query->args;
            args[3] = d;
            args[4] = want_max;
            for (size_t k = 5; k < args.size(); k++)
                args[k] = substitute(region, args[k]);
            Expr bound = Call::make(Int(32), Call::Intrinsic::ExternBoundsQuery, args);
            (want_max ? i.max : i.min) = bound;
        }
        answer.push_back(i);
    }
    return answer;
}

Stmt extern_region_check(const Function &f, const std::string &var, const Expr &inner_min,
                         const Expr &inner_max, const Expr &outer_min, const Expr &outer_max,
                         const char *error) {
    Expr report =
        Call::make(Int(32), error,
                   {StringImm::make(f.name()), StringImm::make(f.contents().extern_function),
                    StringImm::make(var), inner_min, inner_max, outer_min, outer_max},
                   Call::CallType::Extern);
    return AssertStmt::make(outer_min <= inner_min && inner_max <= outer_max, report);
}

std::map<std::string, std::string> extern_stage_inputs(
    const std::map<std::string, Function> &funcs) {
    std::map<std::string, std::string> inputs;
    for (const auto &[name, f] : funcs) {
        if (!f.is_extern()) continue;
        for (const Call *arg : extern_stage_args(f)) {
            const auto *input = arg->args[1].as<Call>();
            if (is_const(arg->args[0], 1) && input && input->call_type == Call::CallType::Func)
                inputs[input->name] = name;
        }
    }
    return inputs;
}

Stmt extern_stage_call(const Environment &env, const Function &f) {
    const Call *stage = extern_stage_value(f);
    const std::string function = stage->args[0].as<StringImm>()->value;
    std::vector<Expr> args;
    for (const Call *arg : extern_stage_args(f)) {
        const int64_t kind = *as_const_int(arg->args[0]);
        if (kind == 0) {
            args.push_back(arg->args[1]);
        } else if (kind == 1) {
            const auto *call = arg->args[1].as<Call>();
            internal_assert(call && call->call_type == Call::CallType::Func)
                << "extern stage " << f.name() << ": a Func argument that is not a call";
            const Function &input = env.func(call->name);
            std::vector<Expr> mins, extents;
            storage_region(env, input, mins, extents);
            for (int k = 0; k < input.outputs(); k++)
                args.push_back(func_descriptor(input, k, mins, extents, call->func));
        } else if (kind == 2) {
            const auto *call = arg->args[1].as<Call>();
            internal_assert(call && call->call_type == Call::CallType::Image)
                << "extern stage " << f.name() << ": an input argument that is not a call";
            args.push_back(Variable::make(Handle(), names::buffer_struct(call->name)));
        }
    }
    std::vector<Expr> mins, extents;
    computed_region(f, &mins, &extents);
    for (int k = 0; k < f.outputs(); k++)
        args.push_back(func_descriptor(f, k, mins, extents, stage->func));
    // The status, checked like every runtime condition.
    std::string status_name = f.name() + ".extern_status";
    Expr status = Variable::make(Int(32), status_name);
    Expr report =
        Call::make(Int(32), "dsl_runtime_error_extern_stage_failed",
                   {StringImm::make(f.name()), StringImm::make(function), status, Expr(0)},
                   Call::CallType::Extern);
    Stmt check = AssertStmt::make(status == 0, report);
    return LetStmt::make(status_name, Call::make(Int(32), function, args, Call::CallType::Extern),
                         check);
}

}  // namespace dsl::lowering
