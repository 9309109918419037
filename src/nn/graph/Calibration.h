#pragma once
/// Calibration statistics (DESIGN.md §8): what post-training quantization learns of each
/// activation from sample inputs, and the range [lo, hi] it then quantizes that activation to.
/// Three methods: the extremes seen (min/max), a percentile of the values (outliers clipped),
/// and the threshold whose quantized histogram is closest to the real one in Kullback-Leibler
/// divergence (entropy, as TensorRT calibrates).

#include <cstdint>
#include <vector>

namespace dsl::nn::graph {

enum class RangeMethod { MinMax, Percentile, Entropy };

/// One activation's statistics over every sample: its extremes, then (for the percentile and
/// entropy methods, in a second pass over the samples once the extremes are known) a histogram
/// of its values over [min, max] and one of their nonzero magnitudes over [0, max |v|] (zeros,
/// often most of a ReLU's values, are exact whatever the range).
class ActivationStatistics {
  public:
    /// The most bins of a histogram; fewer when there are few values (at least 16 values per
    /// bin on average), so that sparse tails do not read as gaps.
    static constexpr int kMaxBins = 2048;

    /// The first pass: extends the extremes with `n` values; with `channels` > 1, also each
    /// channel's (the values in order (..., channels, inner)).
    void observe_range(const float *values, int64_t n, int64_t channels = 1, int64_t inner = 1);
    /// The second pass: adds `n` values to the histograms (after the first pass is complete).
    void observe_histogram(const float *values, int64_t n);

    float min() const { return min_; }
    float max() const { return max_; }
    bool seen() const { return seen_; }

    /// The range to quantize to, always holding 0 (a zero must be exact: padding, ReLU).
    /// `percentile` (for RangeMethod::Percentile) is the share of values, in percent, kept
    /// inside the range at each end: 99.99 clips the lowest and highest 0.01%.
    void range(RangeMethod method, double percentile, float *lo, float *hi) const;

    /// How many steps of the uint8 quantization of [lo, hi] the median channel's range spans:
    /// few when one channel's outliers set the scale for channels of much smaller values (as
    /// after a batch norm folded into a convolution), which then keep only a few levels.
    /// Infinite without channels.
    double median_channel_levels(float lo, float hi) const;

  private:
    float min_ = 0, max_ = 0;
    bool seen_ = false;
    int64_t count_ = 0;                             ///< values seen by the first pass
    std::vector<float> channel_min_, channel_max_;  ///< per channel, when the values have them
    std::vector<double> values_, magnitudes_;       // the two histograms (kBins each)
};

/// The entropy method's threshold for a histogram of magnitudes over [0, top) in equal bins:
/// the end of the first `i` bins (i from `levels` up) whose values, quantized to `levels`
/// levels with the rest clipped into the last, diverge least from the original distribution.
double entropy_threshold(const std::vector<double> &histogram, double top, int levels = 128);

}  // namespace dsl::nn::graph
