#pragma once
/// Replacing variables by expressions.

#include <map>
#include <string>

#include "ir/IR.h"

namespace dsl::ir {

/// Replaces free occurrences of the variable `name` by `replacement`. Occurrences under a
/// Let / LetStmt / For that rebinds `name` are left alone.
Expr substitute(const std::string &name, const Expr &replacement, const Expr &e);
Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s);
/// Replaces several variables at once (simultaneously, not one after another).
Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e);
Stmt substitute(const std::map<std::string, Expr> &replacements, const Stmt &s);
/// As substitute(replacements, e), rewriting each node shared in memory once (outside Lets) and
/// sharing the results: linear in the distinct nodes of a DAG that would be exponentially larger
/// as a tree (inlined Funcs that each read the one before twice). A little slower than
/// substitute on trees.
Expr substitute_shared(const std::map<std::string, Expr> &replacements, const Expr &e);

/// Replaces every subexpression structurally equal to `find` by `replacement`.
Expr substitute(const Expr &find, const Expr &replacement, const Expr &e);

/// Whether the variable `name` occurs free in `e`.
bool expr_uses_var(const Expr &e, const std::string &name);
bool stmt_uses_var(const Stmt &s, const std::string &name);

}  // namespace dsl::ir
