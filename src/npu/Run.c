// A run of an NPU program: decoding and checking every instruction first, then the engines.
// Each engine takes its own instructions in program order; between engines only tokens order
// them. Two passes: the cycle model's (each engine starts its next instruction as soon as its
// tokens have arrived and it is free, and the earliest start goes first), and the functional one
// in the order asked for (the cycle model's, program order, or a seeded random choice among the
// engines that can go), which executes, race-checks and counts. In the cycle model's order the
// two are one pass.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu/Internal.h"

// Token queues between neighbouring engines.
enum { kLoadToCompute = 0, kComputeToLoad = 1, kComputeToStore = 2, kStoreToCompute = 3 };

static const char *const kEngineNames[] = {"load", "compute", "store"};

typedef struct Token {
    uint64_t time;
    dsl_npu_clock clock;
} Token;

typedef struct Queue {
    Token *items;
    uint64_t head, count, capacity;
} Queue;

// The queue a flag of an engine's instruction uses; -1 for a neighbour the engine lacks.
static int queue_of(int engine, int flag) {
    switch (engine) {
        case DSL_NPU_LOAD_ENGINE:
            return flag == DSL_NPU_POP_NEXT    ? kComputeToLoad
                   : flag == DSL_NPU_PUSH_NEXT ? kLoadToCompute
                                               : -1;
        case DSL_NPU_COMPUTE_ENGINE:
            switch (flag) {
                case DSL_NPU_POP_PREV:
                    return kLoadToCompute;
                case DSL_NPU_POP_NEXT:
                    return kStoreToCompute;
                case DSL_NPU_PUSH_PREV:
                    return kComputeToLoad;
                default:
                    return kComputeToStore;
            }
        default:
            return flag == DSL_NPU_POP_PREV    ? kComputeToStore
                   : flag == DSL_NPU_PUSH_PREV ? kStoreToCompute
                                               : -1;
    }
}

// The engine at the other end of a queue.
static int neighbour(int engine, int flag) {
    return flag == DSL_NPU_POP_PREV || flag == DSL_NPU_PUSH_PREV ? engine - 1 : engine + 1;
}

static const int kPops[] = {DSL_NPU_POP_PREV, DSL_NPU_POP_NEXT};
static const int kPushes[] = {DSL_NPU_PUSH_PREV, DSL_NPU_PUSH_NEXT};

typedef struct Pass {
    dsl_npu *npu;
    const dsl_npu_op *ops;
    uint64_t count;
    uint64_t *lists[3]; /* each engine's instructions, in program order */
    uint64_t list_count[3], head[3];
    Queue queues[4];
    uint64_t free_at[3];
    dsl_npu_clock clock[3];
    int order, bounded, execute, timing;
    uint64_t random_state;
    dsl_npu_races *races;
    dsl_npu_stats *stats;
} Pass;

// 0 when engine e's next instruction can start; otherwise 1 + the flag it waits on.
static int waits_on(const Pass *p, int e) {
    const dsl_npu_op *op = &p->ops[p->lists[e][p->head[e]]];
    for (int f = 0; f < 2; f++) {
        if ((op->deps & kPops[f]) && p->queues[queue_of(e, kPops[f])].count == 0)
            return 1 + kPops[f];
    }
    if (p->bounded) {
        for (int f = 0; f < 2; f++) {
            if ((op->deps & kPushes[f]) &&
                p->queues[queue_of(e, kPushes[f])].count >= (uint64_t)p->npu->config.queue_depth)
                return 1 + kPushes[f];
        }
    }
    return 0;
}

static uint64_t start_time(const Pass *p, int e) {
    const dsl_npu_op *op = &p->ops[p->lists[e][p->head[e]]];
    uint64_t start = p->free_at[e];
    for (int f = 0; f < 2; f++) {
        if (!(op->deps & kPops[f])) continue;
        const Queue *q = &p->queues[queue_of(e, kPops[f])];
        uint64_t t = q->items[q->head % q->capacity].time;
        if (t > start) start = t;
    }
    return start;
}

