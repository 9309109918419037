#pragma once
/// Which references between Funcs and reduction domains are weak.
///
/// A Func's definitions refer to the Funcs they call and to the reduction domains of the RVars
/// they use; a domain's bounds and where() condition refer to Funcs and domains as well (see
/// ir/References.h). A definition makes all its references strong. After each update of a Func,
/// the references back to that Func from everything it reaches through strong references become
/// weak, since each of them closes a cycle:
///   - an update that reads its own Func: f(x) = f(x - 1) + 1;
///   - a where() condition read by an update of the Func it reads: r.where(f(r.x) > 0);
///     f(r.x) += 1;
///   - a Func that reads f and that an update of f reads: g(x) = f(x) + 1; f(x) = g(x) * 2;
///     (lowering accepts this when g is inlined, and reports the cycle otherwise).
/// A where() condition also refers to its own domain weakly (ir/ReductionDomain.h). So strong
/// references never form a cycle, and dropping the last handle to a pipeline's Funcs and RDoms
/// frees all of them, while the Func keeps alive everything its updates read (a temporary Func
/// that reads it included).
///
/// A weak reference to f is gone only once the user dropped every handle to f: then using the Func
/// or domain that holds it (g above, or an RVar of the domain once the RDom is gone too: the RDom
/// keeps its conditions' Funcs alive) is a CompileError that names f.

#include "lang/Function.h"

namespace dsl::lang {

/// Makes weak every strong reference to `self` held by `self` or by a Func or domain that `self`
/// reaches through strong references. Call it after every change to `self`'s updates.
void weaken_references_back_to(FunctionContents &self);

}  // namespace dsl::lang
