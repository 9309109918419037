#pragma once
/// More math on floats, written with the primitives of dsl/Expr.h (exp, log, sqrt, atan2):
/// inverse and hyperbolic trigonometry, the error function, and tests for infinities. Integers
/// are converted to float32 first, as by the primitives.

#include "dsl/Expr.h"

namespace dsl {

Expr asin(const Expr &x);
Expr acos(const Expr &x);
Expr atan(const Expr &x);
Expr sinh(const Expr &x);
Expr cosh(const Expr &x);
/// Accurate for every float: saturates at +-1 without overflowing.
Expr tanh(const Expr &x);
Expr asinh(const Expr &x);
Expr acosh(const Expr &x);
Expr atanh(const Expr &x);
/// The error function, to within 2e-7 of the true value (a rational approximation of erfc on
/// |x| with the exponential factored out).
Expr erf(const Expr &x);
/// e^x for float32 with operations that vectorize (a range reduction by ln 2, a polynomial, and
/// the exponent added to the bits), where exp() calls the C library once per lane: within 2 ulp
/// of exp for x in [-86, 88.72]; 0 below -86 (where exp is under 4.5e-38), infinity above,
/// NaN for NaN. Other types get exp(). The NN operators use it.
Expr fast_exp(const Expr &x);
/// Whether `x` is +infinity or -infinity (false for integers).
Expr is_inf(const Expr &x);
/// Whether `x` is neither infinite nor NaN (true for integers).
Expr is_finite(const Expr &x);

}  // namespace dsl
