#pragma once
/// Calls from a pipeline to C and C++ functions of the program, one value at a time:
///
///     extern "C" float my_gain(float v, int channel) { return v * gains[channel]; }
///     DSL_EXTERN(float, my_gain, float, int);          // a pure function: DSL_PURE_EXTERN
///     ...
///     f(x, y, c) = my_gain(g(x, y, c), c);             // now callable on Exprs
///
/// `DSL_EXTERN(result type, name, argument types...)` at namespace scope, after the function's
/// declaration, gives `name` an overload on Exprs and records the function's address under
/// `name`, so that JIT-compiled pipelines call it (whatever its linkage and whether or not the
/// program exports its symbols) and the reference evaluator can too. Called with C++ numbers
/// only (`my_gain(1.5f, 2)`), `name` is the C function itself, as with Halide's macros.
/// AOT-compiled pipelines call `name` as a C symbol: the program that links the library provides
/// it. Argument and result types are arithmetic types or pointers; each argument Expr must have its
/// parameter's type (a C++ number is converted; anything else is a CompileError naming the
/// function).
///
/// `DSL_EXTERN` functions may have side effects: each call in the program is made where it
/// stands, once per point computed, in an order that the schedule decides. `DSL_PURE_EXTERN`
/// promises that the result depends only on the arguments and that the call has no side
/// effect, so that code generation may combine and hoist calls. Vectorized loops call the
/// function once per lane, for every lane of their vectors (a masked tail's unused lanes too). GPU
/// kernels cannot call host functions (a CompileError names it).
///
/// Halide's `HalideExtern_N` / `HalidePureExtern_N` (N = 1..6) are the same macros.
///
/// Whole stages computed by a C function over buffers are Func::define_extern, with the
/// arguments of ExternFuncArgument (below).

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Expr.h"
#include "dsl/Func.h"
#include "dsl/Param.h"
#include "dsl/Type.h"

namespace dsl {

/// One argument of an extern stage (Func::define_extern): a Func (the function gets a
/// `dsl_buffer_t *` of the region computed of it, one per value of a Tuple), an input Buffer
/// or ImageParam (its `dsl_buffer_t *`), or a scalar Expr (a Param, a number; passed by value).
class ExternFuncArgument {
  public:
    enum class Kind { Func, Buffer, ImageParam, Expr };
    /// An undefined Expr argument (to be assigned; defining an extern stage with it is an
    /// error).
    ExternFuncArgument() : kind(Kind::Expr) {}
    ExternFuncArgument(const Func &f) : kind(Kind::Func), func(f) {}
    ExternFuncArgument(const Buffer<> &b) : kind(Kind::Buffer), buffer(b) {}
    template <typename T, int D>
    ExternFuncArgument(const Buffer<T, D> &b) : kind(Kind::Buffer), buffer(Buffer<>(b)) {}
    ExternFuncArgument(const ImageParam &p) : kind(Kind::ImageParam), image_param(p) {}
    ExternFuncArgument(const Expr &e) : kind(Kind::Expr), expr(e) {}
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    ExternFuncArgument(T value) : kind(Kind::Expr), expr(Expr(value)) {}
    ExternFuncArgument(const Var &v) : kind(Kind::Expr), expr(Expr(v)) {}
    template <typename T>
    ExternFuncArgument(const Param<T> &p) : kind(Kind::Expr), expr(Expr(p)) {}

    bool is_func() const { return kind == Kind::Func; }
    bool is_buffer() const { return kind == Kind::Buffer; }
    bool is_image_param() const { return kind == Kind::ImageParam; }
    bool is_expr() const { return kind == Kind::Expr; }

