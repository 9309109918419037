// The profiler of the `profile` target feature. Generated code marks where each Func's
// production begins and ends (lowering/Profiling.cpp); each mark adds the time since the
// thread's previous mark to the Func that was running on that thread. So a Func's time is the
// time its own code ran, summed over the threads that ran it, without the producers computed
// inside it, which have their own lines. Reports go through the print handler: after each
// realize() (the JIT's, through its handlers), at exit for the pipelines run since their last
// report, and when dsl_profiler_report() asks.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

// One pipeline (one generated function): found by its name and its Funcs' names, so that two
// pipelines of one name (a Func recompiled after its schedule changed) count apart.
typedef struct profiler_pipeline {
    struct profiler_pipeline *next;
    char *name;
    char *funcs;  // the names, '\n' after each
    int32_t count;
    // Nanoseconds per Func, and at [count] the pipeline's own code outside every Func;
    // added to atomically by every thread.
    uint64_t *ns;
    uint64_t wall_ns, runs;
    // The runs the last report covered: at exit, only pipelines run since are reported.
    uint64_t reported_runs;
} profiler_pipeline_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static profiler_pipeline_t *pipelines = NULL;
static int report_at_exit = 0;

// What this thread is running: a Func of a pipeline (or the pipeline's own code) since `last`,
// or nothing (`running` NULL, between the iterations of parallel loops). One state per thread:
// a pipeline run inside another on the same thread (from an extern stage) ends the outer one's
// mark, whose time until its next mark is then not counted.
static __thread profiler_pipeline_t *running = NULL;
static __thread int32_t running_func = 0;
static __thread uint64_t last = 0, run_start = 0;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

// Adds the time since the thread's last mark to what it was running, when that is a Func of `p`
// (a mark left by another pipeline, or by a run of `p` that stopped at an error, is not
// charged).
static void charge(profiler_pipeline_t *p, uint64_t t) {
    if (running != p || !p) return;
    __atomic_fetch_add(&p->ns[running_func], t - last, __ATOMIC_RELAXED);
}

static void report(const char *only, int unreported_only);

static void report_all(void) {
    report(NULL, 1);
}

DSL_RUNTIME_EXPORT void *dsl_profiler_begin(const char *pipeline, const char *funcs,
                                            int32_t count) {
    pthread_mutex_lock(&lock);
    profiler_pipeline_t *p = pipelines;
    while (p && (strcmp(p->name, pipeline) != 0 || strcmp(p->funcs, funcs) != 0))
        p = p->next;
    if (!p) {
        p = (profiler_pipeline_t *)calloc(1, sizeof(profiler_pipeline_t));
        uint64_t *ns = (uint64_t *)calloc((size_t)count + 1, sizeof(uint64_t));
        char *name = strdup(pipeline), *names = strdup(funcs);
        if (!p || !ns || !name || !names) {
            // Out of memory: this run is not profiled.
            free(p);
            free(ns);
            free(name);
            free(names);
            pthread_mutex_unlock(&lock);
            running = NULL;
            return NULL;
        }
        p->name = name;
        p->funcs = names;
        p->count = count;
        p->ns = ns;
        p->next = pipelines;
        pipelines = p;
        if (!report_at_exit) {
            report_at_exit = 1;
            atexit(report_all);
        }
    }
    pthread_mutex_unlock(&lock);
    running = p;
    running_func = count;
    last = run_start = now_ns();
    return p;
}

DSL_RUNTIME_EXPORT int32_t dsl_profiler_switch(void *pipeline, int32_t func, int32_t charged) {
    profiler_pipeline_t *p = (profiler_pipeline_t *)pipeline;
    uint64_t t = now_ns();
    if (charged) charge(p, t);
    if (func < 0 || !p) {
        running = NULL;
        return 0;
    }
    running = p;
    running_func = func <= p->count ? func : p->count;
    last = t;
    return 0;
}

DSL_RUNTIME_EXPORT int32_t dsl_profiler_end(void *pipeline) {
    profiler_pipeline_t *p = (profiler_pipeline_t *)pipeline;
    if (!p) return 0;
    uint64_t t = now_ns();
    charge(p, t);
    __atomic_fetch_add(&p->wall_ns, t - run_start, __ATOMIC_RELAXED);
    __atomic_fetch_add(&p->runs, 1, __ATOMIC_RELAXED);
    running = NULL;
    return 0;
}

