// Pipelines used from several threads at once: one Func realized by eight threads into their own
// outputs (with and without parallel loops inside), different pipelines built, compiled and
// realized by eight threads, and errors raised inside parallel loops while other threads run.
// Each result is checked against a plain C++ loop. (ThreadSanitizer runs of this file are
// described in docs/threads.md.)
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

constexpr int kThreads = 8;

/// Runs body(t) on kThreads threads at once (they start together) and joins them.
void on_threads(const std::function<void(int)> &body) {
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([&, t] {
            ready++;
            while (ready.load() < kThreads)
                std::this_thread::yield();
            body(t);
        });
    }
    for (std::thread &t : threads)
        t.join();
}

int32_t source_value(int x, int y) {
    return (x * 31 + y * 17) % 101 - 50;
}

/// The blur below, computed by a plain loop (edges clamped).
int32_t blur_value(int x, int y, int w, int h) {
    auto at = [&](int px, int py) {
        return source_value(std::min(std::max(px, 0), w - 1), std::min(std::max(py, 0), h - 1));
    };
    return at(x - 1, y) + 2 * at(x, y) + at(x + 1, y) - at(x, y - 1) + 3 * at(x, y + 1);
}

Buffer<int32_t> make_source(int w, int h, const std::string &name) {
    Buffer<int32_t> in({w, h}, name);
    in.for_each_element([&](int x, int y) { in(x, y) = source_value(x, y); });
    return in;
}

/// Defines the blur of `in` into `f` (with an intermediate Func) and applies one of four
/// schedules.
void define_blur(Func &f, Func &rows, const ImageParam &in, int schedule) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    rows(x, y) = clamped(x - 1, y) + 2 * clamped(x, y) + clamped(x + 1, y);
    f(x, y) = rows(x, y) - clamped(x, y - 1) + 3 * clamped(x, y + 1);
    switch (schedule % 4) {
        case 0:
            break;
        case 1:
            rows.compute_root().parallel(y);
            f.parallel(y).vectorize(x, 8);
            break;
        case 2:
            f.tile(x, y, xo, yo, xi, yi, 16, 8).parallel(yo).vectorize(xi, 4);
            rows.compute_at(f, xo).vectorize(x, 4);
            break;
        default:
            rows.compute_at(f, y);
            f.parallel(y, 3);
            break;
    }
}

int count_wrong(const Buffer<int32_t> &out, int w, int h) {
    int bad = 0;
    out.for_each_element([&](int x, int y) { bad += out(x, y) != blur_value(x, y, w, h); });
    return bad;
}

TEST(Concurrency, OneFuncRealizedFromEightThreads) {
    const int w = 61, h = 23;
    for (int schedule = 0; schedule < 4; schedule++) {
        ImageParam in(Int(32), 2, "shared_in");
        in.set(make_source(w, h, "shared_source"));
        Func f("shared_blur_" + std::to_string(schedule)), rows("shared_rows");
        define_blur(f, rows, in, schedule);
        // No realization before the threads start: they race to compile it too.
        std::vector<int> wrong(kThreads, -1);
        on_threads([&](int t) {
            int bad = 0;
            for (int round = 0; round < 3; round++) {
                Buffer<int32_t> out({w, h});
                f.realize(out);
                bad += count_wrong(out, w, h);
            }
            wrong[t] = bad;
        });
        for (int t = 0; t < kThreads; t++)
            EXPECT_EQ(wrong[t], 0) << "schedule " << schedule << ", thread " << t;
    }
}

