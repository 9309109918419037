#pragma once
/// The constraints a user sets on a buffer argument of a pipeline (include/dsl/Dimension.h):
/// held by an ImageParam's ParameterContents and by a Func's FunctionContents (one per output
/// value), read by lowering (lowering/BufferConstraints.h) and by the JIT's keys.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Expr.h"
#include "ir/Names.h"

namespace dsl::ir {

struct ParameterContents;

/// The fields of a buffer's dimension that can be constrained.
enum class BufferField { Min, Extent, Stride };
constexpr BufferField kBufferFields[] = {BufferField::Min, BufferField::Extent,
                                         BufferField::Stride};

/// "min", "extent" or "stride".
inline const char *field_name(BufferField f) {
    return f == BufferField::Min ? "min" : f == BufferField::Extent ? "extent" : "stride";
}
/// The name of the field's variable: names::buffer_min(buffer, dim), ...
inline std::string field_variable(const std::string &buffer, int dim, BufferField f) {
    return f == BufferField::Min      ? names::buffer_min(buffer, dim)
           : f == BufferField::Extent ? names::buffer_extent(buffer, dim)
                                      : names::buffer_stride(buffer, dim);
}

struct DimensionConstraint {
    /// Undefined where unconstrained; Int(32) otherwise.
    Expr min, extent, stride;
    /// Dimension::set_estimate: what the autoscheduler assumes (not a constraint).
    Expr estimate_min, estimate_extent;
    Expr &operator[](BufferField f) {
        return f == BufferField::Min ? min : f == BufferField::Extent ? extent : stride;
    }
    const Expr &operator[](BufferField f) const {
        return f == BufferField::Min ? min : f == BufferField::Extent ? extent : stride;
    }
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
    /// The ImageParams, by name, whose bounds an ImageParam's constraints use. The constraints
    /// name them as plain Variables and this does not hold them: an ImageParam holds its
    /// constraints, and holding back would keep both alive for ever (see lang/Dimension.cpp).
    std::map<std::string, std::weak_ptr<ParameterContents>> named_image_params;

    bool any() const {
        for (const DimensionConstraint &d : dims) {
            for (BufferField f : kBufferFields) {
                if (d[f].defined()) return true;
            }
        }
        return false;
    }
};

}  // namespace dsl::ir
