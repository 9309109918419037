// The NPU as a device: its configuration, its on-chip buffers, and its DRAM with a first-fit
// allocator (blocks aligned to 64 bytes; address 0 is never handed out).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "npu/Internal.h"

enum { kAlignment = 64 };

DSL_NPU_EXPORT void dsl_npu_default_config(dsl_npu_config *c) {
    memset(c, 0, sizeof *c);
    c->block_in = 16;
    c->block_out = 16;
    c->inp_bytes = 32 << 10;
    c->wgt_bytes = 256 << 10;
    c->acc_bytes = 128 << 10;
    c->dram_bytes = (uint64_t)256 << 20;
    c->queue_depth = 64;
    c->dma_latency = 64;
    c->dma_burst_cycles = 2;
    c->dma_bytes_per_cycle = 32;
    c->sram_bytes_per_cycle = 64;
    c->gemm_overhead = 4;
    c->alu_overhead = 4;
}

DSL_NPU_EXPORT void dsl_npu_default_run_options(dsl_npu_run_options *o) {
    memset(o, 0, sizeof *o);
    o->order = DSL_NPU_DATAFLOW;
    o->check_races = 1;
}

DSL_NPU_EXPORT int dsl_npu_fail_into(char *error, size_t error_bytes, int code, const char *format,
                                     ...) {
    if (error && error_bytes) {
        va_list args;
        va_start(args, format);
        vsnprintf(error, error_bytes, format, args);
        va_end(args);
    }
    return code;
}

DSL_NPU_EXPORT int dsl_npu_fail(dsl_npu *npu, int code, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(npu->error, sizeof npu->error, format, args);
    va_end(args);
    return code;
}

DSL_NPU_EXPORT uint32_t dsl_npu_element_bytes(const dsl_npu_config *c, int buffer, int format) {
    switch (buffer) {
        case DSL_NPU_INP:
            return (uint32_t)c->block_in;
        case DSL_NPU_WGT:
            return (uint32_t)(c->block_in * c->block_out);
        default:
            return (uint32_t)c->block_out * (format == DSL_NPU_I32 ? 4u : 1u);
    }
}

DSL_NPU_EXPORT uint32_t dsl_npu_capacity(const dsl_npu_config *c, int buffer) {
    switch (buffer) {
        case DSL_NPU_INP:
            return c->inp_bytes / (uint32_t)c->block_in;
        case DSL_NPU_WGT:
            return c->wgt_bytes / (uint32_t)(c->block_in * c->block_out);
        default:
            return c->acc_bytes / (uint32_t)(4 * c->block_out);
    }
}

