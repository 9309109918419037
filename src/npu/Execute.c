// What each NPU instruction does to memory (bit-exact), the extents it may touch, and what it
// costs in the cycle model.
#include <limits.h>
#include <string.h>

#include "npu/Internal.h"

DSL_NPU_EXPORT int32_t dsl_npu_rounding_doubling_high_mul(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    int64_t product = (int64_t)a * (int64_t)b;
    int64_t nudge = product >= 0 ? (INT64_C(1) << 30) : 1 - (INT64_C(1) << 30);
    // Division truncates toward zero, as TFLite's does.
    return (int32_t)((product + nudge) / (INT64_C(1) << 31));
}

DSL_NPU_EXPORT int32_t dsl_npu_rounding_shift(int32_t a, int32_t shift) {
    if (shift < -31) shift = -31;
    if (shift > 31) shift = 31;
    if (shift < 0) return (int32_t)((uint32_t)a << -shift);
    if (shift == 0) return a;
    const int32_t mask = (int32_t)((UINT32_C(1) << shift) - 1);
    const int32_t remainder = a & mask;
    const int32_t threshold = (mask >> 1) + (a < 0 ? 1 : 0);
    return (a >> shift) + (remainder > threshold ? 1 : 0);
}

static int32_t alu(int fn, int32_t a, int32_t b) {
    switch (fn) {
        case DSL_NPU_ADD:
            return (int32_t)((uint32_t)a + (uint32_t)b);
        case DSL_NPU_SUB:
            return (int32_t)((uint32_t)a - (uint32_t)b);
        case DSL_NPU_MUL:
            return (int32_t)((uint32_t)a * (uint32_t)b);
        case DSL_NPU_MIN:
            return a < b ? a : b;
        case DSL_NPU_MAX:
            return a > b ? a : b;
        case DSL_NPU_SHR:
            return dsl_npu_rounding_shift(a, b);
        case DSL_NPU_MULH:
            return dsl_npu_rounding_doubling_high_mul(a, b);
        default:
            return b;
    }
}

static const char *buffer_name(int b) {
    return b == DSL_NPU_INP ? "INP" : b == DSL_NPU_WGT ? "WGT" : "ACC";
}

// The highest index base + (ext0 - 1) * f0 + (ext1 - 1) * f1 of a loop pair (ext0, ext1 >= 1).
static uint64_t last_index(uint32_t base, uint32_t ext0, uint32_t ext1, uint32_t f0, uint32_t f1) {
    return base + (uint64_t)(ext0 - 1) * f0 + (uint64_t)(ext1 - 1) * f1;
}

static int check_index(dsl_npu *npu, uint64_t i, const dsl_npu_op *op, int buffer, uint64_t first,
                       uint64_t last) {
    uint32_t capacity = dsl_npu_capacity(&npu->config, buffer);
    if (last < capacity) return DSL_NPU_OK;
    char text[256];
    dsl_npu_disassemble(op, text, sizeof text);
    return dsl_npu_fail(npu, DSL_NPU_ERROR_BOUNDS,
                        "NPU instruction #%llu (%s) accesses %s elements %llu to %llu, but %s "
                        "holds %u",
                        (unsigned long long)i, text, buffer_name(buffer), (unsigned long long)first,
                        (unsigned long long)last, buffer_name(buffer), capacity);
}

