#pragma once
/* What the NPU's own files share: the device's state and helpers. Not part of its interface. */
#include <stdarg.h>

#include "npu/Npu.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { kNpuErrorCapacity = 1024 };

/** One allocation of device memory. */
typedef struct dsl_npu_block {
    uint64_t address, bytes;
} dsl_npu_block;

struct dsl_npu {
    dsl_npu_config config;
    uint8_t *dram; /* config.dram_bytes, mapped lazily */
    int8_t *inp, *wgt;
    int32_t *acc;
    /* Allocated blocks, sorted by address. */
    dsl_npu_block *blocks;
    uint64_t block_count, block_capacity;
    char error[kNpuErrorCapacity];
};

/** Elements per buffer, and bytes per element (in DRAM: a WGT block is block_out rows of
 * block_in bytes, an ACC row block_out int32 or, stored as int8 / uint8, block_out bytes). */
uint32_t dsl_npu_capacity(const dsl_npu_config *c, int buffer);
uint32_t dsl_npu_element_bytes(const dsl_npu_config *c, int buffer, int format);

/** Writes the message into npu->error and returns `code`. */
int dsl_npu_fail(dsl_npu *npu, int code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/** As snprintf into `error` (which may be null), returning `code`. */
int dsl_npu_fail_into(char *error, size_t error_bytes, int code, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/** Which named block of device memory holds [address, address + bytes); 0 if none does. */
int dsl_npu_in_allocation(const dsl_npu *npu, uint64_t address, uint64_t bytes);

/** Checks an instruction's on-chip and DRAM extents against the configuration and the
 * allocations (index `i` in the program, for the message). */
int dsl_npu_check_bounds(dsl_npu *npu, uint64_t i, const dsl_npu_op *op);

/** Executes one instruction's effect on memory (after its bounds were checked) and adds to the
 * counters. */
void dsl_npu_execute(dsl_npu *npu, const dsl_npu_op *op, dsl_npu_stats *stats);

/** The cycles the instruction keeps its engine busy (the cycle model). */
uint64_t dsl_npu_cycles(const dsl_npu_config *c, const dsl_npu_op *op);

/* The race checker (Races.c): vector clocks over the three engines, carried by tokens, and a
 * shadow of every on-chip element and every DRAM byte a program touches. */
typedef struct dsl_npu_races dsl_npu_races;
typedef struct dsl_npu_clock {
    uint64_t c[3];
} dsl_npu_clock;
dsl_npu_races *dsl_npu_races_create(const dsl_npu_config *c);
void dsl_npu_races_destroy(dsl_npu_races *r);
/** Checks instruction `i` (its clock `clock`, already advanced for it) against the earlier
 * accesses, then records its own. Returns 0, or DSL_NPU_ERROR_RACE with npu's error set. */
int dsl_npu_races_check(dsl_npu_races *r, dsl_npu *npu, uint64_t i, const dsl_npu_op *op,
                        const dsl_npu_clock *clock, const dsl_npu_op *program_ops);

#ifdef __cplusplus
}
#endif
