#pragma once
/// Seeded random expressions and variable bindings for property tests: mixed types and widths,
/// vectors, nested lets, selects, min/max, casts, bitwise ops, division and modulo by negative,
/// zero and positive values.

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/ReferenceEvaluator.h"

namespace dsl::test {

struct RandomExprOptions {
    /// Element types the generator may use. Each has two variables, `a_<type>` and `b_<type>`.
    std::vector<Type> types = {Int(8),   Int(16),  Int(32),   Int(64),   UInt(8),   UInt(16),
                               UInt(32), UInt(64), Float(32), Float(64), Float(16), BFloat(16)};
    /// Vector widths the generator may use (1 means scalar).
    std::vector<int> lanes = {1, 1, 1, 2, 4, 8};
    bool allow_floats = true;
    bool allow_lets = true;
    bool allow_vectors = true;
    /// Math intrinsics (sqrt, floor, ...) on floats.
    bool allow_math = true;
};

/// The seed of a property test: `DSL_TEST_SEED` if set, else `default_seed`.
uint64_t seed_from_env(uint64_t default_seed);
/// How many times more cases a property test should run: `DSL_TEST_SCALE` if set, else 1.
int scale_from_env();

class RandomExprGenerator {
  public:
    explicit RandomExprGenerator(uint64_t seed, RandomExprOptions options = {});

    /// A random expression of type `t` with at most `depth` levels of operators.
    Expr expr(Type t, int depth);
    /// A random type drawn from the options (scalar or vector).
    Type type();
    /// A random scalar element type drawn from the options.
    Type scalar_type();
    /// Random values for every free variable of `e`: mostly small (|v| <= 16), sometimes the
    /// extremes of the type.
    std::map<std::string, ir::Value> env_for(const Expr &e);
    /// A random value of type `t` for a variable.
    ir::Value value(Type t);
    /// The name of a variable of type `t` ("a_int32", "b_uint8x4").
    static std::string var_name(Type t, int which);

    std::mt19937_64 &rng() { return rng_; }
    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  private:
    Expr leaf(Type t);
    Expr constant(Type t);
    Expr bool_expr(int lanes, int depth);
    Expr int_expr(Type t, int depth);
    Expr float_expr(Type t, int depth);
    Expr vector_expr(Type t, int depth);
    Expr common_expr(Type t, int depth);
    Type other_type_with_lanes(int lanes);

    RandomExprOptions options_;
    std::mt19937_64 rng_;
    int let_counter_ = 0;
    std::vector<std::pair<std::string, Type>> lets_in_scope_;
};

}  // namespace dsl::test
