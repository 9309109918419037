// The NPU's instruction encoding (README.md, "Encoding"): 256 bits in four 64-bit words, with
// every field range-checked both ways, and a one-line disassembly for messages and listings.
#include <stdio.h>
#include <string.h>

#include "npu/Internal.h"

static uint64_t bits(uint64_t word, int at, int width) {
    return width == 64 ? word : (word >> at) & ((UINT64_C(1) << width) - 1);
}

static void put(uint64_t *word, int at, int width, uint64_t value) {
    *word |= (width == 64 ? value : (value & ((UINT64_C(1) << width) - 1))) << at;
}

static const char *opcode_name(int opcode) {
    static const char *const names[] = {"LOAD", "STORE", "GEMM", "ALU", "FINISH"};
    return opcode >= 0 && opcode <= DSL_NPU_FINISH ? names[opcode] : "?";
}

static const char *buffer_name(int buffer) {
    static const char *const names[] = {"INP", "WGT", "ACC"};
    return buffer >= 0 && buffer <= DSL_NPU_ACC ? names[buffer] : "?";
}

static const char *fn_name(int fn) {
    static const char *const names[] = {"ADD", "SUB", "MUL", "MIN", "MAX", "SHR", "MULH", "MOV"};
    return fn >= 0 && fn <= DSL_NPU_MOV ? names[fn] : "?";
}

DSL_NPU_EXPORT dsl_npu_engine dsl_npu_engine_of(const dsl_npu_op *op) {
    switch (op->opcode) {
        case DSL_NPU_LOAD:
            return op->mem.buffer == DSL_NPU_ACC ? DSL_NPU_COMPUTE_ENGINE : DSL_NPU_LOAD_ENGINE;
        case DSL_NPU_STORE:
            return DSL_NPU_STORE_ENGINE;
        default:
            return DSL_NPU_COMPUTE_ENGINE;
    }
}

DSL_NPU_EXPORT dsl_npu_op dsl_npu_memory(int opcode, int buffer, uint32_t sram, uint64_t dram,
                                         uint32_t y_size, uint32_t x_size, uint32_t y_stride,
                                         uint32_t x_stride, int deps) {
    dsl_npu_op op;
    memset(&op, 0, sizeof op);
    op.opcode = (uint8_t)opcode;
    op.deps = (uint8_t)deps;
    op.mem.buffer = (uint8_t)buffer;
    op.mem.sram = sram;
    op.mem.dram = dram;
    op.mem.y_size = y_size;
    op.mem.x_size = x_size;
    op.mem.y_stride = y_stride;
    op.mem.x_stride = x_stride;
    return op;
}

DSL_NPU_EXPORT dsl_npu_op dsl_npu_gemm(uint32_t acc, uint32_t inp, uint32_t wgt, uint32_t ext0,
                                       uint32_t ext1, uint32_t acc_f0, uint32_t acc_f1,
                                       uint32_t inp_f0, uint32_t inp_f1, uint32_t wgt_f0,
                                       uint32_t wgt_f1, int deps) {
    dsl_npu_op op;
    memset(&op, 0, sizeof op);
    op.opcode = DSL_NPU_GEMM;
    op.deps = (uint8_t)deps;
    const dsl_npu_gemm_op g = {0,      acc,    inp,    wgt,    ext0,   ext1,
                               acc_f0, acc_f1, inp_f0, inp_f1, wgt_f0, wgt_f1};
    op.gemm = g;
    return op;
}

DSL_NPU_EXPORT dsl_npu_op dsl_npu_reset(uint32_t acc, uint32_t rows, int deps) {
    dsl_npu_op op = dsl_npu_gemm(acc, 0, 0, rows ? 1 : 0, rows, 0, 1, 0, 0, 0, 0, deps);
    op.gemm.reset = 1;
    return op;
}

