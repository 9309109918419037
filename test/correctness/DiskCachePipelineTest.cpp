// Realizing pipelines through the JIT's disk cache (jit/DiskCache.h), each test in a fresh
// DSL_CACHE_DIR: a compiled pipeline writes one entry, which new Funcs in this process and a
// second process (disk_cache_process) load instead of compiling; other schedules, targets and
// optimisation levels get other entries; damaged entries are compiled anew; eight threads and two
// processes compiling one pipeline into an empty cache; the cache turned off, capped, or
// unwritable. Results are checked against a plain loop, and code loaded from the cache must
// compute bit for bit what freshly compiled code computes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include "DiskCachePipelines.h"
#include "common/TempDirectory.h"
#include "lang/Realize.h"

extern char **environ;

namespace dsl {
namespace {

using test::ScopedEnvironmentVariable;
using test::TempDirectory;

using test::read_file;
using test::write_file;

/// The disk cache's counters since `before`.
struct CacheCounts {
    uint64_t hits, misses, rejected, stores;
};
CacheCounts counts_since(const lang::JITCounters &before) {
    lang::JITCounters now = lang::jit_counters();
    return {now.disk_cache_hits - before.disk_cache_hits,
            now.disk_cache_misses - before.disk_cache_misses,
            now.disk_cache_rejected - before.disk_cache_rejected,
            now.disk_cache_stores - before.disk_cache_stores};
}

/// Builds the blur anew (new Funcs: the in-memory cache cannot help), realizes it and checks
/// every pixel. Returns what the disk cache did.
CacheCounts realize_blur(int schedule, const Target &target = Target::host()) {
    lang::JITCounters before = lang::jit_counters();
    Buffer<uint16_t> in = test::disk_cache_input();
    Func blur = test::disk_cache_blur(in, schedule);
    Buffer<uint16_t> out = blur.realize({test::kDiskCacheWidth, test::kDiskCacheHeight}, target);
    EXPECT_EQ(test::disk_cache_blur_errors(out), 0) << "schedule " << schedule;
    return counts_since(before);
}

/// The entries (not temporary files) in `dir`.
std::vector<std::string> entries_in(const std::string &dir) {
    std::vector<std::string> entries;
    for (const std::string &name : test::list_directory(dir))
        if (name.size() > 2 && name.compare(name.size() - 2, 2, ".o") == 0 && name[0] != '.')
            entries.push_back(dir + "/" + name);
    return entries;
}

/// A run of disk_cache_process: its exit status and the numbers it printed.
struct ProcessRun {
    int status = -1;
    std::map<std::string, long> printed;
    std::string output;
};

pid_t start_process(int schedule, const std::string &output_path) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::string program = DSL_DISK_CACHE_PROCESS;
    std::string argument = std::to_string(schedule);
    char *argv[] = {program.data(), argument.data(), nullptr};
    pid_t pid = -1;
    int error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(error, 0) << "cannot start " << program << ": " << std::strerror(error);
    return error == 0 ? pid : -1;
}

ProcessRun finish_process(pid_t pid, const std::string &output_path) {
    ProcessRun run;
    if (pid < 0) return run;
    int status = 0;
    if (waitpid(pid, &status, 0) == pid && WIFEXITED(status)) run.status = WEXITSTATUS(status);
    run.output = read_file(output_path);
    std::istringstream words(run.output);
    std::string name;
    long value;
    while (words >> name >> value)
        run.printed[name] = value;
    return run;
}

ProcessRun run_process(int schedule, const std::string &output_path) {
    return finish_process(start_process(schedule, output_path), output_path);
}

class DiskCachePipelineTest : public ::testing::Test {
  protected:
    TempDirectory tmp_;
    std::string dir_ = tmp_.path() + "/cache";
    ScopedEnvironmentVariable cache_dir_{"DSL_CACHE_DIR", dir_};
    ScopedEnvironmentVariable max_mb_{"DSL_CACHE_MAX_MB", std::nullopt};
    ScopedEnvironmentVariable opt_level_{"DSL_JIT_OPT_LEVEL", std::nullopt};
};

TEST_F(DiskCachePipelineTest, CompiledPipelineWritesOneEntryThatNewFuncsLoad) {
    CacheCounts first = realize_blur(1);
    EXPECT_EQ(first.misses, 1u);
    EXPECT_EQ(first.stores, 1u);
    EXPECT_EQ(first.hits, 0u);
    ASSERT_EQ(entries_in(dir_).size(), 1u);
    EXPECT_EQ(test::list_directory(dir_).size(), 1u) << "temporary files left behind";

    lang::JITCounters before = lang::jit_counters();
    CacheCounts second = realize_blur(1);
    EXPECT_EQ(second.hits, 1u);
    EXPECT_EQ(second.misses, 0u);
    EXPECT_EQ(second.stores, 0u);
    EXPECT_EQ(lang::jit_counters().compilations - before.compilations, 1u)
        << "new Funcs miss the in-memory cache";
    EXPECT_EQ(lang::jit_counters().lowerings - before.lowerings, 0u)
        << "the entry is found by the key of the definitions, before lowering";
    EXPECT_EQ(entries_in(dir_).size(), 1u);
}

TEST_F(DiskCachePipelineTest, SecondProcessLoadsInsteadOfCompiling) {
    ProcessRun first = run_process(1, tmp_.path() + "/first.txt");
    ASSERT_EQ(first.status, 0) << first.output;
    EXPECT_EQ(first.printed["misses"], 1) << first.output;
    EXPECT_EQ(first.printed["stores"], 1) << first.output;
    ASSERT_EQ(entries_in(dir_).size(), 1u);

    ProcessRun second = run_process(1, tmp_.path() + "/second.txt");
    ASSERT_EQ(second.status, 0) << second.output;
    EXPECT_EQ(second.printed["hits"], 1) << second.output;
    EXPECT_EQ(second.printed["misses"], 0) << second.output;
    EXPECT_EQ(second.printed["lowerings"], 0) << second.output;
    EXPECT_EQ(second.printed["errors"], 0) << second.output;

    // And this process, which compiled nothing of it, loads it too.
    EXPECT_EQ(realize_blur(1).hits, 1u);
}

TEST_F(DiskCachePipelineTest, ScheduleTargetAndOptLevelMakeOtherEntries) {
    EXPECT_EQ(realize_blur(0).misses, 1u);
    EXPECT_EQ(realize_blur(1).misses, 1u);
    EXPECT_EQ(realize_blur(2).misses, 1u);
    EXPECT_EQ(entries_in(dir_).size(), 3u);
    if (Target::host().arch == Target::Arch::X86) {
        // Baseline x86-64 instead of this machine's CPU.
        EXPECT_EQ(realize_blur(1, Target()).misses, 1u);
        EXPECT_EQ(entries_in(dir_).size(), 4u);
        EXPECT_EQ(realize_blur(1, Target()).hits, 1u);
    }
    size_t entries = entries_in(dir_).size();
    {
        ScopedEnvironmentVariable level("DSL_JIT_OPT_LEVEL", "1");
        EXPECT_EQ(realize_blur(1).misses, 1u);
        EXPECT_EQ(realize_blur(1).hits, 1u);
    }
    EXPECT_EQ(entries_in(dir_).size(), entries + 1);
    for (int schedule = 0; schedule < 3; schedule++)
        EXPECT_EQ(realize_blur(schedule).hits, 1u) << "schedule " << schedule;
}

/// Compiles the blur into the cache, damages its entry with `damage`, and expects the next
/// realization to reject it, compile, compute the right result and write a good entry.
void expect_compiled_anew(const std::string &dir,
                          const std::function<std::string(std::string)> &damage, const char *what) {
    SCOPED_TRACE(what);
    realize_blur(1);
    std::vector<std::string> entries = entries_in(dir);
    ASSERT_EQ(entries.size(), 1u);
    write_file(entries[0], damage(read_file(entries[0])));
    CacheCounts damaged = realize_blur(1);
    EXPECT_EQ(damaged.rejected, 1u);
    EXPECT_EQ(damaged.hits, 0u);
    EXPECT_EQ(damaged.stores, 1u);
    EXPECT_EQ(realize_blur(1).hits, 1u) << "the entry was not written again";
}

TEST_F(DiskCachePipelineTest, DamagedEntriesAreCompiledAnew) {
    expect_compiled_anew(
        dir_, [](std::string s) { return s.substr(0, s.size() / 2); }, "truncated");
    expect_compiled_anew(
        dir_, [](std::string) { return std::string(); }, "empty");
    expect_compiled_anew(
        dir_,
        [](std::string s) {
            for (size_t i = s.size() - 64; i < s.size(); i++)
                s[i] = static_cast<char>(~s[i]);
            return s;
        },
        "object bytes flipped");
    expect_compiled_anew(
        dir_,
        [](std::string s) {
            for (size_t i = 0; i < 64; i++)
                s[i] = static_cast<char>(i * 13 + 7);
            return s;
        },
        "garbage header");
    expect_compiled_anew(
        dir_, [](std::string) { return std::string(4096, '\x7f'); }, "garbage file");
}

TEST_F(DiskCachePipelineTest, LoadedCodeComputesExactlyWhatCompiledCodeComputes) {
    Buffer<uint16_t> in = test::disk_cache_input();
    auto realize_float = [&] {
        Func f = test::disk_cache_float_pipeline(in);
        return Buffer<float>(f.realize({test::kDiskCacheWidth, test::kDiskCacheHeight}));
    };
    Buffer<float> uncached;
    {
        ScopedEnvironmentVariable off("DSL_CACHE_DIR", "off");
        uncached = realize_float();
    }
    lang::JITCounters before = lang::jit_counters();
    Buffer<float> compiled = realize_float();
    Buffer<float> loaded = realize_float();
    CacheCounts counts = counts_since(before);
    EXPECT_EQ(counts.misses, 1u);
    EXPECT_EQ(counts.hits, 1u);
    int differences = 0;
    uncached.for_each_element([&](int x, int y) {
        if (std::memcmp(&uncached(x, y), &compiled(x, y), sizeof(float)) != 0 ||
            std::memcmp(&uncached(x, y), &loaded(x, y), sizeof(float)) != 0)
            differences++;
    });
    EXPECT_EQ(differences, 0);
}

// A pipeline loaded without lowering runs on the inputs of the Funcs that found it: another
// Buffer of the same name, type and dimensions (other contents, other size), another Param of
// the same name (other value), an ImageParam bound to another buffer. A Param with another range
// is another pipeline (the range is checked in the code).
TEST_F(DiskCachePipelineTest, LoadedPipelineReadsTheInputsOfTheNewFuncs) {
    struct Run {
        CacheCounts counts;
        uint64_t lowerings;
        Buffer<int32_t> out;
    };
    auto run = [](int lut_size, int lut_scale, int offset, int max_offset, int image_value) {
        Buffer<int32_t> lut({lut_size}, "dc_lut");
        lut.for_each_element([&](int i) { lut(i) = i * lut_scale; });
        Buffer<int32_t> image({16, 3}, "dc_image");
        image.fill(image_value);
        ImageParam in(Int(32), 2, "dc_in");
        in.set(image);
        Param<int> p("dc_offset", 0, 0, max_offset);
        p.set(offset);
        Func f("dc_inputs");
        Var x("x"), y("y");
        f(x, y) = lut(x % 4) + in(x, y) * 10 + p;
        f.vectorize(x, 4);
        lang::JITCounters before = lang::jit_counters();
        Buffer<int32_t> out = f.realize({16, 3});
        return Run{counts_since(before), lang::jit_counters().lowerings - before.lowerings, out};
    };
    auto check = [](const Run &r, int lut_scale, int offset, int image_value, const char *what) {
        int bad = 0;
        r.out.for_each_element([&](int x, int y) {
            bad += r.out(x, y) != (x % 4) * lut_scale + image_value * 10 + offset;
        });
        EXPECT_EQ(bad, 0) << what;
    };
    Run first = run(4, 1, 3, 10, 5);
    EXPECT_EQ(first.counts.misses, 1u);
    EXPECT_EQ(first.lowerings, 1u);
    check(first, 1, 3, 5, "compiled");

    Run second = run(4, 100, 7, 10, 2);
    EXPECT_EQ(second.counts.hits, 1u);
    EXPECT_EQ(second.lowerings, 0u);
    check(second, 100, 7, 2, "loaded, with other inputs");

    // The layout of a Buffer the pipeline reads is compiled into the code.
    Run other_layout = run(6, 100, 7, 10, 2);
    EXPECT_EQ(other_layout.counts.misses, 1u) << "a Buffer's layout is part of the key";
    EXPECT_EQ(other_layout.lowerings, 1u);
    check(other_layout, 100, 7, 2, "a Buffer of another size");

    Run other_range = run(4, 1, 3, 20, 5);
    EXPECT_EQ(other_range.counts.misses, 1u) << "a Param's range is part of the key";
    EXPECT_EQ(other_range.lowerings, 1u);
    check(other_range, 1, 3, 5, "another range");
    EXPECT_EQ(entries_in(dir_).size(), 3u);
}

// Lowering's warnings are kept with the code and reported again when it is loaded without
// lowering.
TEST_F(DiskCachePipelineTest, LoadedPipelineReportsLoweringsWarningsAgain) {
    auto realize = [] {
        Func g("dc_warn_g"), f("dc_warn_f");
        Var x("x");
        g(x) = x * 2;
        f(x) = g(x) + 1;
        g.vectorize(x, 8);  // g stays inlined: this cannot apply
        lang::JITCounters before = lang::jit_counters();
        ::testing::internal::CaptureStderr();
        Buffer<int> out = f.realize({16});
        std::string err = ::testing::internal::GetCapturedStderr();
        EXPECT_EQ(out(5), 11);
        return std::make_pair(counts_since(before), err);
    };
    const std::string warning = "dsl: warning: Func \"dc_warn_g\" is computed inline";
    auto [compiled, compiled_err] = realize();
    EXPECT_EQ(compiled.misses, 1u);
    EXPECT_NE(compiled_err.find(warning), std::string::npos) << compiled_err;
    auto [loaded, loaded_err] = realize();
    EXPECT_EQ(loaded.hits, 1u);
    EXPECT_NE(loaded_err.find(warning), std::string::npos) << loaded_err;
}

// A pipeline whose definitions name two different inputs alike, one of them only in the
// schedule of a Func that is inlined (so lowering never meets it), has no key before lowering:
// its key is the lowered code's. Loaded from the cache, it still runs with its inputs bound.
TEST_F(DiskCachePipelineTest, PipelineKeyedByItsLoweredCodeRunsWhenLoaded) {
    auto realize = [](int offset) {
        Buffer<int32_t> image({16}, "dc_same_image");
        image.for_each_element([&](int i) { image(i) = i * 3 + offset; });
        ImageParam in(Int(32), 1, "dc_same");
        in.set(image);
        Param<int> factor("dc_same");
        factor.set(4);
        Func g("dc_lowered_key_g"), f("dc_lowered_key_f");
        Var x("x"), xo("xo"), xi("xi");
        g(x) = in(x)*2;
        g.split(x, xo, xi, factor);  // g stays inlined: this cannot apply
        f(x) = g(x) + 1;
        lang::JITCounters before = lang::jit_counters();
        ::testing::internal::CaptureStderr();
        Buffer<int32_t> out = f.realize({16});
        ::testing::internal::GetCapturedStderr();
        int bad = 0;
        out.for_each_element([&](int i) { bad += out(i) != (i * 3 + offset) * 2 + 1; });
        EXPECT_EQ(bad, 0) << "offset " << offset;
        return counts_since(before);
    };
    CacheCounts compiled = realize(0);
    EXPECT_EQ(compiled.misses, 1u);
    CacheCounts loaded = realize(5);
    EXPECT_EQ(loaded.hits, 1u);
}

TEST_F(DiskCachePipelineTest, EightThreadsCompilingOnePipeline) {
    constexpr int kThreads = 8;
    lang::JITCounters before = lang::jit_counters();
    std::atomic<int> ready{0}, wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([&] {
            Buffer<uint16_t> in = test::disk_cache_input();
            Func blur = test::disk_cache_blur(in, 1);
            ready++;
            while (ready.load() < kThreads)
                std::this_thread::yield();
            Buffer<uint16_t> out = blur.realize({test::kDiskCacheWidth, test::kDiskCacheHeight});
            if (test::disk_cache_blur_errors(out) != 0) wrong++;
        });
    }
    for (std::thread &t : threads)
        t.join();
    EXPECT_EQ(wrong.load(), 0);
    CacheCounts counts = counts_since(before);
    EXPECT_EQ(counts.hits + counts.misses, uint64_t(kThreads));
    EXPECT_EQ(counts.rejected, 0u);
    EXPECT_GE(counts.stores, 1u);
    EXPECT_EQ(test::list_directory(dir_).size(), 1u) << "one entry, no temporary files";
    EXPECT_EQ(realize_blur(1).hits, 1u);
}

