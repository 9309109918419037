#pragma once
/// Pseudo-random values, as Halide has them: each call stands for a new random variable, whose
/// value at a point of the Func it is defined in is a hash of that point's coordinates (and, in
/// an update, of the RVars), of the seed, and of which call it is.
///
///   noise(x, y) = random_float();                 // uniform in [0, 1), a new value per pixel
///   Expr r = random_float(seed);
///   twice(x) = r + r;                             // one variable: the same value twice
///   sum2(x) = random_float() + random_float();    // two independent variables
///
/// The same seed gives the same values in every run and every schedule; another seed gives
/// independent ones. The hash is statistically good (uniform, neighbouring points and seeds
/// uncorrelated) but not cryptographic. A random call must be in the values of a definition
/// (not an RDom's bounds or a schedule).

#include "dsl/Expr.h"

namespace dsl {

/// A float32 uniform in [0, 1) (multiples of 2^-24). `seed`: an integer Expr (a Param, say);
/// none is seed 0.
Expr random_float(const Expr &seed = Expr());
/// An int32 uniform over all int32 values.
Expr random_int(const Expr &seed = Expr());
/// A uint32 uniform over all uint32 values.
Expr random_uint(const Expr &seed = Expr());

}  // namespace dsl
