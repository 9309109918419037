#pragma once
#include <vector>

#include "ir/IR.h"
#include "ir/Parameter.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// An input of the pipeline: a buffer (an ImageParam or a concrete Buffer) or a scalar Param.
struct PipelineInput {
    std::string name;
    Type type;
    int dimensions = 0;
    bool is_buffer = false;
    ir::Parameter param;  ///< for Params and ImageParams
    Buffer<> buffer;      ///< for concrete Buffers
};

/// The input a call of an input image (Call::CallType::Image) reads.
PipelineInput input_of(const ir::Call *image_call);
/// The input a Param or ImageParam is (a Variable such as a Param or an ImageParam's extent
/// refers to it).
PipelineInput input_of(const ir::Parameter &param);
/// Whether `a` and `b` (of one name) are the same Param, ImageParam or Buffer.
bool same_input(const PipelineInput &a, const PipelineInput &b);

/// Every input the pipeline's Funcs use, and those `also` reads (what lowering computes
/// besides the definitions: the memoized Funcs' keys), ordered by name.
std::vector<PipelineInput> find_inputs(const Environment &env, const std::vector<Expr> &also = {});

/// Adds the checks that run before any computation (after the bounds lets): every input buffer
/// covers the region the pipeline reads, updates of outputs write inside their buffers, and
/// scalar Params lie within their declared range. Failures return an error code and report a
/// message that names the buffer or Param, the dimension, and the regions needed and present.
struct BufferConstraint;
/// The checks also assert the `constraints` users set on the buffers (after their layout is
/// checked), and `s` assumes them: its constrained fields are replaced by their constraints.
/// A buffer without memory is a bounds query: an input is given the region the pipeline reads
/// of it, an output the region it writes (its own, or larger where updates or rounded-up
/// splits reach outside it), and nothing is computed. `*outputs_may_grow` (when given) says
/// whether an output's answer can be larger than the output.
Stmt add_buffer_checks(const Environment &env, const std::vector<PipelineInput> &inputs,
                       const std::vector<BufferConstraint> &constraints, const Stmt &s,
                       bool *outputs_may_grow = nullptr);

}  // namespace dsl::lowering
