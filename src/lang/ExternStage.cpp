// Func::define_extern: a stage computed by a C function over buffers. The Func's value is an
// ExternStage call that holds the function's arguments (ir/IR.h), so that the passes that
// follow calls (realization order, bounds inference, input discovery, wrappers) see what it
// reads; lowering (ScheduleFunctions) turns its stage into the call.

#include "dsl/Extern.h"
#include "dsl/Func.h"
#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "lang/Function.h"

namespace dsl {

using namespace ir;

namespace {

/// A dsl_buffer_t without memory for a bounds query: `min` and `extent` per dimension.
Expr query_descriptor(Type t, const std::vector<Expr> &mins, const std::vector<Expr> &extents) {
    std::vector<Expr> args = {make_zero(UInt(64)), make_zero(t)};  // no host memory
    for (size_t d = 0; d < mins.size(); d++) {
        args.push_back(mins[d]);
        args.push_back(extents[d]);
        args.push_back(make_zero(Int(32)));
    }
    return Call::make(Handle(), Call::Intrinsic::MakeDescriptor, args);
}

}  // namespace

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params,
                         const std::vector<Type> &types, const std::vector<Var> &arguments,
                         NameMangling mangling, DeviceAPI device_api) {
    const std::string &me = name();
    user_assert(mangling != NameMangling::CPlusPlus)
        << "Func \"" << me << "\": the extern stage \"" << function_name
        << "\" is asked for C++ name mangling, which dsl does not do. Declare the function "
        << "extern \"C\" and use NameMangling::Default.";
    user_assert(device_api == DeviceAPI::Host || device_api == DeviceAPI::None)
        << "Func \"" << me << "\": the extern stage \"" << function_name << "\" is asked to run on "
        << ir::to_string(device_api) << "; extern stages run on the host. Use DeviceAPI::Host.";
    user_assert(!types.empty()) << "Func \"" << me << "\": the extern stage \"" << function_name
                                << "\" needs at least one output type.";
    std::vector<std::string> vars;
    for (const Var &v : arguments)
        vars.push_back(v.name());
    const int dims = static_cast<int>(vars.size());

    // The region the pipeline needs of the stage: the bounds of its (only) stage.
    std::vector<Expr> out_mins, out_extents;
    for (const std::string &v : vars) {
        std::string loop = names::stage_var(me, 0, v);
        Expr min = Variable::make(Int(32), names::min_of(loop));
        Expr max = Variable::make(Int(32), names::max_of(loop));
        out_mins.push_back(min);
        out_extents.push_back(max - min + 1);
    }

    // The arguments of the bounds query, in the function's order: a scalar or a descriptor
    // per argument (one per value of a Tuple Func), then the outputs'. `position[i]` is where
    // the (first) descriptor of buffer argument i is.
    std::vector<Expr> query;
    std::vector<int> position(params.size(), -1);
    for (size_t i = 0; i < params.size(); i++) {
        const ExternFuncArgument &p = params[i];
        switch (p.kind) {
            case ExternFuncArgument::Kind::Expr:
                user_assert(p.expr.defined())
                    << "Func \"" << me << "\": argument " << i + 1 << " of the extern stage \""
                    << function_name << "\" is an undefined Expr.";
                query.push_back(p.expr);
                break;
            case ExternFuncArgument::Kind::Func: {
                lang::Function input(p.func.contents());
                user_assert(input.has_pure_definition())
                    << "Func \"" << me << "\": argument " << i + 1 << " of the extern stage \""
                    << function_name << "\" is the Func \"" << input.name()
                    << "\", which has no definition yet. Define it first.";
                position[i] = static_cast<int>(query.size());
                std::vector<Expr> mins, extents;
                for (int d = 0; d < input.dimensions(); d++) {
                    // Left unanswered, the query asks for the output's region.
                    mins.push_back(d < dims ? out_mins[d] : make_zero(Int(32)));
                    extents.push_back(d < dims ? out_extents[d] : make_zero(Int(32)));
                }
                for (Type t : input.output_types())
                    query.push_back(query_descriptor(t, mins, extents));
                break;
            }
            case ExternFuncArgument::Kind::Buffer:
            case ExternFuncArgument::Kind::ImageParam: {
                const bool is_buffer = p.kind == ExternFuncArgument::Kind::Buffer;
                user_assert(!is_buffer || p.buffer.defined())
                    << "Func \"" << me << "\": argument " << i + 1 << " of the extern stage \""
                    << function_name << "\" is an undefined Buffer.";
                Type t = is_buffer ? p.buffer.type() : p.image_param->type();
                const int n = is_buffer ? p.buffer.dimensions() : p.image_param->dimensions();
                std::vector<Expr> mins, extents;
                for (int d = 0; d < n; d++) {
                    if (is_buffer) {
                        mins.push_back(p.buffer.dim(d).min());
                        extents.push_back(p.buffer.dim(d).extent());
                    } else {
                        mins.push_back(p.image_param->min(d));
                        extents.push_back(p.image_param->extent(d));
                    }
                }
                position[i] = static_cast<int>(query.size());
                query.push_back(query_descriptor(t, mins, extents));
                break;
            }
        }
    }
    for (Type t : types)
        query.push_back(query_descriptor(t, out_mins, out_extents));

    // The stage's arguments, tagged (ExternArg).
    auto tagged = [](int kind, const std::vector<Expr> &payload) {
        std::vector<Expr> args;
        args.reserve(payload.size() + 1);
        args.push_back(Expr(kind));
        for (const Expr &e : payload)
            args.push_back(e);
        return Call::make(Int(32), Call::Intrinsic::ExternArg, args);
    };
    // The corners of the region the function asks of the buffer argument at query position
    // `at_position`.
    auto corner = [&](int at_position, int dims_of_input, bool want_max) {
        std::vector<Expr> at;
        for (int d = 0; d < dims_of_input; d++) {
            std::vector<Expr> args = {StringImm::make(function_name), StringImm::make(me),
                                      Expr(at_position), Expr(d), Expr(want_max ? 1 : 0)};
            args.insert(args.end(), query.begin(), query.end());
            at.push_back(Call::make(Int(32), Call::Intrinsic::ExternBoundsQuery, args));
        }
        return at;
    };
    std::vector<Expr> stage_args = {StringImm::make(function_name)};
    for (size_t i = 0; i < params.size(); i++) {
        const ExternFuncArgument &p = params[i];
        if (p.kind == ExternFuncArgument::Kind::Expr) {
            stage_args.push_back(tagged(0, {p.expr}));
        } else if (p.kind == ExternFuncArgument::Kind::Func) {
            lang::Function input(p.func.contents());
            std::vector<Expr> lo = corner(position[i], input.dimensions(), false);
            std::vector<Expr> hi = corner(position[i], input.dimensions(), true);
            Func f = p.func;
            Expr low = input.outputs() == 1 ? Expr(f(lo)) : Expr(f(lo)[0]);
            Expr high = input.outputs() == 1 ? Expr(f(hi)) : Expr(f(hi)[0]);
            stage_args.push_back(tagged(1, {low, high}));
        } else {
            // What it asks of the input (left alone, the whole input) is what the pipeline
            // checks the input covers, and what infer_input_bounds reports.
            const bool is_buffer = p.kind == ExternFuncArgument::Kind::Buffer;
            const int n = is_buffer ? p.buffer.dimensions() : p.image_param->dimensions();
            std::vector<Expr> lo = corner(position[i], n, false), hi = corner(position[i], n, true);
            if (is_buffer) {
                stage_args.push_back(tagged(2, {p.buffer(lo), p.buffer(hi)}));
            } else {
                stage_args.push_back(tagged(2, {(*p.image_param)(lo), (*p.image_param)(hi)}));
            }
        }
    }
    // The query of the outputs' region: the function may widen it (Halide's protocol), and the
    // stage then computes and stores the wider region. Lowering sets its dimension and bound.
    {
        std::vector<Expr> args = {StringImm::make(function_name), StringImm::make(me),
                                  Expr(static_cast<int>(query.size() - types.size())), Expr(0),
                                  Expr(0)};
        args.insert(args.end(), query.begin(), query.end());
        stage_args.push_back(
            tagged(3, {Call::make(Int(32), Call::Intrinsic::ExternBoundsQuery, args)}));
    }
    std::vector<Expr> values;
    for (Type t : types)
        values.push_back(Call::make(t, Call::Intrinsic::ExternStage, stage_args));
    lang::Function(contents_).define_extern(function_name, vars, values);
}

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params, Type type,
                         int dimensionality, NameMangling mangling, DeviceAPI device_api) {
    define_extern(function_name, params, std::vector<Type>{type}, dimensionality, mangling,
                  device_api);
}

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params,
                         const std::vector<Type> &types, int dimensionality, NameMangling mangling,
                         DeviceAPI device_api) {
    user_assert(dimensionality >= 0) << "Func \"" << name() << "\": an extern stage cannot have "
                                     << dimensionality << " dimensions.";
    std::vector<Var> vars;
    for (int d = 0; d < dimensionality; d++)
        vars.push_back(Var("_" + std::to_string(d)));
    define_extern(function_name, params, types, vars, mangling, device_api);
}

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params, Type type,
                         const std::vector<Var> &arguments, NameMangling mangling,
                         DeviceAPI device_api) {
    define_extern(function_name, params, std::vector<Type>{type}, arguments, mangling, device_api);
}

bool Func::is_extern() const {
    return !contents_->extern_function.empty();
}

std::string Func::extern_function_name() const {
    return contents_->extern_function;
}

Expr user_context_value() {
    return ir::Call::make(Handle(), "dsl_runtime_user_context", {}, ir::Call::CallType::Extern);
}

}  // namespace dsl