DSL_NPU_EXPORT int dsl_npu_check_bounds(dsl_npu *npu, uint64_t i, const dsl_npu_op *op) {
    const dsl_npu_config *c = &npu->config;
    if (op->opcode == DSL_NPU_LOAD || op->opcode == DSL_NPU_STORE) {
        const dsl_npu_memory_op *m = &op->mem;
        uint64_t rows = m->y_size, cols = m->x_size;
        if (op->opcode == DSL_NPU_LOAD) {
            rows += (uint64_t)m->pad_top + m->pad_bottom;
            cols += (uint64_t)m->pad_left + m->pad_right;
        }
        if (rows * cols > 0) {
            int code = check_index(npu, i, op, m->buffer, m->sram, m->sram + rows * cols - 1);
            if (code) return code;
        }
        if (m->y_size == 0 || m->x_size == 0) return DSL_NPU_OK;
        uint64_t element = dsl_npu_element_bytes(c, m->buffer, m->format);
        uint64_t span = (uint64_t)(m->y_size - 1) * m->y_stride +
                        (uint64_t)(m->x_size - 1) * m->x_stride + element;
        if (!dsl_npu_in_allocation(npu, m->dram, span)) {
            char text[256];
            dsl_npu_disassemble(op, text, sizeof text);
            return dsl_npu_fail(npu, DSL_NPU_ERROR_BOUNDS,
                                "NPU instruction #%llu (%s) %s DRAM bytes [0x%llx, 0x%llx), "
                                "which no one allocation holds",
                                (unsigned long long)i, text,
                                op->opcode == DSL_NPU_LOAD ? "reads" : "writes",
                                (unsigned long long)m->dram, (unsigned long long)(m->dram + span));
        }
        return DSL_NPU_OK;
    }
    if (op->opcode == DSL_NPU_GEMM) {
        const dsl_npu_gemm_op *g = &op->gemm;
        if (g->ext0 == 0 || g->ext1 == 0) return DSL_NPU_OK;
        int code = check_index(npu, i, op, DSL_NPU_ACC, g->acc,
                               last_index(g->acc, g->ext0, g->ext1, g->acc_f0, g->acc_f1));
        if (!code && !g->reset)
            code = check_index(npu, i, op, DSL_NPU_INP, g->inp,
                               last_index(g->inp, g->ext0, g->ext1, g->inp_f0, g->inp_f1));
        if (!code && !g->reset)
            code = check_index(npu, i, op, DSL_NPU_WGT, g->wgt,
                               last_index(g->wgt, g->ext0, g->ext1, g->wgt_f0, g->wgt_f1));
        return code;
    }
    if (op->opcode == DSL_NPU_ALU) {
        const dsl_npu_alu_op *a = &op->alu;
        if (a->ext0 == 0 || a->ext1 == 0) return DSL_NPU_OK;
        int code = check_index(npu, i, op, DSL_NPU_ACC, a->dst,
                               last_index(a->dst, a->ext0, a->ext1, a->dst_f0, a->dst_f1));
        if (!code && !a->use_imm)
            code = check_index(npu, i, op, DSL_NPU_ACC, a->src,
                               last_index(a->src, a->ext0, a->ext1, a->src_f0, a->src_f1));
        return code;
    }
    return DSL_NPU_OK;
}

static void load(dsl_npu *npu, const dsl_npu_memory_op *m, dsl_npu_stats *stats) {
    const dsl_npu_config *c = &npu->config;
    const uint32_t element = dsl_npu_element_bytes(c, m->buffer, DSL_NPU_I32);
    uint8_t *base = m->buffer == DSL_NPU_INP   ? (uint8_t *)npu->inp
                    : m->buffer == DSL_NPU_WGT ? (uint8_t *)npu->wgt
                                               : (uint8_t *)npu->acc;
    const uint32_t rows = m->pad_top + m->y_size + m->pad_bottom;
    const uint32_t cols = m->pad_left + m->x_size + m->pad_right;
    const uint32_t lanes = m->buffer == DSL_NPU_ACC ? element / 4 : element;
    for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t col = 0; col < cols; col++) {
            uint8_t *to = base + ((uint64_t)m->sram + (uint64_t)r * cols + col) * element;
            int inside = r >= m->pad_top && r < m->pad_top + m->y_size && col >= m->pad_left &&
                         col < m->pad_left + m->x_size;
            if (inside) {
                uint64_t from = m->dram + (uint64_t)(r - m->pad_top) * m->y_stride +
                                (uint64_t)(col - m->pad_left) * m->x_stride;
                memcpy(to, npu->dram + from, element);
                stats->dram_bytes_read += element;
            } else if (m->buffer == DSL_NPU_ACC) {
                for (uint32_t l = 0; l < lanes; l++)
                    memcpy(to + 4 * l, &m->pad_value, 4);
                stats->pad_bytes += element;
            } else {
                memset(to, (int8_t)m->pad_value, element);
                stats->pad_bytes += element;
            }
        }
    }
}

static void store(dsl_npu *npu, const dsl_npu_memory_op *m, dsl_npu_stats *stats) {
    const int32_t lanes = npu->config.block_out;
    for (uint32_t y = 0; y < m->y_size; y++) {
        for (uint32_t x = 0; x < m->x_size; x++) {
            const int32_t *row =
                npu->acc + ((uint64_t)m->sram + (uint64_t)y * m->x_size + x) * lanes;
            uint8_t *to =
                npu->dram + m->dram + (uint64_t)y * m->y_stride + (uint64_t)x * m->x_stride;
            if (m->format == DSL_NPU_I32) {
                memcpy(to, row, 4 * (size_t)lanes);
            } else {
                const int32_t lo = m->format == DSL_NPU_I8 ? -128 : 0;
                const int32_t hi = m->format == DSL_NPU_I8 ? 127 : 255;
                for (int32_t l = 0; l < lanes; l++) {
                    int32_t v = row[l] < lo ? lo : row[l] > hi ? hi : row[l];
                    to[l] = (uint8_t)v;
                }
            }
            stats->dram_bytes_written +=
                dsl_npu_element_bytes(&npu->config, DSL_NPU_ACC, m->format);
        }
    }
}

