// dsl_fuzz: the differential fuzzer. Each case is a random pipeline with a random schedule
// (test/fuzz/RandomPipeline.h), realized through the JIT (and, every --aot-every cases, through
// an AOT static library loaded into this process) and compared with the reference evaluator
// element by element. With --illegal, each case carries one illegal directive instead, which
// must be refused with a CompileError naming the Func involved: never a crash, an internal
// error, a hang or a result.
//
//   dsl_fuzz [--seed S] [--cases N] [--seconds T] [--illegal] [--gpu] [--npu] [--auto] [--atomic]
//            [--half-floats]
//            [--aot-every K]
//            [--full-opt-every K] [--disk-cache DIR] [--case-cpu-seconds T] [--verbose]
//
// LLVM's optimisation passes take most of a case's time and the fuzzer tests the dsl, not
// LLVM, so the JIT compiles at LLVM's O0 except for cases whose seed is a multiple of
// --full-opt-every (and the AOT cases), which compile at O3 as users' pipelines do.
//
// Case i uses seed S + i, so `dsl_fuzz --seed <case seed> --cases 1` reruns one case. A failure
// prints the seed, what differed and a C++ reproduction of the pipeline and its schedule.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <sys/time.h>
#include <unistd.h>

#include "AotRealize.h"
#include "RandomPipeline.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"
#include "lang/Realize.h"

namespace {

using dsl::fuzz::FuzzCase;

struct Options {
    uint64_t seed = 1;
    long cases = 100;
    double seconds = 0;
    bool illegal = false;
    bool gpu = false;
    bool npu = false;
    bool autoschedule = false;
    bool atomic = false;
    long aot_every = 0;
    long full_opt_every = 16;
    long case_cpu_seconds = 120;
    bool verbose = false;
    std::string disk_cache;  // empty: no disk cache
};

// What a signal handler prints: the case that was running.
char crash_message[160];

extern "C" void on_fatal_signal(int sig) {
    ssize_t ignored = write(2, crash_message, std::strlen(crash_message));
    (void)ignored;
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void usage() {
    std::cerr
        << "usage: dsl_fuzz [--seed S] [--cases N] [--seconds T] [--illegal] [--gpu] [--npu] "
           "[--auto] [--atomic] [--half-floats] "
           "[--aot-every K] [--full-opt-every K] [--disk-cache DIR] [--case-cpu-seconds T] "
           "[--verbose]\n"
           "  --seed S       seed of the first case (case i uses S + i; default 1)\n"
           "  --cases N      number of cases (default 100)\n"
           "  --seconds T    stop after T seconds instead (with --cases, whichever first)\n"
           "  --illegal      schedule-error fuzzing: every case must be refused\n"
           "  --gpu          GPU schedules, run through OpenCL (no AOT; "
           "DSL_FUZZ_GPU_TARGET=host-cuda\n"
           "                 runs them through CUDA instead)\n"
           "  --npu          int8 contractions offloaded to the NPU\n"
           "  --auto         schedules by the autoscheduler (Pipeline::auto_schedule)\n"
           "  --half-floats  Funcs of float16 and bfloat16 too, beside the five element types\n"
           "  --atomic       also atomic() on associative updates, an RVar loop vectorized or\n"
           "                 parallel\n"
           "  --aot-every K  also run every K-th case through an AOT static library\n"
           "  --full-opt-every K\n"
           "                 JIT at LLVM's O3 when the seed is a multiple of K, else at O0\n"
           "                 (default 16; 1 for O3 always)\n"
           "  --disk-cache DIR\n"
           "                 realize through the JIT's disk cache in DIR: every case's Funcs\n"
           "                 have the names of every other case's, so a key that missed a\n"
           "                 difference would run another case's code (run twice over the\n"
           "                 same seeds to check code loaded without lowering, too)\n"
           "  --case-cpu-seconds T\n"
           "                 report a case that spins after T seconds of CPU time (default 120;\n"
           "                 more under valgrind, whose first case alone may take minutes)\n"
           "  --verbose      print every case's reproduction\n";
}

bool parse(int argc, char **argv, Options &o) {
    bool cases_given = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&](const char *name) -> const char * {
            if (i + 1 >= argc) {
                std::cerr << "dsl_fuzz: " << name << " needs a value\n";
                return nullptr;
            }
            return argv[++i];
        };
        // The option's value into `out`, which must be at least 1.
        auto positive = [&](const char *name, long &out) {
            const char *text = value(name);
            if (!text) return false;
            out = std::atol(text);
            if (out >= 1) return true;
            std::cerr << "dsl_fuzz: " << name << " needs a value of at least 1\n";
            return false;
        };
        const char *v = nullptr;
        if (a == "--seed") {
            if (!(v = value("--seed"))) return false;
            o.seed = std::strtoull(v, nullptr, 10);
        } else if (a == "--cases") {
            if (!(v = value("--cases"))) return false;
            o.cases = std::atol(v);
            cases_given = true;
        } else if (a == "--seconds") {
            if (!(v = value("--seconds"))) return false;
            o.seconds = std::atof(v);
        } else if (a == "--aot-every") {
            if (!(v = value("--aot-every"))) return false;
            o.aot_every = std::atol(v);
        } else if (a == "--full-opt-every") {
            if (!positive("--full-opt-every", o.full_opt_every)) return false;
        } else if (a == "--case-cpu-seconds") {
            if (!positive("--case-cpu-seconds", o.case_cpu_seconds)) return false;
        } else if (a == "--disk-cache") {
            if (!(v = value("--disk-cache"))) return false;
            o.disk_cache = v;
            if (o.disk_cache.empty()) {
                std::cerr << "dsl_fuzz: --disk-cache needs a directory\n";
                return false;
            }
        } else if (a == "--illegal") {
            o.illegal = true;
        } else if (a == "--gpu") {
            o.gpu = true;
        } else if (a == "--npu") {
            o.npu = true;
        } else if (a == "--auto") {
            o.autoschedule = true;
        } else if (a == "--atomic") {
            o.atomic = true;
        } else if (a == "--half-floats") {
            dsl::fuzz::set_half_floats(true);
        } else if (a == "--verbose") {
            o.verbose = true;
        } else {
            std::cerr << "dsl_fuzz: unknown argument \"" << a << "\"\n";
            usage();
            return false;
        }
    }
    if (o.seconds > 0 && !cases_given) o.cases = -1;
    return true;
}

