#pragma once
/// The constraints a user sets on a buffer argument of a pipeline (include/dsl/Dimension.h):
/// held by an ImageParam's ParameterContents and by a Func's FunctionContents (one per output
/// value), read by lowering (lowering/BufferConstraints.h) and by the JIT's keys.

#include <memory>
#include <string>
#include <vector>

#include "dsl/Expr.h"

namespace dsl::ir {

struct ParameterContents;

struct DimensionConstraint {
    /// Undefined where unconstrained; Int(32) otherwise.
    Expr min, extent, stride;
};

struct BufferConstraints {
    /// The buffer's name in the IR (its fields are names::buffer_min(buffer, d), ...).
    std::string buffer;
    /// Who it belongs to, for messages: `ImageParam "input"` or `the output of Func "f"`.
    std::string owner;
    int dimensions = 0;
    /// The ImageParam whose buffer it is (none for an output), for the fields' Variables.
    std::weak_ptr<ParameterContents> param;
    std::vector<DimensionConstraint> dims;

    bool any() const {
        for (const DimensionConstraint &d : dims) {
            if (d.min.defined() || d.extent.defined() || d.stride.defined()) return true;
        }
        return false;
    }
};

}  // namespace dsl::ir
