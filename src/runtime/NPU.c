// The runtime's NPU: one simulated device for the process (src/npu/), and the GEMM offload that
// generated code calls for an update scheduled with npu_gemm / npu (lowering/OffloadNPULoops).
//
// dsl_runtime_npu_gemm copies its operands into device memory in the NPU's layouts (A as INP
// rows of 16 k, B as WGT blocks, C as ACC rows of 16 n, each padded with zeros to whole
// blocks), writes the instruction stream for the shapes it is given, runs it, and copies C
// back. The stream: B in chunks of as many output blocks as WGT holds; per chunk, tiles of
// `tile_rows` rows of C, each one LOAD of its A rows, a reset of (or, accumulating, a LOAD of)
// its accumulators, one GEMM per output block (rows x the whole contraction, two loops), and a
// STORE; with two copies of the INP and ACC tiles, the load of the next tile and the store of
// the last overlap this tile's GEMMs. Tokens: load -> compute (tile loaded), compute -> load
// (its INP copy free), compute -> store (tile computed), store -> compute (its ACC copy free).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "npu/Npu.h"
#include "runtime/Runtime.h"

static pthread_mutex_t npu_lock = PTHREAD_MUTEX_INITIALIZER;
static dsl_npu *npu_device;
static dsl_npu_stats npu_last_stats, npu_total_stats;

// Adds a run's counters to the totals (under npu_lock).
static void add_to_totals(const dsl_npu_stats *run) {
    dsl_npu_stats *t = &npu_total_stats;
    t->cycles += run->cycles;
    for (int e = 0; e < 3; e++) {
        t->engine[e].instructions += run->engine[e].instructions;
        t->engine[e].busy_cycles += run->engine[e].busy_cycles;
        t->engine[e].stall_cycles += run->engine[e].stall_cycles;
    }
    for (int i = 0; i < 5; i++)
        t->instructions[i] += run->instructions[i];
    t->gemm_steps += run->gemm_steps;
    t->macs += run->macs;
    t->alu_rows += run->alu_rows;
    t->dram_bytes_read += run->dram_bytes_read;
    t->dram_bytes_written += run->dram_bytes_written;
    t->pad_bytes += run->pad_bytes;
    t->gemm_utilisation = t->cycles ? (double)t->gemm_steps / (double)t->cycles : 0;
}

// The process's NPU, made on first use (under npu_lock).
static dsl_npu *device(void) {
    if (!npu_device) {
        char error[256] = "";
        npu_device = dsl_npu_create(NULL, error, sizeof error);
        if (!npu_device) dsl_runtime_report(dsl_error_device_error, "%s", error);
    }
    return npu_device;
}

DSL_RUNTIME_EXPORT int dsl_runtime_npu_last_stats(dsl_npu_stats *stats) {
    pthread_mutex_lock(&npu_lock);
    *stats = npu_last_stats;
    pthread_mutex_unlock(&npu_lock);
    return 0;
}

DSL_RUNTIME_EXPORT int dsl_runtime_npu_total_stats(dsl_npu_stats *stats, int32_t reset) {
    pthread_mutex_lock(&npu_lock);
    if (stats) *stats = npu_total_stats;
    if (reset) memset(&npu_total_stats, 0, sizeof npu_total_stats);
    pthread_mutex_unlock(&npu_lock);
    return 0;
}

/* The NPU as a device of dsl_buffer_t (dsl_buffer_t's device interface): a buffer's device
 * handle is its address in the simulator's DRAM; copies are real copies of its span. */
static int npu_device_malloc(dsl_buffer_t *b, uint64_t bytes) {
    pthread_mutex_lock(&npu_lock);
    dsl_npu *npu = device();
    uint64_t address = 0;
    int failed = !npu || dsl_npu_malloc(npu, bytes ? bytes : 1, &address);
    const char *why = npu ? dsl_npu_last_error(npu) : "no NPU";
    pthread_mutex_unlock(&npu_lock);
    if (failed)
        return dsl_runtime_report(dsl_error_out_of_memory, "Error: NPU device memory: %s", why);
    b->device = address;
    return 0;
}

static int npu_device_free(dsl_buffer_t *b) {
    pthread_mutex_lock(&npu_lock);
    int failed = !npu_device || dsl_npu_free(npu_device, b->device);
    pthread_mutex_unlock(&npu_lock);
    if (failed)
        return dsl_runtime_report(dsl_error_device_error,
                                  "Error: 0x%llx is not NPU device memory to release",
                                  (unsigned long long)b->device);
    return 0;
}

static int npu_copy(dsl_buffer_t *b, uint64_t bytes, int to_device) {
    pthread_mutex_lock(&npu_lock);
    uint8_t *dram = npu_device ? dsl_npu_dram(npu_device) : NULL;
    if (dram) {
        if (to_device) {
            memcpy(dram + b->device, b->host, bytes);
        } else {
            memcpy(b->host, dram + b->device, bytes);
        }
    }
    pthread_mutex_unlock(&npu_lock);
    return dram ? 0 : dsl_runtime_report(dsl_error_device_error, "Error: no NPU device");
}

static int npu_copy_to_host(dsl_buffer_t *b, uint64_t bytes) {
    return npu_copy(b, bytes, 0);
}

static int npu_copy_to_device(dsl_buffer_t *b, uint64_t bytes) {
    return npu_copy(b, bytes, 1);
}

static int npu_sync(void) {
    return 0;  // every program runs to its end before its call returns
}

DSL_RUNTIME_EXPORT const dsl_device_interface_t dsl_npu_device_interface = {
    "NPU", npu_device_malloc, npu_device_free, npu_copy_to_host, npu_copy_to_device, npu_sync};

