#pragma once
#include "ir/IR.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Which versions of a pipeline's body to generate with respect to the strides of its buffers'
/// first dimension.
enum class StrideVersions {
    /// Both versions below, picked on entry by a check of the strides (AOT libraries, which
    /// cannot know their callers' buffers).
    Both,
    /// Only the version for buffers dense in their first dimension, with that stride known to
    /// code generation; any other stride is a runtime error (dsl_runtime_error_stride_not_one).
    /// The JIT compiles this one first: half the code of Both, so about half the compile time.
    Dense,
    /// Only the version for any strides (the JIT compiles it when realize() is given a buffer
    /// that is not dense).
    Any,
};

/// Specializes `s` for the strides of `buffers`' first dimension as `versions` says. For Both:
/// one version for the common case where every input and output buffer is dense in its first
/// dimension (stride 1), with that stride known to code generation so that vector loads and
/// stores are contiguous, and the general one for any strides; a check of the strides on entry
/// picks the version.
Stmt specialize_dense_buffers(const std::vector<std::string> &buffers, const Stmt &s,
                              StrideVersions versions = StrideVersions::Both);

}  // namespace dsl::lowering
