// Pipeline::auto_tune: a measured search over the heuristic's parameters and per-Func choices
// (Knobs: where each Func is computed, each group's strips). Each
// generation draws candidates (at random at first, then by mutating the fastest so far), lets
// the heuristic schedule the pipeline with each, drops schedules already seen, ranks the rest by
// the cost model, and measures the best ranked (and one more at random, so that the model's
// blind spots get explored): compiled through the JIT (whose caches keep every schedule seen),
// realized at the outputs' estimated sizes, compared with the built-in schedule's output, and
// timed as the fastest of several runs. With several hardware threads, helper processes
// (fork()) compile each generation's measured candidates at once into the JIT's disk cache,
// and this process then loads them from it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "autoschedule/Heuristic.h"
#include "autoschedule/Model.h"
#include "autoschedule/ScheduleWriter.h"
#include "dsl/Pipeline.h"
#include "ir/Error.h"
#include "jit/DiskCache.h"

namespace dsl {

namespace {

using autoschedule::Knobs;

struct Candidate {
    Knobs knobs;
    std::string source;
    double cost = 0;
    double ms = std::numeric_limits<double>::infinity();
    /// The signal that killed the helper process compiling it (0: none did).
    int crash_signal = 0;
    /// Whether a helper process compiled it into the disk cache.
    bool compiled_by_helper = false;
};

template <typename T>
T pick(std::mt19937_64 &rng, const std::vector<T> &values) {
    return values[rng() % values.size()];
}

/// Changes one of the knobs (all of the global ones when `all`) to a value drawn from its range.
/// `funcs`: the pipeline's Funcs but its outputs, whose placement a knob may choose; `all`
/// leaves those to later generations. `gpu`: only the knobs that change a GPU schedule
/// (inlining, grouping, the blocks' tile, placements).
void mutate(Knobs &k, std::mt19937_64 &rng, bool all, const std::vector<std::string> &funcs,
            bool gpu) {
    std::vector<int> ids;
    if (gpu) {
        ids = {1, 3, 4, 14, 15};
    } else {
        for (int i = 0; i < 12; i++)
            ids.push_back(i);
    }
    if (!funcs.empty()) {
        ids.push_back(12);
        if (!gpu) ids.push_back(13);
    }
    const int which = ids[rng() % ids.size()];
    for (int i : ids) {
        if ((!all && i != which) || (all && i >= 12 && i <= 13)) continue;
        switch (i) {
            case 0:
                k.strip_rows = pick<int>(rng, {4, 8, 16, 32, 64, 128});
                break;
            case 1:
                k.max_recompute = pick<double>(rng, {1.1, 1.25, 1.5, 2.0, 3.0});
                break;
            case 2:
                k.min_parallel_points = pick<int64_t>(rng, {1 << 12, 1 << 14, 1 << 16});
                break;
            case 3:
                k.inline_margin = pick<double>(rng, {0.5, 0.75, 1.0, 1.5});
                break;
            case 4:
                k.boundary_reads = pick<double>(rng, {4, 16, 32, 1e9});
                break;
            case 5:
                k.vector_registers = pick<int>(rng, {0, 1, 2, 4});
                break;
            case 6:
                k.tile_vectors = pick<int>(rng, {0, 1, 2, 3, 4, 6});
                break;
            case 7:
                k.tile_rows = pick<int>(rng, {0, 2, 4, 6, 8, 12});
                break;
            case 8:
                k.tile_columns = rng() % 2 == 0;
                break;
            case 9:
                k.panels = rng() % 2 == 0;
                break;
            case 10:
                k.rfactor_chunks_per_thread = pick<int>(rng, {1, 2, 4, 8, 16});
                break;
            case 11:
                k.min_rfactor_points = pick<int64_t>(rng, {1 << 12, 1 << 16, 1 << 20});
                break;
            case 12: {
                // One Func inlined, at root or per strip, or back to the heuristic's choice.
                const std::string &f = funcs[rng() % funcs.size()];
                int p = static_cast<int>(rng() % 4);
                if (p == 3) {
                    k.placement.erase(f);
                } else {
                    k.placement[f] = static_cast<autoschedule::Placement>(p);
                }
                break;
            }
            case 13: {
                // The strips of one group (named by any Func: those that are no group's root
                // change nothing, and their schedule is recognised as seen).
                const std::string &f = funcs[rng() % funcs.size()];
                k.group_strip_rows[f] = pick<int>(rng, {4, 8, 16, 32, 64, 128});
                break;
            }
            case 14:
                k.gpu_tile_x = pick<int>(rng, {8, 16, 32, 64, 128});
                break;
            case 15:
                k.gpu_tile_y = pick<int>(rng, {1, 2, 4, 8, 16, 32});
                break;
        }
    }
}

/// Whether `actual` matches `expected` (same type and shape): integers equal, floats within
/// `tolerance` of the largest magnitude.
bool same_values(const Buffer<> &expected, const Buffer<> &actual, double tolerance) {
    const size_t n = static_cast<size_t>(expected.number_of_elements());
    const Type t = expected.type();
    if (t.is_float() && (t.bits() == 32 || t.bits() == 64)) {
        auto at = [&](const Buffer<> &b, size_t i) {
            return t.bits() == 32 ? static_cast<double>(static_cast<const float *>(b.data())[i])
                                  : static_cast<const double *>(b.data())[i];
        };
        double largest = 0;
        for (size_t i = 0; i < n; i++)
            largest = std::max(largest, std::fabs(at(expected, i)));
        for (size_t i = 0; i < n; i++) {
            double e = at(expected, i), a = at(actual, i);
            if (std::isnan(e) != std::isnan(a)) return false;
            if (!std::isnan(e) && std::fabs(e - a) > tolerance * largest) return false;
        }
        return true;
    }
    return std::memcmp(expected.data(), actual.data(), n * static_cast<size_t>(t.bytes())) == 0;
}

/// A directory of its own for the JIT's disk cache while it lives (then deleted with what it
/// holds), through which helper processes hand their code over when the user's cache is off.
class PrivateDiskCache {
  public:
    PrivateDiskCache() {
        const char *tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/dsl-tune-XXXXXX";
        if (mkdtemp(pattern.data())) {
            directory_ = pattern;
            scope_.emplace(directory_);
        }
    }
    ~PrivateDiskCache() {
        scope_.reset();
        if (directory_.empty()) return;
        if (DIR *d = opendir(directory_.c_str())) {
            while (const dirent *e = readdir(d)) {
                const std::string name = e->d_name;
                if (name != "." && name != "..") unlink((directory_ + "/" + name).c_str());
            }
            closedir(d);
        }
        rmdir(directory_.c_str());
    }
    bool ok() const { return scope_.has_value(); }