/// DSL_NPU_ORDER=serial, dataflow (the default) or random[:seed]: the order the simulator runs
/// the engines in (every order gives the same memory; a test runs programs in all of them).
static void choose_order(dsl_npu_run_options *options) {
    const char *order = getenv("DSL_NPU_ORDER");
    if (!order || !order[0]) return;
    if (!strcmp(order, "serial")) {
        options->order = DSL_NPU_SERIAL;
    } else if (!strncmp(order, "random", 6)) {
        options->order = DSL_NPU_RANDOM;
        if (order[6] == ':') options->seed = strtoull(order + 7, NULL, 10);
    }
}

/// An instruction stream being written.
typedef struct Stream {
    dsl_npu_insn *code;
    uint64_t count, capacity;
    int failed;
    char error[256];
} Stream;

static void emit(Stream *s, const dsl_npu_op *op) {
    if (s->failed) return;
    if (s->count == s->capacity) {
        uint64_t capacity = s->capacity ? 2 * s->capacity : 256;
        dsl_npu_insn *grown = (dsl_npu_insn *)realloc(s->code, capacity * sizeof(dsl_npu_insn));
        if (!grown) {
            s->failed = 1;
            strcpy(s->error, "out of host memory for the instruction stream");
            return;
        }
        s->code = grown;
        s->capacity = capacity;
    }
    if (dsl_npu_encode(op, &s->code[s->count], s->error, sizeof s->error)) {
        s->failed = 1;
        return;
    }
    s->count++;
}

/// Pops tokens until `*popped` reaches `need`: the last pop is left to the caller's instruction
/// (returns 1 if it must pop), the others ride on no-op instructions of the engine.
static int pops_before(Stream *s, int engine, uint64_t *popped, uint64_t need) {
    if (*popped >= need) return 0;
    while (*popped + 1 < need) {
        const dsl_npu_op op =
            engine == DSL_NPU_LOAD_ENGINE
                ? dsl_npu_memory(DSL_NPU_LOAD, DSL_NPU_INP, 0, 0, 0, 0, 0, 0, DSL_NPU_POP_NEXT)
                : dsl_npu_reset(0, 0, DSL_NPU_POP_NEXT);
        emit(s, &op);
        (*popped)++;
    }
    (*popped)++;
    return 1;
}

typedef struct GemmShape {
    int64_t m, n, k, kb, nb;
    uint64_t a_at, b_at, c_at; /* device addresses of the packed operands */
    /* A depthwise GEMM's A has one copy per output block (its channels): the bytes between
     * them; each chunk of weights is then one output block. 0 otherwise. */
    uint64_t a_chunk_bytes;
    int accumulate, tile_rows, copies;
    /* A requantization after the sum (on the ALU): TFLite's rescaling by per-channel rows at
     * params_at (per output block: the multipliers, minus the left shifts, the right shifts),
     * then + zero_point, clamped to [lo, hi]. */
    int requantize;
    int32_t zero_point, lo, hi;
    uint64_t params_at;
    int left_shifts; /* whether any channel shifts left (else that SHR is left out) */
    /* The results stored as bytes (dsl_npu_format DSL_NPU_I8 or DSL_NPU_U8, saturated) at c8_at,
     * one byte a lane, in C's packed layout; 0: as int32 at c_at. */
    int store_format;
    uint64_t c8_at;
} GemmShape;

