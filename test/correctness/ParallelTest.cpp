// Parallel loops: results equal the reference with any number of threads, nested parallel
// loops work, and errors inside parallel tasks are reported.
#include <gtest/gtest.h>

#include <thread>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

TEST(Parallel, RowsInParallelWithVectorizedColumns) {
    Buffer<> in = random_buffer(Float(32), {45, 31}, 31);
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::mirror_image(in);
    Func blur("pblur");
    blur(x, y) =
        (clamped(x - 1, y) + clamped(x + 1, y) + clamped(x, y - 1) + clamped(x, y + 1)) * 0.25f;
    blur.parallel(y).vectorize(x, 8);
    for (int threads : {1, 2, 3, 8}) {
        dsl_set_num_threads(threads);
        Buffer<float> out = blur.realize({45, 31});
        EXPECT_TRUE(matches_reference(blur, out)) << threads << " threads";
    }
    dsl_set_num_threads(0);
}

TEST(Parallel, NestedParallelLoopsAndProducers) {
    Var x("x"), y("y");
    Func producer("pproducer"), consumer("pconsumer");
    producer(x, y) = x * 7 + y;
    consumer(x, y) = producer(x, y) * 2 + producer(x + 3, y);
    producer.compute_root().parallel(y, 4);
    consumer.parallel(y).parallel(x, 5);  // a parallel loop inside a parallel loop
    Buffer<int> out = consumer.realize({23, 17});
    EXPECT_TRUE(matches_reference(consumer, out));
}

TEST(Parallel, UpdateOverAPureVar) {
    Buffer<> in = random_buffer(Int(32), {30, 12}, 32);
    Func f("prow_sums");
    Var y("y");
    RDom r(0, 30, "r");
    f(y) = 0;
    f(y) += Func(in)(r, y);
    f.update(0).parallel(y);
    Buffer<int> out = f.realize({12});
    EXPECT_TRUE(matches_reference(f, out));
}

TEST(Parallel, ConcurrentRealizationsFromManyThreads) {
    Var x("x"), y("y");
    Func f("pshared");
    f(x, y) = x * y + 1;
    f.parallel(y);
    std::vector<std::thread> threads;  // the first realizations race to compile it
    std::vector<int> ok(4, 0);
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&, t] {
            Buffer<int> b(16, 16);
            f.realize(b);
            ok[t] = b(15, 15) == 226;
        });
    }
    for (auto &t : threads)
        t.join();
    for (int t = 0; t < 4; t++)
        EXPECT_TRUE(ok[t]) << t;
}

TEST(Parallel, ReductionLoopsRunInParallelOnlyWithoutRaces) {
    Func f("prace_free");
    Var x("x");
    RDom r(0, 4, "r");
    f(x) = x;
    f(r) += 1;  // each iteration owns its point
    f.update(0).parallel(r);
    Buffer<int> out = f.realize({6});
    EXPECT_TRUE(matches_reference(f, out));

    Func g("pracy");
    g(x) = x;
    g(0) += r;  // every iteration adds into g(0)
    g.update(0).parallel(r);
    EXPECT_THROW(g.realize({6}), CompileError);
}

}  // namespace
}  // namespace dsl