DSL_NPU_EXPORT dsl_npu_op dsl_npu_alu(int fn, uint32_t dst, uint32_t rows, uint32_t dst_step,
                                      uint32_t src, uint32_t src_step, int use_imm, int32_t imm,
                                      int deps) {
    dsl_npu_op op;
    memset(&op, 0, sizeof op);
    op.opcode = DSL_NPU_ALU;
    op.deps = (uint8_t)deps;
    op.alu.fn = (uint8_t)fn;
    op.alu.use_imm = (uint8_t)(use_imm != 0);
    op.alu.imm = imm;
    op.alu.dst = dst;
    op.alu.src = src;
    op.alu.ext0 = rows ? 1 : 0;
    op.alu.ext1 = rows;
    op.alu.dst_f1 = dst_step;
    op.alu.src_f1 = src_step;
    return op;
}

// The checks both encode and decode make: everything but the field widths.
static int check_fields(const dsl_npu_op *op, char *error, size_t n) {
    if (op->opcode > DSL_NPU_FINISH)
        return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING, "unknown opcode %d", op->opcode);
    const char *name = opcode_name(op->opcode);
    if (op->deps > 15)
        return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING, "%s: dependency flags %d", name,
                                 op->deps);
    if (op->opcode == DSL_NPU_LOAD || op->opcode == DSL_NPU_STORE) {
        const dsl_npu_memory_op *m = &op->mem;
        if (m->buffer > DSL_NPU_ACC)
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING, "%s: unknown buffer %d",
                                     name, m->buffer);
        if (op->opcode == DSL_NPU_STORE && m->buffer != DSL_NPU_ACC)
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING,
                                     "STORE reads ACC only, not %s", buffer_name(m->buffer));
        if (op->opcode == DSL_NPU_STORE && m->format > DSL_NPU_U8)
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING, "STORE: unknown format %d",
                                     m->format);
        if (op->opcode == DSL_NPU_LOAD && m->format != 0)
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING,
                                     "LOAD has no format (got %d)", m->format);
        if (op->opcode == DSL_NPU_STORE &&
            (m->pad_top | m->pad_bottom | m->pad_left | m->pad_right | m->pad_value))
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING, "STORE has no padding");
        if (op->opcode == DSL_NPU_LOAD && m->buffer != DSL_NPU_ACC &&
            (m->pad_value < -128 || m->pad_value > 127))
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING,
                                     "LOAD %s: pad value %d is not an int8", buffer_name(m->buffer),
                                     (int)m->pad_value);
    }
    if (op->opcode == DSL_NPU_ALU) {
        if (op->alu.fn > DSL_NPU_MOV)
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING, "ALU: unknown function %d",
                                     op->alu.fn);
        if (op->alu.fn == DSL_NPU_SHR && op->alu.use_imm && (op->alu.imm < -31 || op->alu.imm > 31))
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING,
                                     "ALU SHR: shift %d is outside [-31, 31]", (int)op->alu.imm);
    }
    // Flags towards a neighbour the engine does not have.
    dsl_npu_engine e = dsl_npu_engine_of(op);
    if (e == DSL_NPU_LOAD_ENGINE && (op->deps & (DSL_NPU_POP_PREV | DSL_NPU_PUSH_PREV)))
        return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING,
                                 "%s %s runs on the load engine, which has no previous engine "
                                 "(only pop_next / push_next)",
                                 name, buffer_name(op->mem.buffer));
    if (e == DSL_NPU_STORE_ENGINE && (op->deps & (DSL_NPU_POP_NEXT | DSL_NPU_PUSH_NEXT)))
        return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING,
                                 "STORE runs on the store engine, which has no next engine "
                                 "(only pop_prev / push_prev)");
    return DSL_NPU_OK;
}