static int describe_wait(const Pass *p, int e, int waits, char *text, size_t n) {
    uint64_t i = p->lists[e][p->head[e]];
    char insn[256];
    dsl_npu_disassemble(&p->ops[i], insn, sizeof insn);
    int flag = waits - 1;
    int other = neighbour(e, flag);
    if (flag == DSL_NPU_POP_PREV || flag == DSL_NPU_POP_NEXT)
        return snprintf(text, n, "#%llu (%s) on the %s engine waits for a token from the %s engine",
                        (unsigned long long)i, insn, kEngineNames[e], kEngineNames[other]);
    return snprintf(text, n,
                    "#%llu (%s) on the %s engine waits for room in its queue to the %s engine "
                    "(%d tokens, the queue depth)",
                    (unsigned long long)i, insn, kEngineNames[e], kEngineNames[other],
                    p->npu->config.queue_depth);
}

static int deadlock(Pass *p) {
    char text[kNpuErrorCapacity];
    int used = snprintf(text, sizeof text, "NPU deadlock: every engine with work left waits:");
    for (int e = 0; e < 3; e++) {
        if (p->head[e] == p->list_count[e]) continue;
        if (used < (int)sizeof text) used += snprintf(text + used, sizeof text - used, " ");
        if (used < (int)sizeof text)
            used += describe_wait(p, e, waits_on(p, e), text + used, sizeof text - used);
        if (used < (int)sizeof text) used += snprintf(text + used, sizeof text - used, ";");
    }
    return dsl_npu_fail(p->npu, DSL_NPU_ERROR_DEADLOCK,
                        "%s no instruction pushes the tokens they wait for", text);
}

// Runs engine e's next instruction.
static int step(Pass *p, int e) {
    const uint64_t i = p->lists[e][p->head[e]];
    const dsl_npu_op *op = &p->ops[i];
    uint64_t start = p->free_at[e];
    dsl_npu_clock clock = p->clock[e];
    for (int f = 0; f < 2; f++) {
        if (!(op->deps & kPops[f])) continue;
        Queue *q = &p->queues[queue_of(e, kPops[f])];
        const Token *t = &q->items[q->head % q->capacity];
        if (t->time > start) start = t->time;
        for (int k = 0; k < 3; k++)
            clock.c[k] = t->clock.c[k] > clock.c[k] ? t->clock.c[k] : clock.c[k];
        q->head++;
        q->count--;
    }
    clock.c[e]++;
    if (p->execute) {
        if (p->races) {
            int code = dsl_npu_races_check(p->races, p->npu, i, op, &clock, p->ops);
            if (code) return code;
        }
        dsl_npu_execute(p->npu, op, p->stats);
    }
    const uint64_t busy = dsl_npu_cycles(&p->npu->config, op);
    const uint64_t end = start + busy;
    if (p->timing) {
        dsl_npu_engine_stats *s = &p->stats->engine[e];
        s->instructions++;
        s->busy_cycles += busy;
        s->stall_cycles += start - p->free_at[e];
        if (end > p->stats->cycles) p->stats->cycles = end;
    }
    p->free_at[e] = end;
    for (int f = 0; f < 2; f++) {
        if (!(op->deps & kPushes[f])) continue;
        Queue *q = &p->queues[queue_of(e, kPushes[f])];
        Token *t = &q->items[(q->head + q->count) % q->capacity];
        t->time = end;
        t->clock = clock;
        q->count++;
    }
    p->clock[e] = clock;
    p->head[e]++;
    return DSL_NPU_OK;
}

static uint64_t next_random(Pass *p) {
    // xorshift64*
    uint64_t x = p->random_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    p->random_state = x;
    return x * UINT64_C(2685821657736338717);
}