  private:
    std::string directory_;
    std::optional<jit::DiskCache::ScopedDirectory> scope_;
};

class Tuner {
  public:
    Tuner(Pipeline &p, const Target &target, const TuneOptions &o)
        : p_(p), target_(target), o_(o), rng_(o.seed), gpu_(target.has_gpu_feature()) {}

    TuneResults run() {
        start_ = std::chrono::steady_clock::now();
        jobs_ = o_.jobs > 0 ? o_.jobs : static_cast<int>(std::thread::hardware_concurrency());
        std::optional<PrivateDiskCache> private_cache;
        if (jobs_ > 1 && !jit::DiskCache::from_environment()) {
            private_cache.emplace();
            if (!private_cache->ok()) jobs_ = 1;
        }
        if (!o_.log_file.empty()) {
            log_.open(o_.log_file, std::ios::app);
            user_assert(log_.good()) << "auto_tune: cannot write the log " << o_.log_file << ".";
        }
        // The Funcs whose placement the search may choose: all but the outputs.
        {
            autoschedule::Model model(p_.outputs(), target_);
            for (const std::string &name : model.order()) {
                if (!model.info(name).is_output) funcs_.push_back(name);
            }
        }
        // The built-in schedule: the reference output, and the time to beat.
        Candidate heuristic = schedule(Knobs());
        make_outputs();
        try {
            p_.compile_jit(target_);
            p_.realize(outputs_, target_);
        } catch (const Error &e) {
            user_error << "auto_tune: the pipeline with the built-in autoscheduler's schedule does "
                          "not run at the estimated sizes: "
                       << e.what() << " Bind every ImageParam to a buffer of the size to tune for.";
        }
        for (const Buffer<> &b : outputs_.buffers())
            reference_.push_back(b.copy());
        heuristic.ms = time_runs();
        heuristic_ms_ = heuristic.ms;
        heuristic_source_ = heuristic.source;
        record(heuristic, true);
        seen_.insert(heuristic.source);
        measured_.push_back(heuristic);
        TuneResults r;
        r.heuristic_ms = heuristic.ms;

        int generation = 0;
        while (elapsed() < o_.seconds) {
            std::vector<Candidate> batch;
            for (int tries = 0; tries < 24 && batch.size() < 12; tries++) {
                Knobs k;
                if (generation < 2 || measured_.size() < 4) {
                    mutate(k, rng_, true, funcs_, gpu_);  // sampling
                } else {
                    // Refinement: one of the four fastest, one or two knobs changed.
                    std::sort(measured_.begin(), measured_.end(),
                              [](const Candidate &a, const Candidate &b) { return a.ms < b.ms; });
                    k = measured_[rng_() % std::min<size_t>(4, measured_.size())].knobs;
                    mutate(k, rng_, false, funcs_, gpu_);
                    if (rng_() % 2) mutate(k, rng_, false, funcs_, gpu_);
                }
                Candidate c = schedule(k);
                if (seen_.insert(c.source).second) batch.push_back(std::move(c));
            }
            generation++;
            if (batch.empty()) {
                if (generation > 50) break;  // nothing new left to try
                continue;
            }
            std::sort(batch.begin(), batch.end(),
                      [](const Candidate &a, const Candidate &b) { return a.cost < b.cost; });
            // The best ranked and one more at random: three, or with several jobs as many as
            // fill whole rounds of them (four with two jobs: they compile in the time of three).
            const size_t wanted =
                jobs_ <= 1 ? 3 : static_cast<size_t>((3 + jobs_ - 1) / jobs_ * jobs_);
            std::vector<Candidate *> chosen;
            for (size_t i = 0; i + 1 < wanted && i < batch.size(); i++)
                chosen.push_back(&batch[i]);
            if (batch.size() >= wanted) {
                const size_t ranked = wanted - 1;
                chosen.push_back(&batch[ranked + rng_() % (batch.size() - ranked)]);
            }
            compile_in_helpers(chosen);
            for (Candidate *c : chosen) {
                if (elapsed() >= o_.seconds) break;
                measure(*c);
            }
        }
        if (o_.progress && isatty(2)) std::fprintf(stderr, "\n");

        const Candidate *best = final_round();
        // (Both times from the final round where it ran, so that they compare.)
        if (heuristic_final_ms_ > 0) r.heuristic_ms = heuristic_final_ms_;
        Candidate final_choice = schedule(best->knobs);
        r.schedule_source = final_choice.source;
        r.best_ms = best->ms;
        r.measured = static_cast<int>(measured_.size()) - 1 + rejected_;  // past the built-in
        r.rejected = rejected_;
        r.best_parameters = best->knobs.to_string();
        r.compiled_by_helpers = compiled_by_helpers_;
        r.crashed = crashed_;
        return r;
    }