// One field that must fit `width` bits.
#define DSL_NPU_FIELD(value, width, label)                                              \
    do {                                                                                \
        if ((uint64_t)(value) >> (width))                                               \
            return dsl_npu_fail_into(error, n, DSL_NPU_ERROR_ENCODING,                  \
                                     "%s: %s = %llu does not fit %d bits", name, label, \
                                     (unsigned long long)(value), width);               \
    } while (0)

DSL_NPU_EXPORT int dsl_npu_encode(const dsl_npu_op *op, dsl_npu_insn *insn, char *error, size_t n) {
    int code = check_fields(op, error, n);
    if (code) return code;
    const char *name = opcode_name(op->opcode);
    memset(insn, 0, sizeof *insn);
    uint64_t *w = insn->word;
    put(&w[0], 0, 3, op->opcode);
    put(&w[0], 3, 4, op->deps);
    switch (op->opcode) {
        case DSL_NPU_LOAD:
        case DSL_NPU_STORE: {
            const dsl_npu_memory_op *m = &op->mem;
            DSL_NPU_FIELD(m->sram, 16, "sram");
            DSL_NPU_FIELD(m->y_size, 16, "y_size");
            DSL_NPU_FIELD(m->x_size, 16, "x_size");
            put(&w[0], 7, 2, m->buffer);
            put(&w[0], 9, 2, m->format);
            put(&w[0], 16, 16, m->sram);
            put(&w[0], 32, 32, (uint32_t)m->pad_value);
            w[1] = m->dram;
            put(&w[2], 0, 16, m->y_size);
            put(&w[2], 16, 16, m->x_size);
            put(&w[2], 32, 32, m->y_stride);
            put(&w[3], 0, 32, m->x_stride);
            put(&w[3], 32, 8, m->pad_top);
            put(&w[3], 40, 8, m->pad_bottom);
            put(&w[3], 48, 8, m->pad_left);
            put(&w[3], 56, 8, m->pad_right);
            break;
        }
        case DSL_NPU_GEMM: {
            const dsl_npu_gemm_op *g = &op->gemm;
            const uint32_t fields[] = {g->acc,    g->inp,    g->wgt,    g->ext0,
                                       g->ext1,   g->acc_f0, g->acc_f1, g->inp_f0,
                                       g->inp_f1, g->wgt_f0, g->wgt_f1};
            static const char *const labels[] = {"acc",    "inp",    "wgt",    "ext0",
                                                 "ext1",   "acc_f0", "acc_f1", "inp_f0",
                                                 "inp_f1", "wgt_f0", "wgt_f1"};
            for (int i = 0; i < 11; i++)
                DSL_NPU_FIELD(fields[i], 16, labels[i]);
            DSL_NPU_FIELD(g->reset, 1, "reset");
            put(&w[0], 7, 1, g->reset);
            for (int i = 0; i < 3; i++)
                put(&w[0], 16 + 16 * i, 16, fields[i]);
            for (int i = 0; i < 4; i++)
                put(&w[1], 16 * i, 16, fields[3 + i]);
            for (int i = 0; i < 4; i++)
                put(&w[2], 16 * i, 16, fields[7 + i]);
            break;
        }
        case DSL_NPU_ALU: {
            const dsl_npu_alu_op *a = &op->alu;
            const uint32_t fields[] = {a->dst,    a->src,    a->ext0,   a->ext1,
                                       a->dst_f0, a->dst_f1, a->src_f0, a->src_f1};
            static const char *const labels[] = {"dst",    "src",    "ext0",   "ext1",
                                                 "dst_f0", "dst_f1", "src_f0", "src_f1"};
            for (int i = 0; i < 8; i++)
                DSL_NPU_FIELD(fields[i], 16, labels[i]);
            DSL_NPU_FIELD(a->use_imm, 1, "use_imm");
            put(&w[0], 7, 1, a->use_imm);
            put(&w[0], 8, 4, a->fn);
            put(&w[0], 16, 16, a->dst);
            put(&w[0], 32, 16, a->src);
            for (int i = 0; i < 4; i++)
                put(&w[1], 16 * i, 16, fields[2 + i]);
            put(&w[2], 0, 16, a->src_f0);
            put(&w[2], 16, 16, a->src_f1);
            put(&w[2], 32, 32, (uint32_t)a->imm);
            break;
        }
        default:
            break;
    }
    return DSL_NPU_OK;
}

