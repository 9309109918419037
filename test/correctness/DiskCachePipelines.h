#pragma once
/// The pipelines of the disk cache's tests (DiskCachePipelineTest.cpp), shared with the program
/// those tests run as a second process (process/DiskCacheProcess.cpp). Every Func, Var and input
/// is named: unnamed ones take numbered names in creation order, which would give the same
/// pipeline another key in a process that created other Funcs first.

#include <cmath>
#include <cstdint>

#include "dsl/dsl.h"

namespace dsl::test {

constexpr int kDiskCacheWidth = 67;
constexpr int kDiskCacheHeight = 45;

inline uint16_t disk_cache_input_value(int x, int y) {
    return static_cast<uint16_t>((x * 7919 + y * 104729) % 4096);
}

inline Buffer<uint16_t> disk_cache_input() {
    Buffer<uint16_t> in({kDiskCacheWidth, kDiskCacheHeight}, "disk_cache_input");
    in.for_each_element([&](int x, int y) { in(x, y) = disk_cache_input_value(x, y); });
    return in;
}

/// A 3x3 box blur of `in` with clamped edges, under one of three schedules (0: default,
/// 1: tiled, vectorized and parallel, 2: rows computed per output row).
inline Func disk_cache_blur(const Buffer<uint16_t> &in, int schedule) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func rows("disk_cache_rows"), blur("disk_cache_blur");
    rows(x, y) = clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y);
    blur(x, y) = (rows(x, y - 1) + rows(x, y) + rows(x, y + 1)) / 9;
    if (schedule == 1) {
        blur.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo);
        rows.compute_at(blur, xo).vectorize(x, 8);
    } else if (schedule == 2) {
        rows.compute_at(blur, y);
    }
    return blur;
}

/// The number of pixels of `out` that differ from a plain loop's blur.
inline int disk_cache_blur_errors(const Buffer<uint16_t> &out) {
    auto at = [](int x, int y) {
        x = std::min(std::max(x, 0), kDiskCacheWidth - 1);
        y = std::min(std::max(y, 0), kDiskCacheHeight - 1);
        return static_cast<int>(disk_cache_input_value(x, y));
    };
    int errors = 0;
    for (int y = 0; y < kDiskCacheHeight; y++) {
        for (int x = 0; x < kDiskCacheWidth; x++) {
            int sum = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    sum += at(x + dx, y + dy);
            if (out(x, y) != sum / 9) errors++;
        }
    }
    return errors;
}

/// Floating-point arithmetic whose last bits depend on the instructions chosen (fused or not,
/// vector or scalar), for checking that loaded code is the code that would have been compiled.
inline Func disk_cache_float_pipeline(const Buffer<uint16_t> &in) {
    Var x("x"), y("y");
    Func f("disk_cache_float");
    Expr v = cast<float>(in(x, y)) * 0.001f;
    f(x, y) = sqrt(v) * 1.7f + exp(-v) * v - sin(v * 3.1f) / (v + 0.5f);
    f.vectorize(x, 8);
    return f;
}

}  // namespace dsl::test
