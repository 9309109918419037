// The thread pool behind parallel loops. The calling thread works on its own loop too, so a
// parallel loop nested inside another one always makes progress. An idle worker, and a caller
// waiting for the last iterations of its loop, first spin for a short while (SPIN_NANOSECONDS)
// and then sleep on a condition variable: waking a sleeping thread takes tens of microseconds
// (about 60 in the virtual machines this was measured on), as long as a short loop's iterations,
// so that without the spin the caller ran most short loops alone. Nothing spins longer than that
// between pipelines.
//
// Written against libc and pthreads only (see Runtime.h): plain structs, a linked list of the
// running loops, and the compiler's __atomic builtins.
//
// An error an iteration reports through the default handler lands in its job, whichever thread
// ran it, and the caller of the loop reports it again on its own thread when the loop ends, so
// that the thread that called the pipeline finds it (realize() reads it from there).
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

/// One call of dsl_runtime_parallel_for. It lives on the caller's stack until every iteration has
/// finished and no worker holds it any more.
typedef struct Job {
    dsl_task_fn fn;
    void *closure;
    const dsl_runtime_hooks_t *hooks;  // the caller's, for every thread that runs iterations
    int32_t min;
    int64_t total;         // iterations: [min, min + total)
    int64_t chunk;         // iterations handed out at once
    int64_t next;          // atomic: the next iteration to hand out, counted from 0
    int64_t finished;      // atomic: iterations done
    int error;             // atomic: the first nonzero result
    int active_workers;    // changed under the pool's mutex (atomically, so that a spinning
                           // caller may read it without): workers inside work_on(this)
    struct Job *next_job;  // guarded by the pool's mutex: the list of running jobs
    // The first message an iteration reported through the default handler (on whichever
    // thread ran it), handed to the caller's thread when the loop ends.
    int message_claimed;  // atomic: 0, then 1 once a message is being or has been written
    char message[DSL_RUNTIME_MESSAGE_CAPACITY];
} Job;

/// The job whose iterations this thread is running, if any.
static _Thread_local Job *running_job = NULL;

typedef struct Pool {
    pthread_mutex_t mutex;
    pthread_cond_t work_ready;  // a job was added, or the workers should stop
    pthread_cond_t job_done;    // a job may have finished
    Job *jobs;                  // running jobs, newest first (inner loops before outer ones)
    pthread_t *workers;
    int worker_count;
    int requested;  // dsl_set_num_threads, 0 for the default
    int stopping;   // how many stop_workers() calls are in progress
} Pool;

/// Bumped under the pool's mutex whenever a job is added: what a spinning idle worker watches.
static uint64_t jobs_added = 0;

/// How long an idle worker, or a caller waiting for its loop's last iterations, spins before it
/// sleeps.
#define SPIN_NANOSECONDS 100000

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint64_t monotonic_nanoseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/// Spins while `done(argument)` is false, for at most SPIN_NANOSECONDS; returns `done`'s last
/// answer.
static bool spin_until(bool (*done)(const void *), const void *argument) {
    uint64_t start = 0;
    for (unsigned k = 0;; k++) {
        if (done(argument)) return true;
        cpu_relax();
        if ((k & 63) == 63) {
            uint64_t t = monotonic_nanoseconds();
            if (start == 0) {
                start = t;
            } else if (t - start > SPIN_NANOSECONDS) {
                return false;
            }
        }
    }
}

static Pool pool = {PTHREAD_MUTEX_INITIALIZER,
                    PTHREAD_COND_INITIALIZER,
                    PTHREAD_COND_INITIALIZER,
                    NULL,
                    NULL,
                    0,
                    0,
                    0};

