#pragma once
#include "ir/IR.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Makes two versions of the pipeline's body: one for the common case where every input and
/// output buffer is dense in its first dimension (stride 1), with that stride known to code
/// generation so that vector loads and stores are contiguous, and the general one for any
/// strides. A check of the strides on entry picks the version.
Stmt specialize_dense_buffers(const std::vector<std::string> &buffers, const Stmt &s);

}  // namespace dsl::lowering
