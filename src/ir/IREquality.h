#pragma once
/// Structural comparison of IR: equality, a total order, and hashing consistent with both.

#include <cstddef>

#include "ir/IR.h"

namespace dsl::ir {

/// Whether two trees are structurally identical (same nodes, types, names and constants).
bool equal(const Expr &a, const Expr &b);
bool equal(const Stmt &a, const Stmt &b);

/// A total order on Exprs: negative, zero or positive. Zero exactly when `equal`.
int compare(const Expr &a, const Expr &b);
int compare(const Stmt &a, const Stmt &b);

/// A hash consistent with `equal`.
size_t hash(const Expr &e);
size_t hash(const Stmt &s);

/// A hash of the node itself (kind, type, names, constants) and of its children's identities
/// (pointers), not their structure. Equal exactly when the nodes are equal and share children;
/// value numbering uses it to hash-cons a tree in linear time.
size_t shallow_hash(const Expr &e);

/// Comparator and hasher for containers keyed by structure.
struct ExprLess {
    bool operator()(const Expr &a, const Expr &b) const { return compare(a, b) < 0; }
};
struct ExprEqual {
    bool operator()(const Expr &a, const Expr &b) const { return equal(a, b); }
};
struct ExprHash {
    size_t operator()(const Expr &e) const { return hash(e); }
};

}  // namespace dsl::ir
