#pragma once
/// The stage of an extern Func (Func::define_extern): a call of its C function on descriptors
/// of its inputs' and outputs' storage, with its status checked.

#include <map>
#include <string>

#include "ir/IR.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

/// The statement that computes extern Func `f` over its stage's region (`<f>.s0.<x>.min` ..
/// `.max`): the inputs' descriptors cover their whole storage; the outputs' the region.
ir::Stmt extern_stage_call(const Environment &env, const lang::Function &f);

/// The Funcs that extern stages among `funcs` take as buffers, each with one such stage.
std::map<std::string, std::string> extern_stage_inputs(
    const std::map<std::string, lang::Function> &funcs);

}  // namespace dsl::lowering
