#pragma once
/// The runtime functions that generated code calls. The JIT links them by address (see
/// jit/RuntimeSymbols.h); AOT libraries carry a copy of the runtime's object files (see
/// RuntimeObjects.h).
///
/// The runtime (Memory.c, Errors.c, ThreadPool.c) is written in C11: it needs only libc and
/// pthreads, never the C++ library, so that a plain C program can link a generated library. Every
/// function it exports is a weak symbol: two libraries that each carry the runtime link into one
/// program, and a program may replace any of them by defining it. This header is included by the
/// runtime itself, so it is valid C as well as C++.

#include <stdint.h>
#include "dsl/runtime/dsl_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif
/// Allocates `bytes` bytes aligned to 64 bytes; null when out of memory.
void *dsl_runtime_malloc(uint64_t bytes);
void dsl_runtime_free(void *pointer);

/// Replacements for the runtime's print, error, malloc and free, for one call of a pipeline
/// (the JIT's JITHandlers, dsl/JIT.h): each non-null function is called with `context` in
/// place of the runtime's own. They are this thread's while set, and the thread pool hands them
/// to the workers that run iterations of the parallel loops the thread starts. `do_par_for`
/// runs a parallel loop in place of the thread pool.
/// One iteration of a parallel loop: returns 0 or an error code.
typedef int (*dsl_task_fn)(void *closure, int32_t index);
typedef struct dsl_runtime_hooks_t {
    void *context;
    void (*print)(void *context, const char *line);
    void (*error)(void *context, const char *message);
    void *(*malloc)(void *context, uint64_t bytes);
    void (*free)(void *context, void *pointer);
    int32_t (*trace)(void *context, const dsl_trace_event_t *event);
    int (*do_par_for)(void *context, dsl_task_fn fn, void *closure, int32_t min, int32_t extent);
    /// What user_context_value() gives extern stages (the JIT's JITUserContext).
    void *user_context;
} dsl_runtime_hooks_t;
/// Makes `hooks` (or none, for NULL) this thread's and returns the ones they replace.
const dsl_runtime_hooks_t *dsl_runtime_swap_hooks(const dsl_runtime_hooks_t *hooks);
/// This thread's hooks, or NULL.
const dsl_runtime_hooks_t *dsl_runtime_current_hooks(void);
/// The user context of this thread's hooks (user_context_value()), or NULL.
void *dsl_runtime_user_context(void);

/// The message of the last error reported on this thread (default handler only). An error
/// reported inside an iteration of a parallel loop counts as reported on the thread that called
/// the loop (the first one, if several iterations fail).
const char *dsl_runtime_last_error(void);
void dsl_runtime_clear_last_error(void);

/// The longest message kept (longer ones are cut).
#define DSL_RUNTIME_MESSAGE_CAPACITY 1024
/// What the default handler does: keeps `message` as this thread's last error, or, inside an
/// iteration of a parallel loop, as the loop's (see dsl_runtime_forward_error).
void dsl_runtime_keep_error(const char *message);
/// Inside an iteration of a parallel loop, keeps `message` for the thread that called the loop
/// (the first message only) and returns 1; elsewhere returns 0.
int dsl_runtime_forward_error(const char *message);

/// Runs fn(closure, i) for i in [min, min + extent) on the thread pool, or through this
/// thread's hooks' do_par_for where set; returns the first nonzero result (0 if none). Nested
/// calls are allowed.
int dsl_runtime_parallel_for(dsl_task_fn fn, void *closure, int32_t min, int32_t extent);
/// The same on the thread pool, whatever the hooks say.
int dsl_runtime_default_parallel_for(dsl_task_fn fn, void *closure, int32_t min, int32_t extent);

/// How a value handed to dsl_runtime_print is stored: each value has a descriptor pair (kind,
/// lanes) and takes `lanes` consecutive 64-bit slots.
enum dsl_print_kind {
    dsl_print_int = 0,
    dsl_print_uint = 1,
    dsl_print_float = 2,
    dsl_print_handle = 3,
    dsl_print_double = 4
};
/// One line of print() or tracing: `format` with each `{k}` replaced by value k (ints and uints
/// in decimal, floats of up to 32 bits with six decimals (printf's %f), float64 in exponent form
/// (%e), as Halide prints them, a vector as `<a, b, ...>`) and `{{` by `{`, then a
/// newline; handed whole to the print handler. `slots` holds the values: an int sign-extended to
/// 64 bits, a uint zero-extended, a float as the bits of a double, a handle as its address.
void dsl_runtime_print(const char *format, int32_t count, const int32_t *descriptors,
                       const uint64_t *slots);