  private:
    /// The fastest three schedules measured and the built-in one, timed again in turn for three
    /// rounds (each the fastest of `repetitions` runs): the one with the lowest median wins,
    /// with that median as its time. A few percent between two single measurements is within a
    /// machine's noise, and the search keeps the luckiest.
    const Candidate *final_round() {
        std::sort(measured_.begin(), measured_.end(),
                  [](const Candidate &a, const Candidate &b) { return a.ms < b.ms; });
        std::vector<Candidate *> finalists;
        for (Candidate &c : measured_) {
            if (finalists.size() < 3 || c.source == heuristic_source_) finalists.push_back(&c);
        }
        if (finalists.size() < 2) return finalists.front();
        std::vector<std::vector<double>> times(finalists.size());
        for (int round = 0; round < 3; round++) {
            for (size_t i = 0; i < finalists.size(); i++) {
                schedule(finalists[i]->knobs);
                try {
                    p_.compile_jit(target_);
                    times[i].push_back(time_runs());
                } catch (const Error &) {
                    times[i].push_back(std::numeric_limits<double>::infinity());
                }
            }
        }
        Candidate *best = finalists.front();
        double best_median = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < finalists.size(); i++) {
            std::sort(times[i].begin(), times[i].end());
            const double median = times[i][times[i].size() / 2];
            if (finalists[i]->source == heuristic_source_) heuristic_final_ms_ = median;
            if (median < best_median) {
                best_median = median;
                best = finalists[i];
            }
        }
        best->ms = best_median;
        return best;
    }