static void gemm(dsl_npu *npu, const dsl_npu_gemm_op *g, dsl_npu_stats *stats) {
    const int32_t bi = npu->config.block_in, bo = npu->config.block_out;
    for (uint32_t i0 = 0; i0 < g->ext0; i0++) {
        for (uint32_t i1 = 0; i1 < g->ext1; i1++) {
            uint32_t *acc =
                (uint32_t *)npu->acc + (uint64_t)(g->acc + i0 * g->acc_f0 + i1 * g->acc_f1) * bo;
            if (g->reset) {
                memset(acc, 0, 4 * (size_t)bo);
                continue;
            }
            const int8_t *inp =
                npu->inp + (uint64_t)(g->inp + i0 * g->inp_f0 + i1 * g->inp_f1) * bi;
            const int8_t *wgt =
                npu->wgt + (uint64_t)(g->wgt + i0 * g->wgt_f0 + i1 * g->wgt_f1) * bi * bo;
            for (int32_t j = 0; j < bo; j++) {
                int32_t sum = 0;  // at most 256 products of 2^14: no overflow before the add
                for (int32_t k = 0; k < bi; k++)
                    sum += (int32_t)inp[k] * (int32_t)wgt[j * bi + k];
                acc[j] += (uint32_t)sum;
            }
            stats->gemm_steps++;
            stats->macs += (uint64_t)bi * bo;
        }
    }
}

static void alu_op(dsl_npu *npu, const dsl_npu_alu_op *a, dsl_npu_stats *stats) {
    const int32_t lanes = npu->config.block_out;
    for (uint32_t i0 = 0; i0 < a->ext0; i0++) {
        for (uint32_t i1 = 0; i1 < a->ext1; i1++) {
            int32_t *dst = npu->acc + (uint64_t)(a->dst + i0 * a->dst_f0 + i1 * a->dst_f1) * lanes;
            const int32_t *src =
                npu->acc + (uint64_t)(a->src + i0 * a->src_f0 + i1 * a->src_f1) * lanes;
            for (int32_t l = 0; l < lanes; l++)
                dst[l] = alu(a->fn, dst[l], a->use_imm ? a->imm : src[l]);
            stats->alu_rows++;
        }
    }
}

DSL_NPU_EXPORT void dsl_npu_execute(dsl_npu *npu, const dsl_npu_op *op, dsl_npu_stats *stats) {
    stats->instructions[op->opcode]++;
    switch (op->opcode) {
        case DSL_NPU_LOAD:
            load(npu, &op->mem, stats);
            break;
        case DSL_NPU_STORE:
            store(npu, &op->mem, stats);
            break;
        case DSL_NPU_GEMM:
            gemm(npu, &op->gemm, stats);
            break;
        case DSL_NPU_ALU:
            alu_op(npu, &op->alu, stats);
            break;
        default:
            break;
    }
}

static uint64_t ceil_div(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

DSL_NPU_EXPORT uint64_t dsl_npu_cycles(const dsl_npu_config *c, const dsl_npu_op *op) {
    switch (op->opcode) {
        case DSL_NPU_LOAD:
        case DSL_NPU_STORE: {
            const dsl_npu_memory_op *m = &op->mem;
            const uint64_t element = dsl_npu_element_bytes(c, m->buffer, m->format);
            const uint64_t moved = (uint64_t)m->y_size * m->x_size;
            const uint64_t all = op->opcode == DSL_NPU_STORE
                                     ? moved
                                     : (uint64_t)(m->pad_top + m->y_size + m->pad_bottom) *
                                           (m->pad_left + m->x_size + m->pad_right);
            // A transfer of nothing (which carries tokens) passes through in a cycle.
            if (all == 0) return 1;
            // Contiguous runs of DRAM: a row when its elements are adjacent, the whole block when
            // its rows are too.
            uint64_t runs = moved, run_bytes = element;
            if (m->x_stride == element || m->x_size == 1) {
                runs = m->y_size;
                run_bytes = element * m->x_size;
                if (m->y_stride == run_bytes || m->y_size == 1) {
                    runs = m->y_size ? 1 : 0;
                    run_bytes = element * m->x_size * m->y_size;
                }
            }
            uint64_t cycles = (uint64_t)c->dma_latency;
            if (m->x_size && m->y_size)
                cycles +=
                    runs * (c->dma_burst_cycles + ceil_div(run_bytes, c->dma_bytes_per_cycle));
            cycles += ceil_div((all - moved) * element, c->sram_bytes_per_cycle);
            return cycles;
        }
        case DSL_NPU_GEMM:
            return (uint64_t)c->gemm_overhead + (uint64_t)op->gemm.ext0 * op->gemm.ext1;
        case DSL_NPU_ALU:
            return (uint64_t)c->alu_overhead + (uint64_t)op->alu.ext0 * op->alu.ext1;
        default:
            return 1;
    }
}