// The `index`th name of `names` ('\n' after each) into `out`.
static void func_name(const char *names, int32_t index, char *out, size_t capacity) {
    const char *s = names;
    for (int32_t i = 0; i < index && s; i++) {
        s = strchr(s, '\n');
        if (s) s++;
    }
    size_t n = 0;
    while (s && s[n] && s[n] != '\n' && n + 1 < capacity) {
        out[n] = s[n];
        n++;
    }
    out[n] = 0;
}

// Prints the report of every pipeline run since the last reset (or only of those named `only`;
// or only of those run since their last report).
static void report(const char *only, int unreported_only) {
    pthread_mutex_lock(&lock);
    char line[512], name[256];
    for (profiler_pipeline_t *p = pipelines; p; p = p->next) {
        uint64_t runs = __atomic_load_n(&p->runs, __ATOMIC_RELAXED);
        if (runs == 0 || (only && strcmp(p->name, only) != 0)) continue;
        if (unreported_only && runs == p->reported_runs) continue;
        p->reported_runs = runs;
        uint64_t wall = __atomic_load_n(&p->wall_ns, __ATOMIC_RELAXED), busy = 0;
        for (int32_t i = 0; i <= p->count; i++)
            busy += __atomic_load_n(&p->ns[i], __ATOMIC_RELAXED);
        snprintf(line, sizeof(line),
                 "Profile of pipeline \"%s\": %llu run%s, %.3f ms per run (%.3f ms in all), "
                 "%.2f threads busy on average\n",
                 p->name, (unsigned long long)runs, runs == 1 ? "" : "s",
                 (double)wall / 1e6 / (double)runs, (double)wall / 1e6,
                 wall ? (double)busy / (double)wall : 0.0);
        dsl_runtime_print_line(line);
        for (int32_t i = 0; i <= p->count; i++) {
            uint64_t ns = __atomic_load_n(&p->ns[i], __ATOMIC_RELAXED);
            if (i < p->count) {
                func_name(p->funcs, i, name, sizeof(name) - 1);
            } else {
                snprintf(name, sizeof(name) - 1, "(outside every Func)");
            }
            strcat(name, ":");
            // Per run, laid out as Halide's report ("  f:   1.234567ms   (12%)").
            snprintf(line, sizeof(line), "  %-28s %12.6fms   (%d%%)\n", name,
                     (double)ns / 1e6 / (double)runs,
                     busy ? (int)(100.0 * (double)ns / (double)busy + 0.5) : 0);
            dsl_runtime_print_line(line);
        }
    }
    pthread_mutex_unlock(&lock);
}

DSL_RUNTIME_EXPORT void dsl_profiler_report(void) {
    report(NULL, 0);
}

DSL_RUNTIME_EXPORT void dsl_profiler_report_pipeline(const char *pipeline) {
    report(pipeline, 0);
}

DSL_RUNTIME_EXPORT void dsl_profiler_reset(void) {
    pthread_mutex_lock(&lock);
    for (profiler_pipeline_t *p = pipelines; p; p = p->next) {
        for (int32_t i = 0; i <= p->count; i++)
            __atomic_store_n(&p->ns[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&p->wall_ns, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&p->runs, 0, __ATOMIC_RELAXED);
        p->reported_runs = 0;
    }
    pthread_mutex_unlock(&lock);
}

DSL_RUNTIME_EXPORT int dsl_profiler_stats(const char *pipeline, const char *func, double *seconds,
                                          uint64_t *runs) {
    int found = 0;
    double total = 0;
    uint64_t total_runs = 0;
    char name[256];
    pthread_mutex_lock(&lock);
    for (profiler_pipeline_t *p = pipelines; p; p = p->next) {
        if (strcmp(p->name, pipeline) != 0) continue;
        if (!func) {
            found = 1;
            total += (double)__atomic_load_n(&p->wall_ns, __ATOMIC_RELAXED) / 1e9;
        }
        for (int32_t i = 0; func && i < p->count; i++) {
            func_name(p->funcs, i, name, sizeof(name));
            if (strcmp(name, func) != 0) continue;
            found = 1;
            total += (double)__atomic_load_n(&p->ns[i], __ATOMIC_RELAXED) / 1e9;
        }
        total_runs += __atomic_load_n(&p->runs, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&lock);
    if (seconds) *seconds = total;
    if (runs) *runs = total_runs;
    return found ? 0 : -1;
}