TEST_F(DiskCachePipelineTest, TwoProcessesCompilingOnePipeline) {
    std::string out_a = tmp_.path() + "/a.txt", out_b = tmp_.path() + "/b.txt";
    pid_t a = start_process(2, out_a);
    pid_t b = start_process(2, out_b);
    ProcessRun run_a = finish_process(a, out_a);
    ProcessRun run_b = finish_process(b, out_b);
    ASSERT_EQ(run_a.status, 0) << run_a.output;
    ASSERT_EQ(run_b.status, 0) << run_b.output;
    EXPECT_EQ(run_a.printed["rejected"] + run_b.printed["rejected"], 0);
    EXPECT_EQ(test::list_directory(dir_).size(), 1u) << "one entry, no temporary files";
    ProcessRun third = run_process(2, tmp_.path() + "/c.txt");
    ASSERT_EQ(third.status, 0) << third.output;
    EXPECT_EQ(third.printed["hits"], 1) << third.output;
}

TEST_F(DiskCachePipelineTest, OffWritesNothing) {
    // Nothing under DSL_CACHE_DIR's would-be directory, nor under XDG_CACHE_HOME or HOME.
    ScopedEnvironmentVariable home("HOME", tmp_.path() + "/home");
    ScopedEnvironmentVariable xdg("XDG_CACHE_HOME", tmp_.path() + "/xdg");
    for (const char *off : {"off", "0", ""}) {
        ScopedEnvironmentVariable dir("DSL_CACHE_DIR", std::string(off));
        CacheCounts counts = realize_blur(1);
        EXPECT_EQ(counts.hits + counts.misses + counts.rejected + counts.stores, 0u) << off;
    }
    EXPECT_TRUE(test::list_directory(tmp_.path()).empty());
}

