// The `profile` target feature: the runtime counts the time of each Func's own code, and reports
// it per pipeline.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

/// The lines the profiled realize() calls print, through the Func's custom_print handler.
std::vector<std::string> report;

Target profiled() {
    return get_jit_target_from_environment().with_feature(Target::Profile);
}

// A producer that costs far more per point than its consumer: most of the time is its.
TEST(Profiler, CountsEachFuncsOwnTime) {
    Var x("x"), y("y");
    Func heavy("prof_heavy"), light("prof_light");
    Expr v = cast<float>(x + y);
    for (int i = 0; i < 40; i++)
        v = sin(v) * 1.5f + 0.25f;
    heavy(x, y) = v;
    light(x, y) = heavy(x, y) + 1.0f;
    heavy.compute_root();
    EXPECT_EQ(Target(profiled().to_string()), profiled());
    EXPECT_NE(profiled().to_string().find("profile"), std::string::npos);
    // Each run prints the report of the runs so far through the call's print handler.
    report.clear();
    light.jit_handlers().custom_print = [](JITUserContext *, const char *line) {
        report.emplace_back(line);
    };
    for (int run = 0; run < 3; run++) {
        Buffer<float> out = light.realize({128, 64}, profiled());
        ASSERT_EQ(out.width(), 128);
    }
    light.jit_handlers().custom_print = nullptr;
    double heavy_s = -1, light_s = -1, wall_s = -1;
    uint64_t runs = 0;
    ASSERT_EQ(dsl_profiler_stats("prof_light", "prof_heavy", &heavy_s, &runs), 0);
    EXPECT_EQ(runs, 3u);
    ASSERT_EQ(dsl_profiler_stats("prof_light", "prof_light", &light_s, nullptr), 0);
    ASSERT_EQ(dsl_profiler_stats("prof_light", nullptr, &wall_s, nullptr), 0);
    EXPECT_GT(heavy_s, 0);
    EXPECT_GT(light_s, 0);
    EXPECT_GT(heavy_s, light_s);
    // One thread: the Funcs' times add up to no more than the pipeline's.
    EXPECT_LE(heavy_s + light_s, wall_s * 1.0001);
    EXPECT_EQ(dsl_profiler_stats("prof_light", "no_such_func", nullptr, nullptr), -1);
    EXPECT_EQ(dsl_profiler_stats("no_such_pipeline", nullptr, nullptr, nullptr), -1);

    // Three reports: the pipeline's line, then a line per Func, the last over 3 runs.
    ASSERT_EQ(report.size(), 12u) << ::testing::PrintToString(report);
    EXPECT_NE(report[0].find("Profile of pipeline \"prof_light\": 1 run,"), std::string::npos);
    EXPECT_NE(report[8].find("Profile of pipeline \"prof_light\": 3 runs,"), std::string::npos);
    EXPECT_EQ(report[9].rfind("  prof_heavy:", 0), 0u) << report[9];
    EXPECT_EQ(report[10].rfind("  prof_light:", 0), 0u) << report[10];
    EXPECT_EQ(report[11].rfind("  (outside every Func):", 0), 0u) << report[11];

    // reset forgets the runs; the next run counts from zero.
    dsl_profiler_reset();
    light.realize({16, 16}, profiled());
    ASSERT_EQ(dsl_profiler_stats("prof_light", nullptr, nullptr, &runs), 0);
    EXPECT_EQ(runs, 1u);
}

// Parallel loops: each iteration counts on the thread that runs it, as the Func around the loop.
// Summed over threads, the Funcs' time can exceed the pipeline's wall-clock time, never the
// threads' total.
TEST(Profiler, ParallelLoopsCountOnEveryThread) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func p("prof_par_producer"), c("prof_par_consumer");
    Expr v = cast<float>(x * y);
    for (int i = 0; i < 30; i++)
        v = cos(v) + 0.5f;
    p(x, y) = v;
    c(x, y) = p(x, y) * 2.0f;
    c.split(y, yo, yi, 8).parallel(yo);
    p.compute_at(c, yo);
    Buffer<float> out = c.realize({256, 64}, profiled());
    Buffer<float> plain = c.realize({256, 64});
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < 256; i++)
            ASSERT_EQ(out(i, j), plain(i, j)) << i << ", " << j;
    double producer_s = -1, consumer_s = -1;
    uint64_t runs = 0;
    ASSERT_EQ(dsl_profiler_stats("prof_par_consumer", "prof_par_producer", &producer_s, &runs), 0);
    ASSERT_EQ(dsl_profiler_stats("prof_par_consumer", "prof_par_consumer", &consumer_s, nullptr),
              0);
    EXPECT_EQ(runs, 1u);
    EXPECT_GT(producer_s, consumer_s);
    EXPECT_GT(consumer_s, 0);
}

// An update, a reduction and a Func inlined: the inlined one has no line; its time is its
// consumer's.
TEST(Profiler, InlinedFuncsCountAsTheirConsumer) {
    Var x("x");
    RDom r(0, 100, "r");
    Func inl("prof_inlined"), acc("prof_acc");
    inl(x) = x * 2;
    acc(x) = 0;
    acc(x) += inl(x + r);
    Buffer<int> out = acc.realize({50}, profiled());
    for (int i = 0; i < 50; i++)
        EXPECT_EQ(out(i), 2 * (100 * i + 4950));
    EXPECT_EQ(dsl_profiler_stats("prof_acc", "prof_acc", nullptr, nullptr), 0);
    EXPECT_EQ(dsl_profiler_stats("prof_acc", "prof_inlined", nullptr, nullptr), -1);
}

// Ahead of time, the same feature compiles the calls in; the library carries the runtime.
TEST(Profiler, CompilesAheadOfTime) {
    Var x("x");
    Func f("prof_aot");
    f(x) = x * x;
    std::string path = ::testing::TempDir() + "prof_aot.s";
    f.compile_to_assembly(path, {}, "prof_aot", Target("host-profile"));
    std::FILE *file = std::fopen(path.c_str(), "r");
    ASSERT_NE(file, nullptr);
    std::string text;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), file)) > 0;)
        text.append(buf, n);
    std::fclose(file);
    EXPECT_NE(text.find("dsl_profiler_begin"), std::string::npos);
    EXPECT_NE(text.find("dsl_profiler_end"), std::string::npos);
}

}  // namespace
}  // namespace dsl
