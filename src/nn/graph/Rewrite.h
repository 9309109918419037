#pragma once
/// Graph rewrites before compiling (DESIGN.md §8): operators absorbed by the convolution that
/// produces or consumes their value, so that the pair is one pipeline and one pass over memory.

#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

/// What fold_into_convolutions did.
struct RewriteCounts {
    int batch_norms = 0;  ///< BatchNormalizations folded into a Conv, ConvTranspose or Gemm
    int pads = 0;         ///< Pads folded into a Conv's pads
};

/// Folds, where the values involved are constants (initializers or Constant nodes) of float32:
/// - an inference BatchNormalization whose input is read by nothing else and comes from a Conv,
///   a ConvTranspose or a Gemm (with a bias of one value per output channel, or none): its
///   scale and shift go into the weights and the bias;
/// - a Pad of zeros (mode "constant") on the spatial axes only, read by nothing but Convs
///   without auto_pad: its widths add to each Conv's pads.
/// Values that are graph outputs are kept. The graph stays equivalent.
RewriteCounts fold_into_convolutions(Graph &g);

}  // namespace dsl::nn::graph