    Kind kind;
    Func func;
    Buffer<> buffer;
    std::optional<ImageParam> image_param;
    Expr expr;
};

/// The user context of the call, as a `void *` argument of an extern stage (Halide's
/// user_context_value()): in realize(), the JITUserContext passed to it (or one of dsl's own,
/// with the Func's handlers, when none is), so that the function can reach the program's state
/// or handlers; null in an AOT function, which takes no user context.
Expr user_context_value();

namespace detail {

/// How the reference evaluator calls an extern function at `address`: `args[i]` points at the
/// i-th argument stored as its C type; the result is stored at `result` as the result's C type.
using ExternInvoker = void (*)(void *address, const void *const *args, void *result);

/// Records the function `name` at `address` with its signature (see DSL_EXTERN). Registering a
/// name again replaces the earlier function. Returns true.
bool register_extern_function(const char *name, void *address, ExternInvoker invoker, Type result,
                              std::vector<Type> args);

/// A call of the extern function `name` on `args`, each checked against (or, for a C++ number,
/// converted to) its parameter type in `types`.
Expr call_extern_function(const char *name, Type result, const std::vector<Type> &types,
                          std::vector<Expr> args, bool pure);

template <typename R, typename... A, size_t... I>
void invoke_extern(void *address, const void *const *args, void *result,
                   std::index_sequence<I...>) {
    auto *f = reinterpret_cast<R (*)(A...)>(address);
    *static_cast<R *>(result) = f(*static_cast<const std::decay_t<A> *>(args[I])...);
}

template <typename R, typename... A>
void invoke_extern(void *address, const void *const *args, void *result) {
    invoke_extern<R, A...>(address, args, result, std::index_sequence_for<A...>{});
}

/// Registers `f` under `name` with the signature the macro names (which `f` must have).
template <typename R, typename... A>
bool register_extern(const char *name, R (*f)(A...)) {
    static_assert(!std::is_void_v<R>, "DSL_EXTERN: an extern function must return a value");
    return register_extern_function(name, reinterpret_cast<void *>(f), &invoke_extern<R, A...>,
                                    type_of<R>(), {type_of<std::decay_t<A>>()...});
}

/// The Expr overload's body: a call of `name` on its arguments (Exprs, or anything an Expr
/// is made from).
template <typename R, typename... A, typename... E>
Expr extern_call(const char *name, bool pure, const E &...args) {
    static_assert(sizeof...(A) == sizeof...(E),
                  "an extern function is called with the wrong number of arguments");
    return call_extern_function(name, type_of<R>(), {type_of<std::decay_t<A>>()...},
                                {Expr(args)...}, pure);
}

}  // namespace detail
}  // namespace dsl

#define DSL_EXTERN_DEFINE(pure, rt, name, ...)                                               \
    [[maybe_unused]] static const bool dsl_extern_registered_##name =                        \
        ::dsl::detail::register_extern<rt, __VA_ARGS__>(#name, &name);                       \
    template <typename... DslExternArgs,                                                     \
              typename = std::enable_if_t<                                                   \
                  (std::is_convertible_v<const DslExternArgs &, ::dsl::Expr> && ...) &&      \
                  !(std::is_arithmetic_v<DslExternArgs> && ...)>>                            \
    inline ::dsl::Expr name(const DslExternArgs &...dsl_extern_args) {                       \
        return ::dsl::detail::extern_call<rt, __VA_ARGS__>(#name, pure, dsl_extern_args...); \
    }

/// `DSL_EXTERN_STAGE(name)`: records the function of an extern stage (Func::define_extern) so
/// that JIT-compiled pipelines find it whatever its linkage (without it, the program must
/// export the symbol: link with -rdynamic).
#define DSL_EXTERN_STAGE(name)                                                                   \
    [[maybe_unused]] static const bool dsl_extern_registered_##name =                            \
        ::dsl::detail::register_extern_function(#name, reinterpret_cast<void *>(&name), nullptr, \
                                                ::dsl::Int(32), {});

/// `DSL_EXTERN(result type, name, argument types...)`: see the top of this file (at least one
/// argument).
#define DSL_EXTERN(rt, name, ...) DSL_EXTERN_DEFINE(false, rt, name, __VA_ARGS__)
/// The same for a function without side effects whose result depends only on its arguments.
#define DSL_PURE_EXTERN(rt, name, ...) DSL_EXTERN_DEFINE(true, rt, name, __VA_ARGS__)

// Halide's spellings.
#define HalideExtern_1(rt, name, t1) DSL_EXTERN(rt, name, t1)
#define HalideExtern_2(rt, name, t1, t2) DSL_EXTERN(rt, name, t1, t2)
#define HalideExtern_3(rt, name, t1, t2, t3) DSL_EXTERN(rt, name, t1, t2, t3)
#define HalideExtern_4(rt, name, t1, t2, t3, t4) DSL_EXTERN(rt, name, t1, t2, t3, t4)
#define HalideExtern_5(rt, name, t1, t2, t3, t4, t5) DSL_EXTERN(rt, name, t1, t2, t3, t4, t5)
#define HalideExtern_6(rt, name, t1, t2, t3, t4, t5, t6) \
    DSL_EXTERN(rt, name, t1, t2, t3, t4, t5, t6)
#define HalidePureExtern_1(rt, name, t1) DSL_PURE_EXTERN(rt, name, t1)
#define HalidePureExtern_2(rt, name, t1, t2) DSL_PURE_EXTERN(rt, name, t1, t2)
#define HalidePureExtern_3(rt, name, t1, t2, t3) DSL_PURE_EXTERN(rt, name, t1, t2, t3)
#define HalidePureExtern_4(rt, name, t1, t2, t3, t4) DSL_PURE_EXTERN(rt, name, t1, t2, t3, t4)
#define HalidePureExtern_5(rt, name, t1, t2, t3, t4, t5) \
    DSL_PURE_EXTERN(rt, name, t1, t2, t3, t4, t5)
#define HalidePureExtern_6(rt, name, t1, t2, t3, t4, t5, t6) \
    DSL_PURE_EXTERN(rt, name, t1, t2, t3, t4, t5, t6)
