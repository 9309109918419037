#pragma once
/* The NPU (DESIGN.md §4): a tensor accelerator in the spirit of TVM's VTA. This is hardware: it
 * knows nothing of the compiler. It is a device with its own DRAM, three on-chip buffers (INP,
 * WGT, ACC) and three engines (load, compute, store) that run one instruction stream, ordered
 * between engines only by dependency tokens. src/npu/README.md specifies the instruction set and
 * its encoding; this header is its C interface: configuration, device memory, instructions
 * (decoded and encoded), and a run of a program on the bit-exact simulator with its cycle model.
 *
 * Written in C11 (like the runtime, which carries it into every generated library), so valid C
 * and C++. Every exported function is a weak symbol, as the runtime's are. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* On definitions only: a weak declaration would let a program that never pulls in the NPU's
 * objects link with null functions. */
#define DSL_NPU_EXPORT __attribute__((weak))

/** Sizes and timing of one NPU. dsl_npu_default_config() fills in the defaults shown. */
typedef struct dsl_npu_config {
    /* The GEMM core does a 1 x block_in x block_out step a cycle: an INP row holds block_in
     * int8, a WGT block block_out x block_in int8, an ACC row block_out int32. (16, 16) */
    int32_t block_in, block_out;
    /* On-chip buffers in bytes: INP (32 KiB), WGT (256 KiB), ACC (128 KiB). */
    uint32_t inp_bytes, wgt_bytes, acc_bytes;
    /* Device DRAM in bytes (256 MiB, reserved lazily). */
    uint64_t dram_bytes;
    /* Tokens a dependency queue holds; a push into a full queue waits. (64) */
    int32_t queue_depth;
    /* Cycle model. A LOAD or STORE costs dma_latency cycles (64), then for each contiguous run of
     * DRAM bytes dma_burst_cycles (2) plus its bytes at dma_bytes_per_cycle (32), then padding
     * written at sram_bytes_per_cycle (64). GEMM and ALU cost one cycle a step (one ACC row) plus
     * gemm_overhead / alu_overhead (4 each) an instruction; FINISH one cycle. */
    int32_t dma_latency, dma_burst_cycles, dma_bytes_per_cycle, sram_bytes_per_cycle;
    int32_t gemm_overhead, alu_overhead;
} dsl_npu_config;

/** Instruction kinds (bits 0-2 of an instruction). */
typedef enum dsl_npu_opcode {
    DSL_NPU_LOAD = 0,
    DSL_NPU_STORE = 1,
    DSL_NPU_GEMM = 2,
    DSL_NPU_ALU = 3,
    DSL_NPU_FINISH = 4
} dsl_npu_opcode;

/** On-chip buffers. */
typedef enum dsl_npu_buffer { DSL_NPU_INP = 0, DSL_NPU_WGT = 1, DSL_NPU_ACC = 2 } dsl_npu_buffer;

/** How STORE writes an ACC lane to DRAM: as int32, or saturated to int8 or uint8. */
typedef enum dsl_npu_format { DSL_NPU_I32 = 0, DSL_NPU_I8 = 1, DSL_NPU_U8 = 2 } dsl_npu_format;

/** ALU functions: acc = fn(acc, operand), lane by lane, on int32. */
typedef enum dsl_npu_alu_fn {
    DSL_NPU_ADD = 0, /* wrapping */
    DSL_NPU_SUB = 1, /* wrapping */
    DSL_NPU_MUL = 2, /* the low 32 bits */
    DSL_NPU_MIN = 3,
    DSL_NPU_MAX = 4,
    DSL_NPU_SHR = 5,  /* rounding shift right by operand (half away from zero); left if < 0 */
    DSL_NPU_MULH = 6, /* saturating rounding doubling high multiply (TFLite's) */
    DSL_NPU_MOV = 7   /* acc = operand */
} dsl_npu_alu_fn;

/** Dependency flags (bits 3-6). "prev" and "next" are the neighbouring engines: load <->
 * compute <-> store. A pop waits for a token from that neighbour; a push sends one after the
 * instruction has finished. */
enum { DSL_NPU_POP_PREV = 1, DSL_NPU_POP_NEXT = 2, DSL_NPU_PUSH_PREV = 4, DSL_NPU_PUSH_NEXT = 8 };

/** The engines. LOAD into INP or WGT runs on the load engine; LOAD into ACC, GEMM, ALU and
 * FINISH on the compute engine; STORE on the store engine. */
typedef enum dsl_npu_engine {
    DSL_NPU_LOAD_ENGINE = 0,
    DSL_NPU_COMPUTE_ENGINE = 1,
    DSL_NPU_STORE_ENGINE = 2
} dsl_npu_engine;

