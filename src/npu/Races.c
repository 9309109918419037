// The race checker: two accesses to one on-chip element or one DRAM byte, at least one a write,
// from instructions of different engines that no chain of tokens orders, are a race (the memory
// the program leaves would depend on timing). Happens-before is tracked with vector clocks over
// the three engines: an engine's clock advances with each instruction, and a token carries its
// pusher's clock to its popper. Each location keeps its last write and, per engine, its last
// read (enough, since one engine's accesses are ordered among themselves). The check does not
// depend on the order the simulator runs the engines in: tokens pair up the same way in every
// order.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu/Internal.h"

/** One location's history: the writer (engine << 62 | epoch; 0 for none) and each engine's last
 * read epoch (0 for none). An epoch is the 1-based count of the engine's instructions. */
typedef struct Shadow {
    uint64_t write;
    uint32_t read[3];
} Shadow;

enum { kPageBits = 12 };

struct dsl_npu_races {
    Shadow *sram[3]; /* INP, WGT, ACC elements */
    /* DRAM bytes, in pages of 4 KiB made on first touch. */
    Shadow **pages;
    uint64_t page_count;
    /* Which program index each engine's epoch is. */
    uint64_t *index_of[3];
    uint64_t index_count[3], index_capacity[3];
};

DSL_NPU_EXPORT dsl_npu_races *dsl_npu_races_create(const dsl_npu_config *c) {
    dsl_npu_races *r = (dsl_npu_races *)calloc(1, sizeof *r);
    if (!r) return NULL;
    int ok = 1;
    for (int b = 0; b < 3; b++) {
        r->sram[b] = (Shadow *)calloc(dsl_npu_capacity(c, b), sizeof(Shadow));
        ok &= r->sram[b] != NULL;
    }
    r->page_count = (c->dram_bytes + (1u << kPageBits) - 1) >> kPageBits;
    r->pages = (Shadow **)calloc(r->page_count, sizeof(Shadow *));
    ok &= r->pages != NULL;
    if (!ok) {
        dsl_npu_races_destroy(r);
        return NULL;
    }
    return r;
}

DSL_NPU_EXPORT void dsl_npu_races_destroy(dsl_npu_races *r) {
    if (!r) return;
    for (int b = 0; b < 3; b++) {
        free(r->sram[b]);
        free(r->index_of[b]);
    }
    if (r->pages) {
        for (uint64_t p = 0; p < r->page_count; p++)
            free(r->pages[p]);
    }
    free(r->pages);
    free(r);
}

/** The state of one check: the instruction, and where a race was found. */
typedef struct Check {
    dsl_npu_races *r;
    dsl_npu *npu;
    uint64_t index;
    int engine;
    const dsl_npu_clock *clock;
    const dsl_npu_op *program;
    int code; /* the first error found */
} Check;

static const char *engine_name(int e) {
    return e == DSL_NPU_LOAD_ENGINE ? "load" : e == DSL_NPU_COMPUTE_ENGINE ? "compute" : "store";
}

static void report(Check *k, int other_engine, uint32_t other_epoch, const char *what,
                   const char *where, uint64_t location, int this_writes, int other_writes) {
    uint64_t other = k->r->index_of[other_engine][other_epoch - 1];
    char mine[256], theirs[256];
    dsl_npu_disassemble(&k->program[k->index], mine, sizeof mine);
    dsl_npu_disassemble(&k->program[other], theirs, sizeof theirs);
    dsl_npu_fail(k->npu, DSL_NPU_ERROR_RACE,
                 "NPU race on %s %s %llu: instruction #%llu (%s, %s engine) %s it and "
                 "instruction #%llu (%s, %s engine) %s it, and no token orders the two; make "
                 "#%llu push a token that #%llu (or an instruction before it on the %s engine) "
                 "pops",
                 where, what, (unsigned long long)location, (unsigned long long)other, theirs,
                 engine_name(other_engine), other_writes ? "writes" : "reads",
                 (unsigned long long)k->index, mine, engine_name(k->engine),
                 this_writes ? "writes" : "reads", (unsigned long long)other,
                 (unsigned long long)k->index, engine_name(k->engine));
    k->code = DSL_NPU_ERROR_RACE;
}

static void access(Check *k, Shadow *s, int writes, const char *where, const char *what,
                   uint64_t location) {
    if (k->code) return;
    const uint64_t *now = k->clock->c;
    if (s->write) {
        int we = (int)(s->write >> 62);
        uint32_t epoch = (uint32_t)(s->write & ((UINT64_C(1) << 62) - 1));
        if (we != k->engine && epoch > now[we]) {
            report(k, we, epoch, what, where, location, writes, 1);
            return;
        }
    }
    if (writes) {
        for (int e = 0; e < 3; e++) {
            if (e != k->engine && s->read[e] > now[e]) {
                report(k, e, s->read[e], what, where, location, 1, 0);
                return;
            }
        }
        s->write = ((uint64_t)k->engine << 62) | now[k->engine];
        memset(s->read, 0, sizeof s->read);
    } else {
        s->read[k->engine] = (uint32_t)now[k->engine];
    }
}

