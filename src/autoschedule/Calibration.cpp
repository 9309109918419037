// MachineCosts: the cost model's constants, measured on this machine by compiling and timing
// small pipelines (arithmetic in registers, streams through each cache level and main memory,
// an empty parallel loop), and kept in a text file of `name=value` lines.
#include <unistd.h>

#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <type_traits>

#include "autoschedule/Host.h"
#include "dsl/AutoSchedule.h"
#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/Expr.h"
#include "dsl/Func.h"
#include "dsl/Var.h"
#include "dsl/runtime/dsl_runtime.h"
#include "ir/Error.h"

namespace dsl {

namespace {

using Clock = std::chrono::steady_clock;

/// The fastest of `runs` calls of `body` after one warm-up call, in nanoseconds; runs stop early
/// once `budget_ms` is spent (after at least three).
double fastest_ns(const std::function<void()> &body, int runs, double budget_ms = 150) {
    body();
    double best = 1e300, spent = 0;
    for (int i = 0; i < runs && (i < 3 || spent < budget_ms * 1e6); i++) {
        auto t0 = Clock::now();
        body();
        double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        best = std::min(best, ns);
        spent += ns;
    }
    return best;
}

/// Vector multiplies in registers: 8 vectors of independent chains of 32 multiplies each, over
/// data in the first-level cache (multiplies, which LLVM may not reassociate or fold).
double measure_vector_op_ns(const Target &t) {
    const int lanes = t.natural_vector_size<float>();
    const int chains = 8, steps = 32, n = lanes * chains * 64;
    Buffer<float> in(n), out(n);
    for (int i = 0; i < n; i++)
        in(i) = 1.0f + static_cast<float>(i % 7) * 1e-3f;
    Var x("x"), xo("xo"), xi("xi");
    Func f("calibrate_arithmetic");
    Expr v = Func(in)(x);
    for (int k = 0; k < steps; k++)
        v = v * (1.0f + static_cast<float>(k % 5 - 2) * 1e-4f);
    f(x) = v;
    f.split(x, xo, xi, lanes * chains).vectorize(xi, lanes).unroll(xi);
    f.compile_jit(t);
    const double vector_ops = static_cast<double>(n) / lanes * steps;
    return fastest_ns([&] { f.realize(out); }, 200) / vector_ops;
}

/// Bytes per nanosecond streamed over `bytes` of data on `threads` threads (1: serial): `out(x) +=
/// in(x)` over two buffers of half that each, repeated inside the pipeline (an RDom outside the
/// vectorized loop) until some megabytes have passed, so that the call's own cost does not count
/// (three streams: in read, out read and written).
double measure_stream(const Target &t, uint64_t bytes, int threads) {
    const int lanes = t.natural_vector_size<float>();
    const int n = static_cast<int>(std::max<uint64_t>(bytes / 8, static_cast<uint64_t>(lanes * 4)));
    const int reps = static_cast<int>(std::max<uint64_t>(1, (16u << 20) / (12ull * n)));
    Buffer<float> in(n), out(n);
    for (int i = 0; i < n; i++)
        in(i) = static_cast<float>(i & 255);
    Var x("x"), xo("xo"), xi("xi");
    RDom k(0, reps, "k");
    const bool parallel = threads > 1;
    Func f(parallel ? "calibrate_stream_parallel" : "calibrate_stream");
    f(x) = 0.0f;
    f(x) += Func(in)(x + k * 0);  // (k named, so that the update loops over it)
    f.update().reorder(x, k);
    if (parallel) {
        // One chunk per thread, each streaming its own part of the buffers reps times.
        const int chunk = std::max(lanes * 4, (n + threads - 1) / threads);
        f.update()
            .split(x, xo, xi, chunk, TailStrategy::GuardWithIf)
            .reorder(xi, k, xo)
            .vectorize(xi, lanes)
            .parallel(xo);
    } else {
        f.update().vectorize(x, lanes * 4);
    }
    f.compile_jit(t);
    const int runs = bytes > (64u << 20) ? 5 : 30;
    return 12.0 * n * reps / fastest_ns([&] { f.realize(out); }, runs);
}

/// A parallel loop's start and end: one task per thread of some microseconds of arithmetic,
/// less the same work's time on one thread divided among the threads.
double measure_parallel_loop_ns(const Target &t, int threads) {
    const int lanes = t.natural_vector_size<float>();
    const int per_task = lanes * 256;
    Buffer<float> out(per_task * threads);
    Var x("x"), xo("xo"), xi("xi");
    Func serial("calibrate_serial_loop"), parallel("calibrate_parallel_loop");
    Expr v = cast<float>(x);
    for (int k = 0; k < 16; k++)
        v = v * 1.0001f + 0.5f;
    serial(x) = v;
    parallel(x) = v;
    serial.split(x, xo, xi, per_task).vectorize(xi, lanes);
    parallel.split(x, xo, xi, per_task).vectorize(xi, lanes).parallel(xo);
    serial.compile_jit(t);
    parallel.compile_jit(t);
    double with = fastest_ns([&] { parallel.realize(out); }, 3000, 100);
    double without = fastest_ns([&] { serial.realize(out); }, 3000, 100);
    return std::max(0.0, with - without / threads);
}

/// Calls `f(name, member)` for every number of the machine file, in the file's order: the one
/// list that load and to_string both read.
template <typename F>
void for_each_field(MachineCosts &c, F f) {
    f("threads", c.threads);
    f("vector_op_ns", c.vector_op_ns);
    f("l1_bytes_per_ns", c.l1_bytes_per_ns);
    f("l2_bytes_per_ns", c.l2_bytes_per_ns);
    f("llc_bytes_per_ns", c.llc_bytes_per_ns);
    f("dram_bytes_per_ns", c.dram_bytes_per_ns);
    f("dram_parallel_bytes_per_ns", c.dram_parallel_bytes_per_ns);
    f("parallel_loop_ns", c.parallel_loop_ns);
    f("l1_bytes", c.l1_bytes);
    f("l2_bytes", c.l2_bytes);
    f("llc_bytes", c.llc_bytes);
}

double parse_number(const std::string &path, int line, const std::string &name,
                    const std::string &value) {
    char *end = nullptr;
    errno = 0;
    double v = std::strtod(value.c_str(), &end);
    user_assert(end && *end == 0 && !value.empty() && errno == 0 && std::isfinite(v) && v >= 0)
        << "the machine file " << path << ", line " << line << ": \"" << name << "\" is \"" << value
        << "\", not a number of 0 or more; run dsl-calibrate to write the file again.";
    return v;
}

}  // namespace

namespace autoschedule {

int host_threads() {
    int threads = 0;
    if (const char *env = std::getenv("DSL_NUM_THREADS")) threads = std::atoi(env);
    if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
    return std::max(1, threads);
}

uint64_t host_cache_size(int sysconf_name, uint64_t fallback) {
    long v = sysconf(sysconf_name);
    return v > 0 ? static_cast<uint64_t>(v) : fallback;
}

}  // namespace autoschedule

MachineCosts MachineCosts::measure() {
    MachineCosts c;
    const Target t = Target::host();
    c.threads = autoschedule::host_threads();
    c.l1_bytes = autoschedule::host_cache_size(_SC_LEVEL1_DCACHE_SIZE, c.l1_bytes);
    c.l2_bytes = autoschedule::host_cache_size(_SC_LEVEL2_CACHE_SIZE, c.l2_bytes);
    c.llc_bytes = autoschedule::host_cache_size(_SC_LEVEL3_CACHE_SIZE,
                                                std::max<uint64_t>(c.l2_bytes, c.llc_bytes));
    dsl_set_num_threads(c.threads);
    c.vector_op_ns = measure_vector_op_ns(t);
    // Each cache level is measured with data (both buffers) of a quarter of its size, the last
    // level with 8 MiB at most, and main memory with four times the last level or 128 MiB,
    // whichever is less (a large last-level cache that a virtual machine reports is often not
    // there for one guest).
    c.l1_bytes_per_ns = measure_stream(t, c.l1_bytes / 4, 1);
    c.l2_bytes_per_ns = measure_stream(t, c.l2_bytes / 4, 1);
    c.llc_bytes_per_ns = measure_stream(t, std::min<uint64_t>(c.llc_bytes / 4, 8u << 20), 1);
    const uint64_t dram = std::min<uint64_t>(c.llc_bytes * 4, 128u << 20);
    c.dram_bytes_per_ns = measure_stream(t, dram, 1);
    c.dram_parallel_bytes_per_ns =
        c.threads > 1 ? measure_stream(t, dram, c.threads) : c.dram_bytes_per_ns;
    c.parallel_loop_ns = c.threads > 1 ? measure_parallel_loop_ns(t, c.threads) : 0;
    dsl_set_num_threads(0);
    c.source = "measured";
    return c;
}

std::string MachineCosts::default_path() {
    if (const char *file = std::getenv("DSL_MACHINE_FILE"); file && *file) return file;
    if (const char *xdg = std::getenv("XDG_CONFIG_HOME"); xdg && xdg[0] == '/')
        return std::string(xdg) + "/dsl/machine.txt";
    if (const char *home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.config/dsl/machine.txt";
    return "";
}

MachineCosts MachineCosts::host() {
    const std::string path = default_path();
    if (path.empty() || access(path.c_str(), R_OK) != 0) return MachineCosts();
    return load(path);
}

MachineCosts MachineCosts::load(const std::string &path) {
    std::ifstream in(path);
    user_assert(in.good()) << "cannot read the machine file " << path << ": "
                           << std::strerror(errno) << ".";
    MachineCosts c;
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
        line++;
        if (text.empty() || text[0] == '#') continue;
        size_t eq = text.find('=');
        user_assert(eq != std::string::npos)
            << "the machine file " << path << ", line " << line << ": \"" << text
            << "\" is not name=value; run dsl-calibrate to write the file again.";
        std::string name = text.substr(0, eq), value = text.substr(eq + 1);
        double v = parse_number(path, line, name, value);
        bool known = false;
        for_each_field(c, [&](const char *field, auto &member) {
            if (name != field) return;
            member = static_cast<std::decay_t<decltype(member)>>(v);
            known = true;
        });
        user_assert(known) << "the machine file " << path << ", line " << line
                           << ": unknown name \"" << name
                           << "\"; run dsl-calibrate to write the file again.";
    }
    c.threads = std::max(1, c.threads);
    const double bandwidths[] = {c.l1_bytes_per_ns, c.l2_bytes_per_ns, c.llc_bytes_per_ns,
                                 c.dram_bytes_per_ns, c.dram_parallel_bytes_per_ns};
    for (double b : bandwidths) {
        user_assert(b > 0) << "the machine file " << path
                           << " gives a bandwidth of 0; run dsl-calibrate to write it again.";
    }
    c.source = path;
    return c;
}

std::string MachineCosts::to_string() const {
    std::ostringstream out;
    MachineCosts copy = *this;
    for_each_field(copy,
                   [&](const char *field, auto &member) { out << field << "=" << member << "\n"; });
    return out.str();
}

void MachineCosts::save(const std::string &path) const {
    user_assert(!path.empty()) << "MachineCosts::save: no path (set DSL_MACHINE_FILE or HOME).";
    // Creates the folders above the file, one at a time.
    for (size_t slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
        std::string dir = path.substr(0, slash);
        user_assert(mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST)
            << "cannot create the folder " << dir
            << " for the machine file: " << std::strerror(errno) << ".";
    }
    std::ofstream out(path);
    out << "# dsl machine costs (dsl-calibrate): the autoscheduler's cost model reads them\n"
        << to_string();
    user_assert(out.good()) << "cannot write the machine file " << path << ": "
                            << std::strerror(errno) << ".";
}

float MachineCosts::balance(int vector_lanes) const {
    const double op_ns = vector_op_ns / std::max(1, vector_lanes);
    return static_cast<float>((1.0 / dram_bytes_per_ns) / std::max(op_ns, 1e-6));
}

}  // namespace dsl
