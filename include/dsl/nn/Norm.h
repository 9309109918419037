#pragma once
/// Normalizations and losses. Statistics are computed in float32 for 16-bit floats.

#include <vector>

#include "dsl/nn/Tensor.h"

namespace dsl::nn {

/// Inference batch normalization over axis 1: (x - mean) / sqrt(var + epsilon) * scale + bias,
/// the four statistics of shape (C).
Tensor batch_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, const Tensor &mean,
                  const Tensor &var, float epsilon = 1e-5f);
/// Each (n, c) plane normalized by its own mean and variance, then scaled by scale[c] and
/// shifted by bias[c].
Tensor instance_norm(const Tensor &x, const Tensor &scale, const Tensor &bias,
                     float epsilon = 1e-5f);
/// Layer normalization over the axes from `axis` on. `bias` may be undefined.
struct LayerNorm {
    Tensor y, mean, inv_std_dev;  ///< mean and inv_std_dev keep the normalized axes as 1
};
LayerNorm layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, int axis = -1,
                     float epsilon = 1e-5f);
/// Local response normalization across channels (axis 1), over `size` neighbours.
Tensor lrn(const Tensor &x, int size, float alpha = 1e-4f, float beta = 0.75f, float bias = 1.0f);
/// (x - mean) / (standard deviation + 1e-9) over `axes`.
Tensor mean_variance_normalization(const Tensor &x, const std::vector<int> &axes = {0, 2, 3});

enum class LossReduction { None, Sum, Mean };
/// The negative log likelihood of `target` (N, d...) under log-probabilities `input` (N, C,
/// d...), weighted per class by `weight` (C) when defined; targets equal to `ignore_index`
/// (when `has_ignore_index`) count nothing. Mean divides by the total weight counted.
Tensor nll_loss(const Tensor &input, const Tensor &target, const Tensor &weight,
                LossReduction reduction = LossReduction::Mean, bool has_ignore_index = false,
                int64_t ignore_index = 0);
/// Softmax cross entropy: nll_loss of log_softmax(scores) over axis 1; also returns the
/// log-probabilities.
struct CrossEntropy {
    Tensor loss, log_prob;
};
CrossEntropy softmax_cross_entropy(const Tensor &scores, const Tensor &labels, const Tensor &weight,
                                   LossReduction reduction = LossReduction::Mean,
                                   bool has_ignore_index = false, int64_t ignore_index = 0);

}  // namespace dsl::nn