/// LLVM's optimisation level for the JIT compilation of a case.
int jit_opt_level(const Options &o, uint64_t seed) {
    return seed % static_cast<uint64_t>(o.full_opt_every) == 0 ? 3 : 0;
}

void report(const FuzzCase &c, const std::string &what) {
    const char *level = std::getenv("DSL_JIT_OPT_LEVEL");
    std::cout << "\n=== FAILURE in case " << c.seed << " (rerun: dsl_fuzz --seed " << c.seed
              << " --cases 1" << (c.illegal_directive.empty() ? "" : " --illegal")
              << (c.target.has_gpu_feature() ? " --gpu" : "")
              << (c.target.has_feature(dsl::Target::Feature::NPU) ? " --npu" : "")
              << (c.auto_scheduled ? " --auto" : "") << (c.atomic_scheduled ? " --atomic" : "")
              << (dsl::fuzz::half_floats() ? " --half-floats" : "")
              << "; the JIT compiled at LLVM O" << (level ? level : "3")
              << ", which the reproduction gets with DSL_JIT_OPT_LEVEL)\n"
              << what << "\n--- reproduction:\n"
              << c.reproduction();
    try {
        std::cout << "--- loop nest:\n" << dsl::Func(c.output).loop_nest();
    } catch (const dsl::Error &) {
    }
    std::cout << std::flush;
}

/// Whether `e` is the runtime error of a bound_extent the case gave (FuzzCase::bounded_funcs)
/// that its readers exceed: the expected outcome of such a case.
bool is_bound_error(const FuzzCase &c, const dsl::Error &e) {
    if (!dynamic_cast<const dsl::RuntimeError *>(&e)) return false;
    const std::string m = e.what();
    if (m.find("do not cover required region") == std::string::npos) return false;
    for (const std::string &f : c.bounded_funcs)
        if (m.find("Bounds given for " + f + " in ") != std::string::npos) return true;
    return false;
}

