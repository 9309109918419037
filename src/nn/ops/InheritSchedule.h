#pragma once
/// How an operator's schedule reaches the pipeline's output (DESIGN.md §8): a result computed
/// point for point from one scheduled input (a convolution's activation, its requantization,
/// a dequantization) keeps that input's schedule, so that the operator still schedules its work
/// when the pipeline ends in the result.

#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// Gives `result` the schedule of the one input among `inputs` that has a schedule and the
/// result's shape; nothing when none does, or when two have different schedules (neither can
/// own the result). Inputs sharing one schedule (Tensor::shares_schedule) count as one.
void inherit_schedule(Tensor &result, const std::vector<Tensor> &inputs);

}  // namespace dsl::nn
