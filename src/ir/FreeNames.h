#pragma once
// The names a statement or expression uses from outside itself, and whether it reads memory.
#include <set>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace dsl::ir {

/// The names `s` uses but does not bind, in the order of their first use: the variables no Let,
/// LetStmt or For inside it binds; with `buffers`, also the buffers it loads from and stores to
/// that no Allocate inside it binds (what a parallel loop's body needs from outside). Without
/// `buffers` it is the names a let around `s` must keep.
std::vector<std::string> free_names(const Stmt &s, bool buffers);
std::vector<std::string> free_names(const Expr &e, bool buffers);

/// The names every Let, LetStmt and For inside `s` (itself included) binds.
std::set<std::string> bound_names(const Stmt &s);

/// Whether `e` reads memory: a load, or a call of a Func, an image or an external function
/// that may have effects (intrinsics and pure external functions read only their arguments).
bool reads_memory(const Expr &e);

}  // namespace dsl::ir