static int run_pass(Pass *p) {
    for (;;) {
        int ready[3], n = 0, left = 0;
        for (int e = 0; e < 3; e++) {
            if (p->head[e] == p->list_count[e]) continue;
            left = 1;
            if (!waits_on(p, e)) ready[n++] = e;
        }
        if (!left) return DSL_NPU_OK;
        int chosen = -1;
        if (p->order == DSL_NPU_SERIAL) {
            // The engine whose next instruction comes first in the program.
            for (int e = 0; e < 3; e++) {
                if (p->head[e] == p->list_count[e]) continue;
                if (chosen < 0 || p->lists[e][p->head[e]] < p->lists[chosen][p->head[chosen]])
                    chosen = e;
            }
            int waits = waits_on(p, chosen);
            if (waits) {
                char text[512];
                describe_wait(p, chosen, waits, text, sizeof text);
                return dsl_npu_fail(p->npu, DSL_NPU_ERROR_DEADLOCK,
                                    "NPU program order is not a valid serial order: %s, and no "
                                    "earlier instruction pushed it; push the token earlier in "
                                    "the program",
                                    text);
            }
        } else if (n == 0) {
            return deadlock(p);
        } else if (p->order == DSL_NPU_RANDOM) {
            chosen = ready[next_random(p) % (uint64_t)n];
        } else {
            for (int k = 0; k < n; k++) {
                int e = ready[k];
                if (chosen < 0 || start_time(p, e) < start_time(p, chosen)) chosen = e;
            }
        }
        int code = step(p, chosen);
        if (code) return code;
    }
}

static void free_pass(Pass *p) {
    for (int e = 0; e < 3; e++)
        free(p->lists[e]);
    for (int q = 0; q < 4; q++)
        free(p->queues[q].items);
}

static int make_pass(Pass *p, dsl_npu *npu, const dsl_npu_op *ops, uint64_t count) {
    memset(p, 0, sizeof *p);
    p->npu = npu;
    p->ops = ops;
    p->count = count;
    uint64_t pushes[4] = {0, 0, 0, 0};
    for (uint64_t i = 0; i < count; i++) {
        int e = dsl_npu_engine_of(&ops[i]);
        p->list_count[e]++;
        for (int f = 0; f < 2; f++) {
            // (Decoding refused flags towards a neighbour the engine lacks.)
            int q = (ops[i].deps & kPushes[f]) ? queue_of(e, kPushes[f]) : -1;
            if (q >= 0) pushes[q]++;
        }
    }
    int ok = 1;
    for (int e = 0; e < 3; e++) {
        p->lists[e] = (uint64_t *)malloc((p->list_count[e] + 1) * sizeof(uint64_t));
        ok &= p->lists[e] != NULL;
        p->list_count[e] = 0;
    }
    for (int q = 0; q < 4; q++) {
        p->queues[q].capacity = pushes[q] + 1;
        p->queues[q].items = (Token *)malloc(p->queues[q].capacity * sizeof(Token));
        ok &= p->queues[q].items != NULL;
    }
    if (!ok) {
        free_pass(p);
        return dsl_npu_fail(npu, DSL_NPU_ERROR_MEMORY, "NPU: out of host memory for the run");
    }
    for (uint64_t i = 0; i < count; i++) {
        int e = dsl_npu_engine_of(&ops[i]);
        p->lists[e][p->list_count[e]++] = i;
    }
    return DSL_NPU_OK;
}

static int run_once(dsl_npu *npu, const dsl_npu_op *ops, uint64_t count, int order, uint64_t seed,
                    int execute, int timing, dsl_npu_races *races, dsl_npu_stats *stats) {
    Pass p;
    int code = make_pass(&p, npu, ops, count);
    if (code) return code;
    p.order = order;
    p.bounded = order != DSL_NPU_SERIAL;
    p.execute = execute;
    p.timing = timing;
    p.random_state = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;
    p.races = races;
    p.stats = stats;
    code = run_pass(&p);
    free_pass(&p);
    return code;
}

// Decodes and checks the whole program before anything runs.
static int prepare(dsl_npu *npu, const dsl_npu_insn *program, uint64_t count, dsl_npu_op *ops) {
    if (count == 0 || !program)
        return dsl_npu_fail(npu, DSL_NPU_ERROR_PROGRAM,
                            "NPU program is empty: it must end with a FINISH");
    for (uint64_t i = 0; i < count; i++) {
        char why[512];
        if (dsl_npu_decode(&program[i], &ops[i], why, sizeof why))
            return dsl_npu_fail(npu, DSL_NPU_ERROR_ENCODING, "NPU instruction #%llu: %s",
                                (unsigned long long)i, why);
        if (ops[i].opcode == DSL_NPU_FINISH && i + 1 != count)
            return dsl_npu_fail(npu, DSL_NPU_ERROR_PROGRAM,
                                "NPU instruction #%llu is a FINISH, but %llu instructions follow "
                                "it; FINISH must be the last",
                                (unsigned long long)i, (unsigned long long)(count - i - 1));
        int code = dsl_npu_check_bounds(npu, i, &ops[i]);
        if (code) return code;
    }
    if (ops[count - 1].opcode != DSL_NPU_FINISH)
        return dsl_npu_fail(npu, DSL_NPU_ERROR_PROGRAM,
                            "NPU program of %llu instructions does not end with a FINISH",
                            (unsigned long long)count);
    return DSL_NPU_OK;
}