DSL_NPU_EXPORT dsl_npu *dsl_npu_create(const dsl_npu_config *config, char *error,
                                       size_t error_bytes) {
    dsl_npu_config c;
    if (config) {
        c = *config;
    } else {
        dsl_npu_default_config(&c);
    }
    if (c.block_in < 1 || c.block_in > 256 || c.block_out < 1 || c.block_out > 256) {
        dsl_npu_fail_into(error, error_bytes, DSL_NPU_ERROR_MEMORY,
                          "NPU block sizes (%d, %d) must be in [1, 256]", c.block_in, c.block_out);
        return NULL;
    }
    if (dsl_npu_capacity(&c, DSL_NPU_INP) == 0 || dsl_npu_capacity(&c, DSL_NPU_WGT) == 0 ||
        dsl_npu_capacity(&c, DSL_NPU_ACC) == 0 || c.dram_bytes < kAlignment * 2 ||
        c.queue_depth < 1 || c.dma_bytes_per_cycle < 1 || c.sram_bytes_per_cycle < 1 ||
        c.dma_latency < 0 || c.dma_burst_cycles < 0 || c.gemm_overhead < 0 || c.alu_overhead < 0) {
        dsl_npu_fail_into(error, error_bytes, DSL_NPU_ERROR_MEMORY,
                          "NPU configuration invalid: each buffer must hold one element, DRAM "
                          "at least 128 bytes, queues one token, rates at least 1 a cycle");
        return NULL;
    }
    dsl_npu *npu = (dsl_npu *)calloc(1, sizeof *npu);
    if (!npu) return NULL;
    npu->config = c;
    void *dram = mmap(NULL, c.dram_bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    npu->dram = dram == MAP_FAILED ? NULL : (uint8_t *)dram;
    npu->inp = (int8_t *)calloc(c.inp_bytes, 1);
    npu->wgt = (int8_t *)calloc(c.wgt_bytes, 1);
    npu->acc = (int32_t *)calloc(c.acc_bytes / 4, 4);
    if (!npu->dram || !npu->inp || !npu->wgt || !npu->acc) {
        dsl_npu_fail_into(error, error_bytes, DSL_NPU_ERROR_MEMORY,
                          "NPU: out of host memory for %llu bytes of DRAM and the buffers",
                          (unsigned long long)c.dram_bytes);
        dsl_npu_destroy(npu);
        return NULL;
    }
    return npu;
}

DSL_NPU_EXPORT void dsl_npu_destroy(dsl_npu *npu) {
    if (!npu) return;
    if (npu->dram) munmap(npu->dram, npu->config.dram_bytes);
    free(npu->inp);
    free(npu->wgt);
    free(npu->acc);
    free(npu->blocks);
    free(npu);
}

DSL_NPU_EXPORT const dsl_npu_config *dsl_npu_get_config(const dsl_npu *npu) {
    return &npu->config;
}
DSL_NPU_EXPORT uint8_t *dsl_npu_dram(dsl_npu *npu) {
    return npu->dram;
}
DSL_NPU_EXPORT int8_t *dsl_npu_inp(dsl_npu *npu) {
    return npu->inp;
}
DSL_NPU_EXPORT int8_t *dsl_npu_wgt(dsl_npu *npu) {
    return npu->wgt;
}
DSL_NPU_EXPORT int32_t *dsl_npu_acc(dsl_npu *npu) {
    return npu->acc;
}
DSL_NPU_EXPORT const char *dsl_npu_last_error(const dsl_npu *npu) {
    return npu->error;
}

DSL_NPU_EXPORT int dsl_npu_malloc(dsl_npu *npu, uint64_t bytes, uint64_t *address) {
    uint64_t size = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (size == 0) size = kAlignment;
    // First fit: the gap before each block, then the one after the last.
    uint64_t at = kAlignment, slot = 0;
    for (; slot < npu->block_count; slot++) {
        if (npu->blocks[slot].address >= at + size) break;
        const dsl_npu_block *b = &npu->blocks[slot];
        at = (b->address + b->bytes + kAlignment - 1) / kAlignment * kAlignment;
    }
    if (at + size > npu->config.dram_bytes || at + size < at)
        return dsl_npu_fail(npu, DSL_NPU_ERROR_MEMORY,
                            "NPU: no room for %llu bytes in its %llu bytes of DRAM",
                            (unsigned long long)bytes, (unsigned long long)npu->config.dram_bytes);
    if (npu->block_count == npu->block_capacity) {
        uint64_t capacity = npu->block_capacity ? npu->block_capacity * 2 : 16;
        dsl_npu_block *grown =
            (dsl_npu_block *)realloc(npu->blocks, capacity * sizeof(dsl_npu_block));
        if (!grown) return dsl_npu_fail(npu, DSL_NPU_ERROR_MEMORY, "NPU: out of host memory");
        npu->blocks = grown;
        npu->block_capacity = capacity;
    }
    memmove(&npu->blocks[slot + 1], &npu->blocks[slot],
            (npu->block_count - slot) * sizeof(dsl_npu_block));
    npu->blocks[slot].address = at;
    npu->blocks[slot].bytes = size;
    npu->block_count++;
    // Zeroed, so that a run never depends on what an earlier allocation left.
    memset(npu->dram + at, 0, size);
    *address = at;
    return DSL_NPU_OK;
}

DSL_NPU_EXPORT int dsl_npu_free(dsl_npu *npu, uint64_t address) {
    for (uint64_t i = 0; i < npu->block_count; i++) {
        if (npu->blocks[i].address != address) continue;
        memmove(&npu->blocks[i], &npu->blocks[i + 1],
                (npu->block_count - i - 1) * sizeof(dsl_npu_block));
        npu->block_count--;
        return DSL_NPU_OK;
    }
    return dsl_npu_fail(npu, DSL_NPU_ERROR_MEMORY,
                        "NPU: 0x%llx is not the address of an allocation",
                        (unsigned long long)address);
}

DSL_NPU_EXPORT int dsl_npu_in_allocation(const dsl_npu *npu, uint64_t address, uint64_t bytes) {
    // The last block that starts at or before address.
    uint64_t lo = 0, hi = npu->block_count;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (npu->blocks[mid].address <= address) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) return 0;
    const dsl_npu_block *b = &npu->blocks[lo - 1];
    return address + bytes >= address && address + bytes <= b->address + b->bytes;
}
