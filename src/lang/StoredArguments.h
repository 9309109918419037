#pragma once
/// What the JIT stores beside a compiled pipeline in the disk cache so that a process can run it
/// without lowering: the argument list of its function, and the warnings lowering reported (to
/// report them again). Loading it back finds each input among the inputs of the caller's Funcs
/// (lang/DefinitionKey.h) and checks the outputs against the output Func.

#include <string>
#include <vector>

#include "lang/DefinitionKey.h"
#include "lang/Function.h"
#include "lowering/Lower.h"

namespace dsl::lang {

/// The arguments of `f`, one a line: kind, type code, bits, lanes, dimensions, and the name
/// (its length, ':' and its bytes); then one line per warning: "w ", its length, ':' and its
/// text. A first line "grow" says that an output may need more than its region
/// (LoweredPipeline::outputs_may_grow).
/// The names are written as `names` renames them (DefinitionKey::rename).
std::string describe_arguments(const ir::LoweredFunc &f, const std::vector<std::string> &warnings,
                               bool outputs_may_grow, const DefinitionKey &names = {});

/// Fills `pipeline` (module name, the function `function` with no body, inputs and outputs) for
/// running the stored function of `outputs` whose arguments `stored` describes. Returns false,
/// with the reason in `*problem`, when `stored` does not parse, names an input that `key` does
/// not have (or has with another kind, type or dimensions), or gives outputs that are not
/// those of `outputs` (each Func's values in order). Names are compared as `key` writes them. The
/// warnings go to `*warnings`.
bool restore_arguments(const std::string &stored, const std::vector<Function> &outputs,
                       const std::string &function, const DefinitionKey &key,
                       lowering::LoweredPipeline *pipeline, std::vector<std::string> *warnings,
                       std::string *problem);

}  // namespace dsl::lang
