// JIT handlers (dsl/JIT.h): custom print, error, malloc and free for the pipelines realize()
// runs, set on a Func, a Pipeline or a JITUserContext, on the calling thread and on the thread
// pool's workers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

struct Counting : JITUserContext {
    std::atomic<int> mallocs{0}, frees{0}, lines{0}, errors{0};
    std::string last_error;
    std::vector<void *> live;
    std::vector<size_t> sizes;
};

void *counting_malloc(JITUserContext *c, size_t bytes) {
    auto *ctx = static_cast<Counting *>(c);
    ctx->mallocs++;
    ctx->sizes.push_back(bytes);
    // Deliberately only 8 bytes past a 16-byte boundary: the generated code uses the block as
    // it is, needing no more alignment than an element's.
    char *block = static_cast<char *>(std::malloc(bytes + 8));
    return block + 8;
}

void counting_free(JITUserContext *c, void *block) {
    static_cast<Counting *>(c)->frees++;
    std::free(static_cast<char *>(block) - 8);
}

void counting_print(JITUserContext *c, const char *line) {
    EXPECT_EQ(std::string(line).back(), '\n');
    static_cast<Counting *>(c)->lines++;
}

void counting_error(JITUserContext *c, const char *message) {
    auto *ctx = static_cast<Counting *>(c);
    ctx->errors++;
    ctx->last_error = message;
}

TEST(JITHandlers, CustomErrorReceivesRuntimeErrorsAndRealizeReturns) {
    Buffer<float> input(19, "short_input");
    Var x("x");
    Func f("reads_past");
    f(x) = input(x) * 2;
    // Without a handler, a RuntimeError.
    EXPECT_THROW(f.realize({23}), RuntimeError);

    Counting ctx;
    ctx.handlers.custom_error = counting_error;
    EXPECT_NO_THROW(f.realize(&ctx, {23}));
    EXPECT_EQ(ctx.errors, 1);
    EXPECT_NE(ctx.last_error.find("short_input"), std::string::npos) << ctx.last_error;
    // As Halide's handlers receive theirs: without the "Error: " of a thrown message.
    EXPECT_NE(ctx.last_error.rfind("Error: ", 0), 0u) << ctx.last_error;
    // The same pipeline without the context throws again.
    EXPECT_THROW(f.realize({23}), RuntimeError);
    // Errors found before the pipeline runs still throw.
    EXPECT_THROW(f.realize(&ctx, {1, 2}), CompileError);
}

bool plain_error_called = false;
void plain_error(JITUserContext *, const char *) {
    plain_error_called = true;
}

TEST(JITHandlers, FuncHandlersApplyToEachRealize) {
    Buffer<int> input(4, "four");
    Var x("x");
    Func f("func_handlers");
    f(x) = input(x);
    f.jit_handlers().custom_error = plain_error;
    plain_error_called = false;
    f.realize({8});
    EXPECT_TRUE(plain_error_called);
    // A Pipeline's are its first output's.
    Pipeline p(f);
    EXPECT_EQ(p.jit_handlers().custom_error, plain_error);
}

TEST(JITHandlers, CustomMallocAndFreeServeHeapAllocationsOnEveryThread) {
    Var x("x"), y("y");
    Func producer("heap_producer"), consumer("heap_consumer");
    producer(x, y) = cast<float>(x + y);
    consumer(x, y) = producer(x, y) + producer(x + 1, y);
    producer.compute_at(consumer, y).vectorize(x, 8);
    consumer.parallel(y).vectorize(x, 8);
    Func root("heap_root"), out("heap_out");
    root(x) = x * 3;
    out(x, y) = consumer(x, y) + cast<float>(root(x));
    root.compute_root();
    consumer.compute_root();

    Counting ctx;
    ctx.handlers.custom_malloc = counting_malloc;
    ctx.handlers.custom_free = counting_free;
    // Large enough that the per-row buffers and the roots are on the heap, not the stack.
    const int width = 100000, height = 8;
    Buffer<float> result = out.realize(&ctx, {width, height});
    // One per row of the producer (each in a task of the parallel loop, on whichever thread
    // runs it) and one per Func at root.
    EXPECT_GE(ctx.mallocs.load(), height + 2);
    EXPECT_EQ(ctx.mallocs.load(), ctx.frees.load());
    for (int yy : {0, height - 1})
        for (int xx : {0, 17, width - 1})
            EXPECT_EQ(result(xx, yy), float(2 * (xx + yy) + 1 + 3 * xx)) << xx << ", " << yy;
}