// Writes the stream; returns 0, or reports why the shape does not fit and returns an error.
static int write_gemm(Stream *s, const dsl_npu_config *c, const GemmShape *g, const char *name) {
    const int64_t inp_cap = c->inp_bytes / (uint32_t)c->block_in;
    const int64_t wgt_cap = c->wgt_bytes / (uint32_t)(c->block_in * c->block_out);
    const int64_t acc_cap = c->acc_bytes / (uint32_t)(4 * c->block_out);
    const int64_t copies = g->copies;
    const int64_t kb = g->kb > 0 ? g->kb : 1;
    if (kb > wgt_cap || kb * copies > inp_cap)
        return dsl_runtime_report(dsl_error_device_error,
                                  "NPU GEMM of \"%s\": a contraction of %lld (%lld blocks) does "
                                  "not fit on chip (%lld WGT blocks, %lld INP rows for %lld "
                                  "copies); split the reduction and accumulate",
                                  name, (long long)g->k, (long long)kb, (long long)wgt_cap,
                                  (long long)inp_cap, (long long)copies);
    // Output blocks per chunk of weights, and rows per tile.
    int64_t chunk = g->a_chunk_bytes ? 1 : wgt_cap / kb;
    if (chunk > g->nb) chunk = g->nb;
    // The requantization's rows (3 per output block of the chunk) sit at the end of ACC.
    const int64_t per_block = copies + (g->requantize ? 3 : 0);
    if (chunk * per_block > acc_cap) chunk = acc_cap / per_block;
    const int64_t tile_cap = acc_cap - (g->requantize ? 3 * chunk : 0);
    const uint32_t params_base = (uint32_t)tile_cap;
    int64_t rows = g->tile_rows;
    const int64_t most = (inp_cap / (kb * copies)) < (tile_cap / (chunk * copies))
                             ? inp_cap / (kb * copies)
                             : tile_cap / (chunk * copies);
    if (rows <= 0) {
        // By default about eight tiles (at least 16 rows each), so that the first tile's load
        // and the last one's store, which nothing overlaps, stay short; at most what fits.
        rows = (g->m + 7) / 8;
        if (rows < 16) rows = 16;
        if (rows > g->m) rows = g->m;
        if (rows > most) rows = most;
    }
    if (rows > 65535) rows = 65535;
    if (rows > most || rows < 1)
        return dsl_runtime_report(dsl_error_device_error,
                                  "NPU GEMM of \"%s\": tiles of %lld rows need %lld INP rows and "
                                  "%lld ACC rows (%lld copies), but the NPU has %lld and %lld; "
                                  "use npu_tile(%lld) or less",
                                  name, (long long)rows, (long long)(rows * kb * copies),
                                  (long long)(rows * chunk * copies), (long long)copies,
                                  (long long)inp_cap, (long long)tile_cap, (long long)most);
    const uint32_t inp_row = (uint32_t)c->block_in;
    const uint32_t wgt_block = (uint32_t)(c->block_in * c->block_out);
    const uint32_t acc_row = (uint32_t)(4 * c->block_out);
    uint64_t t = 0, load_popped = 0, compute_popped = 0;
    for (int64_t n0 = 0; n0 < g->nb; n0 += chunk) {
        const int64_t nw = g->nb - n0 < chunk ? g->nb - n0 : chunk;
        for (int64_t m0 = 0; m0 < g->m; m0 += rows, t++) {
            const int64_t tm = g->m - m0 < rows ? g->m - m0 : rows;
            const uint64_t slot = t % (uint64_t)copies;
            const uint32_t inp_base = (uint32_t)(slot * rows * kb);
            const uint32_t acc_base = (uint32_t)(slot * rows * chunk);
            dsl_npu_op op;
            // Load engine: the chunk's weights once every earlier tile is done with the last
            // chunk's, then this tile's A rows once the tile that last used its copy is done.
            if (m0 == 0) {
                int pop = pops_before(s, DSL_NPU_LOAD_ENGINE, &load_popped, t);
                op = dsl_npu_memory(
                    DSL_NPU_LOAD, DSL_NPU_WGT, 0, g->b_at + (uint64_t)(n0 * kb) * wgt_block, 1,
                    (uint32_t)(nw * g->kb), 0, wgt_block, pop ? DSL_NPU_POP_NEXT : 0);
                emit(s, &op);
            }
            int pop = t >= (uint64_t)copies &&
                      pops_before(s, DSL_NPU_LOAD_ENGINE, &load_popped, t - copies + 1);
            op = dsl_npu_memory(DSL_NPU_LOAD, DSL_NPU_INP, inp_base,
                                g->a_at + (uint64_t)n0 * g->a_chunk_bytes +
                                    (uint64_t)m0 * (uint64_t)g->kb * inp_row,
                                (uint32_t)tm, (uint32_t)g->kb, (uint32_t)g->kb * inp_row, inp_row,
                                DSL_NPU_PUSH_NEXT | (pop ? DSL_NPU_POP_NEXT : 0));
            emit(s, &op);
            // Compute engine: wait for the tile, and for its ACC copy's last store.
            pop = t >= (uint64_t)copies &&
                  pops_before(s, DSL_NPU_COMPUTE_ENGINE, &compute_popped, t - copies + 1);
            const int deps = DSL_NPU_POP_PREV | (pop ? DSL_NPU_POP_NEXT : 0);
            const uint64_t c_tile =
                g->c_at + ((uint64_t)m0 * (uint64_t)g->nb + (uint64_t)n0) * acc_row;
            if (g->requantize && m0 == 0) {
                // The chunk's per-channel rows (after the last chunk's ALU work: same engine).
                op = dsl_npu_memory(DSL_NPU_LOAD, DSL_NPU_ACC, params_base,
                                    g->params_at + (uint64_t)n0 * 3 * acc_row, 1,
                                    (uint32_t)(3 * nw), 0, acc_row, 0);
                emit(s, &op);
            }
            if (g->accumulate) {
                op = dsl_npu_memory(DSL_NPU_LOAD, DSL_NPU_ACC, acc_base, c_tile, (uint32_t)tm,
                                    (uint32_t)nw, (uint32_t)g->nb * acc_row, acc_row, deps);
            } else {
                op = dsl_npu_reset(acc_base, (uint32_t)(tm * nw), deps);
            }
            emit(s, &op);
            // The tile's last compute instruction tells the load engine its INP copy is free
            // and the store engine that the tile is ready.
            const int done = DSL_NPU_PUSH_PREV | DSL_NPU_PUSH_NEXT;
            for (int64_t j = 0; j < nw && g->kb > 0; j++) {
                const int last = j == nw - 1 && !g->requantize;
                // Rows x the contraction: acc row m * nw + j += INP row m * kb + k . WGT k.
                op = dsl_npu_gemm(acc_base + (uint32_t)j, inp_base, (uint32_t)(j * kb),
                                  (uint32_t)tm, (uint32_t)g->kb, (uint32_t)nw, 0, (uint32_t)kb, 1,
                                  0, 1, last ? done : 0);
                emit(s, &op);
            }
            for (int64_t j = 0; j < nw && g->requantize; j++) {
                // x << left, high multiply, rounding >> right, + zero point, clamp (the steps
                // that change nothing left out).
                const uint32_t dst = acc_base + (uint32_t)j, p = params_base + 3 * (uint32_t)j;
                const uint32_t n = (uint32_t)tm, step = (uint32_t)nw;
                dsl_npu_op ops[6];
                int count = 0;
                if (g->left_shifts)
                    ops[count++] = dsl_npu_alu(DSL_NPU_SHR, dst, n, step, p + 1, 0, 0, 0, 0);
                ops[count++] = dsl_npu_alu(DSL_NPU_MULH, dst, n, step, p, 0, 0, 0, 0);
                ops[count++] = dsl_npu_alu(DSL_NPU_SHR, dst, n, step, p + 2, 0, 0, 0, 0);
                if (g->zero_point)
                    ops[count++] =
                        dsl_npu_alu(DSL_NPU_ADD, dst, n, step, 0, 0, 1, g->zero_point, 0);
                if (g->lo != INT32_MIN)
                    ops[count++] = dsl_npu_alu(DSL_NPU_MAX, dst, n, step, 0, 0, 1, g->lo, 0);
                if (g->hi != INT32_MAX)
                    ops[count++] = dsl_npu_alu(DSL_NPU_MIN, dst, n, step, 0, 0, 1, g->hi, 0);
                if (j == nw - 1) ops[count - 1].deps = (uint8_t)done;
                for (int i = 0; i < count; i++)
                    emit(s, &ops[i]);
            }
            if (g->kb == 0 && !g->requantize) {
                op = dsl_npu_reset(0, 0, done);  // nothing to compute: pass the tokens on
                emit(s, &op);
            }
            // Store engine: int32 lanes, or bytes saturated by the STORE itself.
            if (g->store_format) {
                const uint32_t byte_row = (uint32_t)c->block_out;
                op = dsl_npu_memory(
                    DSL_NPU_STORE, DSL_NPU_ACC, acc_base,
                    g->c8_at + ((uint64_t)m0 * (uint64_t)g->nb + (uint64_t)n0) * byte_row,
                    (uint32_t)tm, (uint32_t)nw, (uint32_t)g->nb * byte_row, byte_row,
                    DSL_NPU_POP_PREV | DSL_NPU_PUSH_PREV);
                op.mem.format = (uint8_t)g->store_format;
            } else {
                op = dsl_npu_memory(DSL_NPU_STORE, DSL_NPU_ACC, acc_base, c_tile, (uint32_t)tm,
                                    (uint32_t)nw, (uint32_t)g->nb * acc_row, acc_row,
                                    DSL_NPU_POP_PREV | DSL_NPU_PUSH_PREV);
            }
            emit(s, &op);
        }
    }
    // Every store done before the end.
    int pop = pops_before(s, DSL_NPU_COMPUTE_ENGINE, &compute_popped, t);
    dsl_npu_op finish;
    memset(&finish, 0, sizeof finish);
    finish.opcode = DSL_NPU_FINISH;
    finish.deps = (uint8_t)(pop ? DSL_NPU_POP_NEXT : 0);
    emit(s, &finish);
    if (s->failed)
        return dsl_runtime_report(dsl_error_device_error, "NPU GEMM of \"%s\": %s", name, s->error);
    return 0;
}

