#pragma once
// What the apps' drivers share: the command line, image conversions, timing, and one place that
// turns every error into a message and a non-zero exit status.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "dsl/Buffer.h"

namespace dsl_apps {

/// The command line every driver takes:
///   <app> <input image> <output.png> [--benchmark [runs]]
struct Options {
    std::string input;
    std::string output;
    bool benchmark = false;
    int runs = 10;
};

/// Parses argv into `options`; on a mistake prints the usage line to stderr and returns false.
bool parse_options(int argc, char **argv, const std::string &what, Options &options);

/// The number in the environment variable `name`, or `value` when it is unset; anything that is
/// not a number in [lo, hi] is a std::runtime_error naming the variable and the range.
float float_from_env(const char *name, float value, float lo, float hi);

/// `text` as a whole number in [1, max]; anything else is a std::runtime_error saying
/// "the size <what> must be a whole number in [1, <max>], not \"<text>\"".
int parse_size(const char *text, const char *what, int max);

/// Calls `body`, and turns any exception into "<app>: error: <message>" on stderr and status 1.
int run_main(const std::string &app, const std::function<int()> &body);

/// An 8-bit grey or RGB(A) image as grey uint8 (luma, integer BT.601 weights). Any other element
/// type or channel count is a std::runtime_error naming `file`.
dsl::Buffer<uint8_t> to_grey_u8(const dsl::Buffer<> &image, const std::string &file);

/// An 8-bit grey or RGB(A) image as planar RGB float in [0, 1] (grey is copied to the three
/// channels; alpha is dropped).
dsl::Buffer<float> to_rgb_float(const dsl::Buffer<> &image, const std::string &file);

/// The best wall-clock time of `runs` calls of `f`, in milliseconds.
template <typename F>
double best_time_ms(int runs, F &&f) {
    double best = 1e300;
    for (int i = 0; i < runs; i++) {
        auto start = std::chrono::steady_clock::now();
        f();
        auto end = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::milli>(end - start).count());
    }
    return best;
}

/// Prints the benchmark's result: readable lines, then one line scripts/demo.sh parses:
///   result <app> <width>x<height> <naive ms> <scheduled ms> <jit ms>
/// `naive_ms` and `scheduled_ms` are the AOT libraries of the default and the hand-written
/// schedule; `jit_ms` is realize() of the hand-written schedule (compiled before the timed runs).
/// `naive_label` names the baseline schedule where it is not the default one.
void print_benchmark(const std::string &app, int width, int height, int runs, double naive_ms,
                     double scheduled_ms, double jit_ms,
                     const std::string &naive_label = "default schedule");

/// The driver's --benchmark: times `naive` and `scheduled` (calls of the default-schedule and the
/// hand-written AOT libraries, returning their status) and `jit` (realize() of the hand-written
/// schedule), and prints them with print_benchmark. 0, or 1 with a message if a library failed.
template <typename Naive, typename Scheduled, typename Jit>
int run_benchmark(const std::string &app, int width, int height, int runs, Naive &&naive,
                  Scheduled &&scheduled, Jit &&jit,
                  const std::string &naive_label = "default schedule") {
    int status = 0;
    double naive_ms = best_time_ms(runs, [&] { status |= naive(); });
    double scheduled_ms = best_time_ms(runs, [&] { status |= scheduled(); });
    if (status != 0) {
        std::fprintf(stderr, "%s_run: error: an AOT library returned an error\n", app.c_str());
        return 1;
    }
    double jit_ms = best_time_ms(runs, jit);
    print_benchmark(app, width, height, runs, naive_ms, scheduled_ms, jit_ms, naive_label);
    return 0;
}

}  // namespace dsl_apps