/// Hands one whole line (ending with a newline) to this thread's print hook, else the print
/// handler (Print.c).
void dsl_runtime_print_line(const char *line);
/// One tracing event of generated code: to this thread's trace hook, else the trace handler
/// (Trace.c). Returns the event's id.
int32_t dsl_runtime_trace(const dsl_trace_event_t *event);

/// Memoized Funcs (Memoization.c; lowering/Memoization.cpp places the calls). Lookup: if the
/// cache holds the realization of Func definition `func` under `key` (`key_words` words) for
/// buffers of these shapes and types (one per value of a Tuple), copies it into their regions
/// and returns 0; else returns 1. Store: keeps copies of the buffers' regions under the key
/// (unless they exceed the cache's size); returns 0, also when out of memory.
int32_t dsl_runtime_memoization_lookup(const char *func, const uint64_t *key, int32_t key_words,
                                       dsl_buffer_t **buffers, int32_t buffer_count);
int32_t dsl_runtime_memoization_store(const char *func, const uint64_t *key, int32_t key_words,
                                      dsl_buffer_t **buffers, int32_t buffer_count,
                                      int32_t has_eviction_key, uint64_t eviction_key);

/// Formats a message as printf does (cut at DSL_RUNTIME_MESSAGE_CAPACITY), hands it to
/// dsl_runtime_report_error, and returns `code`: what every reporter below does.
__attribute__((format(printf, 2, 3))) int dsl_runtime_report(int code, const char *format, ...);

// Error reporters called by generated code; each returns its error code.
int dsl_runtime_error_bad_dimensions(const char *buffer, int expected, int actual);
int dsl_runtime_error_bad_type(const char *buffer, int expected_code, int expected_bits, int code,
                               int bits);
int dsl_runtime_error_buffer_is_null(const char *buffer);
int dsl_runtime_error_buffer_extent_negative(const char *buffer, int dim, int extent);
int dsl_runtime_error_buffer_span_too_large(const char *buffer, double span);
int dsl_runtime_error_output_overlaps(const char *buffer, int dim_a, int stride_a, int extent_a,
                                      int dim_b, int stride_b, int extent_b);
int dsl_runtime_error_access_out_of_bounds(const char *buffer, int dim, int need_min, int need_max,
                                           int have_min, int have_max);
/// The profiler (Profiler.c; lowering/Profiling.cpp places the calls). A run of a pipeline
/// begins with dsl_profiler_begin (its name, its Funcs' names each followed by '\n', their
/// count), which returns the pipeline's record, and ends with dsl_profiler_end. In between,
/// dsl_profiler_switch says that this thread now runs Func `func` (`count` for the pipeline's
/// own code, -1 for nothing), adding the time since its last mark to what it ran before unless
/// `charged` is 0 (the first mark of an iteration of a parallel loop).
void *dsl_profiler_begin(const char *pipeline, const char *funcs, int32_t count);
int32_t dsl_profiler_switch(void *pipeline, int32_t func, int32_t charged);
int32_t dsl_profiler_end(void *pipeline);
/// Prints the report of the pipelines named `pipeline` (realize() calls it after each run).
void dsl_profiler_report_pipeline(const char *pipeline);

/// require() failed: reports "Error: " and the message `format` makes of the values (as
/// dsl_runtime_print formats them), and returns dsl_error_requirement_failed.
int dsl_runtime_error_requirement_failed(const char *format, int32_t count,
                                         const int32_t *descriptors, const uint64_t *slots);
int dsl_runtime_error_output_read_out_of_bounds(const char *buffer, int dim, int need_min,
                                                int need_max, int have_min, int have_max);
int dsl_runtime_error_output_too_small(const char *buffer, int dim, int need_min, int need_max,
                                       int have_min, int have_max);