static int64_t blocks(int64_t extent, int32_t block) {
    return (extent + block - 1) / block;
}

/* The roles flattened: their sizes, and for each flat index the offset it adds to each buffer
 * it indexes (rows m: a, c; output channels n: b, c; contraction k: a, b; diagonal d, a
 * depthwise convolution's channels: a, b, c). */
typedef struct Roles {
    int64_t m, n, k, d;
    int64_t *am, *cm, *bn, *cn, *ak, *bk, *ad, *bd, *cd;
} Roles;

/* A requantization on the ALU after the sum: per flat output channel, the offsets of its
 * multiplier and shift from their first elements. */
typedef struct Requant {
    const int32_t *multiplier, *shift;
    int64_t *mo, *so;
    int32_t zero_point, lo, hi;
} Requant;

/* The results converted to bytes by the NPU's STORE: for each result (row i, column j, at
 * i * columns + j) the element of `dst` it goes to, and the format. */
typedef struct NarrowStore {
    const int64_t *to;
    void *dst;
    int format;
} NarrowStore;

static int run_gemm(const char *name, const int8_t *a, const int8_t *b, int32_t *c, const Roles *r,
                    const Requant *rq, const NarrowStore *narrow, int32_t accumulate,
                    int32_t tile_rows, int32_t copies);

/* One role's loops (up to 4, the first fastest) flattened: for each flat index, the offsets
 * it adds to the buffers the role indexes (`z` may be null). */
static int flatten(const int32_t *extents, const int64_t *sx, const int64_t *sy, const int64_t *sz,
                   int64_t count, int64_t **x, int64_t **y, int64_t **z) {
    const size_t bytes = (size_t)(count ? count : 1) * sizeof(int64_t);
    *x = (int64_t *)malloc(bytes);
    *y = (int64_t *)malloc(bytes);
    if (z) *z = (int64_t *)malloc(bytes);
    if (!*x || !*y || (z && !*z)) return 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t rest = i, ox = 0, oy = 0, oz = 0;
        for (int s = 0; s < 4; s++) {
            const int64_t at = rest % extents[s];
            rest /= extents[s];
            ox += at * sx[s];
            oy += at * sy[s];
            if (z) oz += at * sz[s];
        }
        (*x)[i] = ox;
        (*y)[i] = oy;
        if (z) (*z)[i] = oz;
    }
    return 1;
}

/* A requantization handed to the next GEMM call of this thread
 * (dsl_runtime_npu_next_requantization): its arguments, as dsl_runtime_npu_requantize's. */
typedef struct NextRequant {
    int active;
    const char *name;
    int32_t *c;
    int64_t c_offset;
    int32_t rows[4];
    int64_t rows_c[4];
    int32_t channels;
    int64_t channel_c, channel_multiplier, channel_shift;
    const int32_t *multiplier, *shift;
    int64_t multiplier_offset, shift_offset;
    int32_t zero_point, lo, hi, tile_rows, copies;
} NextRequant;

static _Thread_local NextRequant next_requant;

DSL_RUNTIME_EXPORT int dsl_runtime_npu_next_requantization(
    const char *name, int32_t *c, int64_t c_offset, int32_t m0, int64_t m0_c, int32_t m1,
    int64_t m1_c, int32_t m2, int64_t m2_c, int32_t m3, int64_t m3_c, int32_t channels,
    int64_t channel_c, int64_t channel_multiplier, int64_t channel_shift, const int32_t *multiplier,
    int64_t multiplier_offset, const int32_t *shift, int64_t shift_offset, int32_t zero_point,
    int32_t lo, int32_t hi, int32_t tile_rows, int32_t copies) {
    NextRequant n = {1,
                     name,
                     c,
                     c_offset,
                     {m0, m1, m2, m3},
                     {m0_c, m1_c, m2_c, m3_c},
                     channels,
                     channel_c,
                     channel_multiplier,
                     channel_shift,
                     multiplier,
                     shift,
                     multiplier_offset,
                     shift_offset,
                     zero_point,
                     lo,
                     hi,
                     tile_rows,
                     copies};
    next_requant = n;
    return 0;
}

