/* A plain C program that links only the runtime (dsl_runtime) plus pthreads and libdl, the way a
 * program links a generated static library. It exercises what generated code calls: nested
 * parallel loops, the thread count, the error reporters and the error handler. Exits 0 when
 * every check passes, else prints the failures and exits 1. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

static int failures = 0;

#define CHECK(condition)                                                                  \
    do {                                                                                  \
        if (!(condition)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

/* Nested loops: every (outer, inner) pair runs exactly once. */
enum { kOuter = 40, kInner = 30 };
static int visits[kOuter][kInner];

static int inner_task(void *closure, int32_t j) {
    int32_t i = *(const int32_t *)closure;
    __atomic_add_fetch(&visits[i][j], 1, __ATOMIC_RELAXED);
    return 0;
}

static int outer_task(void *closure, int32_t i) {
    (void)closure;
    return dsl_runtime_parallel_for(inner_task, &i, 0, kInner);
}

/* An iteration that fails: the loop returns its code. */
static int failing_inner_task(void *closure, int32_t j) {
    (void)closure;
    return j == 7 ? -42 : 0;
}

static int failing_outer_task(void *closure, int32_t i) {
    (void)closure;
    return i == 3 ? dsl_runtime_parallel_for(failing_inner_task, NULL, 0, 10) : 0;
}

/* Concurrency: each iteration waits (at most a few seconds) until `wait_for` iterations have
 * started, so with n threads exactly n iterations run at once. */
static int inside, most_inside, started, wait_for;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int waiting_task(void *closure, int32_t i) {
    (void)closure;
    (void)i;
    int now = __atomic_add_fetch(&inside, 1, __ATOMIC_ACQ_REL);
    int most = __atomic_load_n(&most_inside, __ATOMIC_ACQUIRE);
    while (now > most && !__atomic_compare_exchange_n(&most_inside, &most, now, 0, __ATOMIC_ACQ_REL,
                                                      __ATOMIC_ACQUIRE)) {
    }
    __atomic_add_fetch(&started, 1, __ATOMIC_ACQ_REL);
    double deadline = now_seconds() + 5.0;
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < wait_for && now_seconds() < deadline) {
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
    __atomic_sub_fetch(&inside, 1, __ATOMIC_ACQ_REL);
    return 0;
}

/* Helping: a caller whose loop has no iterations left to hand out runs those of a loop nested
 * in one of its other iterations. Outer iteration 0 returns once iteration 1 has started (so the
 * thread that ran it is free while iteration 1 runs); iteration 1 runs an inner loop whose
 * iterations wait (a few seconds at most) until a second thread has run one of them. */
static pthread_t first_inner_thread;
static int first_inner_claimed, second_inner_thread, outer_one_started;