/** LOAD and STORE: a 2-D strided transfer of y_size x x_size elements (an INP row, a WGT block
 * or an ACC row; for STORE the ACC rows in `format`) between DRAM, where element (y, x) starts at
 * byte dram + y * y_stride + x * x_stride, and consecutive elements of the on-chip buffer from
 * index sram on. LOAD surrounds the block with padding elements whose every lane is pad_value:
 * it writes (pad_top + y_size + pad_bottom) rows of (pad_left + x_size + pad_right) elements. */
typedef struct dsl_npu_memory_op {
    uint8_t buffer; /* dsl_npu_buffer: LOAD any, STORE ACC */
    uint8_t format; /* STORE: dsl_npu_format; LOAD: 0 */
    uint8_t pad_top, pad_bottom, pad_left, pad_right;
    int32_t pad_value; /* an int8 for INP and WGT */
    uint32_t sram;     /* < 2^16 */
    uint64_t dram;
    uint32_t y_size, x_size; /* < 2^16 */
    uint32_t y_stride, x_stride;
} dsl_npu_memory_op;

/** GEMM: for i0 < ext0, i1 < ext1 (i1 innermost), with a = acc + i0 * acc_f0 + i1 * acc_f1 and
 * likewise x (INP) and w (WGT): ACC[a][j] += sum_k INP[x][k] * WGT[w][j][k], one step; with
 * `reset`, ACC[a] = 0 instead. */
typedef struct dsl_npu_gemm_op {
    uint8_t reset;
    uint32_t acc, inp, wgt;  /* < 2^16 */
    uint32_t ext0, ext1;     /* < 2^16 */
    uint32_t acc_f0, acc_f1; /* < 2^16 */
    uint32_t inp_f0, inp_f1;
    uint32_t wgt_f0, wgt_f1;
} dsl_npu_gemm_op;

/** ALU: for i0 < ext0, i1 < ext1, with d = dst + i0 * dst_f0 + i1 * dst_f1 and s likewise:
 * ACC[d][j] = fn(ACC[d][j], use_imm ? imm : ACC[s][j]). A per-channel operand is an ACC row
 * (s with zero factors); an element-wise one walks with d. */
typedef struct dsl_npu_alu_op {
    uint8_t fn; /* dsl_npu_alu_fn */
    uint8_t use_imm;
    int32_t imm;
    uint32_t dst, src;       /* < 2^16 */
    uint32_t ext0, ext1;     /* < 2^16 */
    uint32_t dst_f0, dst_f1; /* < 2^16 */
    uint32_t src_f0, src_f1;
} dsl_npu_alu_op;

/** One instruction, decoded. Only the member of its opcode is read. */
typedef struct dsl_npu_op {
    uint8_t opcode; /* dsl_npu_opcode */
    uint8_t deps;   /* DSL_NPU_POP_PREV | ... */
    dsl_npu_memory_op mem;
    dsl_npu_gemm_op gemm;
    dsl_npu_alu_op alu;
} dsl_npu_op;

/** One instruction, encoded: 256 bits, word 0 first (README.md gives the fields). */
typedef struct dsl_npu_insn {
    uint64_t word[4];
} dsl_npu_insn;

/** Error codes. */
enum {
    DSL_NPU_OK = 0,
    DSL_NPU_ERROR_ENCODING = 1, /* a field out of range, an unknown opcode, a bad flag */
    DSL_NPU_ERROR_BOUNDS = 2,   /* an access outside a buffer or outside device memory */
    DSL_NPU_ERROR_RACE = 3,     /* two conflicting accesses no token orders */
    DSL_NPU_ERROR_DEADLOCK = 4, /* every engine waits for a token */
    DSL_NPU_ERROR_MEMORY = 5,   /* device memory exhausted, or a bad address freed */
    DSL_NPU_ERROR_PROGRAM = 6   /* no FINISH at the end, or an instruction after it */
};

/** The order the simulator executes the engines' instructions in. All give the same memory for
 * a race-free program. */
typedef enum dsl_npu_order {
    DSL_NPU_SERIAL = 0,   /* program order (each pop must follow its push in program order) */
    DSL_NPU_DATAFLOW = 1, /* the cycle model's order: each engine as soon as its tokens allow */
    DSL_NPU_RANDOM = 2    /* a random engine among those that can go, from `seed` */
} dsl_npu_order;

typedef struct dsl_npu_run_options {
    int32_t order; /* dsl_npu_order */
    uint64_t seed;
    /* Stop at the first race (1, the default of dsl_npu_default_run_options), or run on. */
    int32_t check_races;
} dsl_npu_run_options;

typedef struct dsl_npu_engine_stats {
    uint64_t instructions;
    uint64_t busy_cycles;  /* executing */
    uint64_t stall_cycles; /* idle with an instruction waiting for a token or queue space */
} dsl_npu_engine_stats;