// A hook allocates exactly the bytes of the data (Halide's reorder_storage and
// nested_tail_strategies count them): here a Func at root of 10 x 11 int32.
TEST(JITHandlers, CustomMallocIsAskedForTheDataBytes) {
    Var x("x"), y("y");
    Func root("sized_root"), out("sized_out");
    root(x, y) = x * y;
    out(x, y) = root(x, y) + root(x + 1, y);
    root.compute_root();
    Counting ctx;
    ctx.handlers.custom_malloc = counting_malloc;
    ctx.handlers.custom_free = counting_free;
    // Wide enough to be on the heap.
    Buffer<int> result = out.realize(&ctx, {4000, 11});
    ASSERT_EQ(ctx.sizes.size(), 1u);
    EXPECT_EQ(ctx.sizes[0], size_t(4001 * 11 * 4));
    EXPECT_EQ(result(3999, 10), 3999 * 10 + 4000 * 10);
}

TEST(JITHandlers, CustomPrintReceivesPrintAndTraceLines) {
    Var x("x");
    Func f("printed"), g("traced");
    f(x) = print(x * 2, "is twice", x);
    g(x) = f(x) + 1;
    f.compute_root().parallel(x);
    g.trace_stores();
    Counting ctx;
    ctx.handlers.custom_print = counting_print;
    Buffer<int> out = g.realize(&ctx, {16});
    // 16 from print(), 16 traced stores, and the pipeline's begin and end.
    EXPECT_EQ(ctx.lines.load(), 34);
    EXPECT_EQ(out(5), 11);
}

TEST(JITHandlers, ContextHandlersTakeThePlaceOfTheFuncs) {
    Buffer<int> input(2, "two");
    Var x("x");
    Func f("overridden");
    f(x) = input(x);
    plain_error_called = false;
    f.jit_handlers().custom_error = plain_error;
    Counting ctx;
    ctx.handlers.custom_error = counting_error;
    f.realize(&ctx, {4});
    EXPECT_EQ(ctx.errors, 1);
    EXPECT_FALSE(plain_error_called);
    // A context without an error handler leaves the Func's in place.
    JITUserContext empty;
    f.realize(&empty, {4});
    EXPECT_TRUE(plain_error_called);
}

// A parallel loop runner that runs the iterations in order on the calling thread, ignoring
// their results, and one that wraps the thread pool's.
std::atomic<int> par_for_calls{0}, tasks_run{0};
int in_order(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *), int min,
             int extent, uint8_t *closure) {
    par_for_calls++;
    for (int i = min; i < min + extent; i++)
        task(context, i, closure);
    return 0;
}
int wrapping_pool(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *), int min,
                  int extent, uint8_t *closure) {
    par_for_calls++;
    return default_do_par_for(context, task, min, extent, closure);
}
int counting_task(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *), int index,
                  uint8_t *closure) {
    tasks_run++;
    return default_do_task(context, task, index, closure);
}

TEST(JITHandlers, CustomParallelForAndTask) {
    Var x("x"), y("y");
    Func f("pf_f");
    f(x, y) = x + y * 10;
    f.parallel(y);
    f.jit_handlers().custom_do_par_for = in_order;
    par_for_calls = 0;
    Buffer<int> out = f.realize({8, 6});
    EXPECT_EQ(par_for_calls, 1);
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 8; i++)
            ASSERT_EQ(out(i, j), i + 10 * j);
    // custom_do_task alone: every iteration goes through it, on the thread pool.
    Func g("pf_g");
    g(x, y) = x * y;
    g.parallel(y);
    g.jit_handlers().custom_do_task = counting_task;
    tasks_run = 0;
    out = g.realize({5, 7});
    EXPECT_EQ(tasks_run, 7);
    EXPECT_EQ(out(4, 6), 24);
    // A context's runner that wraps the thread pool's.
    JITUserContext context;
    context.handlers.custom_do_par_for = wrapping_pool;
    par_for_calls = 0;
    out = g.realize(&context, {5, 7});
    EXPECT_EQ(par_for_calls, 1);
    EXPECT_EQ(out(3, 5), 15);
    // A failing iteration stops the pipeline even where the runner ignores the results.
    Func h("pf_h");
    h(x, y) = require(y < 4, x + y, "y is", y);
    h.parallel(y);
    h.jit_handlers().custom_do_par_for = in_order;
    std::string msg = test::message_of<RuntimeError>([&] { h.realize({3, 6}); });
    EXPECT_CONTAINS(msg, "Requirement failed");
}

}  // namespace
}  // namespace dsl