/// The buffers of a Tuple-valued output differ in shape from the first value's.
int dsl_runtime_error_tuple_shapes_differ(const char *func, const char *buffer, int dim, int min,
                                          int extent, int first_min, int first_extent);
int dsl_runtime_error_bound_too_small(const char *func, const char *var, int need_min, int need_max,
                                      int bound_min, int bound_max);
/// A stage's specializations all failed to hold and its specialize_fail(message) was reached.
int dsl_runtime_error_specialize_fail(const char *func, int stage, const char *message);
int dsl_runtime_error_extern_stage_failed(const char *func, const char *function, int status,
                                          int bounds_query);
/// An extern stage's function answered a bounds query of its outputs with a region that does
/// not hold the one it was asked for.
int dsl_runtime_error_extern_region_too_small(const char *func, const char *function,
                                              const char *var, int need_min, int need_max, int min,
                                              int max);
/// An extern stage stored further out than it is computed widened one iteration's region past
/// its storage.
int dsl_runtime_error_extern_region_outside_storage(const char *func, const char *function,
                                                    const char *var, int min, int max,
                                                    int storage_min, int storage_max);
int dsl_runtime_error_fused_ranges_differ(const char *loop, const char *func, int min, int extent,
                                          const char *other, int other_min, int other_extent);
int dsl_runtime_error_fold_too_small(const char *func, const char *var, int factor, int needed);
int dsl_runtime_error_region_smaller_than_window(const char *func, const char *var, int window,
                                                 int have_min, int have_max);
int dsl_runtime_error_param_too_small(const char *param, double value, double min);
int dsl_runtime_error_param_too_large(const char *param, double value, double max);
int dsl_runtime_error_int_param_too_small(const char *param, int64_t value, int64_t min);
int dsl_runtime_error_int_param_too_large(const char *param, int64_t value, int64_t max);
int dsl_runtime_error_uint_param_too_small(const char *param, uint64_t value, uint64_t min);
int dsl_runtime_error_uint_param_too_large(const char *param, uint64_t value, uint64_t max);
int dsl_runtime_error_out_of_memory(const char *buffer, double bytes);
int dsl_runtime_error_buffer_too_large(const char *buffer, double elements);
int dsl_runtime_error_bounds_overflow(const char *func, const char *bound, double value);
int dsl_runtime_error_stride_not_one(const char *buffer, int stride);
int dsl_runtime_error_constraint_violated(const char *owner, const char *buffer, const char *field,
                                          int dim, int value, int required);

/// The bytes from a buffer's host pointer to the end of its last element (strides must not be
/// negative); sets *ok to 0 (and reports) when the buffer cannot live on a device.
uint64_t dsl_runtime_buffer_span(const struct dsl_buffer_t *buffer, int *ok);
/// Makes sure `buffer` has memory on the device of `api` holding its newest data: allocates it
/// and copies the host's data there when it has none, copies when the host is newer (marked
/// host-dirty). `overwritten`: the kernel about to run only writes the buffer, so a fresh,
/// dense device copy of a buffer the host has not written need not start from the host's data.
int dsl_runtime_copy_to_device(struct dsl_buffer_t *buffer, const dsl_device_interface_t *api,
                               int overwritten);

/// The kinds of a kernel launch's arguments (its table `kinds`): a scalar (0), a buffer the
/// kernel reads (1), writes (2) or both (3), or shared memory sized at the launch (4).
enum {
    dsl_kernel_arg_scalar = 0,
    dsl_kernel_arg_read = 1,
    dsl_kernel_arg_written = 2,
    dsl_kernel_arg_buffer = dsl_kernel_arg_read | dsl_kernel_arg_written,
    dsl_kernel_arg_shared = 4,
};

/// What every launch does first (GPU.c): sets *empty when the grid is empty (nothing to run),
/// else puts each buffer argument (kinds[i] & dsl_kernel_arg_buffer) on the device of `api`.
/// Returns 0 or the error code of a failed copy.
int dsl_runtime_gpu_prepare_launch(const int32_t *blocks, const int32_t *threads, int32_t count,
                                   void *const *args, const uint8_t *kinds,
                                   const dsl_device_interface_t *api, int *empty);
