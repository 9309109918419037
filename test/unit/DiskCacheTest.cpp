// The JIT's disk cache on its own (jit/DiskCache.h), with made-up objects: where the
// environment puts it, entries that round-trip, every kind of damaged entry rejected and deleted,
// writers that cannot write, eviction of the least recently used entries, and writers and
// readers of one entry on eight threads. Also the hash that names entries and the key of a
// lowered module. Realizing pipelines through the cache is tested in
// test/correctness/DiskCachePipelineTest.cpp.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <set>
#include <thread>
#include <utility>

#include "common/ErrorCheck.h"
#include "common/TempDirectory.h"
#include "dsl/runtime/dsl_runtime.h"
#include "ir/IR.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "jit/DiskCache.h"
#include "jit/Hash.h"
#include "jit/JITModule.h"
#include "jit/PipelineKey.h"

namespace dsl {
namespace {

using jit::DiskCache;
using test::ScopedEnvironmentVariable;
using test::TempDirectory;
using Result = DiskCache::Lookup::Result;

using test::read_file;
using test::write_file;

bool exists(const std::string &path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

/// Sets the modification time of `path` to `seconds` after the epoch.
void set_mtime(const std::string &path, time_t seconds) {
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

/// Bytes standing in for an object file.
std::string object_bytes(int seed, size_t size) {
    std::string s(size, '\0');
    for (size_t i = 0; i < size; i++)
        s[i] = static_cast<char>((i * 131 + seed * 7) % 251);
    return s;
}

TEST(Hash128, IsDeterministicAndHex) {
    EXPECT_EQ(jit::hash128("pipeline"), jit::hash128("pipeline"));
    std::string hex = jit::hash128("pipeline").hex();
    EXPECT_EQ(hex.size(), 32u);
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos) << hex;
}

TEST(Hash128, SeparatesNearbyInputs) {
    std::set<std::string> seen;
    std::vector<std::string> inputs = {"", std::string(1, '\0'), std::string(8, '\0'), "ab",
                                       std::string("ab\0", 3)};
    // Single-bit changes at every position of a 40-byte string, and every length up to 40.
    std::string base = object_bytes(1, 40);
    inputs.push_back(base);
    for (size_t i = 0; i < base.size(); i++) {
        for (int bit = 0; bit < 8; bit++) {
            std::string s = base;
            s[i] = static_cast<char>(s[i] ^ (1 << bit));
            inputs.push_back(s);
        }
        inputs.push_back(base.substr(0, i));
    }
    for (int i = 0; i < 20000; i++)
        inputs.push_back("key " + std::to_string(i));
    std::set<std::string> distinct(inputs.begin(), inputs.end());
    for (const std::string &s : distinct)
        seen.insert(jit::hash128(s).hex());
    EXPECT_EQ(seen.size(), distinct.size());
}

ir::Module module_of(const Expr &value) {
    ir::LoweredFunc f{"f", {}, ir::Evaluate::make(value), {}};
    return ir::Module{"m", {f}, {}};
}

// The readable printer leaves types implicit; the key must not: these pairs print alike.
TEST(PipelineKey, TellsApartWhatThePrinterPrintsAlike) {
    Expr x = ir::Variable::make(Int(32), "x");
    Expr as_float = ir::Call::make(Float(32), ir::Call::Intrinsic::Reinterpret, {x});
    Expr as_uint = ir::Call::make(UInt(32), ir::Call::Intrinsic::Reinterpret, {x});
    ASSERT_EQ(ir::to_string(as_float), ir::to_string(as_uint));
    EXPECT_NE(jit::pipeline_key(module_of(as_float)), jit::pipeline_key(module_of(as_uint)));

    Expr load_int = ir::Load::make(Int(16), "b", x, ir::make_bool(true), {});
    Expr load_uint = ir::Load::make(UInt(16), "b", x, ir::make_bool(true), {});
    ASSERT_EQ(ir::to_string(load_int), ir::to_string(load_uint));
    EXPECT_NE(jit::pipeline_key(module_of(load_int)), jit::pipeline_key(module_of(load_uint)));

    // A name that looks like an expression.
    Expr sum = ir::Add::make(x, ir::Variable::make(Int(32), "y"));
    Expr named = ir::Variable::make(Int(32), "(x + y)");
    ASSERT_EQ(ir::to_string(sum), ir::to_string(named));
    EXPECT_NE(jit::pipeline_key(module_of(sum)), jit::pipeline_key(module_of(named)));

    Expr zero = ir::FloatImm::make(Float(64), 0.0),
         minus_zero = ir::FloatImm::make(Float(64), -0.0);
    EXPECT_NE(jit::pipeline_key(module_of(zero)), jit::pipeline_key(module_of(minus_zero)));
    EXPECT_EQ(jit::pipeline_key(module_of(sum)), jit::pipeline_key(module_of(sum)));
}

TEST(DiskCache, EnvironmentChoosesTheDirectory) {
    ScopedEnvironmentVariable max("DSL_CACHE_MAX_MB", std::nullopt);
    {
        ScopedEnvironmentVariable dir("DSL_CACHE_DIR", "/some/where/");
        auto cache = DiskCache::from_environment();
        ASSERT_TRUE(cache);
        EXPECT_EQ(cache->directory(), "/some/where");
        EXPECT_EQ(cache->max_bytes(), DiskCache::kDefaultMaxBytes);
    }
    for (const char *off : {"off", "OFF", "0", ""}) {
        ScopedEnvironmentVariable dir("DSL_CACHE_DIR", std::string(off));
        EXPECT_FALSE(DiskCache::from_environment()) << "DSL_CACHE_DIR=\"" << off << "\"";
    }
    ScopedEnvironmentVariable dir("DSL_CACHE_DIR", std::nullopt);
    {
        ScopedEnvironmentVariable xdg("XDG_CACHE_HOME", "/xdg");
        ScopedEnvironmentVariable home("HOME", "/home/someone");
        EXPECT_EQ(DiskCache::from_environment()->directory(), "/xdg/dsl");
    }
    {
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
        ScopedEnvironmentVariable xdg("XDG_CACHE_HOME", "relative");
        ScopedEnvironmentVariable home("HOME", "/home/someone");
        EXPECT_EQ(DiskCache::from_environment()->directory(), "/home/someone/.cache/dsl");
    }
    {
        ScopedEnvironmentVariable xdg("XDG_CACHE_HOME", std::nullopt);
        ScopedEnvironmentVariable home("HOME", std::nullopt);
        EXPECT_FALSE(DiskCache::from_environment());
    }
}

// A scoped directory (the tuner's, when the user's cache is off) wins over the environment;
// of two alive at once (two tuners on two threads), the latest, whichever ends first.
TEST(DiskCache, ScopedDirectoriesWinOverTheEnvironment) {
    ScopedEnvironmentVariable dir("DSL_CACHE_DIR", std::string("off"));
    EXPECT_FALSE(DiskCache::from_environment());
    auto first = std::make_unique<DiskCache::ScopedDirectory>("/tuner/one");
    EXPECT_EQ(DiskCache::from_environment()->directory(), "/tuner/one");
    {
        DiskCache::ScopedDirectory second("/tuner/two");
        EXPECT_EQ(DiskCache::from_environment()->directory(), "/tuner/two");
        first.reset();
        EXPECT_EQ(DiskCache::from_environment()->directory(), "/tuner/two");
    }
    EXPECT_FALSE(DiskCache::from_environment());
}

TEST(DiskCache, MaxMegabytesComesFromTheEnvironment) {
    ScopedEnvironmentVariable dir("DSL_CACHE_DIR", "/some/where");
    {
        ScopedEnvironmentVariable max("DSL_CACHE_MAX_MB", "512");
        EXPECT_EQ(DiskCache::from_environment()->max_bytes(), uint64_t(512) << 20);
    }
    {
        ScopedEnvironmentVariable max("DSL_CACHE_MAX_MB", "0.5");
        EXPECT_EQ(DiskCache::from_environment()->max_bytes(), uint64_t(512) << 10);
    }
    for (const char *bad : {"lots", "-3", "0", "12MB", "nan"}) {
        ScopedEnvironmentVariable max("DSL_CACHE_MAX_MB", std::string(bad));
        std::string msg = test::message_of([] { DiskCache::from_environment(); });
        EXPECT_CONTAINS(msg, std::string("DSL_CACHE_MAX_MB is \"") + bad + "\"");
        EXPECT_CONTAINS(msg, "/some/where");
    }
}

TEST(DiskCache, StoredObjectLoadsBack) {
    TempDirectory tmp;
    DiskCache cache(tmp.path() + "/nested/cache");
    EXPECT_EQ(cache.load("key").result, Result::Missing);
    std::string object = object_bytes(3, 5000);
    std::string problem;
    ASSERT_TRUE(cache.store("key", "a note", object, &problem)) << problem;
    DiskCache::Lookup found = cache.load("key");
    ASSERT_EQ(found.result, Result::Hit) << found.problem;
    EXPECT_EQ(found.object, object);
    EXPECT_EQ(found.note, "a note");
    EXPECT_EQ(cache.load("another key").result, Result::Missing);
    // One entry, named by the hash of its key, and no temporary file left behind.
    std::vector<std::string> names = test::list_directory(cache.directory());
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(cache.directory() + "/" + names[0], cache.entry_path("key"));
    EXPECT_EQ(names[0], jit::hash128("key").hex() + ".o");
    // An empty object is an object too.
    ASSERT_TRUE(cache.store("empty", "", ""));
    EXPECT_EQ(cache.load("empty").result, Result::Hit);
}

/// Stores an entry for "key", damages its file with `damage`, and expects the next load to
/// reject it (with a message containing `why`) and delete it.
void expect_rejected(const std::function<std::string(std::string)> &damage, const char *why) {
    SCOPED_TRACE(why);
    TempDirectory tmp;
    DiskCache cache(tmp.path());
    std::string object = object_bytes(5, 3000);
    ASSERT_TRUE(cache.store("key", "note", object));
    std::string path = cache.entry_path("key");
    write_file(path, damage(read_file(path)));
    DiskCache::Lookup found = cache.load("key");
    EXPECT_EQ(found.result, Result::Rejected);
    EXPECT_CONTAINS(found.problem, path);
    EXPECT_CONTAINS(found.problem, why);
    EXPECT_FALSE(exists(path)) << "a rejected entry stays";
    EXPECT_EQ(cache.load("key").result, Result::Missing);
    // And the entry can be written again.
    ASSERT_TRUE(cache.store("key", "note", object));
    EXPECT_EQ(cache.load("key").object, object);
}

TEST(DiskCache, DamagedEntriesAreRejectedAndDeleted) {
    expect_rejected([](std::string) { return std::string(); }, "truncated");
    expect_rejected([](std::string s) { return s.substr(0, 40); }, "truncated");
    expect_rejected([](std::string s) { return s.substr(0, s.size() - 1); }, "disagrees");
    expect_rejected([](std::string s) { return s.substr(0, 80); }, "truncated");
    expect_rejected([](std::string s) { return s.substr(0, 104 + 3); }, "disagrees");
    expect_rejected([](std::string s) { return s + "x"; }, "disagrees");
    expect_rejected(
        [](std::string s) {
            s[s.size() - 100] = static_cast<char>(s[s.size() - 100] ^ 0x10);
            return s;
        },
        "checksum");
    expect_rejected(
        [](std::string s) {
            for (size_t i = 0; i < 64; i++)
                s[i] = static_cast<char>(i * 37);
            return s;
        },
        "magic");
    expect_rejected(
        [](std::string s) {
            s[8] = 99;  // the format version
            return s;
        },
        "format version");
    expect_rejected(
        [](std::string s) {
            s.replace(40, 1, 1, static_cast<char>(s.at(40) ^ 1));  // the key's second hash
            return s;
        },
        "another pipeline");
    expect_rejected(
        [](std::string s) {
            s.replace(104, 1, 1, static_cast<char>(s.at(104) ^ 4));  // the note
            return s;
        },
        "checksum");
    expect_rejected([](std::string) { return std::string(100000, 'g'); }, "magic");
}

TEST(DiskCache, EntryOfAnotherKeyIsRejected) {
    // What a collision of the 128-bit names would look like: another key's entry in the file.
    TempDirectory tmp;
    DiskCache cache(tmp.path());
    ASSERT_TRUE(cache.store("one key", "note", object_bytes(1, 100)));
    ASSERT_EQ(rename(cache.entry_path("one key").c_str(), cache.entry_path("another").c_str()), 0);
    DiskCache::Lookup found = cache.load("another");
    EXPECT_EQ(found.result, Result::Rejected);
    EXPECT_CONTAINS(found.problem, "another pipeline");
}

TEST(DiskCache, UnwritableDirectoryFailsQuietly) {
    TempDirectory tmp;
    write_file(tmp.path() + "/file", "not a directory");
    DiskCache cache(tmp.path() + "/file/cache");
    std::string problem;
    EXPECT_FALSE(cache.store("key", "note", "object", &problem));
    EXPECT_CONTAINS(problem, tmp.path() + "/file");
    EXPECT_EQ(cache.load("key").result, Result::Missing);
    if (geteuid() != 0) {  // root writes anywhere
        std::string read_only = tmp.path() + "/read_only";
        ASSERT_EQ(mkdir(read_only.c_str(), 0555), 0);
        DiskCache locked(read_only);
        EXPECT_FALSE(locked.store("key", "note", "object", &problem));
        EXPECT_CONTAINS(problem, read_only);
    }
}

TEST(DiskCache, EvictsTheLeastRecentlyUsedEntries) {
    TempDirectory tmp;
    const size_t kObject = 10000;
    // Room for about four entries (each is its object plus a header and the key).
    DiskCache cache(tmp.path(), 4 * kObject + 1000);
    for (int i = 0; i < 4; i++) {
        std::string key = "key " + std::to_string(i);
        ASSERT_TRUE(cache.store(key, "note", object_bytes(i, kObject)));
        set_mtime(cache.entry_path(key), 1000000 + i);  // key 0 is the oldest
    }
    // A hit counts as a use: key 0 becomes the most recent.
    ASSERT_EQ(cache.load("key 0").result, Result::Hit);
    ASSERT_TRUE(cache.store("key 4", "note", object_bytes(4, kObject)));
    EXPECT_EQ(cache.load("key 1").result, Result::Missing) << "the least recently used entry stays";
    for (const char *kept : {"key 0", "key 2", "key 3", "key 4"})
        EXPECT_EQ(cache.load(kept).result, Result::Hit) << kept;
    // The entry just written stays even when it alone is over the cap.
    DiskCache tiny(tmp.path(), 10);
    ASSERT_TRUE(tiny.store("big", "note", object_bytes(9, kObject)));
    EXPECT_EQ(test::list_directory(tmp.path()).size(), 1u);
    EXPECT_EQ(tiny.load("big").result, Result::Hit);
}

TEST(DiskCache, EvictionDeletesOnlyStaleTemporaryFiles) {
    TempDirectory tmp;
    DiskCache cache(tmp.path());
    std::string stale = tmp.path() + "/.0123.99.1.0.tmp";
    std::string fresh = tmp.path() + "/.4567.99.1.1.tmp";
    std::string other = tmp.path() + "/notes.txt";
    for (const std::string &p : {stale, fresh, other})
        write_file(p, "x");
    set_mtime(stale, time(nullptr) - 2 * 3600);
    cache.evict();
    EXPECT_FALSE(exists(stale));
    EXPECT_TRUE(exists(fresh)) << "a writer may still be writing it";
    EXPECT_TRUE(exists(other)) << "not the cache's file";
}

// Eight threads store the same key again and again while eight others load it: every load sees
// a whole entry or none, and one valid entry remains.
TEST(DiskCache, ConcurrentWritersAndReadersOfOneEntry) {
    TempDirectory tmp;
    DiskCache cache(tmp.path());
    std::string object = object_bytes(7, 200000);
    std::atomic<int> rejected{0}, wrong{0}, failed_stores{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; t++) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 25; i++) {
                if (t % 2 == 0) {
                    if (!cache.store("shared key", "note", object)) failed_stores++;
                } else {
                    DiskCache::Lookup found = cache.load("shared key");
                    if (found.result == Result::Rejected) rejected++;
                    if (found.result == Result::Hit && found.object != object) wrong++;
                }
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    EXPECT_EQ(rejected.load(), 0);
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(failed_stores.load(), 0);
    EXPECT_EQ(cache.load("shared key").object, object);
    EXPECT_EQ(test::list_directory(tmp.path()).size(), 1u) << "temporary files left behind";
}

/// `int check(int32 n)`: 0 when n > 0, else dsl_error_param_too_small.
ir::Module positive_check_module() {
    Expr n = ir::Variable::make(Int(32), "n");
    ir::Stmt body = ir::AssertStmt::make(n > 0, Expr(int32_t(dsl_error_param_too_small)));
    ir::LoweredFunc f{"check", {{"n", ir::LoweredArgument::Kind::Scalar, Int(32), 0}}, body, {}};
    return ir::Module{"positive_check", {f}, {}};
}

void expect_checks_positive(const jit::JITModule &jit) {
    int32_t one = 1, zero = 0;
    void *ok[] = {&one}, *bad[] = {&zero};
    EXPECT_EQ(jit.argv_function("check")(ok), 0);
    EXPECT_EQ(jit.argv_function("check")(bad), dsl_error_param_too_small);
}

TEST(DiskCacheJIT, CompiledObjectIsStoredAndLoaded) {
    TempDirectory tmp;
    DiskCache cache(tmp.path());
    using Lookup = jit::DiskCacheOutcome::Lookup;
    auto compiled = jit::JITModule::compile(positive_check_module(), codegen::CpuTarget::host(),
                                            &cache, "positive check");
    EXPECT_EQ(compiled->disk_cache_outcome().lookup, Lookup::Missing);
    EXPECT_TRUE(compiled->disk_cache_outcome().stored) << compiled->disk_cache_outcome().problem;
    EXPECT_FALSE(compiled->times().loaded_from_cache);
    expect_checks_positive(*compiled);

    auto loaded = jit::JITModule::compile(positive_check_module(), codegen::CpuTarget::host(),
                                          &cache, "positive check");
    EXPECT_EQ(loaded->disk_cache_outcome().lookup, Lookup::Hit);
    EXPECT_TRUE(loaded->times().loaded_from_cache);
    EXPECT_EQ(loaded->times().optimize, 0);
    expect_checks_positive(*loaded);

    // Another key, another opt level: other entries.
    codegen::CpuTarget o1 = codegen::CpuTarget::host();
    o1.opt_level = 1;
    EXPECT_EQ(jit::JITModule::compile(positive_check_module(), o1, &cache, "positive check")
                  ->disk_cache_outcome()
                  .lookup,
              Lookup::Missing);
    EXPECT_EQ(jit::JITModule::compile(positive_check_module(), codegen::CpuTarget::host(), &cache,
                                      "another key")
                  ->disk_cache_outcome()
                  .lookup,
              Lookup::Missing);
    EXPECT_EQ(test::list_directory(tmp.path()).size(), 3u);
}

// Entries whose checksums hold but whose contents a broken writer of the same format could have
// left: an object that is not an object file, or a data layout that is not one. Both are
// rejected when linking, deleted, and compiled anew.
TEST(DiskCacheJIT, EntryThatDoesNotLinkIsCompiledAnew) {
    TempDirectory tmp;
    DiskCache cache(tmp.path());
    codegen::CpuTarget host = codegen::CpuTarget::host();
    std::string key = jit::JITModule::disk_cache_key("positive check", host);
    std::string data_layout =
        jit::JITModule::compile(positive_check_module(), host, &cache, "positive check")
                ->disk_cache_outcome()
                .stored
            ? cache.load(key).note
            : "";
    ASSERT_FALSE(data_layout.empty());
    for (const auto &[note, object] :
         {std::pair<std::string, std::string>{data_layout, "this is not an object file"},
          {"not a data layout", std::string(cache.load(key).object)}}) {
        ASSERT_TRUE(cache.store(key, note, object));
        auto jit = jit::JITModule::compile(positive_check_module(), host, &cache, "positive check");
        EXPECT_EQ(jit->disk_cache_outcome().lookup, jit::DiskCacheOutcome::Lookup::Rejected);
        EXPECT_CONTAINS(jit->disk_cache_outcome().problem, cache.entry_path(key));
        EXPECT_TRUE(jit->disk_cache_outcome().stored);
        expect_checks_positive(*jit);
        EXPECT_EQ(cache.load(key).note, data_layout) << "a good entry replaces the bad one";
    }
}

TEST(DiskCache, CompilerIdentityNamesVersionsAndBuild) {
    std::string id = jit::compiler_identity();
    EXPECT_CONTAINS(id, "dsl ");
    EXPECT_CONTAINS(id, "LLVM 19.");
    EXPECT_CONTAINS(id, "sources ");
}

}  // namespace
}  // namespace dsl