static int helped_inner_task(void *closure, int32_t j) {
    (void)closure;
    (void)j;
    pthread_t self = pthread_self();
    int unclaimed = 0;
    if (__atomic_compare_exchange_n(&first_inner_claimed, &unclaimed, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        first_inner_thread = self;
        __atomic_store_n(&first_inner_claimed, 2, __ATOMIC_RELEASE);
    }
    while (__atomic_load_n(&first_inner_claimed, __ATOMIC_ACQUIRE) != 2) {
    }
    if (!pthread_equal(self, first_inner_thread))
        __atomic_store_n(&second_inner_thread, 1, __ATOMIC_RELEASE);
    double deadline = now_seconds() + 3.0;
    while (!__atomic_load_n(&second_inner_thread, __ATOMIC_ACQUIRE) && now_seconds() < deadline) {
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
    return 0;
}

static int helped_outer_task(void *closure, int32_t i) {
    (void)closure;
    if (i == 1) {
        __atomic_store_n(&outer_one_started, 1, __ATOMIC_RELEASE);
        return dsl_runtime_parallel_for(helped_inner_task, NULL, 0, 16);
    }
    double deadline = now_seconds() + 3.0;
    while (!__atomic_load_n(&outer_one_started, __ATOMIC_ACQUIRE) && now_seconds() < deadline) {
    }
    return 0;
}

/* The most iterations that ran at once, when the pool should have `threads` threads. */
static int concurrency(int threads) {
    inside = most_inside = started = 0;
    wait_for = threads;
    CHECK(dsl_runtime_parallel_for(waiting_task, NULL, 0, 4 * threads) == 0);
    return most_inside;
}

static char handled[1024];
static int handled_count = 0;

static void handler(const char *message) {
    snprintf(handled, sizeof(handled), "%s", message);
    handled_count++;
}

enum { kMiB = 1 << 20 };

/* A block of `bytes` from the runtime, aligned and written to the end. */
static void *block_of(uint64_t bytes) {
    unsigned char *b = dsl_runtime_malloc(bytes);
    CHECK(b != NULL && (uintptr_t)b % 64 == 0);
    if (b) memset(b, 1, bytes);
    return b;
}

/* Large freed blocks are kept for the next allocations that fit them, up to the limit (read
 * from DSL_MEMORY_CACHE_MB, then set by dsl_set_memory_cache_limit); small ones are not. */
static void check_memory_cache(void) {
    /* The environment's limit (3 MiB): a 4 MiB block is not kept, a 2 MiB one is. */
    setenv("DSL_MEMORY_CACHE_MB", "3", 1);
    dsl_runtime_free(block_of(4 * kMiB));
    CHECK(dsl_memory_cache_bytes() == 0);
    void *two = block_of(2 * kMiB);
    dsl_runtime_free(two);
    CHECK(dsl_memory_cache_bytes() >= 2 * kMiB && dsl_memory_cache_bytes() <= 3 * kMiB);
    /* Reused for a request it holds without wasting more than half of itself. */
    CHECK(block_of(2 * kMiB - 100) == two);
    CHECK(dsl_memory_cache_bytes() == 0);
    dsl_runtime_free(two);

    dsl_set_memory_cache_limit(64 * kMiB);
    CHECK(block_of(3 * kMiB / 2) == two); /* the kept block holds 1.5 MiB */
    void *four = block_of(4 * kMiB);
    dsl_runtime_free(four);
    void *one = block_of(1 * kMiB);
    CHECK(one != four); /* 4 MiB would waste more than half of itself on 1 MiB */
    dsl_runtime_free(two);
    CHECK(block_of(3 * kMiB / 2) == two); /* the smallest kept block that holds 1.5 MiB */
    dsl_runtime_free(two);
    dsl_runtime_free(one);
    /* Small blocks are never kept. */
    dsl_runtime_free(block_of(1000));
    CHECK(dsl_memory_cache_bytes() >= 7 * kMiB && dsl_memory_cache_bytes() < 8 * kMiB);

    /* A lower limit frees the oldest blocks (4 MiB) until the rest fit; 0 keeps nothing. */
    dsl_set_memory_cache_limit(5 * kMiB);
    CHECK(dsl_memory_cache_bytes() >= 3 * kMiB && dsl_memory_cache_bytes() < 4 * kMiB);
    CHECK(block_of(2 * kMiB) == two);
    dsl_set_memory_cache_limit(0);
    dsl_runtime_free(two);
    CHECK(dsl_memory_cache_bytes() == 0);

    /* Releasing frees everything and keeps the limit. */
    dsl_set_memory_cache_limit(64 * kMiB);
    dsl_runtime_free(block_of(8 * kMiB));
    CHECK(dsl_memory_cache_bytes() >= 8 * kMiB);
    dsl_release_cached_memory();
    CHECK(dsl_memory_cache_bytes() == 0);
    /* More blocks than the cache has slots: the oldest go. */
    void *blocks[40];
    for (int i = 0; i < 40; i++)
        blocks[i] = block_of(kMiB);
    for (int i = 0; i < 40; i++)
        dsl_runtime_free(blocks[i]);
    CHECK(dsl_memory_cache_bytes() >= 32 * (uint64_t)kMiB &&
          dsl_memory_cache_bytes() < 40 * (uint64_t)kMiB);
    dsl_release_cached_memory();
}

int main(void) {
    /* Nested loops, on four threads. */
    dsl_set_num_threads(4);
    CHECK(dsl_runtime_parallel_for(outer_task, NULL, 0, kOuter) == 0);
    int wrong = 0;
    for (int i = 0; i < kOuter; i++)
        for (int j = 0; j < kInner; j++)
            wrong += visits[i][j] != 1;
    CHECK(wrong == 0);
    CHECK(dsl_runtime_parallel_for(failing_outer_task, NULL, 0, 8) == -42);
    CHECK(dsl_runtime_parallel_for(outer_task, NULL, 5, 0) == 0);

    /* Nested loops, on two threads: whichever thread ends its outer iteration first helps with
     * the other's inner loop. */
    dsl_set_num_threads(2);
    CHECK(dsl_runtime_parallel_for(helped_outer_task, NULL, 0, 2) == 0);
    CHECK(second_inner_thread == 1);
    dsl_set_num_threads(4);

    /* The thread count: dsl_set_num_threads, then DSL_NUM_THREADS once it is reset to 0. */
    CHECK(concurrency(4) == 4);
    dsl_set_num_threads(1);
    CHECK(concurrency(1) == 1);
    dsl_set_num_threads(3);
    CHECK(concurrency(3) == 3);
    setenv("DSL_NUM_THREADS", "2", 1);
    dsl_set_num_threads(0);
    CHECK(concurrency(2) == 2);

    /* Memory is aligned to 64 bytes. */
    void *memory = dsl_runtime_malloc(100);
    CHECK(memory != NULL && (uintptr_t)memory % 64 == 0);
    dsl_runtime_free(memory);
    check_memory_cache();

    /* The default handler keeps the message for this thread. */
    dsl_runtime_clear_last_error();
    CHECK(strcmp(dsl_runtime_last_error(), "") == 0);
    CHECK(dsl_runtime_error_bad_dimensions("input", 2, 3) == dsl_error_bad_dimensions);
    CHECK(strcmp(dsl_runtime_last_error(),
                 "Error: buffer \"input\" has 3 dimensions, but the pipeline needs 2.") == 0);

    /* A handler receives every message; NULL restores the default. */
    dsl_set_error_handler(handler);
    dsl_runtime_clear_last_error();
    CHECK(dsl_runtime_error_param_too_large("gain", 3.5, 2) == dsl_error_param_too_large);
    CHECK(strcmp(handled,
                 "Error: Param \"gain\" is 3.5, above its maximum 2. Set it within its range.") ==
          0);
    CHECK(strcmp(dsl_runtime_last_error(), "") == 0);
    CHECK(dsl_runtime_error_bad_type("weights", dsl_type_float, 32, dsl_type_uint, 1) ==
          dsl_error_bad_type);
    CHECK(strstr(handled, "buffer \"weights\" holds bool, but the pipeline needs float32") != NULL);
    CHECK(handled_count == 2);
    dsl_set_error_handler(NULL);
    CHECK(dsl_runtime_error_buffer_is_null("output") == dsl_error_buffer_argument_is_null);
    CHECK(handled_count == 2);
    CHECK(strstr(dsl_runtime_last_error(), "buffer \"output\" has no memory") != NULL);

    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("runtime_c_test: all checks passed\n");
    return 0;
}