/// What every launch does last: marks the buffers the kernel writes
/// (kinds[i] & dsl_kernel_arg_written) as newer on the device.
void dsl_runtime_gpu_mark_written(int32_t count, void *const *args, const uint8_t *kinds);

/// The OpenCL device interface (OpenCL.c).
extern const dsl_device_interface_t dsl_opencl_device_interface;
/// Runs the kernel `kernel` of the OpenCL C program `source` (`source_bytes` long; the program
/// is built once per process and kept) over blocks[0..2] work-groups of threads[0..2]
/// work-items. args[i] points to argument i: a `dsl_buffer_t *` for a buffer (it is put on the
/// device first, and written ones are marked device-dirty); nothing for shared memory sized at
/// the launch, sizes[i] bytes of it (a `__local` argument; for CUDA, a part of the launch's
/// dynamic shared memory, and no parameter); else a scalar of sizes[i] bytes. Returns 0 or an
/// error code.
int dsl_runtime_opencl_launch(const char *source, uint64_t source_bytes, const char *kernel,
                              int32_t blocks_x, int32_t blocks_y, int32_t blocks_z,
                              int32_t threads_x, int32_t threads_y, int32_t threads_z,
                              int32_t count, void *const *args, const uint64_t *sizes,
                              const uint8_t *kinds);
/// The CUDA device interface and launch (CUDA.c), as for OpenCL: `ptx` is a PTX module
/// (`ptx_bytes` long, followed by a NUL), loaded once per process with the driver.
extern const dsl_device_interface_t dsl_cuda_device_interface;
int dsl_runtime_cuda_launch(const char *ptx, uint64_t ptx_bytes, const char *kernel,
                            int32_t blocks_x, int32_t blocks_y, int32_t blocks_z, int32_t threads_x,
                            int32_t threads_y, int32_t threads_z, int32_t count, void *const *args,
                            const uint64_t *sizes, const uint8_t *kinds);
/// Generated code's entry points for host and device coherence (GPU.c): copy back a buffer
/// the device holds newer data of, mark the host's copy newer, release the device's.
int dsl_runtime_copy_to_host(struct dsl_buffer_t *buffer);
int dsl_runtime_set_host_dirty(struct dsl_buffer_t *buffer);
int dsl_runtime_device_free(struct dsl_buffer_t *buffer);

/// The NPU offload of a contraction (NPU.c): C[m, n] += sum_k A[m, k] * B[n, k] with int8
/// operands and int32 results, or, with depthwise channels d, C[m, d] += sum_k A[m, k, d] *
/// B[k, d]. Each role (rows m, output channels n, contraction k: up to four loops; d: up to
/// two) is given by its loops' extents (the first fastest; 1 for an unused one) and the stride
/// (in elements) of each buffer the role indexes (m: a and c; n: b and c; k: a and b; d: a, b
/// and c); `*_offset` is the index of each buffer's first element. Without `accumulate` C starts
/// from zero. `tile_rows` (0: the most that fit) and `copies` (1 or 2) are the schedule's. Runs
/// on the process's simulated NPU; `name` (the Func) names errors.
int dsl_runtime_npu_gemm(const char *name, const int8_t *a, int64_t a_offset, const int8_t *b,
                         int64_t b_offset, int32_t *c, int64_t c_offset, int32_t m0, int64_t m0_a,
                         int64_t m0_c, int32_t m1, int64_t m1_a, int64_t m1_c, int32_t m2,
                         int64_t m2_a, int64_t m2_c, int32_t m3, int64_t m3_a, int64_t m3_c,
                         int32_t n0, int64_t n0_b, int64_t n0_c, int32_t n1, int64_t n1_b,
                         int64_t n1_c, int32_t n2, int64_t n2_b, int64_t n2_c, int32_t n3,
                         int64_t n3_b, int64_t n3_c, int32_t k0, int64_t k0_a, int64_t k0_b,
                         int32_t k1, int64_t k1_a, int64_t k1_b, int32_t k2, int64_t k2_a,
                         int64_t k2_b, int32_t k3, int64_t k3_a, int64_t k3_b, int32_t d0,
                         int64_t d0_a, int64_t d0_b, int64_t d0_c, int32_t d1, int64_t d1_a,
                         int64_t d1_b, int64_t d1_c, int32_t accumulate, int32_t tile_rows,
                         int32_t copies);