/* A Func that converts the next GEMM's results to bytes (dsl_runtime_npu_next_store): its
 * loops (up to 8, the first fastest), each with its extent and its strides in the results `c`
 * and in the Func's buffer `dst`. */
typedef struct NextStore {
    int active;
    void *dst;
    int64_t dst_offset;
    const int32_t *c;
    int64_t c_offset;
    int32_t extents[8];
    int64_t c_strides[8], dst_strides[8];
    int32_t format; /* DSL_NPU_I8 or DSL_NPU_U8 */
} NextStore;

static _Thread_local NextStore next_store;

DSL_RUNTIME_EXPORT int dsl_runtime_npu_next_store(
    void *dst, int64_t dst_offset, const int32_t *c, int64_t c_offset, int32_t e0, int64_t c0,
    int64_t d0, int32_t e1, int64_t c1, int64_t d1, int32_t e2, int64_t c2, int64_t d2, int32_t e3,
    int64_t c3, int64_t d3, int32_t e4, int64_t c4, int64_t d4, int32_t e5, int64_t c5, int64_t d5,
    int32_t e6, int64_t c6, int64_t d6, int32_t e7, int64_t c7, int64_t d7, int32_t format) {
    NextStore n = {1,
                   dst,
                   dst_offset,
                   c,
                   c_offset,
                   {e0, e1, e2, e3, e4, e5, e6, e7},
                   {c0, c1, c2, c3, c4, c5, c6, c7},
                   {d0, d1, d2, d3, d4, d5, d6, d7},
                   format};
    next_store = n;
    return 0;
}

/* How many points the converting Func's loops have. */
static int64_t store_points(const NextStore *s) {
    int64_t count = 1;
    for (int l = 0; l < 8; l++)
        count *= s->extents[l] > 0 ? s->extents[l] : 0;
    return count;
}

/* Point `p` of those loops (the first loop fastest): the element of the results it reads
 * (`*from`) and the one of the Func's buffer it writes (`*to`). */
static void store_point(const NextStore *s, int64_t p, int64_t *from, int64_t *to) {
    int64_t rest = p;
    *from = s->c_offset;
    *to = s->dst_offset;
    for (int l = 0; l < 8; l++) {
        const int64_t at = rest % s->extents[l];
        rest /= s->extents[l];
        *from += at * s->c_strides[l];
        *to += at * s->dst_strides[l];
    }
}

/* The element of C (from the GEMM's `c`) that holds result row i, column j. */
static int64_t result_offset(const Roles *r, int64_t i, int64_t j) {
    return r->cm[i] + (r->d > 1 ? r->cn[0] + r->cd[j] : r->cn[j] + r->cd[0]);
}

/* The conversion done here, from the int32 results in host memory: the low byte of each, as
 * the Func's cast computes it. */
static void store_on_host(const NextStore *s) {
    const int64_t count = store_points(s);
    for (int64_t p = 0; p < count; p++) {
        int64_t from, to;
        store_point(s, p, &from, &to);
        ((uint8_t *)s->dst)[to] = (uint8_t)((uint32_t)s->c[from] & 0xffu);
    }
}

/* For each of the GEMM's results (i * columns + j), the element of the Func's buffer that
 * converts it; NULL unless the Func's points convert exactly the results, one each, and they
 * already lie in [lo, hi] within the format's range (the saturating STORE then gives the
 * cast's bytes). */
static int64_t *store_map(const NextStore *s, const Roles *r, const int32_t *c, int64_t c_offset,
                          int32_t lo, int32_t hi) {
    const int32_t least = s->format == DSL_NPU_I8 ? -128 : 0;
    const int32_t most = s->format == DSL_NPU_I8 ? 127 : 255;
    if (s->c != c || lo < least || hi > most) return NULL;
    const int64_t columns = r->d > 1 ? r->d : r->n, results = r->m * columns;
    const int64_t count = store_points(s);
    if (count != results || results <= 0) return NULL;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (int64_t i = 0; i < r->m; i++)
        for (int64_t j = 0; j < columns; j++) {
            const int64_t at = c_offset + result_offset(r, i, j);
            if (at < first) first = at;
            if (at > last) last = at;
        }
    const int64_t span = last - first + 1;
    if (span > 16 * results + 4096) return NULL;  // too sparse to index
    int64_t *result_at = (int64_t *)malloc((size_t)span * sizeof(int64_t));
    int64_t *to = (int64_t *)malloc((size_t)results * sizeof(int64_t));
    int ok = result_at && to;
    for (int64_t x = 0; ok && x < span; x++)
        result_at[x] = -1;
    for (int64_t i = 0; ok && i < r->m; i++)
        for (int64_t j = 0; ok && j < columns; j++) {
            const int64_t at = c_offset + result_offset(r, i, j);
            ok = result_at[at - first] < 0;
            result_at[at - first] = i * columns + j;
            to[i * columns + j] = -1;
        }
    for (int64_t p = 0; ok && p < count; p++) {
        int64_t from, dst;
        store_point(s, p, &from, &dst);
        ok = from >= first && from <= last && result_at[from - first] >= 0 &&
             to[result_at[from - first]] < 0;
        if (ok) to[result_at[from - first]] = dst;
    }
    free(result_at);
    if (!ok) {
        free(to);
        return NULL;
    }
    return to;
}

static int requantize_alone(const NextRequant *n) {
    return dsl_runtime_npu_requantize(
        n->name, n->c, n->c_offset, n->rows[0], n->rows_c[0], n->rows[1], n->rows_c[1], n->rows[2],
        n->rows_c[2], n->rows[3], n->rows_c[3], n->channels, n->channel_c, n->channel_multiplier,
        n->channel_shift, n->multiplier, n->multiplier_offset, n->shift, n->shift_offset,
        n->zero_point, n->lo, n->hi, n->tile_rows, n->copies);
}