    /// Compiles `chosen` into the JIT's disk cache in helper processes, up to `jobs` at a time,
    /// so that measuring each here loads it from there instead of compiling it. A helper that
    /// dies from a signal marks its candidate: the compiler crashes on that schedule, and this
    /// process does not try it. (Nothing is done with one job or one candidate.)
    void compile_in_helpers(const std::vector<Candidate *> &chosen) {
        if (jobs_ <= 1 || chosen.size() < 2) return;
        std::map<pid_t, Candidate *> running;
        // (Each helper is waited for by its own id: other children of this program are not
        // ours to reap.)
        auto wait_one = [&] {
            auto it = running.begin();
            int status = 0;
            pid_t pid;
            do {
                pid = waitpid(it->first, &status, 0);
            } while (pid < 0 && errno == EINTR);
            if (pid == it->first && WIFSIGNALED(status)) {
                it->second->crash_signal = WTERMSIG(status);
            } else if (pid == it->first && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
                it->second->compiled_by_helper = true;
            }
            running.erase(it);
        };
        std::fflush(nullptr);
        for (Candidate *c : chosen) {
            while (static_cast<int>(running.size()) >= jobs_)
                wait_one();
            const pid_t pid = fork();
            if (pid == 0) {
                // The helper: schedule, compile (which stores the code in the disk cache), and
                // leave without running destructors or atexit handlers of the parent's state.
                // Its warnings are the parent's to print, when it loads the code.
                const int null = open("/dev/null", O_WRONLY);
                if (null >= 0) {
                    dup2(null, 1);
                    dup2(null, 2);
                }
                int code = 0;
                try {
                    schedule(c->knobs);
                    p_.compile_jit(target_);
                } catch (...) {
                    code = 1;  // the parent compiles it again and reports the error
                }
                _exit(code);
            }
            if (pid < 0) break;  // no more processes: the rest are compiled here
            running[pid] = c;
        }
        while (!running.empty())
            wait_one();
    }

    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

    /// Schedules the pipeline with `k` (through the heuristic) and returns the candidate.
    Candidate schedule(const Knobs &k) {
        autoschedule::reset_schedules(p_.outputs());
        autoschedule::Model model(p_.outputs(), target_);
        // (The header leaves the knobs out: knob sets giving the same directives are one
        // schedule, which the search measures once.)
        autoschedule::ScheduleWriter writer("dsl auto_tune, target " + target_.to_string() +
                                            ", machine " + o_.machine.to_string());
        autoschedule::Plan plan = autoschedule::schedule_pipeline(model, writer, o_.machine, k);
        Candidate c;
        c.knobs = k;
        c.source = writer.source();
        c.cost = plan.cost;
        return c;
    }

    void make_outputs() {
        std::vector<Buffer<>> buffers;
        autoschedule::Model model(p_.outputs(), target_);
        for (const Func &f : p_.outputs()) {
            const autoschedule::Box &region = model.info(f.name()).region;
            std::vector<int> sizes;
            for (const autoschedule::Span &s : region)
                sizes.push_back(static_cast<int>(s.extent()));
            for (const Type &t : f.types()) {
                Buffer<> b(t, sizes);
                for (size_t d = 0; d < region.size(); d++)
                    b.translate(static_cast<int>(d), static_cast<int>(region[d].min));
                buffers.push_back(b);
            }
        }
        outputs_ = Realization(buffers);
    }

