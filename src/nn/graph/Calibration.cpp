// Calibration statistics and ranges (graph/Calibration.h).
#include "nn/graph/Calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dsl::nn::graph {

void ActivationStatistics::observe_range(const float *values, int64_t n, int64_t channels,
                                         int64_t inner) {
    if (channels > 1 && channel_min_.size() != static_cast<size_t>(channels)) {
        channel_min_.assign(static_cast<size_t>(channels), std::numeric_limits<float>::infinity());
        channel_max_.assign(static_cast<size_t>(channels), -std::numeric_limits<float>::infinity());
    }
    for (int64_t i = 0; i < n; i++) {
        const float v = values[i];
        if (!std::isfinite(v)) continue;
        if (channels > 1) {
            const size_t c = static_cast<size_t>((i / inner) % channels);
            channel_min_[c] = std::min(channel_min_[c], v);
            channel_max_[c] = std::max(channel_max_[c], v);
        }
        count_++;
        if (!seen_) {
            min_ = max_ = v;
            seen_ = true;
        }
        min_ = std::min(min_, v);
        max_ = std::max(max_, v);
    }
}

void ActivationStatistics::observe_histogram(const float *values, int64_t n) {
    if (values_.empty()) {
        const int64_t bins = std::min<int64_t>(kMaxBins, std::max<int64_t>(512, count_ / 16));
        values_.assign(static_cast<size_t>(bins), 0.0);
        magnitudes_.assign(static_cast<size_t>(bins), 0.0);
    }
    const int bins = static_cast<int>(values_.size());
    const double span = static_cast<double>(max_) - min_;
    const double top =
        std::max(std::abs(static_cast<double>(min_)), std::abs(static_cast<double>(max_)));
    for (int64_t i = 0; i < n; i++) {
        const double v = values[i];
        if (!std::isfinite(v)) continue;
        auto bin = [bins](double at) {
            return static_cast<size_t>(
                std::min(bins - 1, std::max(0, static_cast<int>(at * bins))));
        };
        values_[bin(span > 0 ? (v - min_) / span : 0.0)] += 1;
        if (v != 0) magnitudes_[bin(top > 0 ? std::abs(v) / top : 0.0)] += 1;
    }
}

void ActivationStatistics::range(RangeMethod method, double percentile, float *lo,
                                 float *hi) const {
    double l = min_, h = max_;
    if (method == RangeMethod::Percentile && !values_.empty()) {
        double total = 0;
        for (double c : values_)
            total += c;
        const double clipped = total * std::max(0.0, 100.0 - percentile) / 100.0;
        const int bins = static_cast<int>(values_.size());
        const double width = (static_cast<double>(max_) - min_) / bins;
        // The lowest bin below which at most `clipped` values lie, and the highest above.
        double below = 0;
        int first = 0;
        while (first < bins - 1 && below + values_[static_cast<size_t>(first)] <= clipped)
            below += values_[static_cast<size_t>(first++)];
        double above = 0;
        int last = bins - 1;
        while (last > first && above + values_[static_cast<size_t>(last)] <= clipped)
            above += values_[static_cast<size_t>(last--)];
        l = min_ + first * width;
        h = min_ + (last + 1) * width;
    } else if (method == RangeMethod::Entropy && !magnitudes_.empty()) {
        const double top =
            std::max(std::abs(static_cast<double>(min_)), std::abs(static_cast<double>(max_)));
        // uint8 has 256 levels over a range of one sign, 128 for each sign of one of two.
        const double t = entropy_threshold(magnitudes_, top, min_ >= 0 ? 256 : 128);
        l = std::max(l, -t);
        h = std::min(h, t);
    }
    *lo = static_cast<float>(std::min(l, 0.0));
    *hi = static_cast<float>(std::max(h, 0.0));
}

double ActivationStatistics::median_channel_levels(float lo, float hi) const {
    if (channel_min_.empty() || hi <= lo) return std::numeric_limits<double>::infinity();
    std::vector<double> levels;
    const double step = (static_cast<double>(hi) - lo) / 255.0;
    for (size_t c = 0; c < channel_min_.size(); c++) {
        if (channel_max_[c] >= channel_min_[c])
            levels.push_back((static_cast<double>(channel_max_[c]) - channel_min_[c]) / step);
    }
    if (levels.empty()) return std::numeric_limits<double>::infinity();
    std::nth_element(levels.begin(),
                     levels.begin() + static_cast<std::ptrdiff_t>(levels.size() / 2), levels.end());
    return levels[levels.size() / 2];
}

double entropy_threshold(const std::vector<double> &histogram, double top, int levels) {
    const int bins = static_cast<int>(histogram.size());
    if (bins <= levels) return top;
    double total = 0;
    for (double c : histogram)
        total += c;
    if (total <= 0) return top;
    const double width = top / bins;
    double best = std::numeric_limits<double>::infinity();
    int best_end = bins;
    std::vector<double> p, q;
    double outliers = 0;
    for (int i = bins - 1; i >= levels; i--)
        outliers += histogram[static_cast<size_t>(i)];
    for (int end = levels; end <= bins; end++) {
        // P: the first `end` bins, the values beyond clipped into the last of them.
        p.assign(histogram.begin(), histogram.begin() + end);
        p.back() += outliers;
        // Q: those bins merged into `levels` levels, each level's count spread over the bins
        // of the level that hold values.
        q.assign(static_cast<size_t>(end), 0.0);
        for (int j = 0; j < levels; j++) {
            const int from = static_cast<int>(static_cast<int64_t>(j) * end / levels);
            const int to = static_cast<int>(static_cast<int64_t>(j + 1) * end / levels);
            double sum = 0;
            int used = 0;
            for (int k = from; k < to; k++) {
                sum += histogram[static_cast<size_t>(k)];
                used += histogram[static_cast<size_t>(k)] > 0;
            }
            for (int k = from; k < to; k++) {
                if (histogram[static_cast<size_t>(k)] > 0) q[static_cast<size_t>(k)] = sum / used;
            }
        }
        double p_total = 0, q_total = 0;
        for (int k = 0; k < end; k++) {
            p_total += p[static_cast<size_t>(k)];
            q_total += q[static_cast<size_t>(k)];
        }
        double divergence = 0;
        for (int k = 0; k < end; k++) {
            const double pk = p[static_cast<size_t>(k)] / p_total;
            if (pk <= 0) continue;
            // A bin of P that Q leaves empty (the clipped values' bin): a small floor.
            const double qk = std::max(q[static_cast<size_t>(k)] / q_total, 1e-12);
            divergence += pk * std::log(pk / qk);
        }
        if (divergence < best) {
            best = divergence;
            best_end = end;
        }
        if (end < bins) outliers -= histogram[static_cast<size_t>(end)];
    }
    return best_end * width;
}

}  // namespace dsl::nn::graph