/* Whether the requantization covers exactly the GEMM's values, row by row and channel by
 * channel in the GEMM's order: then it runs in the GEMM's program. */
static int same_values(const NextRequant *n, const Roles *r, const int32_t *c, int64_t c_offset) {
    if (n->c != c || n->c_offset != c_offset) return 0;
    const int64_t columns = r->d > 1 ? r->d : r->n;
    if (columns != n->channels) return 0;
    for (int64_t j = 0; j < columns; j++) {
        const int64_t at = r->d > 1 ? r->cn[0] + r->cd[j] : r->cn[j] + r->cd[0];
        if (at != j * n->channel_c) return 0;
    }
    int64_t rows = 1;
    for (int s = 0; s < 4; s++)
        rows *= n->rows[s];
    if (rows != r->m) return 0;
    for (int64_t i = 0; i < r->m; i++) {
        int64_t rest = i, at = 0;
        for (int s = 0; s < 4; s++) {
            at += rest % n->rows[s] * n->rows_c[s];
            rest /= n->rows[s];
        }
        if (at != r->cm[i]) return 0;
    }
    return 1;
}

DSL_RUNTIME_EXPORT int dsl_runtime_npu_gemm(
    const char *name, const int8_t *a, int64_t a_offset, const int8_t *b, int64_t b_offset,
    int32_t *c, int64_t c_offset, int32_t m0, int64_t m0_a, int64_t m0_c, int32_t m1, int64_t m1_a,
    int64_t m1_c, int32_t m2, int64_t m2_a, int64_t m2_c, int32_t m3, int64_t m3_a, int64_t m3_c,
    int32_t n0, int64_t n0_b, int64_t n0_c, int32_t n1, int64_t n1_b, int64_t n1_c, int32_t n2,
    int64_t n2_b, int64_t n2_c, int32_t n3, int64_t n3_b, int64_t n3_c, int32_t k0, int64_t k0_a,
    int64_t k0_b, int32_t k1, int64_t k1_a, int64_t k1_b, int32_t k2, int64_t k2_a, int64_t k2_b,
    int32_t k3, int64_t k3_a, int64_t k3_b, int32_t d0, int64_t d0_a, int64_t d0_b, int64_t d0_c,
    int32_t d1, int64_t d1_a, int64_t d1_b, int64_t d1_c, int32_t accumulate, int32_t tile_rows,
    int32_t copies) {
    const int32_t me[4] = {m0, m1, m2, m3}, ne[4] = {n0, n1, n2, n3}, ke[4] = {k0, k1, k2, k3};
    const int32_t de[4] = {d0, d1, 1, 1};
    // A requantization and a conversion to bytes handed to this call (taken now, whatever
    // happens).
    NextRequant pending = next_requant;
    next_requant.active = 0;
    NextStore store = next_store;
    next_store.active = 0;
    int stored = 0;
    const int64_t ma[4] = {m0_a, m1_a, m2_a, m3_a}, mc[4] = {m0_c, m1_c, m2_c, m3_c};
    const int64_t nb_[4] = {n0_b, n1_b, n2_b, n3_b}, nc[4] = {n0_c, n1_c, n2_c, n3_c};
    const int64_t ka[4] = {k0_a, k1_a, k2_a, k3_a}, kb_[4] = {k0_b, k1_b, k2_b, k3_b};
    const int64_t da[4] = {d0_a, d1_a, 0, 0}, db[4] = {d0_b, d1_b, 0, 0};
    const int64_t dc[4] = {d0_c, d1_c, 0, 0};
    Roles r;
    memset(&r, 0, sizeof r);
    r.m = r.n = r.k = r.d = 1;
    for (int s = 0; s < 4; s++) {
        if (me[s] <= 0 || ne[s] <= 0 || de[s] <= 0) { /* nothing to compute */
            int status = pending.active ? requantize_alone(&pending) : 0;
            if (!status && store.active) store_on_host(&store);
            return status;
        }
        r.m *= me[s];
        r.n *= ne[s];
        r.d *= de[s];
        r.k *= ke[s] > 0 ? ke[s] : 0;
    }
    if (r.m > INT32_MAX || r.n > INT32_MAX || r.k > INT32_MAX || r.d > INT32_MAX)
        return dsl_runtime_report(dsl_error_device_error,
                                  "NPU GEMM of \"%s\": %lld x %lld x %lld is too large", name,
                                  (long long)r.m, (long long)(r.n * r.d), (long long)r.k);
    int status = 0;
    if (!flatten(me, ma, mc, NULL, r.m, &r.am, &r.cm, NULL) ||
        !flatten(ne, nb_, nc, NULL, r.n, &r.bn, &r.cn, NULL) ||
        !flatten(ke, ka, kb_, NULL, r.k, &r.ak, &r.bk, NULL) ||
        !flatten(de, da, db, dc, r.d, &r.ad, &r.bd, &r.cd)) {
        status =
            dsl_runtime_report(dsl_error_out_of_memory, "NPU GEMM of \"%s\": out of memory", name);
    } else if (pending.active && same_values(&pending, &r, c, c_offset)) {
        // The requantization in the GEMM's program: ALU work on each tile before its store.
        Requant q;
        memset(&q, 0, sizeof q);
        const int64_t columns = r.d > 1 ? r.d : r.n;
        q.multiplier = pending.multiplier + pending.multiplier_offset;
        q.shift = pending.shift + pending.shift_offset;
        q.zero_point = pending.zero_point;
        q.lo = pending.lo;
        q.hi = pending.hi;
        q.mo = (int64_t *)malloc((size_t)(columns ? columns : 1) * sizeof(int64_t));
        q.so = (int64_t *)malloc((size_t)(columns ? columns : 1) * sizeof(int64_t));
        if (!q.mo || !q.so) {
            status = dsl_runtime_report(dsl_error_out_of_memory,
                                        "NPU GEMM of \"%s\": out of memory", name);
        } else {
            for (int64_t j = 0; j < columns; j++) {
                q.mo[j] = j * pending.channel_multiplier;
                q.so[j] = j * pending.channel_shift;
            }
            // The bytes stored by the NPU itself where the converting Func maps onto the
            // results (then the int32 results are not written back).
            int64_t *to = store.active ? store_map(&store, &r, c, c_offset, q.lo, q.hi) : NULL;
            NarrowStore narrow = {to, store.dst, store.format};
            status = run_gemm(name, a + a_offset, b + b_offset, c + c_offset, &r, &q,
                              to ? &narrow : NULL, accumulate, tile_rows, copies);
            stored = to != NULL;
            free(to);
        }
        free(q.mo);
        free(q.so);
        pending.active = 0;
    } else {
        status = run_gemm(name, a + a_offset, b + b_offset, c + c_offset, &r, NULL, NULL,
                          accumulate, tile_rows, copies);
    }
    // A requantization that did not fit the GEMM's program runs after it, on its own, and a
    // conversion the NPU did not store is done here.
    if (!status && pending.active) status = requantize_alone(&pending);
    if (!status && store.active && !stored) store_on_host(&store);
    int64_t *all[] = {r.am, r.cm, r.bn, r.cn, r.ak, r.bk, r.ad, r.bd, r.cd};
    for (int i = 0; i < 9; i++)
        free(all[i]);
    return status;
}