/// One legal case: realize through the JIT (and AOT) and compare with the reference. Sets
/// `bound_stopped` when the realization stopped with the runtime error of a bound_extent the
/// readers exceed (a correct outcome, nothing to compare).
bool run_legal(const FuzzCase &c, bool aot, bool &bound_stopped) {
    bound_stopped = false;
    dsl::Realization r({});
    // One case in seven realizes into outputs that are not dense (every other element of a
    // wider allocation), so that the JIT's version of the pipeline for any strides runs too.
    const bool strided = c.seed % 7 == 3;
    const char *how = strided ? " (into outputs of stride 2 in x: realize the reproduction into "
                                "such buffers to see it)"
                              : "";
    std::vector<std::vector<uint8_t>> memory;
    try {
        dsl::Func f(c.output);
        if (strided) {
            const int w = c.output_size[0], h = c.output_size[1];
            std::vector<dsl::Buffer<>> buffers;
            for (const dsl::Type &t : f.types()) {
                memory.emplace_back(static_cast<size_t>(2 * w * h * t.bytes()));
                buffers.emplace_back(t, memory.back().data(),
                                     std::vector<dsl_dimension_t>{{0, w, 2, 0}, {0, h, 2 * w, 0}},
                                     "strided_output");
            }
            r = dsl::Realization(buffers);
            f.realize(r, c.target);
        } else {
            r = f.realize(c.output_size, c.target);
        }
    } catch (const dsl::Error &e) {
        if (is_bound_error(c, e)) {
            bound_stopped = true;
            return true;
        }
        report(c, std::string("realize threw") + how + ": " + e.what());
        return false;
    }
    ::testing::AssertionResult ok = dsl::test::matches_reference(c.output, r, 1e-4);
    if (!ok) {
        report(c, std::string("JIT result differs") + how + ": " + ok.message());
        return false;
    }
    if (aot) {
        std::string error;
        dsl::Realization a = dsl::fuzz::aot_realize(c, error);
        if (!error.empty()) {
            report(c, "AOT: " + error);
            return false;
        }
        ok = dsl::test::matches_reference(c.output, a, 1e-4);
        if (!ok) {
            report(c, std::string("AOT result differs: ") + ok.message());
            return false;
        }
    }
    return true;
}

/// Whether an error message names a Func of a fuzz case (they are all called f<i>).
bool names_a_func(const std::string &m) {
    return m.find("\"f") != std::string::npos || m.find(" f") != std::string::npos ||
           m.find("(f") != std::string::npos;
}

/// One illegal case: must be refused with a CompileError that names a Func of the pipeline.
bool run_illegal(const FuzzCase &c) {
    try {
        dsl::Func(c.output).realize(c.output_size);
    } catch (const dsl::CompileError &e) {
        std::string m = e.what();
        if (!names_a_func(m)) {
            report(c, "the CompileError names no Func: " + m);
            return false;
        }
        return true;
    } catch (const dsl::Error &e) {
        report(c, std::string("expected a CompileError, got: ") + e.what());
        return false;
    }
    report(c, "the illegal directive was accepted: " + c.illegal_directive);
    return false;
}

}  // namespace

