// main() of dsl_bench: registers the app benchmarks (each app's peers next to each other), runs
// every selected benchmark with Google Benchmark's console output, and then prints markdown
// tables of the apps against Halide 14: run time (ms, wall clock) per thread count and JIT
// compile time, with the ratio dsl / Halide (below 1: ours is faster) and our time with a warm
// JIT disk cache (the key of the definitions, then loading the stored object: no lowering, no
// LLVM). A table only has the rows for which both sides ran; the time of a benchmark is the median
// of its repetitions (--benchmark_repetitions), or its single run.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#ifdef DSL_BENCH_HAVE_APPS
#include "apps_common.h"
#endif

namespace {

// Remembers the wall-clock time (ms) of every benchmark that ran without error, by its name
// without the time type ("blur/dsl" and "threads:1"), and the label of its last run.
class RecordingReporter : public benchmark::ConsoleReporter {
  public:
    RecordingReporter() : ConsoleReporter(OO_Tabular) {}

    void ReportRuns(const std::vector<Run> &runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run &run : runs) {
            if (run.error_occurred) continue;
            Timing &t = timings_[{run.run_name.function_name, run.run_name.args}];
            const double ms =
                run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e3;
            if (run.run_type == Run::RT_Aggregate) {
                if (run.aggregate_name == "median") t.median = ms;
            } else {
                t.samples.push_back(ms);
            }
            if (!run.report_label.empty()) t.label = run.report_label;
        }
    }

    /// The median time of `name`/`args` in ms; false if it did not run (or failed).
    bool time_ms(const std::string &name, const std::string &args, double &ms,
                 std::string *label = nullptr) const {
        auto it = timings_.find({name, args});
        if (it == timings_.end()) return false;
        const Timing &t = it->second;
        if (label) *label = t.label;
        if (t.median >= 0) {
            ms = t.median;
            return true;
        }
        if (t.samples.empty()) return false;
        std::vector<double> s = t.samples;
        std::sort(s.begin(), s.end());
        const size_t n = s.size();
        ms = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        return true;
    }

  private:
    struct Timing {
        double median = -1;
        std::vector<double> samples;
        std::string label;
    };
    std::map<std::pair<std::string, std::string>, Timing> timings_;
};

std::string format_ms(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, ms >= 100 ? "%.0f" : ms >= 10 ? "%.1f" : "%.2f", ms);
    return text;
}

std::string format_ratio(double r) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", r);
    return text;
}

// The app comparison tables (markdown), for the apps whose two sides both ran.
void print_summary(const RecordingReporter &reporter, const std::vector<std::string> &apps) {
    std::vector<std::string> run_rows, compile_rows, auto_rows;
    for (const std::string &app : apps) {
        for (int threads : {1, 2}) {
            const std::string args = "threads:" + std::to_string(threads);
            double ours, theirs, automatic, scheduling;
            std::string label;
            if (reporter.time_ms(app + "/dsl", args, ours, &label) &&
                reporter.time_ms(app + "/dsl_auto", args, automatic)) {
                std::string sched = reporter.time_ms(app + "/dsl_auto_schedule", "", scheduling)
                                        ? format_ms(scheduling)
                                        : "-";
                std::string row = "| " + app + " | " + label + " | " + std::to_string(threads) +
                                  " | " + format_ms(ours) + " | " + format_ms(automatic) + " | " +
                                  format_ratio(ours / automatic) + " | " + sched + " |";
                double tuned;
                row += reporter.time_ms(app + "/dsl_tuned", args, tuned)
                           ? " " + format_ms(tuned) + " (" + format_ratio(ours / tuned) + ") |"
                           : " - |";
                // Halide 14's autoschedulers on the same algorithm: their time, and ours / theirs.
                for (const char *peer : {"Mullapudi2016", "Adams2019", "Li2018"}) {
                    double t;
                    row += reporter.time_ms(app + "/halide_" + peer, args, t)
                               ? " " + format_ms(t) + " (" + format_ratio(automatic / t) + ") |"
                               : " - |";
                }
                auto_rows.push_back(row);
            }
            if (reporter.time_ms(app + "/dsl", args, ours, &label) &&
                reporter.time_ms(app + "/halide", args, theirs)) {
                run_rows.push_back("| " + app + " | " + label + " | " + std::to_string(threads) +
                                   " | " + format_ms(ours) + " | " + format_ms(theirs) + " | " +
                                   format_ratio(ours / theirs) + " |");
            }
        }
        double ours, theirs, cached;
        if (reporter.time_ms(app + "/dsl_compile", "", ours) &&
            reporter.time_ms(app + "/halide_compile", "", theirs)) {
            std::string cached_ms =
                reporter.time_ms(app + "/dsl_compile_cached", "", cached) ? format_ms(cached) : "-";
            compile_rows.push_back("| " + app + " | " + format_ms(ours) + " | " +
                                   format_ms(theirs) + " | " + format_ratio(ours / theirs) + " | " +
                                   cached_ms + " |");
        }
    }
    if (!run_rows.empty()) {
        std::printf("\nApps against Halide 14: run time (wall clock, median), ms\n\n");
        std::printf("| app | size | threads | dsl ms | Halide ms | dsl / Halide |\n");
        std::printf("|---|---|---:|---:|---:|---:|\n");
        for (const std::string &row : run_rows)
            std::printf("%s\n", row.c_str());
    }
    if (!auto_rows.empty()) {
        std::printf(
            "\nThe autoscheduler against the hand-written schedules and Halide 14's "
            "autoschedulers: run time (wall clock, median), ms; speed = hand / auto (1 or "
            "more: auto as fast); in parentheses, our auto / theirs (below 1: ours is "
            "faster)\n\n");
        std::printf(
            "| app | size | threads | hand ms | auto ms | speed | scheduling ms | "
            "tuned ms (hand / tuned) | Mullapudi2016 ms | Adams2019 ms | Li2018 ms |\n");
        std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (const std::string &row : auto_rows)
            std::printf("%s\n", row.c_str());
    }
    if (!compile_rows.empty()) {
        std::printf(
            "\nApps against Halide 14: JIT compile time (build, schedule, compile_jit), "
            "ms\n\n");
        std::printf("| app | dsl ms | Halide ms | dsl / Halide | dsl, warm disk cache ms |\n");
        std::printf("|---|---:|---:|---:|---:|\n");
        for (const std::string &row : compile_rows)
            std::printf("%s\n", row.c_str());
    }
}

}  // namespace

int main(int argc, char **argv) {
    // The compile-time benchmarks measure LLVM at work: no JIT disk cache, except in
    // <app>/dsl_compile_cached, which sets up its own.
    setenv("DSL_CACHE_DIR", "off", 1);
    std::vector<std::string> apps;
#ifdef DSL_BENCH_HAVE_APPS
    for (const dsl_bench::AppSpec &spec : dsl_bench::app_specs()) {
        apps.push_back(spec.name);
        dsl_bench::register_dsl_benchmarks(spec);
#ifdef DSL_BENCH_HAVE_HALIDE
        dsl_bench::register_halide_benchmarks(spec);
#endif
    }
    for (const dsl_bench::AppSpec &spec : dsl_bench::app_specs()) {
        dsl_bench::register_dsl_compile_benchmark(spec);
#ifdef DSL_BENCH_HAVE_HALIDE
        dsl_bench::register_halide_compile_benchmark(spec);
#endif
    }
#endif
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    RecordingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    print_summary(reporter, apps);
    return 0;
}