DSL_RUNTIME_EXPORT int dsl_runtime_npu_requantize(
    const char *name, int32_t *c, int64_t c_offset, int32_t m0, int64_t m0_c, int32_t m1,
    int64_t m1_c, int32_t m2, int64_t m2_c, int32_t m3, int64_t m3_c, int32_t channels,
    int64_t channel_c, int64_t channel_multiplier, int64_t channel_shift, const int32_t *multiplier,
    int64_t multiplier_offset, const int32_t *shift, int64_t shift_offset, int32_t zero_point,
    int32_t lo, int32_t hi, int32_t tile_rows, int32_t copies) {
    const int32_t me[4] = {m0, m1, m2, m3}, ne[4] = {channels, 1, 1, 1}, none[4] = {0, 1, 1, 1};
    const int32_t one[4] = {1, 1, 1, 1};
    const int64_t mc[4] = {m0_c, m1_c, m2_c, m3_c}, zero[4] = {0, 0, 0, 0};
    const int64_t nc[4] = {channel_c, 0, 0, 0}, nm[4] = {channel_multiplier, 0, 0, 0};
    const int64_t ns[4] = {channel_shift, 0, 0, 0};
    Roles r;
    memset(&r, 0, sizeof r);
    r.m = (int64_t)m0 * m1 * m2 * m3;
    r.n = channels;
    r.k = 0;
    r.d = 1;
    if (r.m <= 0 || r.n <= 0) return 0;
    Requant q;
    memset(&q, 0, sizeof q);
    q.multiplier = multiplier + multiplier_offset;
    q.shift = shift + shift_offset;
    q.zero_point = zero_point;
    q.lo = lo;
    q.hi = hi;
    int status = 0;
    if (!flatten(me, zero, mc, NULL, r.m, &r.am, &r.cm, NULL) ||
        !flatten(ne, zero, nc, NULL, r.n, &r.bn, &r.cn, NULL) ||
        !flatten(none, zero, zero, NULL, 0, &r.ak, &r.bk, NULL) ||
        !flatten(one, zero, zero, zero, 1, &r.ad, &r.bd, &r.cd) ||
        !flatten(ne, nm, ns, NULL, r.n, &q.mo, &q.so, NULL)) {
        status = dsl_runtime_report(dsl_error_out_of_memory,
                                    "NPU requantization of \"%s\": out of memory", name);
    } else {
        status = run_gemm(name, NULL, NULL, c + c_offset, &r, &q, NULL, 1, tile_rows, copies);
    }
    int64_t *all[] = {r.am, r.cm, r.bn, r.cn, r.ak, r.bk, r.ad, r.bd, r.cd, q.mo, q.so};
    for (int i = 0; i < 11; i++)
        free(all[i]);
    return status;
}

/* The operands in the NPU's layouts (the copies to the device). A GEMM: A as INP rows of
 * block_in k, B as WGT blocks [n / bo][k / bi][n % bo][k % bi], C as ACC rows of block_out n.
 * A depthwise one (channels d, no n): per block of channels, A's rows hold one k's channels,
 * and each WGT block is diagonal (channel j times its own weight); C's rows hold channels. */
static void pack(const GemmShape *g, const Roles *r, int32_t bi, int32_t bo, const int8_t *a,
                 const int8_t *b, const int32_t *c, int8_t *pa, int8_t *pb, int32_t *pc) {
    if (r->d == 1) {
        for (int64_t i = 0; i < r->m; i++)
            for (int64_t kk = 0; kk < r->k; kk++)
                pa[i * g->kb * bi + kk] = a[r->am[i] + r->ak[kk] + r->ad[0]];
        for (int64_t j = 0; j < r->n; j++)
            for (int64_t kk = 0; kk < r->k; kk++)
                pb[((j / bo * g->kb + kk / bi) * bo + j % bo) * bi + kk % bi] =
                    b[r->bn[j] + r->bk[kk] + r->bd[0]];
    } else {
        for (int64_t q = 0; q < r->d; q++) {
            const int64_t blk = q / bo, lane = q % bo;
            for (int64_t i = 0; i < r->m; i++)
                for (int64_t kk = 0; kk < r->k; kk++)
                    pa[((blk * r->m + i) * r->k + kk) * bi + lane] =
                        a[r->am[i] + r->ak[kk] + r->ad[q]];
            for (int64_t kk = 0; kk < r->k; kk++)
                pb[((blk * r->k + kk) * bo + lane) * bi + lane] =
                    b[r->bn[0] + r->bk[kk] + r->bd[q]];
        }
    }
    if (!g->accumulate) return;
    const int64_t columns = r->d == 1 ? r->n : r->d;
    for (int64_t i = 0; i < r->m; i++)
        for (int64_t j = 0; j < columns; j++)
            pc[i * g->nb * bo + j] = c[result_offset(r, i, j)];
}