int main(int argc, char **argv) {
    Options o;
    if (!parse(argc, argv, o)) return 2;
    // Every case is a new pipeline: the JIT's disk cache would only fill up, a write per case,
    // unless it is what is tested.
    setenv("DSL_CACHE_DIR", o.disk_cache.empty() ? "off" : o.disk_cache.c_str(), 1);
    // Warnings (a vector loop left scalar, ...) are expected of random schedules.
    if (!o.verbose) std::cerr.rdbuf(nullptr);
    // The handler runs on its own stack, so that a stack overflow is reported too.
    static char handler_stack[1 << 16];
    stack_t alternate{};
    alternate.ss_sp = handler_stack;
    alternate.ss_size = sizeof(handler_stack);
    sigaltstack(&alternate, nullptr);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM, SIGPROF}) {
        struct sigaction action {};
        action.sa_handler = on_fatal_signal;
        action.sa_flags = SA_ONSTACK;
        sigaction(sig, &action, nullptr);
    }
    if (o.gpu) {
        const std::string why = dsl::fuzz::gpu_fuzz_unavailable();
        if (!why.empty()) {
            std::cout << "dsl_fuzz: GPU schedules on " << dsl::fuzz::gpu_fuzz_target().to_string()
                      << " cannot run on this machine, so none were drawn: " << why << "\n";
            return 77;  // CTest's and scripts/gpu_check.sh's code for a skip
        }
    }
    auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    long done = 0, failures = 0, aot_cases = 0, early_refusals = 0, bounded = 0, bound_stops = 0,
         constrained = 0;
    double last_progress = 0;
    bool aot_pending = false;  // the last case due for AOT could not be: take the next
    for (long i = 0; o.cases < 0 || i < o.cases; i++) {
        if (o.seconds > 0 && elapsed() >= o.seconds) break;
        uint64_t seed = o.seed + static_cast<uint64_t>(i);
        std::snprintf(crash_message, sizeof(crash_message),
                      "\n=== dsl_fuzz: case %llu crashed or hung (rerun: dsl_fuzz --seed %llu "
                      "--cases 1%s)\n",
                      static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed),
                      o.illegal        ? " --illegal"
                      : o.gpu          ? " --gpu"
                      : o.npu          ? " --npu"
                      : o.autoschedule ? " --auto"
                      : o.atomic       ? " --atomic"
                                       : "");
        // A case that spins is reported after 120 s of CPU time (SIGPROF; --case-cpu-seconds),
        // not of wall time: a
        // fuzzer at low priority beside builds may wait minutes for a core. One that blocks
        // without computing is reported after 20 minutes of wall time (SIGALRM).
        itimerval cpu_limit{};
        cpu_limit.it_value.tv_sec = o.case_cpu_seconds;
        setitimer(ITIMER_PROF, &cpu_limit, nullptr);
        alarm(1200);
        setenv("DSL_JIT_OPT_LEVEL", std::to_string(jit_opt_level(o, seed)).c_str(), 1);
        bool ok = true;
        FuzzCase c;
        try {
            c = o.illegal        ? dsl::fuzz::make_illegal_case(seed)
                : o.gpu          ? dsl::fuzz::make_gpu_case(seed)
                : o.npu          ? dsl::fuzz::make_npu_case(seed)
                : o.autoschedule ? dsl::fuzz::make_auto_case(seed)
                : o.atomic       ? dsl::fuzz::make_atomic_case(seed)
                                 : dsl::fuzz::make_case(seed);
        } catch (const dsl::Error &e) {
            std::cout << "\n=== FAILURE in case " << seed << ": building the case threw "
                      << e.what() << "\n";
            ok = false;
        }
        if (ok && o.verbose) std::cout << c.reproduction() << std::flush;
        if (!ok) {
            // Reported above.
        } else if (o.illegal && c.refused_early) {
            // Refused when the directive was given.
            early_refusals++;
            ok = names_a_func(c.early_message);
            if (!ok) report(c, "the CompileError names no Func: " + c.early_message);
        } else if (o.illegal) {
            ok = run_illegal(c);
        } else {
            bool aot = !o.gpu && o.aot_every > 0 && (i % o.aot_every == 0 || aot_pending);
            aot_pending = aot && !c.arguments_exact;
            aot = aot && c.arguments_exact;
            bool bound_stopped = false;
            ok = run_legal(c, aot, bound_stopped);
            aot_cases += aot && !bound_stopped;
            bounded += !c.bounded_funcs.empty();
            bound_stops += bound_stopped;
            constrained += c.constrained;
        }
        itimerval off{};
        setitimer(ITIMER_PROF, &off, nullptr);
        alarm(0);
        done++;
        failures += !ok;
        if (elapsed() - last_progress >= 10) {
            last_progress = elapsed();
            std::cout << "dsl_fuzz: " << done << " cases, " << failures << " failures, "
                      << static_cast<int>(elapsed()) << " s" << std::endl;
        }
    }
    std::cout << "dsl_fuzz: " << done << " " << (o.illegal ? "illegal-schedule" : "pipeline")
              << " cases from seed " << o.seed << " (" << aot_cases << " also through AOT";
    if (o.illegal) std::cout << ", " << early_refusals << " refused when the directive was given";
    if (!o.illegal) {
        std::cout << ", " << bounded << " with a bound_extent, " << bound_stops
                  << " of them stopped by its runtime error, " << constrained
                  << " with buffer constraints";
    }
    if (!o.disk_cache.empty()) {
        dsl::lang::JITCounters jit = dsl::lang::jit_counters();
        std::cout << ", disk cache: " << jit.disk_cache_hits << " hits, " << jit.disk_cache_misses
                  << " misses, " << jit.disk_cache_rejected << " rejected";
    }
    std::cout << ") in " << elapsed() << " s: " << failures << " failure"
              << (failures == 1 ? "" : "s") << std::endl;
    return failures == 0 ? 0 : 1;
}