/** Counters and the cycle model's results for one run. */
typedef struct dsl_npu_stats {
    uint64_t cycles; /* until the last engine finished */
    dsl_npu_engine_stats engine[3];
    uint64_t instructions[5]; /* by opcode */
    uint64_t gemm_steps, macs, alu_rows;
    uint64_t dram_bytes_read, dram_bytes_written, pad_bytes;
    double gemm_utilisation; /* gemm_steps / cycles (reset steps excluded) */
} dsl_npu_stats;

typedef struct dsl_npu dsl_npu;

void dsl_npu_default_config(dsl_npu_config *config);
void dsl_npu_default_run_options(dsl_npu_run_options *options);
/** A new NPU (null if the configuration is invalid or memory is short; then `error`, if not
 * null, receives why). */
dsl_npu *dsl_npu_create(const dsl_npu_config *config, char *error, size_t error_bytes);
void dsl_npu_destroy(dsl_npu *npu);
const dsl_npu_config *dsl_npu_get_config(const dsl_npu *npu);

/** Device memory: allocates `bytes` (aligned to 64; 0 is never an address) into *address. */
int dsl_npu_malloc(dsl_npu *npu, uint64_t bytes, uint64_t *address);
int dsl_npu_free(dsl_npu *npu, uint64_t address);
/** The simulator's DRAM: host access to device memory, for copies. */
uint8_t *dsl_npu_dram(dsl_npu *npu);
/** On-chip buffers, for tests: INP as int8 rows, WGT as blocks, ACC as int32 rows. */
int8_t *dsl_npu_inp(dsl_npu *npu);
int8_t *dsl_npu_wgt(dsl_npu *npu);
int32_t *dsl_npu_acc(dsl_npu *npu);

/** Builders of decoded instructions (the fields not named are zero). A LOAD or STORE
 * (`opcode`), a GEMM with its two loops' factors, a reset of `rows` consecutive ACC rows from
 * `acc` (rows 0: an instruction that only carries its tokens). */
dsl_npu_op dsl_npu_memory(int opcode, int buffer, uint32_t sram, uint64_t dram, uint32_t y_size,
                          uint32_t x_size, uint32_t y_stride, uint32_t x_stride, int deps);
dsl_npu_op dsl_npu_gemm(uint32_t acc, uint32_t inp, uint32_t wgt, uint32_t ext0, uint32_t ext1,
                        uint32_t acc_f0, uint32_t acc_f1, uint32_t inp_f0, uint32_t inp_f1,
                        uint32_t wgt_f0, uint32_t wgt_f1, int deps);
dsl_npu_op dsl_npu_reset(uint32_t acc, uint32_t rows, int deps);
/** ALU `fn` on `rows` ACC rows from `dst`, `dst_step` apart, with the immediate `imm` (use_imm)
 * or the ACC rows from `src`, `src_step` apart (0: one row, a per-channel operand). */
dsl_npu_op dsl_npu_alu(int fn, uint32_t dst, uint32_t rows, uint32_t dst_step, uint32_t src,
                       uint32_t src_step, int use_imm, int32_t imm, int deps);

/** Encodes `op` (DSL_NPU_ERROR_ENCODING with the reason in `error` when a field does not fit). */
int dsl_npu_encode(const dsl_npu_op *op, dsl_npu_insn *insn, char *error, size_t error_bytes);
int dsl_npu_decode(const dsl_npu_insn *insn, dsl_npu_op *op, char *error, size_t error_bytes);
/** One line of assembly, e.g. "GEMM acc=0 inp=0 wgt=0 ext=(4,16) ... [pop_prev push_next]". */
void dsl_npu_disassemble(const dsl_npu_op *op, char *text, size_t text_bytes);
dsl_npu_engine dsl_npu_engine_of(const dsl_npu_op *op);

/** Runs `count` instructions (the last a FINISH) to completion. Every access is bounds-checked
 * and race-checked before it happens; on an error nothing after the failing instruction runs
 * and dsl_npu_last_error() says which instruction failed and why. `stats` (may be null)
 * receives the counters and the cycle model's timing; DSL_NPU_STATS=1 in the environment prints
 * them to stderr. Returns 0 or an error code. */
int dsl_npu_run(dsl_npu *npu, const dsl_npu_insn *program, uint64_t count,
                const dsl_npu_run_options *options, dsl_npu_stats *stats);
const char *dsl_npu_last_error(const dsl_npu *npu);
/** The stats as text, several lines (what DSL_NPU_STATS=1 prints). */
void dsl_npu_format_stats(const dsl_npu_stats *stats, char *text, size_t text_bytes);

/** TFLite's integer arithmetic, as the ALU does it. */
int32_t dsl_npu_rounding_doubling_high_mul(int32_t a, int32_t b);
/** a / 2^shift rounded half away from zero for 0 <= shift <= 31; a << -shift (wrapping) for
 * -31 <= shift < 0; the amount clamped to [-31, 31]. */
int32_t dsl_npu_rounding_shift(int32_t a, int32_t shift);

#ifdef __cplusplus
}
#endif