/// The requantization of int32 values C[m, channel] on the NPU's ALU (NPU.c): TFLite's
/// rescaling by multiplier[channel] and shift[channel] (dsl::multiply_by_quantized_multiplier),
/// plus `zero_point`, clamped to [lo, hi], in place. Rows m are up to four loops (extent and
/// C's stride each; 1 for an unused one), the channel one loop (its extent and the strides of
/// C, the multipliers and the shifts).
int dsl_runtime_npu_requantize(const char *name, int32_t *c, int64_t c_offset, int32_t m0,
                               int64_t m0_c, int32_t m1, int64_t m1_c, int32_t m2, int64_t m2_c,
                               int32_t m3, int64_t m3_c, int32_t channels, int64_t channel_c,
                               int64_t channel_multiplier, int64_t channel_shift,
                               const int32_t *multiplier, int64_t multiplier_offset,
                               const int32_t *shift, int64_t shift_offset, int32_t zero_point,
                               int32_t lo, int32_t hi, int32_t tile_rows, int32_t copies);
/// Hands a requantization (dsl_runtime_npu_requantize's arguments) to this thread's next
/// dsl_runtime_npu_gemm, which runs it in its own program where it covers the same values,
/// and otherwise after itself.
int dsl_runtime_npu_next_requantization(const char *name, int32_t *c, int64_t c_offset, int32_t m0,
                                        int64_t m0_c, int32_t m1, int64_t m1_c, int32_t m2,
                                        int64_t m2_c, int32_t m3, int64_t m3_c, int32_t channels,
                                        int64_t channel_c, int64_t channel_multiplier,
                                        int64_t channel_shift, const int32_t *multiplier,
                                        int64_t multiplier_offset, const int32_t *shift,
                                        int64_t shift_offset, int32_t zero_point, int32_t lo,
                                        int32_t hi, int32_t tile_rows, int32_t copies);
/// Hands a conversion of the results `c` to bytes (`format`: dsl_npu_format, int8 or uint8)
/// into `dst` to this thread's next dsl_runtime_npu_gemm: up to 8 loops (extent, stride in
/// `c`, stride in `dst` each; extent 1 for an unused one). Where the GEMM's program also
/// requantizes into the format's range and the loops cover its results one each, the NPU's
/// STORE writes the bytes and the int32 results are not written; otherwise the conversion (the
/// low byte of each) is done on the host after the GEMM.
int dsl_runtime_npu_next_store(void *dst, int64_t dst_offset, const int32_t *c, int64_t c_offset,
                               int32_t e0, int64_t c0, int64_t d0, int32_t e1, int64_t c1,
                               int64_t d1, int32_t e2, int64_t c2, int64_t d2, int32_t e3,
                               int64_t c3, int64_t d3, int32_t e4, int64_t c4, int64_t d4,
                               int32_t e5, int64_t c5, int64_t d5, int32_t e6, int64_t c6,
                               int64_t d6, int32_t e7, int64_t c7, int64_t d7, int32_t format);
/// The NPU's device interface (NPU.c): buffers in the simulator's DRAM, copied for real.
extern const dsl_device_interface_t dsl_npu_device_interface;
/// The counters and cycles of the last program run on the process's NPU (all zero before one).
struct dsl_npu_stats;
int dsl_runtime_npu_last_stats(struct dsl_npu_stats *stats);
/// The sums over every program run since the process started or since the last reset; with
/// `reset`, starts the sums again (after reading them, if `stats` is not null).
int dsl_runtime_npu_total_stats(struct dsl_npu_stats *stats, int32_t reset);

#ifdef __cplusplus
}  // extern "C"
#endif

/// Marks a definition of the runtime as a weak symbol (see the top of this file).
#define DSL_RUNTIME_EXPORT __attribute__((weak))

#ifdef __cplusplus
namespace dsl::runtime {

constexpr const char *kMallocSymbol = "dsl_runtime_malloc";
constexpr const char *kFreeSymbol = "dsl_runtime_free";
constexpr const char *kParallelForSymbol = "dsl_runtime_parallel_for";

}  // namespace dsl::runtime
#endif