/// Threads wanted in all, the caller of a parallel loop included. Called with the mutex held.
static int threads_wanted(void) {
    if (pool.requested > 0) return pool.requested;
    const char *env = getenv("DSL_NUM_THREADS");
    if (env) {
        int n = atoi(env);
        if (n > 0) return n;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

/// Runs chunks of iterations of `job` until none is left to hand out. Iterations go out in
/// chunks, and are counted as finished per chunk: handing out and counting each one alone made
/// the threads pass the job's cache line back and forth for every iteration, so that a loop of
/// many short iterations ran several times slower on two threads than on one.
static void work_on(Job *job) {
    Job *enclosing = running_job;
    running_job = job;
    const dsl_runtime_hooks_t *outer_hooks = dsl_runtime_swap_hooks(job->hooks);
    for (;;) {
        int64_t first = __atomic_fetch_add(&job->next, job->chunk, __ATOMIC_RELAXED);
        if (first >= job->total) break;
        int64_t end = first + job->chunk < job->total ? first + job->chunk : job->total;
        for (int64_t i = first; i < end; i++) {
            int result = job->fn(job->closure, (int32_t)(job->min + i));
            if (result != 0) {
                int expected = 0;
                __atomic_compare_exchange_n(&job->error, &expected, result, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED);
            }
        }
        if (__atomic_add_fetch(&job->finished, end - first, __ATOMIC_ACQ_REL) == job->total) {
            pthread_mutex_lock(&pool.mutex);
            pthread_cond_broadcast(&pool.job_done);
            pthread_mutex_unlock(&pool.mutex);
        }
    }
    dsl_runtime_swap_hooks(outer_hooks);
    running_job = enclosing;
}

DSL_RUNTIME_EXPORT int dsl_runtime_forward_error(const char *message) {
    Job *job = running_job;
    if (!job) return 0;
    int expected = 0;
    if (__atomic_compare_exchange_n(&job->message_claimed, &expected, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
        size_t n = 0;
        while (n + 1 < sizeof(job->message) && message[n]) {
            job->message[n] = message[n];
            n++;
        }
        job->message[n] = '\0';
    }
    return 1;
}

/// A running job with iterations left to hand out, newer than `stop` (added after it: the
/// list runs from the newest) when that is not NULL. Called with the mutex held.
/// A caller waiting for its own job looks only at newer ones. An older job may enclose its
/// own: running one of its iterations inside the wait would nest a whole outer iteration
/// there, and could nest again inside that one, the stack growing with every level.
static Job *find_work(const Job *stop) {
    for (Job *job = pool.jobs; job && job != stop; job = job->next_job) {
        if (__atomic_load_n(&job->next, __ATOMIC_RELAXED) < job->total) return job;
    }
    return NULL;
}

/// Runs iterations of `job` beside its caller until none is left to hand out. Called, and
/// returns, with the mutex held.
static void help_with(Job *job) {
    __atomic_add_fetch(&job->active_workers, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&pool.mutex);
    work_on(job);
    pthread_mutex_lock(&pool.mutex);
    __atomic_sub_fetch(&job->active_workers, 1, __ATOMIC_ACQ_REL);
    pthread_cond_broadcast(&pool.job_done);
}

/// Whether a job was added since the count `*seen` was read.
static bool job_added_since(const void *seen) {
    return __atomic_load_n(&jobs_added, __ATOMIC_ACQUIRE) != *(const uint64_t *)seen;
}

static void *worker_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&pool.mutex);
    for (;;) {
        Job *job = find_work(NULL);
        if (job == NULL && pool.stopping == 0) {
            // Idle: watch for a new job without the mutex for a while, then sleep. A job added
            // after the spin is found under the mutex below, or wakes the condition variable.
            uint64_t seen = __atomic_load_n(&jobs_added, __ATOMIC_ACQUIRE);
            pthread_mutex_unlock(&pool.mutex);
            spin_until(job_added_since, &seen);
            pthread_mutex_lock(&pool.mutex);
            while (pool.stopping == 0 && (job = find_work(NULL)) == NULL)
                pthread_cond_wait(&pool.work_ready, &pool.mutex);
        }
        if (pool.stopping != 0) break;
        help_with(job);
    }
    pthread_mutex_unlock(&pool.mutex);
    return NULL;
}

/// Starts the workers if none are running. Called with the mutex held. When memory or threads
/// run out, fewer workers start; the caller of each loop still runs it to the end.
static void start_workers(void) {
    if (pool.worker_count > 0 || pool.stopping != 0) return;
    int n = threads_wanted() - 1;  // the caller is a worker too
    if (n <= 0) return;
    pool.workers = malloc(sizeof(pthread_t) * (size_t)n);
    if (!pool.workers) return;
    while (pool.worker_count < n &&
           pthread_create(&pool.workers[pool.worker_count], NULL, worker_main, NULL) == 0)
        pool.worker_count++;
}

/// Stops and joins the running workers; the next parallel loop starts new ones.
static void stop_workers(void) {
    pthread_mutex_lock(&pool.mutex);
    pthread_t *workers = pool.workers;
    int count = pool.worker_count;
    pool.workers = NULL;
    pool.worker_count = 0;
    pool.stopping++;
    pthread_cond_broadcast(&pool.work_ready);
    pthread_mutex_unlock(&pool.mutex);

    for (int i = 0; i < count; i++)
        pthread_join(workers[i], NULL);
    free(workers);

    pthread_mutex_lock(&pool.mutex);
    pool.stopping--;
    pthread_mutex_unlock(&pool.mutex);
}

// Runs from .fini_array at exit (or when a shared object holding the runtime is unloaded), so
// that no worker outlives the code it runs. A destructor attribute needs no C++ library.
__attribute__((destructor)) static void shut_down_pool(void) {
    stop_workers();
}

/// Whether every iteration of the Job `job` has finished and no worker holds it.
static bool job_complete(const void *job) {
    const Job *j = (const Job *)job;
    return __atomic_load_n(&j->finished, __ATOMIC_ACQUIRE) == j->total &&
           __atomic_load_n(&j->active_workers, __ATOMIC_ACQUIRE) == 0;
}

DSL_RUNTIME_EXPORT int dsl_runtime_parallel_for(dsl_task_fn fn, void *closure, int32_t min,
                                                int32_t extent) {
    if (extent <= 0) return 0;
    const dsl_runtime_hooks_t *hooks = dsl_runtime_current_hooks();
    if (hooks && hooks->do_par_for)
        return hooks->do_par_for(hooks->context, fn, closure, min, extent);
    return dsl_runtime_default_parallel_for(fn, closure, min, extent);
}

DSL_RUNTIME_EXPORT int dsl_runtime_default_parallel_for(dsl_task_fn fn, void *closure, int32_t min,
                                                        int32_t extent) {
    if (extent <= 0) return 0;
    Job job;
    job.fn = fn;
    job.closure = closure;
    job.hooks = dsl_runtime_current_hooks();
    job.min = min;
    job.total = extent;
    job.chunk = 1;
    job.next = 0;
    job.finished = 0;
    job.error = 0;
    job.active_workers = 0;
    job.message_claimed = 0;
    job.message[0] = '\0';

    pthread_mutex_lock(&pool.mutex);
    start_workers();
    // About eight chunks per thread: few enough that handing them out costs little, enough
    // that a thread which finishes early takes over the work of a slow one.
    job.chunk = extent / ((int64_t)(pool.worker_count + 1) * 8);
    if (job.chunk < 1) job.chunk = 1;
    job.next_job = pool.jobs;
    pool.jobs = &job;
    __atomic_add_fetch(&jobs_added, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pool.mutex);
    pthread_cond_broadcast(&pool.work_ready);

    work_on(&job);

    // The other threads' last iterations. Meanwhile the caller runs iterations of any newer
    // job that has some left (a loop nested in one of this loop's iterations that another
    // thread runs, most often): with nested parallel loops (Halide's conv_layer makes three
    // of channels, images and rows parallel) each thread ran the inner loop it started alone,
    // and the one that finished first waited for the other (two threads were busy a little
    // over half the time). Then, with nothing to help with, spin a while and sleep until the
    // job is done.
    pthread_mutex_lock(&pool.mutex);
    for (;;) {
        if (job_complete(&job)) break;
        Job *other = find_work(&job);
        if (other) {
            help_with(other);
            continue;
        }
        pthread_mutex_unlock(&pool.mutex);
        spin_until(job_complete, &job);
        pthread_mutex_lock(&pool.mutex);
        if (!job_complete(&job)) pthread_cond_wait(&pool.job_done, &pool.mutex);
    }
    for (Job **link = &pool.jobs; *link; link = &(*link)->next_job) {
        if (*link == &job) {
            *link = job.next_job;
            break;
        }
    }
    pthread_mutex_unlock(&pool.mutex);
    // Every iteration has finished (the mutex ordered their writes before this read).
    if (job.message_claimed) dsl_runtime_keep_error(job.message);
    return __atomic_load_n(&job.error, __ATOMIC_ACQUIRE);
}

DSL_RUNTIME_EXPORT void dsl_set_num_threads(int n) {
    pthread_mutex_lock(&pool.mutex);
    pool.requested = n > 0 ? n : 0;
    bool restart = pool.worker_count > 0 && pool.worker_count + 1 != threads_wanted();
    pthread_mutex_unlock(&pool.mutex);
    if (restart) stop_workers();
}
