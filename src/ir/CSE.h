#pragma once
/// Common-subexpression elimination.

#include "ir/IR.h"

namespace dsl::ir {

/// Rewrites `e` so that every non-trivial subexpression that occurs more than once is computed
/// once, in a `Let` named `cse<N>` at the top of the expression:
///   (x*y + 1) * (x*y + 1)   becomes   let cse0 = x*y + 1 in cse0 * cse0
/// Lets already in `e` are inlined first so that equal subexpressions written under different
/// names are found too. Calls with side effects are never shared. Constants, variables and
/// broadcasts of them are never extracted: they are free to recompute. Linear in the distinct
/// nodes of `e` (a subexpression shared in memory is walked once) when `e` has no Let.
Expr common_subexpression_elimination(const Expr &e);

/// Whether `e` written out as a tree would be far larger than it is in memory, where equal
/// subexpressions are shared nodes: more than 500 nodes as a tree and over 12 times its distinct
/// nodes. A value built in C++ as `e[i] = e[i - 1] + e[i - 2]`, or a chain of inlined Funcs each
/// reading the two before, is a few hundred nodes in memory and over 10^20 as a tree: a pass
/// that walks it as a tree never ends. A chain of 16 stencils inlined (2^16 loads, 153 distinct)
/// took 12 s to lower as a tree. Smaller values matter too once unrolling copies them: a
/// convolution's swish epilogue (x * sigmoid(x), with fast_exp reading its argument a dozen
/// times) is 1400 nodes as a tree and 70 in memory, and in a tile of 12 x 2 vectors took 1.5-2 s
/// to lower, 0.1 s with its lets. (The image apps' values share less, 5-10 times, and
/// are left as written.) Counts each distinct node once.
bool is_blown_up(const Expr &e);

/// Whether `e` written out as a tree has more than `nodes` nodes (each distinct node walked
/// once, so the answer comes in time linear in what is in memory).
bool tree_larger_than(const Expr &e, double nodes);

/// `common_subexpression_elimination(e)` when `e` is blown up (is_blown_up), else `e` itself:
/// the shared parts become lets, so that every later pass walks a tree of the size in memory.
Expr share_if_blown_up(const Expr &e);

/// Applies `common_subexpression_elimination` to every expression of `s`.
Stmt common_subexpression_elimination(const Stmt &s);

}  // namespace dsl::ir