DSL_NPU_EXPORT int dsl_npu_decode(const dsl_npu_insn *insn, dsl_npu_op *op, char *error, size_t n) {
    memset(op, 0, sizeof *op);
    const uint64_t *w = insn->word;
    op->opcode = (uint8_t)bits(w[0], 0, 3);
    op->deps = (uint8_t)bits(w[0], 3, 4);
    // Bits that must be zero, by opcode: [word] = mask.
    uint64_t reserved[4] = {0, 0, 0, 0};
    switch (op->opcode) {
        case DSL_NPU_LOAD:
        case DSL_NPU_STORE: {
            dsl_npu_memory_op *m = &op->mem;
            m->buffer = (uint8_t)bits(w[0], 7, 2);
            m->format = (uint8_t)bits(w[0], 9, 2);
            m->sram = (uint32_t)bits(w[0], 16, 16);
            m->pad_value = (int32_t)(uint32_t)bits(w[0], 32, 32);
            m->dram = w[1];
            m->y_size = (uint32_t)bits(w[2], 0, 16);
            m->x_size = (uint32_t)bits(w[2], 16, 16);
            m->y_stride = (uint32_t)bits(w[2], 32, 32);
            m->x_stride = (uint32_t)bits(w[3], 0, 32);
            m->pad_top = (uint8_t)bits(w[3], 32, 8);
            m->pad_bottom = (uint8_t)bits(w[3], 40, 8);
            m->pad_left = (uint8_t)bits(w[3], 48, 8);
            m->pad_right = (uint8_t)bits(w[3], 56, 8);
            reserved[0] = UINT64_C(0x1f) << 11;
            break;
        }
        case DSL_NPU_GEMM: {
            dsl_npu_gemm_op *g = &op->gemm;
            g->reset = (uint8_t)bits(w[0], 7, 1);
            uint32_t *fields[] = {&g->acc,    &g->inp,    &g->wgt,    &g->ext0,
                                  &g->ext1,   &g->acc_f0, &g->acc_f1, &g->inp_f0,
                                  &g->inp_f1, &g->wgt_f0, &g->wgt_f1};
            for (int i = 0; i < 3; i++)
                *fields[i] = (uint32_t)bits(w[0], 16 + 16 * i, 16);
            for (int i = 0; i < 4; i++)
                *fields[3 + i] = (uint32_t)bits(w[1], 16 * i, 16);
            for (int i = 0; i < 4; i++)
                *fields[7 + i] = (uint32_t)bits(w[2], 16 * i, 16);
            reserved[0] = UINT64_C(0xff) << 8;
            reserved[3] = ~UINT64_C(0);
            break;
        }
        case DSL_NPU_ALU: {
            dsl_npu_alu_op *a = &op->alu;
            a->use_imm = (uint8_t)bits(w[0], 7, 1);
            a->fn = (uint8_t)bits(w[0], 8, 4);
            a->dst = (uint32_t)bits(w[0], 16, 16);
            a->src = (uint32_t)bits(w[0], 32, 16);
            uint32_t *fields[] = {&a->ext0, &a->ext1, &a->dst_f0, &a->dst_f1};
            for (int i = 0; i < 4; i++)
                *fields[i] = (uint32_t)bits(w[1], 16 * i, 16);
            a->src_f0 = (uint32_t)bits(w[2], 0, 16);
            a->src_f1 = (uint32_t)bits(w[2], 16, 16);
            a->imm = (int32_t)(uint32_t)bits(w[2], 32, 32);
            reserved[0] = (UINT64_C(0xf) << 12) | (UINT64_C(0xffff) << 48);
            reserved[3] = ~UINT64_C(0);
            break;
        }
        default:
            reserved[0] = ~UINT64_C(0) << 7;
            reserved[1] = reserved[2] = reserved[3] = ~UINT64_C(0);
            break;
    }
    for (int i = 0; i < 4; i++) {
        if (op->opcode <= DSL_NPU_FINISH && (w[i] & reserved[i]))
            return dsl_npu_fail_into(
                error, n, DSL_NPU_ERROR_ENCODING, "%s: reserved bits set in word %d (0x%016llx)",
                opcode_name(op->opcode), i, (unsigned long long)(w[i] & reserved[i]));
    }
    return check_fields(op, error, n);
}