TEST_F(DiskCachePipelineTest, DefaultDirectoryIsUnderXdgCacheHome) {
    ScopedEnvironmentVariable dir("DSL_CACHE_DIR", std::nullopt);
    ScopedEnvironmentVariable xdg("XDG_CACHE_HOME", tmp_.path() + "/xdg");
    EXPECT_EQ(realize_blur(1).stores, 1u);
    EXPECT_EQ(entries_in(tmp_.path() + "/xdg/dsl").size(), 1u);
}

TEST_F(DiskCachePipelineTest, SizeCapEvictsOldEntries) {
    // A cap below one entry's size: each write leaves only the entry just written.
    ScopedEnvironmentVariable max("DSL_CACHE_MAX_MB", "0.001");
    for (int schedule = 0; schedule < 3; schedule++) {
        EXPECT_EQ(realize_blur(schedule).stores, 1u);
        EXPECT_EQ(entries_in(dir_).size(), 1u) << "after schedule " << schedule;
    }
    EXPECT_EQ(realize_blur(2).hits, 1u) << "the newest entry was evicted";
    EXPECT_EQ(realize_blur(0).misses, 1u) << "an old entry was not evicted";
}

TEST_F(DiskCachePipelineTest, UnwritableDirectoryStillCompiles) {
    write_file(tmp_.path() + "/file", "not a directory");
    ScopedEnvironmentVariable dir("DSL_CACHE_DIR", tmp_.path() + "/file/cache");
    CacheCounts counts = realize_blur(1);
    EXPECT_EQ(counts.misses, 1u);
    EXPECT_EQ(counts.stores, 0u);
}

TEST_F(DiskCachePipelineTest, CompileJitUsesTheCache) {
    Buffer<uint16_t> in = test::disk_cache_input();
    lang::JITCounters before = lang::jit_counters();
    test::disk_cache_blur(in, 2).compile_jit();
    EXPECT_EQ(counts_since(before).stores, 1u);
    before = lang::jit_counters();
    Func blur = test::disk_cache_blur(in, 2);
    blur.compile_jit();
    EXPECT_EQ(counts_since(before).hits, 1u);
    Buffer<uint16_t> out = blur.realize({test::kDiskCacheWidth, test::kDiskCacheHeight});
    EXPECT_EQ(test::disk_cache_blur_errors(out), 0);
}

}  // namespace
}  // namespace dsl
