#pragma once
/// The constraints users set on buffer arguments (include/dsl/Dimension.h): each is checked
/// before the pipeline computes anything, and assumed everywhere after (the constrained field
/// is replaced by its constraint, so that a stride of 1 or a minimum of 0 simplifies).

#include <string>
#include <vector>

#include "lowering/BufferChecks.h"

namespace dsl::lowering {

struct BufferConstraint {
    std::string buffer;  ///< the buffer argument's name
    std::string owner;   ///< who set it, for the message
    int dim = 0;
    ir::BufferField field = ir::BufferField::Min;
    Expr value;
};

/// The constraints on the pipeline's buffer arguments (its input buffers and its outputs). A
/// CompileError if one uses the bounds of a buffer that is not an argument of the pipeline.
std::vector<BufferConstraint> buffer_constraints(const Environment &env,
                                                 const std::vector<PipelineInput> &inputs);

/// The ImageParams whose bounds an ImageParam's constraints use (as plain names), those still
/// alive: arguments of any pipeline that has the constrained buffer.
std::vector<ir::Parameter> image_params_named(const ir::BufferConstraints &b);

/// An assertion per constraint that the buffer passed meets it.
std::vector<Stmt> constraint_checks(const std::vector<BufferConstraint> &constraints);

/// `s` with each constrained field replaced by its constraint.
Stmt assume_constraints(const std::vector<BufferConstraint> &constraints, const Stmt &s);

/// The constraint on `field` of dimension `dim` of `buffer`, or null.
const BufferConstraint *find_constraint(const std::vector<BufferConstraint> &constraints,
                                        const std::string &buffer, int dim, ir::BufferField field);

/// The constraint as a requirement on the buffer passed, for a header: `input: dim(0).stride ==
/// 1`.
std::string describe(const BufferConstraint &c);

/// The constraints' values with their buffer's own fields replaced (`fields` maps a field's
/// name to its replacement), for the answer to a bounds query: the region a query reports
/// meets the constraints on min and extent. Returns undefined where `buffer` has no such
/// constraint.
Expr constrained_field(const std::vector<BufferConstraint> &constraints, const std::string &buffer,
                       int dim, ir::BufferField field, const std::map<std::string, Expr> &fields);

}  // namespace dsl::lowering