DSL_NPU_EXPORT void dsl_npu_disassemble(const dsl_npu_op *op, char *text, size_t n) {
    if (n == 0) return;
    char deps[64] = "";
    static const char *const flag_names[] = {"pop_prev", "pop_next", "push_prev", "push_next"};
    for (int i = 0; i < 4; i++) {
        if (!(op->deps & (1 << i))) continue;
        size_t used = strlen(deps);
        snprintf(deps + used, sizeof deps - used, "%s%s", used ? " " : " [", flag_names[i]);
    }
    if (deps[0]) strncat(deps, "]", sizeof deps - strlen(deps) - 1);
    const dsl_npu_memory_op *m = &op->mem;
    const dsl_npu_gemm_op *g = &op->gemm;
    const dsl_npu_alu_op *a = &op->alu;
    switch (op->opcode) {
        case DSL_NPU_LOAD:
            snprintf(text, n,
                     "LOAD %s sram=%u dram=0x%llx size=(%u,%u) stride=(%u,%u) pad=(%u,%u,%u,%u) "
                     "value=%d%s",
                     buffer_name(m->buffer), m->sram, (unsigned long long)m->dram, m->y_size,
                     m->x_size, m->y_stride, m->x_stride, m->pad_top, m->pad_bottom, m->pad_left,
                     m->pad_right, (int)m->pad_value, deps);
            break;
        case DSL_NPU_STORE: {
            static const char *const formats[] = {"i32", "i8", "u8"};
            snprintf(text, n, "STORE %s sram=%u dram=0x%llx size=(%u,%u) stride=(%u,%u)%s",
                     m->format <= DSL_NPU_U8 ? formats[m->format] : "?", m->sram,
                     (unsigned long long)m->dram, m->y_size, m->x_size, m->y_stride, m->x_stride,
                     deps);
            break;
        }
        case DSL_NPU_GEMM:
            snprintf(text, n, "GEMM%s acc=%u+(%u,%u) inp=%u+(%u,%u) wgt=%u+(%u,%u) ext=(%u,%u)%s",
                     g->reset ? " reset" : "", g->acc, g->acc_f0, g->acc_f1, g->inp, g->inp_f0,
                     g->inp_f1, g->wgt, g->wgt_f0, g->wgt_f1, g->ext0, g->ext1, deps);
            break;
        case DSL_NPU_ALU:
            if (a->use_imm) {
                snprintf(text, n, "ALU %s dst=%u+(%u,%u) imm=%d ext=(%u,%u)%s", fn_name(a->fn),
                         a->dst, a->dst_f0, a->dst_f1, (int)a->imm, a->ext0, a->ext1, deps);
            } else {
                snprintf(text, n, "ALU %s dst=%u+(%u,%u) src=%u+(%u,%u) ext=(%u,%u)%s",
                         fn_name(a->fn), a->dst, a->dst_f0, a->dst_f1, a->src, a->src_f0, a->src_f1,
                         a->ext0, a->ext1, deps);
            }
            break;
        case DSL_NPU_FINISH:
            snprintf(text, n, "FINISH%s", deps);
            break;
        default:
            snprintf(text, n, "? (opcode %d)", op->opcode);
            break;
    }
}