/* The GEMM itself. */
static int run_gemm(const char *name, const int8_t *a, const int8_t *b, int32_t *c, const Roles *r,
                    const Requant *rq, const NarrowStore *narrow, int32_t accumulate,
                    int32_t tile_rows, int32_t copies) {
    pthread_mutex_lock(&npu_lock);
    dsl_npu *npu = device();
    if (!npu) {
        pthread_mutex_unlock(&npu_lock);
        return dsl_error_device_error;
    }
    const dsl_npu_config *cfg = dsl_npu_get_config(npu);
    const int32_t bi = cfg->block_in, bo = cfg->block_out;
    const int depthwise = r->d > 1;
    if (depthwise && (r->n != 1 || bi != bo)) {
        pthread_mutex_unlock(&npu_lock);
        return dsl_runtime_report(dsl_error_device_error,
                                  "NPU GEMM of \"%s\": a depthwise contraction maps channels onto "
                                  "diagonal blocks, which needs no other output channels (a "
                                  "channel multiplier of 1) and square blocks",
                                  name);
    }
    GemmShape g;
    memset(&g, 0, sizeof g);
    g.m = r->m;
    g.n = depthwise ? r->d : r->n;
    g.k = r->k;
    g.kb = depthwise ? r->k : blocks(r->k, bi);
    g.nb = blocks(g.n, bo);
    g.accumulate = accumulate;
    g.tile_rows = tile_rows;
    g.copies = copies == 1 ? 1 : 2;
    const uint64_t a_block = (uint64_t)r->m * (uint64_t)g.kb * (uint64_t)bi;
    g.a_chunk_bytes = depthwise ? a_block : 0;
    const uint64_t a_bytes = depthwise ? a_block * (uint64_t)g.nb : a_block;
    const uint64_t b_bytes = (uint64_t)g.nb * (uint64_t)g.kb * (uint64_t)(bi * bo);
    const uint64_t c_bytes = (uint64_t)r->m * (uint64_t)g.nb * (uint64_t)bo * 4;
    const uint64_t params_bytes = rq ? (uint64_t)g.nb * 3 * (uint64_t)bo * 4 : 0;
    const uint64_t c8_bytes = narrow ? (uint64_t)r->m * (uint64_t)g.nb * (uint64_t)bo : 0;
    g.store_format = narrow ? narrow->format : 0;
    if (rq) {
        g.requantize = 1;
        g.zero_point = rq->zero_point;
        g.lo = rq->lo;
        g.hi = rq->hi;
    }
    int status = 0;
    uint64_t at[5] = {0, 0, 0, 0, 0};
    const uint64_t sizes[5] = {a_bytes, b_bytes, c_bytes, params_bytes, c8_bytes};
    for (int i = 0; i < 5 && !status; i++) {
        if (sizes[i] == 0 && i >= 3) continue;
        if (dsl_npu_malloc(npu, sizes[i], &at[i]))
            status = dsl_runtime_report(dsl_error_out_of_memory, "NPU GEMM of \"%s\": %s", name,
                                        dsl_npu_last_error(npu));
    }
    Stream stream;
    memset(&stream, 0, sizeof stream);
    if (!status) {
        g.a_at = at[0];
        g.b_at = at[1];
        g.c_at = at[2];
        g.c8_at = at[4];
        uint8_t *dram = dsl_npu_dram(npu);
        pack(&g, r, bi, bo, a, b, c, (int8_t *)(dram + g.a_at), (int8_t *)(dram + g.b_at),
             (int32_t *)(dram + g.c_at));
        if (rq) {
            // Per output block: the multipliers, minus the left shifts, the right shifts.
            g.params_at = at[3];
            int32_t *rows = (int32_t *)(dram + g.params_at);
            for (int64_t q = 0; q < g.n; q++) {
                const int64_t base = q / bo * 3 * bo + q % bo;
                const int32_t e = rq->shift[rq->so[q]];
                rows[base] = rq->multiplier[rq->mo[q]];
                rows[base + bo] = e > 0 ? -e : 0;
                g.left_shifts |= e > 0;
                rows[base + 2 * bo] = e > 0 ? 0 : -e;
            }
        }
        status = write_gemm(&stream, cfg, &g, name);
    }
    if (!status) {
        dsl_npu_run_options options;
        dsl_npu_default_run_options(&options);
        choose_order(&options);
        if (dsl_npu_run(npu, stream.code, stream.count, &options, &npu_last_stats)) {
            status = dsl_runtime_report(dsl_error_device_error, "NPU GEMM of \"%s\": %s", name,
                                        dsl_npu_last_error(npu));
        } else {
            add_to_totals(&npu_last_stats);
        }
    }
    if (!status && narrow) {
        // The bytes the STORE saturated, to the converting Func's elements.
        const uint8_t *p8 = dsl_npu_dram(npu) + g.c8_at;
        for (int64_t i = 0; i < r->m; i++)
            for (int64_t j = 0; j < g.n; j++)
                ((uint8_t *)narrow->dst)[narrow->to[i * g.n + j]] = p8[i * g.nb * bo + j];
    } else if (!status) {
        const int32_t *pc = (const int32_t *)(dsl_npu_dram(npu) + g.c_at);
        for (int64_t i = 0; i < r->m; i++)
            for (int64_t j = 0; j < g.n; j++)
                c[result_offset(r, i, j)] = pc[i * g.nb * bo + j];
    }
    for (int i = 0; i < 5; i++) {
        if (at[i]) dsl_npu_free(npu, at[i]);
    }
    free(stream.code);
    pthread_mutex_unlock(&npu_lock);
    return status;
}
