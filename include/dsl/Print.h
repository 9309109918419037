#pragma once
/// Printing values from inside a pipeline, for debugging, and require(): a condition checked
/// while the pipeline runs.
///
///   Expr e = print(cos(y), "<- cos(y) when x =", x);   // e has the value of cos(y)
///   f(x, y) = print_when(x == 3 && y == 4, e, "at the point (3, 4)");
///
/// Each evaluation writes one line (in a vectorized loop, one per lane whose condition holds, as
/// Halide's): the arguments separated by spaces (floats with six decimals, float64 in exponent form
/// as printf's %e, as Halide writes them), through the runtime's print handler (stderr unless
/// dsl_set_print_handler in dsl/runtime/dsl_runtime.h replaces it). Lines from parallel loops never
/// interleave, but their order is not fixed. A print inside an inlined Func prints once per use;
/// one whose arguments do not change inside a loop still prints once per iteration.
/// Func::trace_stores() and its companions print the same way.

#include <string>
#include <vector>

#include "dsl/Expr.h"

namespace dsl {

namespace detail {
inline Expr print_argument(const Expr &e) {
    return e;
}
inline Expr print_argument(const std::string &s) {
    return Expr(s);
}
inline Expr print_argument(const char *s) {
    return Expr(std::string(s));
}
}  // namespace detail

/// An Expr with the value of its first non-string argument (int32 0 if none) that prints all
/// of `values` whenever it is evaluated. Strings (`Expr(std::string)`) are printed as they are.
Expr print(const std::vector<Expr> &values);
template <typename... Args>
Expr print(const Expr &first, const Args &...rest) {
    return print(std::vector<Expr>{first, detail::print_argument(rest)...});
}

/// print(values), but prints only where `condition` holds (for a vector, in any lane); the
/// value is the same either way.
Expr print_when(const Expr &condition, const std::vector<Expr> &values);
template <typename... Args>
Expr print_when(const Expr &condition, const Expr &first, const Args &...rest) {
    return print_when(condition, std::vector<Expr>{first, detail::print_argument(rest)...});
}

/// `value` where `condition` holds; where it does not (in any lane of a vector), the pipeline
/// stops with an error that reads "Requirement failed: (condition)" and then `message` (strings
/// and values, as print() writes them): realize() throws it as a RuntimeError, or hands it to
/// the custom_error handler (dsl/JIT.h); a compiled library returns
/// dsl_error_requirement_failed. Use it to check what a pipeline assumes of its Params and
/// inputs where the check reads best:
///
///   f(x) = require(width % 8 == 0, in(x), "the width must be a multiple of 8, not", width);
///
/// GPU kernels cannot stop a pipeline: a require() inside one is a CompileError.
Expr require(const Expr &condition, const Expr &value, const std::vector<Expr> &message);
template <typename... Args>
Expr require(const Expr &condition, const Expr &value, const Args &...message) {
    return require(condition, value, std::vector<Expr>{detail::print_argument(message)...});
}

}  // namespace dsl
