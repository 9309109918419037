#include "dsl/Extern.h"

#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IROperator.h"
#include "jit/ExternFunctions.h"

namespace dsl {
namespace detail {

bool register_extern_function(const char *name, void *address, ExternInvoker invoker, Type result,
                              std::vector<Type> args) {
    jit::add_extern_function({name, address, invoker, result, std::move(args)});
    return true;
}

Expr call_extern_function(const char *name, Type result, const std::vector<Type> &types,
                          std::vector<Expr> args, bool pure) {
    using namespace ir;
    user_assert(args.size() == types.size())
        << "The extern function \"" << name << "\" takes " << types.size()
        << " argument(s), but is called with " << args.size() << ".";
    for (size_t i = 0; i < args.size(); i++) {
        user_assert(args[i].defined())
            << "The extern function \"" << name << "\" is called with an undefined argument "
            << i + 1 << ".";
        if (args[i].type() == types[i]) continue;
        // A C++ number (a literal) takes the parameter's type, as in C.
        const bool number = args[i].as<IntImm>() || args[i].as<UIntImm>() || args[i].as<FloatImm>();
        user_assert(number && !types[i].is_handle())
            << "The extern function \"" << name << "\" takes " << types[i] << " as argument "
            << i + 1 << ", but is called with " << args[i] << " of type " << args[i].type()
            << ". Cast the argument to " << types[i]
            << ", or declare the function with the type it is called with.";
        args[i] = cast(types[i], args[i]);
    }
    return Call::make(result, name, std::move(args),
                      pure ? Call::CallType::PureExtern : Call::CallType::Extern);
}

}  // namespace detail
}  // namespace dsl
