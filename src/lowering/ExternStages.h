#pragma once
/// The stage of an extern Func (Func::define_extern): a call of its C function on descriptors
/// of its inputs' and outputs' storage, with its status checked.

#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "lowering/Environment.h"
#include "lowering/Regions.h"

namespace dsl::lowering {

/// The statement that computes extern Func `f` over its stage's region (`<f>.s0.<x>.min` ..
/// `.max`): the inputs' descriptors cover their whole storage; the outputs' the region.
ir::Stmt extern_stage_call(const Environment &env, const lang::Function &f);

/// The region stage 0 of `f` computes where its lets are in scope (`<f>.s0.<x>.min` ..
/// `.max`), as mins and extents.
void computed_region(const lang::Function &f, std::vector<Expr> *mins, std::vector<Expr> *extents);

/// A dsl_buffer_t descriptor (MakeDescriptor) of value `index` of Func `f` over `mins` and
/// `extents`, inside its storage; storage flattening fills in the strides and the address.
/// `func` is the reference to `f` that calls of it carry, where there is one.
Expr func_descriptor(const lang::Function &f, int index, const std::vector<Expr> &mins,
                     const std::vector<Expr> &extents, const ir::FunctionPtr &func = {});

/// The region extern stage `f` computes when `needed` is needed of it: what its function
/// answers when asked for `needed` in a bounds query (it may widen it; Halide's protocol).
Box queried_region(const lang::Function &f, const Box &needed);

/// A runtime check that [inner_min, inner_max] lies within [outer_min, outer_max] in the
/// dimension `var` of extern stage `f`, which otherwise returns the runtime error `error`, one
/// of dsl_runtime_error_extern_region_* (Func, function, var, inner min and max, outer min and
/// max).
Stmt extern_region_check(const lang::Function &f, const std::string &var, const Expr &inner_min,
                         const Expr &inner_max, const Expr &outer_min, const Expr &outer_max,
                         const char *error);

/// The Funcs that extern stages among `funcs` take as buffers, each with one such stage.
std::map<std::string, std::string> extern_stage_inputs(
    const std::map<std::string, lang::Function> &funcs);

}  // namespace dsl::lowering
