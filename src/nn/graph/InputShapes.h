#pragma once
// Fixing a graph's input extents before it is compiled: a compiled library has fixed sizes, and
// a model compiled for given sizes has constant loop extents throughout (ModelOptions::shapes).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

/// Sets the extents of the inputs `shapes` names (outermost first), checking them against the
/// declared ones. With `all_known_because` (the reason, for the message), an extent left
/// symbolic is an error; without, it stays symbolic. Errors are CompileErrors naming the input.
void fix_input_shapes(Graph &g, const std::map<std::string, std::vector<int64_t>> &shapes,
                      const char *all_known_because = nullptr);

}  // namespace dsl::nn::graph
