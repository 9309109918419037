#pragma once
/// The reference evaluator: computes any Expr, scalar or vector, straight from the semantics
/// written down in include/dsl/Expr.h, ignoring every schedule. It is the oracle of the test
/// suite (DESIGN.md §3): the simplifier, code generation and every schedule must agree with it.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Scope.h"

namespace dsl::ir {

/// One lane of a value, interpreted by the value's type: `i` for Int, `u` for UInt (bool
/// included), `f` for Float and BFloat (already rounded to the type).
union Scalar {
    int64_t i;
    uint64_t u;
    double f;
};

/// A scalar or vector value.
struct Value {
    Type type;
    std::vector<Scalar> lanes;
    /// The computation relied on behaviour the semantics leave undefined: 32- or 64-bit signed
    /// overflow, a float converted to an integer type it does not fit, min/max of a NaN. The
    /// lanes then hold one possible result (wrapped), but nothing should be compared against it.
    bool undefined = false;

    static Value of_int(Type t, int64_t v);
    static Value of_uint(Type t, uint64_t v);
    static Value of_float(Type t, double v);
    static Value of_bool(bool v, int lanes = 1);

    int64_t as_int(int lane = 0) const { return lanes[lane].i; }
    uint64_t as_uint(int lane = 0) const { return lanes[lane].u; }
    double as_float(int lane = 0) const { return lanes[lane].f; }
    bool as_bool(int lane = 0) const { return lanes[lane].u != 0; }
    /// Any lane as a double (exact for integers up to 2^53).
    double as_double(int lane = 0) const;

    /// Lane-by-lane equality where NaN equals NaN and -0 equals +0.
    bool same_values(const Value &o) const;
    std::string to_string() const;
};

/// The bits of one lane as stored in memory (`t.bytes()` bytes, little-endian; floats in
/// their IEEE format of `t`'s width), and back.
uint64_t scalar_bits(Type t, Scalar v);
Scalar scalar_from_bits(Type t, uint64_t bits);

/// A flat buffer the evaluator can load from: `data[index]` for `index` in [0, data.size()).
struct EvalBuffer {
    Type type;
    std::vector<Scalar> data;
};

/// Evaluates expressions. Variables are looked up in `vars`, loads in `buffers`; calls to Funcs,
/// images and externs go to `call_handler`, which later layers provide.
class ReferenceEvaluator {
  public:
    Scope<Value> vars;
    std::map<std::string, EvalBuffer> buffers;
    std::function<Value(const Call *, const std::vector<Value> &args)> call_handler;
    /// Gives the value of a variable that is not in `vars` (e.g. a pipeline parameter); when
    /// unset, such a variable is an error.
    std::function<Value(const Variable *)> variable_handler;

    /// Evaluates `e`. Throws InternalError for an unbound variable or an unsupported node.
    Value eval(const Expr &e);
};

/// Evaluates `e` with the scalar or vector variables of `env` bound.
Value evaluate(const Expr &e, const std::map<std::string, Value> &env = {});

}  // namespace dsl::ir
