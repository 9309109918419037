#pragma once
/// Recognises a store that folds a term into the element it overwrites, `f[i] = op(f[i], term)`
/// (an associative update after storage flattening), for the lowerings that fold the terms of
/// several iterations another way: a vectorized loop's lanes (VectorReduce) and an atomic
/// read-modify-write.

#include <optional>

#include "ir/IR.h"

namespace dsl::ir {

/// The store's operator, the load of its running value, and the term folded into it (which
/// loads nothing of the stored buffer).
struct StoreFold {
    VectorReduce::Op op;
    Expr running, term;
    bool subtract = false;  ///< f[i] - term: the terms are summed, then subtracted
};

/// The fold `store` performs, if it is one: f[i] + term (also term + f[i], and f[i] + a + b as
/// f[i] + (a + b)), f[i] - term, f[i] * term, min, max, && and ||.
std::optional<StoreFold> find_store_fold(const Store *store);

/// Whether `e` loads from the buffer `name`.
bool loads_buffer(const Expr &e, const std::string &name);

/// The identity of `op` for values of type `t`.
Expr fold_identity(VectorReduce::Op op, Type t);

/// `a op b`.
Expr fold_combine(VectorReduce::Op op, const Expr &a, const Expr &b);

}  // namespace dsl::ir