static void on_sram(Check *k, int buffer, uint64_t element, int writes) {
    static const char *const names[] = {"INP", "WGT", "ACC"};
    access(k, &k->r->sram[buffer][element], writes, names[buffer], "element", element);
}

static void on_dram(Check *k, uint64_t address, uint64_t bytes, int writes) {
    for (uint64_t a = address; a < address + bytes && !k->code; a++) {
        uint64_t page = a >> kPageBits;
        if (!k->r->pages[page]) {
            k->r->pages[page] = (Shadow *)calloc((size_t)1 << kPageBits, sizeof(Shadow));
            if (!k->r->pages[page]) {
                dsl_npu_fail(k->npu, DSL_NPU_ERROR_MEMORY, "NPU race checker: out of host memory");
                k->code = DSL_NPU_ERROR_MEMORY;
                return;
            }
        }
        access(k, &k->r->pages[page][a & ((1u << kPageBits) - 1)], writes, "DRAM", "byte", a);
    }
}

static int remember(dsl_npu_races *r, int engine, uint64_t epoch, uint64_t index) {
    while (r->index_count[engine] < epoch) {
        if (r->index_count[engine] == r->index_capacity[engine]) {
            uint64_t capacity = r->index_capacity[engine] ? r->index_capacity[engine] * 2 : 256;
            uint64_t *grown = (uint64_t *)realloc(r->index_of[engine], capacity * sizeof(uint64_t));
            if (!grown) return 0;
            r->index_of[engine] = grown;
            r->index_capacity[engine] = capacity;
        }
        r->index_of[engine][r->index_count[engine]++] = index;
    }
    return 1;
}

static void loop_pair(Check *k, int buffer, uint32_t base, uint32_t ext0, uint32_t ext1,
                      uint32_t f0, uint32_t f1, int writes) {
    for (uint32_t i0 = 0; i0 < ext0; i0++) {
        for (uint32_t i1 = 0; i1 < ext1; i1++)
            on_sram(k, buffer, (uint64_t)base + (uint64_t)i0 * f0 + (uint64_t)i1 * f1, writes);
    }
}

DSL_NPU_EXPORT int dsl_npu_races_check(dsl_npu_races *r, dsl_npu *npu, uint64_t i,
                                       const dsl_npu_op *op, const dsl_npu_clock *clock,
                                       const dsl_npu_op *program) {
    Check k = {r, npu, i, (int)dsl_npu_engine_of(op), clock, program, 0};
    if (!remember(r, k.engine, clock->c[k.engine], i))
        return dsl_npu_fail(npu, DSL_NPU_ERROR_MEMORY, "NPU race checker: out of host memory");
    const dsl_npu_config *c = &npu->config;
    switch (op->opcode) {
        case DSL_NPU_LOAD:
        case DSL_NPU_STORE: {
            const dsl_npu_memory_op *m = &op->mem;
            const int load = op->opcode == DSL_NPU_LOAD;
            const uint64_t element = dsl_npu_element_bytes(c, m->buffer, m->format);
            for (uint32_t y = 0; y < m->y_size; y++) {
                for (uint32_t x = 0; x < m->x_size; x++)
                    on_dram(&k, m->dram + (uint64_t)y * m->y_stride + (uint64_t)x * m->x_stride,
                            element, !load);
            }
            uint64_t elements = (uint64_t)m->y_size * m->x_size;
            if (load)
                elements = (uint64_t)(m->pad_top + m->y_size + m->pad_bottom) *
                           (m->pad_left + m->x_size + m->pad_right);
            for (uint64_t e = 0; e < elements; e++)
                on_sram(&k, m->buffer, m->sram + e, load);
            break;
        }
        case DSL_NPU_GEMM: {
            const dsl_npu_gemm_op *g = &op->gemm;
            if (!g->reset) {
                loop_pair(&k, DSL_NPU_INP, g->inp, g->ext0, g->ext1, g->inp_f0, g->inp_f1, 0);
                loop_pair(&k, DSL_NPU_WGT, g->wgt, g->ext0, g->ext1, g->wgt_f0, g->wgt_f1, 0);
            }
            loop_pair(&k, DSL_NPU_ACC, g->acc, g->ext0, g->ext1, g->acc_f0, g->acc_f1, 1);
            break;
        }
        case DSL_NPU_ALU: {
            const dsl_npu_alu_op *a = &op->alu;
            if (!a->use_imm)
                loop_pair(&k, DSL_NPU_ACC, a->src, a->ext0, a->ext1, a->src_f0, a->src_f1, 0);
            loop_pair(&k, DSL_NPU_ACC, a->dst, a->ext0, a->ext1, a->dst_f0, a->dst_f1, 1);
            break;
        }
        default:
            break;
    }
    return k.code;
}
