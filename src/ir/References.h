#pragma once
/// Expressions refer to Funcs (a `Call` of a Func holds a `FunctionPtr`) and to reduction domains
/// (a reduction `Variable` holds a `ReductionDomain`). Each reference is strong or weak; a weak
/// one is how a definition or a domain refers to something that would otherwise keep it alive
/// (src/lang/FunctionReferences.h says which ones are weak).

#include <string>

#include "dsl/Expr.h"

namespace dsl::ir {

/// `e` with every weak reference made strong. A weak reference whose Func or domain no longer
/// exists is a CompileError; `what` names `e` in its message (e.g. "the update of f").
Expr with_strong_references(const Expr &e, const std::string &what);

}  // namespace dsl::ir
