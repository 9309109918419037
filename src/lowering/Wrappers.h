#pragma once
/// Func::in() and Func::clone_in() in lowering: each Func of the pipeline, with its calls to a
/// wrapped or cloned Func redirected to the Func that stands in for it.

#include <map>
#include <string>
#include <vector>

#include "lang/Function.h"

namespace dsl::lowering {

/// Every Func reachable from `outputs`, by name, after redirection: a Func whose calls change is
/// a copy (the user's Funcs are never changed). Wrappers and clones are reached through the
/// redirected calls.
std::map<std::string, lang::Function> pipeline_funcs(const std::vector<lang::Function> &outputs);

}  // namespace dsl::lowering
