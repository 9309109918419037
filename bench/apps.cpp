// The seven image apps of apps/ on our side, for the comparison with Halide 14 (apps_halide.cpp):
// each app's algorithm (make_<app>) with its hand-written CPU schedule (schedule_<app>) over the
// benchmark input (apps_common.h), through the JIT, for the host with `fp_contract` (float
// multiply-adds fused, as Halide's code generation fuses them by default) except where the
// output is checked bit for bit (see app_target).
//
//   <app>/dsl/threads:N   realize() into a preallocated output, N threads of the runtime's pool
//                         (dsl_set_num_threads). Compiled once with compile_jit() before the
//                         timed loop, and the output checked against the app's plain C++
//                         reference (a mismatch stops the benchmark with an error).
//   <app>/dsl_auto/threads:N
//                         the same, auto-scheduled (Pipeline::auto_schedule) for the benchmark's
//                         size; <app>/dsl_auto_schedule times the autoscheduler alone
//   <app>/dsl_tuned/threads:N
//                         the same, with the schedule Pipeline::auto_tune found in
//                         DSL_BENCH_TUNE_SECONDS of search (registered only when that is set),
//                         compiling candidates in DSL_BENCH_TUNE_JOBS processes at once (default:
//                         one per hardware thread)
//   <app>/dsl_compile     each iteration builds the pipeline from scratch (new Funcs, so the
//                         JIT's compile cache never hits), schedules it and calls compile_jit().
//                         main() turns the JIT's disk cache off: LLVM compiles every time.
//   <app>/dsl_compile_cached
//                         the same with the disk cache on, in a temporary directory that one
//                         untimed compilation fills: each iteration computes the key of the
//                         pipeline's definitions and loads the stored object without lowering
//                         (what a second run of a program costs).
//
// Every benchmark's label is the output's size, which the summary table (main.cpp) shows. With
// DSL_BENCH_DUMP=<dir>, <app>/dsl/... also writes the final lowered statement and the assembly
// of each pipeline to <dir>/<app>_dsl.stmt and <app>_dsl.s (apps_halide.cpp: <app>_halide.*).

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "apps_common.h"
#include "bilateral_grid.h"
#include "blur.h"
#include "camera_pipe.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"
#include "harris.h"
#include "histogram_equalize.h"
#include "local_laplacian.h"
#include "unsharp.h"

