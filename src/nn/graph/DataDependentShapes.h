#pragma once
/// Operators whose result's size depends on their input's values (NonZero, Compress,
/// NonMaxSuppression, Unique): before
/// compiling, each gets a node that counts what it selects, as an extra input. The compiler reads
/// that count when the model runs (a value that sizes a result, as a Reshape's shape), so one
/// compiled model serves every count.

#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

/// The op_type of the counting nodes (not an ONNX operator): input 0 is the tensor whose
/// nonzero elements it counts; for Compress, input 1 is Compress's data and the node carries
/// Compress's `axis`, which limit the elements counted to those that select something.
constexpr const char *kCountNonZero = "dsl.CountNonZero";
/// The op_type of NonMaxSuppression's counting node: the same inputs (the optional ones as
/// empty names) and attributes; NonMaxSuppression's count is its input 5.
constexpr const char *kCountNonMaxSuppression = "dsl.CountNonMaxSuppression";
/// The op_type of Unique's counting node: Unique's input and `axis`; Unique's count is its
/// input 1.
constexpr const char *kCountUnique = "dsl.CountUnique";

/// Adds the counting nodes; returns how many.
int count_selected_elements(Graph &g);

}  // namespace dsl::nn::graph