TEST(Concurrency, DifferentPipelinesBuiltAndRealizedFromEightThreads) {
    std::vector<int> wrong(kThreads, -1);
    std::vector<std::string> errors(kThreads);
    on_threads([&](int t) {
        try {
            // Each thread its own Funcs, Params and buffers; some names are the same in every
            // thread, some differ, and sizes and schedules differ.
            int w = 20 + 7 * t, h = 5 + t;
            ImageParam in(Int(32), 2, "in");
            in.set(make_source(w, h, "source_" + std::to_string(t)));
            Func f("blur"), rows("rows_" + std::to_string(t));
            define_blur(f, rows, in, t);
            f.compute_root();
            Param<int32_t> offset("offset", 0, -1000, 1000);
            offset.set(t * 10);
            Func g("offset_" + std::to_string(t));
            Var x("x"), y("y");
            g(x, y) = f(x, y) + offset;
            Buffer<int32_t> out = g.realize({w, h});
            int bad = 0;
            out.for_each_element(
                [&](int px, int py) { bad += out(px, py) != blur_value(px, py, w, h) + t * 10; });
            wrong[t] = bad;
        } catch (const Error &e) {
            errors[t] = e.what();
        }
    });
    for (int t = 0; t < kThreads; t++) {
        EXPECT_EQ(errors[t], "") << "thread " << t;
        EXPECT_EQ(wrong[t], 0) << "thread " << t;
    }
}

// One thread realizes a Func on its own, for two targets in turn (so it is compiled again each
// time), while other threads realize a pipeline that reads it. Lowering the second pipeline copies
// the first Func on those threads: nothing a realization of it writes may be read there.
TEST(Concurrency, AFuncRealizedAloneWhileAnotherPipelineReadsIt) {
    Var x("x"), y("y");
    Func inner("inner"), outer("outer");
    inner(x, y) = x * 5 + y;
    outer(x, y) = inner(x, y) + inner(x + 1, y);
    inner.compute_root();
    Target host = Target::host();
    Target other = host.has_feature(Target::Feature::SSE41)
                       ? host.without_feature(Target::Feature::SSE41)
                       : host;
    std::vector<int> wrong(kThreads, -1);
    on_threads([&](int t) {
        int bad = 0;
        for (int round = 0; round < 4; round++) {
            if (t == 0) {
                Buffer<int32_t> out({9, 4});
                inner.realize(out, round % 2 ? other : host);
                out.for_each_element([&](int px, int py) { bad += out(px, py) != px * 5 + py; });
            } else {
                Buffer<int32_t> out({9, 4});
                outer.realize(out);
                out.for_each_element(
                    [&](int px, int py) { bad += out(px, py) != px * 10 + 5 + 2 * py; });
            }
        }
        wrong[t] = bad;
    });
    for (int t = 0; t < kThreads; t++)
        EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// An error reported by an iteration of a parallel loop that a worker thread of the pool runs
// reaches the thread that called realize(), with its message, even while other threads realize
// pipelines of their own.
TEST(Concurrency, ErrorsInsideParallelLoopsReachTheirCaller) {
    std::vector<std::string> messages(kThreads);
    std::vector<int> wrong(kThreads, -1);
    on_threads([&](int t) {
        Param<int32_t> spread("spread_" + std::to_string(t));
        Func producer("wide_" + std::to_string(t)), consumer("reads_wide_" + std::to_string(t));
        Var x("x"), y("y");
        producer(x, y) = x + y;
        // Row 7 (only) needs `producer` over [-15 * spread, 15 * spread] per row: more than a
        // buffer may hold for a large spread. The allocation check fails inside the loop.
        Expr k = select(y == 7, spread, 1);
        consumer(x, y) = producer(x * k, y) + producer(-x * k, y);
        producer.compute_at(consumer, y);
        consumer.parallel(y);
        if (t % 2 == 0) {
            spread.set(1 << 27);
            messages[t] = test::message_of<RuntimeError>([&] { consumer.realize({16, 8}); });
        } else {
            spread.set(3);
            Buffer<int32_t> out = consumer.realize({16, 8});
            int bad = 0;
            out.for_each_element([&](int px, int py) { bad += out(px, py) != 2 * py; });
            wrong[t] = bad;
        }
    });
    for (int t = 0; t < kThreads; t++) {
        if (t % 2 == 0) {
            EXPECT_CONTAINS(messages[t],
                            "\"wide_" + std::to_string(t) + "\" would need 4026531841 elements");
        } else {
            EXPECT_EQ(wrong[t], 0) << "thread " << t;
        }
    }
}

}  // namespace
}  // namespace dsl