namespace dsl_bench {

namespace {

using dsl::Func;
using dsl::ImageParam;
using dsl::Target;

// The target an app is compiled for: this machine, with float multiply-adds fused (fp_contract)
// as Halide's code generation fuses them by default, so that both sides do the same arithmetic,
// for the apps whose check against their plain C++ reference allows for the last bits of a float
// (unsharp, harris, bilateral_grid). The others keep every float rounded as written: camera_pipe
// is checked bit for bit, and local_laplacian's pyramid within 8 of 65535 (with fp_contract 36 of
// its 11.8 million values differ by more, up to 36), and blur and histogram_equalize compute
// with integers only.
Target app_target(const std::string &app) {
    const Tolerance t = app_spec(app).dsl_vs_reference;
    if (t != Tolerance::kWithinOne && t != Tolerance::kRelative1e4) return Target::host();
    return Target::host().with_feature(Target::Feature::FP_CONTRACT);
}

// "host (sse41 avx ...)": the JIT's target and the features it found ("-fp_contract" for the
// apps not checked bit for bit).
std::string host_target_description() {
    std::string s = Target::host().to_string() + "[-fp_contract] (";
    for (Target::Feature f : Target::host().features())
        s += (s.back() == '(' ? "" : " ") + Target::feature_name(f);
    return s + ")";
}

// How an app is scheduled: by its hand-written schedule, or by the autoscheduler told the
// benchmark's output size (Pipeline::auto_schedule for the app's target), or by the measured
// tuner (Pipeline::auto_tune, DSL_BENCH_TUNE_SECONDS of search, once per app and process; later
// builds apply the schedule it found).
enum class How { Hand, Auto, Tuned };

double tune_seconds() {
    const char *s = std::getenv("DSL_BENCH_TUNE_SECONDS");
    return s ? std::atof(s) : 0;
}

template <typename Hand>
void schedule_app(How how, Func output, const std::string &app, Hand hand) {
    if (how == How::Hand) {
        hand();
        return;
    }
    const std::vector<int> &sizes = app_spec(app).output_sizes;
    for (size_t d = 0; d < sizes.size(); d++)
        output.set_estimate(output.args()[d], 0, sizes[d]);
    dsl::Pipeline p(output);
    std::string source;
    if (how == How::Auto) {
        source = p.auto_schedule(app_target(app)).schedule_source;
    } else {
        static std::map<std::string, std::string> tuned;
        auto it = tuned.find(app);
        if (it == tuned.end()) {
            dsl::TuneOptions o;
            o.seconds = tune_seconds();
            o.progress = false;
            if (const char *jobs = std::getenv("DSL_BENCH_TUNE_JOBS")) o.jobs = std::atoi(jobs);
            if (const char *dir = std::getenv("DSL_BENCH_DUMP"))
                o.log_file = std::string(dir) + "/" + app + "_tune.jsonl";
            dsl_set_num_threads(0);  // tuned on every core
            it = tuned.emplace(app, p.auto_tune(app_target(app), o).schedule_source).first;
        }
        source = it->second;
        p.apply_schedule_source(source);
    }
    if (const char *dir = std::getenv("DSL_BENCH_DUMP")) {
        const std::string file =
            std::string(dir) + "/" + app + (how == How::Auto ? "_auto.cpp" : "_tuned.cpp");
        if (std::FILE *f = std::fopen(file.c_str(), "w")) {
            std::fputs(source.c_str(), f);
            std::fclose(f);
        }
    }
}

// Each app's pipeline over its benchmark input, scheduled for the host: a new pipeline (new
// Funcs) at every call.
Func build_blur(How how) {
    ImageParam input(dsl::UInt(16), 2, "input");
    input.set(blur_input());
    dsl_apps::BlurPipeline p = dsl_apps::make_blur(input);
    schedule_app(how, p.blur_y, "blur", [&] { dsl_apps::schedule_blur(p, Target::host()); });
    return p.blur_y;
}

Func build_unsharp(How how) {
    ImageParam input(dsl::Float(32), 3, "input");
    input.set(unsharp_input());
    dsl::Param<float> amount("amount", kUnsharpAmount);
    dsl_apps::UnsharpPipeline p = dsl_apps::make_unsharp(input, amount);
    schedule_app(how, p.output, "unsharp", [&] { dsl_apps::schedule_unsharp(p, Target::host()); });
    return p.output;
}

Func build_histogram_equalize(How how) {
    ImageParam input(dsl::UInt(8), 2, "input");
    input.set(histogram_input());
    dsl_apps::HistogramEqualizePipeline p = dsl_apps::make_histogram_equalize(input);
    schedule_app(how, p.output, "histogram_equalize",
                 [&] { dsl_apps::schedule_histogram_equalize(p, Target::host()); });
    return p.output;
}

Func build_harris(How how) {
    ImageParam input(dsl::Float(32), 3, "input");
    input.set(harris_input());
    dsl_apps::HarrisPipeline p = dsl_apps::make_harris(input);
    schedule_app(how, p.output, "harris", [&] { dsl_apps::schedule_harris(p, Target::host()); });
    return p.output;
}

Func build_bilateral_grid(How how) {
    ImageParam input(dsl::Float(32), 2, "input");
    input.set(bilateral_input());
    dsl_apps::BilateralGridPipeline p = dsl_apps::make_bilateral_grid(input);
    schedule_app(how, p.output, "bilateral_grid",
                 [&] { dsl_apps::schedule_bilateral_grid(p, Target::host()); });
    return p.output;
}

Func build_camera_pipe(How how) {
    ImageParam input(dsl::UInt(16), 2, "input");
    input.set(camera_pipe_input());
    dsl_apps::CameraPipePipeline p = dsl_apps::make_camera_pipe(input);
    schedule_app(how, p.output, "camera_pipe",
                 [&] { dsl_apps::schedule_camera_pipe(p, Target::host()); });
    return p.output;
}

Func build_local_laplacian(How how) {
    ImageParam input(dsl::UInt(16), 3, "input");
    input.set(local_laplacian_input());
    dsl::Param<int> levels("levels", kLaplacianLevels, 2, 32);
    dsl::Param<float> alpha("alpha", kLaplacianAlpha), beta("beta", kLaplacianBeta);
    dsl_apps::LocalLaplacianPipeline p = dsl_apps::make_local_laplacian(input, levels, alpha, beta);
    schedule_app(how, p.output, "local_laplacian",
                 [&] { dsl_apps::schedule_local_laplacian(p, Target::host()); });
    return p.output;
}

// The plain C++ reference of each app on its benchmark input.
dsl::Buffer<> reference_of(const std::string &app) {
    if (app == "blur") return dsl_apps::blur_reference(blur_input());
    if (app == "unsharp") return dsl_apps::unsharp_reference(unsharp_input(), kUnsharpAmount);
    if (app == "histogram_equalize")
        return dsl_apps::histogram_equalize_reference(histogram_input());
    if (app == "harris") return dsl_apps::harris_reference(harris_input());
    if (app == "bilateral_grid") return dsl_apps::bilateral_grid_reference(bilateral_input());
    if (app == "camera_pipe") return dsl_apps::camera_pipe_reference(camera_pipe_input());
    if (app == "local_laplacian") {
        return dsl_apps::local_laplacian_reference(local_laplacian_input(), kLaplacianLevels,
                                                   kLaplacianAlpha, kLaplacianBeta);
    }
    throw std::invalid_argument("no app named " + app);
}

using Builder = Func (*)(How);

Builder builder_of(const std::string &app) {
    static const std::map<std::string, Builder> builders = {
        {"blur", build_blur},
        {"unsharp", build_unsharp},
        {"histogram_equalize", build_histogram_equalize},
        {"harris", build_harris},
        {"bilateral_grid", build_bilateral_grid},
        {"camera_pipe", build_camera_pipe},
        {"local_laplacian", build_local_laplacian},
    };
    return builders.at(app);
}

// Each reference once per process (the larger ones take a second).
const dsl::Buffer<> &reference(const std::string &app) {
    static std::map<std::string, dsl::Buffer<>> references;
    auto it = references.find(app);
    if (it == references.end()) it = references.emplace(app, reference_of(app)).first;
    return it->second;
}

dsl::Buffer<> new_output(const AppSpec &spec, const dsl::Buffer<> &like) {
    return dsl::Buffer<>(like.type(), spec.output_sizes);
}

// range(0): the threads of the runtime's pool. Google Benchmark calls this several times (to size
// the timed loop and once per repetition); each call compiles and checks again, untimed.
void run_app(benchmark::State &state, const std::string &app, How how) {
    const AppSpec &spec = app_spec(app);
    dsl_set_num_threads(static_cast<int>(state.range(0)));
    try {
        const dsl::Buffer<> &expected = reference(app);
        dsl::Buffer<> out = new_output(spec, expected);
        Func f = builder_of(app)(how);
        f.compile_jit(app_target(app));
        if (const char *dir = std::getenv("DSL_BENCH_DUMP")) {
            const std::string base = std::string(dir) + "/" + app +
                                     (how == How::Auto    ? "_dsl_auto"
                                      : how == How::Tuned ? "_dsl_tuned"
                                                          : "_dsl");
            f.compile_to_lowered_stmt(base + ".stmt");
            f.compile_to_assembly(base + ".s", app_target(app));
        }
        f.realize(out, app_target(app));
        const std::string mismatch = compare_outputs(expected, out.data(), spec.dsl_vs_reference);
        if (!mismatch.empty()) {
            state.SkipWithError(
                ("the output differs from the plain C++ reference: " + mismatch).c_str());
        } else {
            for (auto _ : state) {
                f.realize(out, app_target(app));
                benchmark::DoNotOptimize(out.data());
                benchmark::ClobberMemory();
            }
        }
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
    state.SetLabel(size_label(spec));
    dsl_set_num_threads(0);
}

void compile_app(benchmark::State &state, const std::string &app) {
    try {
        builder_of(app)(How::Hand).compile_jit(
            app_target(app));  // LLVM's own first-use costs, untimed
        for (auto _ : state) {
            Func f = builder_of(app)(How::Hand);
            f.compile_jit(app_target(app));
            benchmark::DoNotOptimize(f);
        }
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
    state.SetLabel(size_label(app_spec(app)));
}

// The autoscheduler alone: each iteration builds the algorithm and auto-schedules it (no
// compilation).
void auto_schedule_app(benchmark::State &state, const std::string &app) {
    try {
        for (auto _ : state) {
            Func f = builder_of(app)(How::Auto);
            benchmark::DoNotOptimize(f);
        }
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
    state.SetLabel(size_label(app_spec(app)));
}

void compile_app_cached(benchmark::State &state, const std::string &app) {
    namespace fs = std::filesystem;
    std::string pattern = (fs::temp_directory_path() / "dsl_bench_cache_XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
        state.SkipWithError(("cannot create a temporary directory " + pattern).c_str());
        return;
    }
    const fs::path dir = pattern;
    setenv("DSL_CACHE_DIR", dir.c_str(), 1);
    try {
        builder_of(app)(How::Hand).compile_jit(
            app_target(app));  // compiles and stores the object, untimed
        for (auto _ : state) {
            Func f = builder_of(app)(How::Hand);
            f.compile_jit(app_target(app));
            benchmark::DoNotOptimize(f);
        }
        // One entry, or the pipeline's key changed from one build to the next (a Func or Var
        // without a name takes a new numbered one each time), and this measured compilations.
        const auto entries = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
        if (entries != 1) {
            state.SkipWithError((app + ": the disk cache holds " + std::to_string(entries) +
                                 " entries instead of one; the pipeline's key changes when it is "
                                 "built again")
                                    .c_str());
        }
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
    setenv("DSL_CACHE_DIR", "off", 1);
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    state.SetLabel(size_label(app_spec(app)));
}

}  // namespace

void register_dsl_benchmarks(const AppSpec &spec) {
    static const bool context_added =
        (benchmark::AddCustomContext("dsl_target", host_target_description()), true);
    (void)context_added;
    const std::string app = spec.name;
    const std::pair<const char *, How> runs[] = {
        {"/dsl", How::Hand}, {"/dsl_auto", How::Auto}, {"/dsl_tuned", How::Tuned}};
    for (const auto &[suffix, how] : runs) {
        if (how == How::Tuned && tune_seconds() <= 0) continue;
        const How h = how;
        benchmark::RegisterBenchmark((app + suffix).c_str(),
                                     [app, h](benchmark::State &s) { run_app(s, app, h); })
            ->ArgName("threads")
            ->Arg(1)
            ->Arg(2)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
}

void register_dsl_compile_benchmark(const AppSpec &spec) {
    const std::string app = spec.name;
    benchmark::RegisterBenchmark((app + "/dsl_compile").c_str(),
                                 [app](benchmark::State &s) { compile_app(s, app); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((app + "/dsl_auto_schedule").c_str(),
                                 [app](benchmark::State &s) { auto_schedule_app(s, app); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((app + "/dsl_compile_cached").c_str(),
                                 [app](benchmark::State &s) { compile_app_cached(s, app); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

const dsl::Buffer<> &dsl_output(const std::string &app) {
    static std::map<std::string, dsl::Buffer<>> outputs;
    auto it = outputs.find(app);
    if (it != outputs.end()) return it->second;
    const AppSpec &spec = app_spec(app);
    const dsl::Buffer<> &expected = reference(app);
    dsl::Buffer<> out = new_output(spec, expected);
    builder_of(app)(How::Hand).realize(out, app_target(app));
    const std::string mismatch = compare_outputs(expected, out.data(), spec.dsl_vs_reference);
    if (!mismatch.empty()) {
        throw std::runtime_error(
            "our output, which Halide's is compared with, differs from the "
            "plain C++ reference: " +
            mismatch);
    }
    return outputs.emplace(app, out).first->second;
}

}  // namespace dsl_bench
