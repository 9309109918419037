#pragma once
/// Which values a kernel computes inside its consumer's kernel rather than on its own: the graph
/// layer's fusion decision (DESIGN.md §8). A fused group is then one dsl pipeline: a convolution
/// with its bias, activation and residual add, or a chain of elementwise operators.

#include <set>
#include <string>

#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

/// Whether `op_type` computes each output element from the same element of its inputs (numpy
/// broadcasting aside): unary math, activations, arithmetic, comparisons, Where, Cast, Clip.
bool is_elementwise(const std::string &op_type);

/// The values to fuse into their consumers: the only output of a node, not a graph output, whose
/// only consumer is an elementwise node; or whose consumers are all elementwise nodes whose
/// results are fused on into one kernel (a hard-swish's two branches over a convolution). (The
/// compiler still checks, once each consumer is built, that it reads the value point for point,
/// and computes the value on its own if not.)
std::set<std::string> values_to_fuse(const Graph &g);

}  // namespace dsl::nn::graph