DSL_NPU_EXPORT int dsl_npu_run(dsl_npu *npu, const dsl_npu_insn *program, uint64_t count,
                               const dsl_npu_run_options *options, dsl_npu_stats *stats) {
    npu->error[0] = 0;
    dsl_npu_run_options defaults;
    dsl_npu_default_run_options(&defaults);
    if (!options) options = &defaults;
    dsl_npu_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    dsl_npu_op *ops = (dsl_npu_op *)malloc((count ? count : 1) * sizeof(dsl_npu_op));
    if (!ops) return dsl_npu_fail(npu, DSL_NPU_ERROR_MEMORY, "NPU: out of host memory");
    int code = prepare(npu, program, count, ops);
    dsl_npu_races *races = NULL;
    if (!code && options->check_races) {
        races = dsl_npu_races_create(&npu->config);
        if (!races) code = dsl_npu_fail(npu, DSL_NPU_ERROR_MEMORY, "NPU: out of host memory");
    }
    const int order = options->order;
    if (!code && order != DSL_NPU_DATAFLOW) {
        // The cycle model first: a deadlock there is one on the hardware.
        code = run_once(npu, ops, count, DSL_NPU_DATAFLOW, 0, 0, 1, NULL, stats);
        if (!code) code = run_once(npu, ops, count, order, options->seed, 1, 0, races, stats);
    } else if (!code) {
        code = run_once(npu, ops, count, DSL_NPU_DATAFLOW, 0, 1, 1, races, stats);
    }
    dsl_npu_races_destroy(races);
    free(ops);
    if (stats->cycles) stats->gemm_utilisation = (double)stats->gemm_steps / (double)stats->cycles;
    const char *print = getenv("DSL_NPU_STATS");
    if (!code && print && print[0] && print[0] != '0') {
        char text[2048];
        dsl_npu_format_stats(stats, text, sizeof text);
        fputs(text, stderr);
    }
    return code;
}

DSL_NPU_EXPORT void dsl_npu_format_stats(const dsl_npu_stats *s, char *text, size_t n) {
    if (n == 0) return;
    const double cycles = s->cycles ? (double)s->cycles : 1.0;
    int used =
        snprintf(text, n,
                 "NPU: %llu cycles; GEMM %llu steps (%.1f%% of cycles), %llu MACs; ALU "
                 "%llu rows\n"
                 "NPU: DRAM %llu bytes read, %llu written; %llu bytes of padding\n",
                 (unsigned long long)s->cycles, (unsigned long long)s->gemm_steps,
                 100.0 * s->gemm_utilisation, (unsigned long long)s->macs,
                 (unsigned long long)s->alu_rows, (unsigned long long)s->dram_bytes_read,
                 (unsigned long long)s->dram_bytes_written, (unsigned long long)s->pad_bytes);
    for (int e = 0; e < 3 && used >= 0 && (size_t)used < n; e++) {
        const dsl_npu_engine_stats *es = &s->engine[e];
        used += snprintf(text + used, n - (size_t)used,
                         "NPU: %-7s engine: %llu instructions, busy %llu cycles (%.1f%%), "
                         "stalled %llu\n",
                         kEngineNames[e], (unsigned long long)es->instructions,
                         (unsigned long long)es->busy_cycles, 100.0 * es->busy_cycles / cycles,
                         (unsigned long long)es->stall_cycles);
    }
    if (used >= 0 && (size_t)used < n)
        snprintf(text + used, n - (size_t)used,
                 "NPU: instructions: LOAD %llu, STORE %llu, GEMM %llu, ALU %llu, FINISH %llu\n",
                 (unsigned long long)s->instructions[0], (unsigned long long)s->instructions[1],
                 (unsigned long long)s->instructions[2], (unsigned long long)s->instructions[3],
                 (unsigned long long)s->instructions[4]);
}