    double time_runs() {
        double best = std::numeric_limits<double>::infinity();
        for (int i = 0; i < std::max(1, o_.repetitions); i++) {
            auto t0 = std::chrono::steady_clock::now();
            p_.realize(outputs_, target_);
            double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            best = std::min(best, ms);
        }
        return best;
    }

    void measure(Candidate &c) {
        // (Counted here, not when the helper ends: the time may run out before a compiled
        // candidate is measured, and then no one loads it.)
        if (c.compiled_by_helper) compiled_by_helpers_++;
        if (c.crash_signal != 0) {
            rejected_++;
            crashed_++;
            record(c, false,
                   "the compiler died from signal " + std::to_string(c.crash_signal) + " (" +
                       strsignal(c.crash_signal) +
                       ") on this schedule in a helper process; it is not tried here");
            return;
        }
        schedule(c.knobs);
        bool ok = true;
        std::string why;
        try {
            p_.compile_jit(target_);
            p_.realize(outputs_, target_);
            for (size_t i = 0; i < reference_.size(); i++) {
                if (!same_values(reference_[i], outputs_[i], o_.tolerance)) {
                    ok = false;
                    why = "the output differs from the built-in schedule's";
                }
            }
            if (ok) c.ms = time_runs();
        } catch (const Error &e) {
            ok = false;
            why = e.what();
        }
        if (ok) {
            measured_.push_back(c);
        } else {
            rejected_++;
        }
        record(c, ok, why);
    }

    void record(const Candidate &c, bool ok, const std::string &why = "") {
        count_++;
        double best = std::numeric_limits<double>::infinity();
        for (const Candidate &m : measured_)
            best = std::min(best, m.ms);
        if (ok) best = std::min(best, c.ms);
        if (log_.is_open()) {
            std::string reason;
            for (char ch : why) {
                if (ch == '"' || ch == '\\') reason += '\\';
                reason += ch == '\n' ? ' ' : ch;
            }
            log_ << "{\"candidate\": " << count_ << ", \"seconds\": " << elapsed()
                 << ", \"ok\": " << (ok ? "true" : "false") << ", \"ms\": " << (ok ? c.ms : -1.0)
                 << ", \"cost\": " << c.cost << ", \"parameters\": \"" << c.knobs.to_string()
                 << "\"" << (ok ? "" : ", \"error\": \"" + reason + "\"") << "}\n";
            log_.flush();
        }
        if (o_.progress && isatty(2)) {
            std::fprintf(stderr,
                         "\rauto_tune: %d candidates, best %.3f ms (built-in %.3f ms), %.0f / "
                         "%.0f s   ",
                         count_, best, heuristic_ms_ > 0 ? heuristic_ms_ : c.ms, elapsed(),
                         o_.seconds);
        }
    }

    Pipeline &p_;
    Target target_;
    TuneOptions o_;
    std::mt19937_64 rng_;
    std::chrono::steady_clock::time_point start_;
    Realization outputs_{std::vector<Buffer<>>{}};
    double heuristic_ms_ = 0;
    std::vector<Buffer<>> reference_;
    std::vector<Candidate> measured_;
    std::set<std::string> seen_;
    std::vector<std::string> funcs_;
    std::string heuristic_source_;
    double heuristic_final_ms_ = 0;
    int rejected_ = 0, count_ = 0, compiled_by_helpers_ = 0, crashed_ = 0;
    /// Processes compiling candidates at once.
    int jobs_ = 1;
    /// Whether the target has a GPU API (then the kernels' schedules are tuned, and each time
    /// includes the copies to and from the device that realize() makes).
    bool gpu_ = false;
    std::ofstream log_;
};

}  // namespace

TuneResults Pipeline::auto_tune(const Target &target, const TuneOptions &options) {
    user_assert(defined()) << "auto_tune: the Pipeline has no outputs; give it a Func.";
    user_assert(options.seconds >= 0 && options.repetitions >= 1)
        << "auto_tune: the budget must be at least 0 seconds and the repetitions at least 1.";
    return Tuner(*this, target, options).run();
}

}  // namespace dsl
