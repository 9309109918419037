/* The C ABI shared by generated code and its users (DESIGN.md §5). Plain C: usable from C and
 * C++. A generated function takes `dsl_buffer_t *` for each buffer argument and plain values for
 * scalars, and returns 0 or one of the error codes below. */
#ifndef DSL_RUNTIME_H
#define DSL_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The kind of a buffer's elements. Matches dsl::TypeCode, and Halide's halide_type_code_t. */
typedef enum dsl_type_code_t {
    dsl_type_int = 0,
    dsl_type_uint = 1,
    dsl_type_float = 2,
    dsl_type_handle = 3,
    dsl_type_bfloat = 4
} dsl_type_code_t;

/** An element type: code, bits per element, lanes (1 for buffers). */
typedef struct dsl_type_t {
    uint8_t code; /* a dsl_type_code_t */
    uint8_t bits;
    uint16_t lanes;
#ifdef __cplusplus
    /* Helpers for C++ code (extern stages' functions); the layout is the C one. */
    constexpr bool operator==(const dsl_type_t &o) const {
        return code == o.code && bits == o.bits && lanes == o.lanes;
    }
    constexpr bool operator!=(const dsl_type_t &o) const {
        return !(*this == o);
    }
    /** Bytes per element (a bool takes one). */
    int bytes() const {
        return (bits + 7) / 8;
    }
#endif
} dsl_type_t;

/** One dimension of a buffer: the coordinates [min, min + extent) at `stride` elements apart. */
typedef struct dsl_dimension_t {
    int32_t min;
    int32_t extent;
    int32_t stride;
    uint32_t flags; /* reserved, 0 */
#ifdef __cplusplus
    bool operator==(const dsl_dimension_t &o) const {
        return min == o.min && extent == o.extent && stride == o.stride && flags == o.flags;
    }
    bool operator!=(const dsl_dimension_t &o) const {
        return !(*this == o);
    }
#endif
} dsl_dimension_t;

struct dsl_buffer_t;
/** A device API's operations on buffers (the runtime's OpenCL and CUDA interfaces): what a
 * buffer's `device_interface` points to. `bytes` is the span of the buffer's elements. Each
 * returns 0 or an error code. */
typedef struct dsl_device_interface_t {
    const char *name;
    int (*device_malloc)(struct dsl_buffer_t *buffer, uint64_t bytes);
    int (*device_free)(struct dsl_buffer_t *buffer);
    int (*copy_to_host)(struct dsl_buffer_t *buffer, uint64_t bytes);
    int (*copy_to_device)(struct dsl_buffer_t *buffer, uint64_t bytes);
    /* Waits for everything queued on the device to finish. */
    int (*sync)(void);
} dsl_device_interface_t;

/** Buffer flags. */
enum {
    dsl_buffer_flag_host_dirty = 1 << 0,  /* host memory holds newer data than the device */
    dsl_buffer_flag_device_dirty = 1 << 1 /* device memory holds newer data than the host */
};

/** A multi-dimensional array. The element at coordinates (x0, x1, ...) lives at
 * host + sum_i (xi - dim[i].min) * dim[i].stride elements. */
typedef struct dsl_buffer_t {
    uint64_t device;                                       /* device handle, 0 if none */
    const struct dsl_device_interface_t *device_interface; /* owner of `device`, or NULL */
    uint8_t *host;                                         /* host memory, or NULL */
    uint64_t flags;                                        /* dsl_buffer_flag_* */
    dsl_type_t type;
    int32_t dimensions;
    dsl_dimension_t *dim; /* `dimensions` entries */
    void *reserved;       /* 0 */
#ifdef __cplusplus
    /** Neither host nor device memory: a bounds query (an extern stage's function is asked
     * which region it reads; see dsl/Func.h, define_extern). */
    bool is_bounds_query() const {
        return host == nullptr && device == 0;
    }
    /** The address of the element at coordinates `pos` (one per dimension). */
    uint8_t *address_of(const int *pos) const {
        int64_t offset = 0;
        for (int i = 0; i < dimensions; i++)
            offset += int64_t(pos[i] - dim[i].min) * dim[i].stride;
        return host + offset * type.bytes();
    }
    /** The number of elements of the region (the product of the extents). */
    int64_t number_of_elements() const {
        int64_t n = 1;
        for (int i = 0; i < dimensions; i++)
            n *= dim[i].extent;
        return n;
    }
    bool host_dirty() const {
        return (flags & dsl_buffer_flag_host_dirty) != 0;
    }
    bool device_dirty() const {
        return (flags & dsl_buffer_flag_device_dirty) != 0;
    }
    void set_host_dirty(bool dirty = true) {
        flags = dirty ? (flags | dsl_buffer_flag_host_dirty)
                      : (flags & ~uint64_t(dsl_buffer_flag_host_dirty));
    }
    void set_device_dirty(bool dirty = true) {
        flags = dirty ? (flags | dsl_buffer_flag_device_dirty)
                      : (flags & ~uint64_t(dsl_buffer_flag_device_dirty));
    }
#endif
} dsl_buffer_t;

/** Error codes returned by generated functions and the runtime. */
typedef enum dsl_error_code_t {
    dsl_error_none = 0,
    dsl_error_generic = -1,
    dsl_error_out_of_memory = -2,
    dsl_error_buffer_argument_is_null = -3,
    dsl_error_bad_type = -4,
    dsl_error_bad_dimensions = -5,
    dsl_error_access_out_of_bounds = -6,
    dsl_error_buffer_extents_negative = -7,
    dsl_error_param_too_small = -8,
    dsl_error_param_too_large = -9,
    dsl_error_buffer_too_large = -10,
    dsl_error_device_error = -11,
    dsl_error_buffer_overlaps = -12,     /* an output whose elements share memory */
    dsl_error_bad_stride = -13,          /* a stride the code was not compiled for */
    dsl_error_constraint_violated = -14, /* a buffer that breaks a dim(d).set_...() constraint */
    dsl_error_extern_stage_failed = -15, /* an extern stage's function returned non-zero */
    dsl_error_requirement_failed = -16,  /* a require() whose condition did not hold */
    dsl_error_specialize_fail = -17      /* no specialization held where specialize_fail() */
                                         /* stands for the rest */
} dsl_error_code_t;

/** Device memory (GPU targets). A pipeline whose kernels write an output buffer leaves the
 * newest data on the device and sets dsl_buffer_flag_device_dirty; these bring it back and
 * release the device's copy. Each returns 0 or an error code. */
/** Copies the buffer's device data to its host memory if the device holds newer data. */
int dsl_buffer_copy_to_host(dsl_buffer_t *buffer);
/** Releases the buffer's device memory (without copying it back; see the one above). */
int dsl_buffer_device_free(dsl_buffer_t *buffer);
/** Waits until the work queued on the buffer's device (kernels, copies) has finished. */
int dsl_buffer_device_sync(dsl_buffer_t *buffer);
/** Tells the runtime that the host memory holds newer data than the device (after the caller
 * wrote it), so that the next pipeline that runs on the device copies it there first. */
void dsl_buffer_set_host_dirty(dsl_buffer_t *buffer);

/** Sets the number of threads parallel loops use (the calling thread included); 0 restores the
 * default: the environment variable DSL_NUM_THREADS if set, else one per CPU core. */
void dsl_set_num_threads(int n);

/** Large blocks (1 MiB or more) that generated code frees are kept for its next allocations, so
 * that a pipeline realized again finds its intermediates already mapped (no page faults, no
 * zeroing by the kernel). At most `bytes` are kept, the oldest blocks going first; the default is
 * 256 MiB, or the environment variable DSL_MEMORY_CACHE_MB (in MiB) if set; 0 keeps nothing.
 * Lowering the limit frees what no longer fits. */
void dsl_set_memory_cache_limit(uint64_t bytes);
/** The bytes kept now. */
uint64_t dsl_memory_cache_bytes(void);
/** Frees every kept block (the limit stays). */
void dsl_release_cached_memory(void);

/** The cache of memoized Funcs (Func::memoize), shared by every pipeline of the process: at
 * most `bytes` of kept realizations (the default, 1 MiB, for 0 or less); lowering it drops the
 * least recently used ones. */
void dsl_memoization_cache_set_size(int64_t bytes);
/** The bytes the cache holds now. */
int64_t dsl_memoization_cache_bytes(void);
/** Drops the realizations stored with this eviction key (Func::memoize(EvictionKey(e))). */
void dsl_memoization_cache_evict(uint64_t eviction_key);
/** Drops every kept realization (the size limit stays). */
void dsl_memoization_cache_cleanup(void);

/** Receives the message of every error a generated function reports (NUL-terminated). */
typedef void (*dsl_error_handler_t)(const char *message);
/** Replaces the error handler (NULL restores the default, which keeps the message). */
void dsl_set_error_handler(dsl_error_handler_t handler);

/** Every error the runtime reports passes through here; the default calls the handler set with
 * dsl_set_error_handler. The runtime's functions are weak symbols, so a program can replace this
 * one (or any other) by defining it; that takes effect before any code runs and for every
 * generated library in the program at once. (A program that also uses the JIT should keep
 * calling the handler: realize() reads its error messages from the default one.) */
void dsl_runtime_report_error(const char *message);

/** Receives every line that print(), print_when() and tracing (Func::trace_stores() and the
 * like) write, NUL-terminated and ending with a newline. */
typedef void (*dsl_print_handler_t)(const char *line);
/** Replaces the print handler (NULL restores the default, which writes the line to stderr). */
void dsl_set_print_handler(dsl_print_handler_t handler);

/** The profiler of pipelines compiled with the `profile` target feature (Target::Profile). It
 * adds up, per pipeline and per Func, the time each Func's own code runs (summed over threads;
 * producers computed inside a Func count as theirs), and prints a report through the print
 * handler when the program exits. */
/** Prints the report now: per pipeline, the runs, the time per run, and per Func its time per
 * run and its share. */
void dsl_profiler_report(void);
/** Forgets the times counted so far (the report at exit then shows only later runs). */
void dsl_profiler_reset(void);
/** The time counted for `func` of the pipeline (generated function) `pipeline`, in seconds
 * summed over its runs and threads, or with `func` NULL the pipeline's wall-clock time; and its
 * runs. Returns 0, or -1 when no profiled pipeline (or Func of it) has those names. */
int dsl_profiler_stats(const char *pipeline, const char *func, double *seconds, uint64_t *runs);

/** What a tracing event reports (Halide's halide_trace_event_code_t, same values). */
typedef enum dsl_trace_event_code_t {
    dsl_trace_load = 0,
    dsl_trace_store = 1,
    dsl_trace_begin_realization = 2,
    dsl_trace_end_realization = 3,
    dsl_trace_produce = 4,
    dsl_trace_end_produce = 5,
    dsl_trace_consume = 6,
    dsl_trace_end_consume = 7,
    dsl_trace_begin_pipeline = 8,
    dsl_trace_end_pipeline = 9,
    dsl_trace_tag = 10
} dsl_trace_event_code_t;

/** One event of a traced Func (Func::trace_loads(), trace_stores(), trace_realizations()), laid
 * out as Halide's halide_trace_event_t.
 *  - Loads and stores: `value` points at the value (`type.lanes` of them for a vector access)
 *    and `coordinates` at `dimensions` ints: for each dimension of the Func, one per lane
 *    (lanes innermost), so `dimensions` is the Func's dimensions times the lanes.
 *  - Realizations, productions and consumptions: `coordinates` holds the region, min0, extent0,
 *    min1, extent1, ... (`dimensions` is twice the Func's).
 *  - Pipelines: `func` is the pipeline's name; no coordinates.
 *  - Tags: `trace_tag` is the text.
 * `parent_id` is what the handler returned for the enclosing event: a realization's is its
 * pipeline's, a production's or consumption's is its realization's, and a load's or store's the
 * production or consumption it happens in (the pipeline's outside those). */
typedef struct dsl_trace_event_t {
    const char *func;
    union {
        void *value;
        const char *trace_tag;
    };
    int32_t *coordinates;
    dsl_type_t type;
    dsl_trace_event_code_t event;
    int32_t parent_id;
    /** The Tuple element loaded or stored. */
    int32_t value_index;
    int32_t dimensions;
} dsl_trace_event_t;

/** Receives every tracing event; returns the id its nested events get as their parent_id. */
typedef int32_t (*dsl_trace_handler_t)(const dsl_trace_event_t *event);
/** Replaces the trace handler. NULL restores the default, which writes each event as a line
 * through the print handler ("Store f.0(3, 4) = 7", "Produce f.0(0, 10, 0, 8)", ...) and returns
 * a new id for each. */
void dsl_set_trace_handler(dsl_trace_handler_t handler);

/** What an argument of a generated function is. */
typedef enum dsl_argument_kind_t {
    dsl_argument_input_scalar = 0,
    dsl_argument_input_buffer = 1,
    dsl_argument_output_buffer = 2
} dsl_argument_kind_t;

/** One argument of a generated function, in the order the function takes them. */
typedef struct dsl_argument_t {
    const char *name;
    int32_t kind;       /* a dsl_argument_kind_t */
    int32_t dimensions; /* 0 for scalars */
    dsl_type_t type;    /* of the scalar, or of the buffer's elements */
} dsl_argument_t;

/** Describes a generated function; `<fn>_metadata()` returns it. */
typedef struct dsl_pipeline_metadata_t {
    int32_t version; /* 1 */
    int32_t num_arguments;
    const dsl_argument_t *arguments;
    const char *name;   /* the function's name */
    const char *target; /* the target string it was compiled for */
} dsl_pipeline_metadata_t;

#ifdef __cplusplus
} /* extern "C" */

#include <type_traits>

/** The element type of a C++ type, for code that makes or checks buffers without the compiler
 * (Halide's halide_type_of): `dsl_type_of<uint8_t>()` is {dsl_type_uint, 8, 1}; bool is a
 * one-bit uint, pointers are handles. Types of two bytes that are not integers (float16_t,
 * bfloat16_t) need dsl::type_of<T>() from dsl/Type.h, which converts to dsl_type_t. */
template <typename T>
constexpr dsl_type_t dsl_type_of() {
    static_assert(std::is_arithmetic<T>::value || std::is_pointer<T>::value,
                  "dsl_type_of<T>: T must be a C++ number or pointer type");
    const uint8_t bits = uint8_t(sizeof(T) * 8);
    if (std::is_same<T, bool>::value) return dsl_type_t{dsl_type_uint, 1, 1};
    if (std::is_pointer<T>::value) return dsl_type_t{dsl_type_handle, 64, 1};
    if (std::is_floating_point<T>::value) return dsl_type_t{dsl_type_float, bits, 1};
    if (std::is_signed<T>::value) return dsl_type_t{dsl_type_int, bits, 1};
    return dsl_type_t{dsl_type_uint, bits, 1};
}
#endif

/* Halide's names for this ABI, for code written against Halide's runtime (extern stages'
 * functions, tracing handlers): buffers, dimensions, element types and tracing events are laid
 * out as Halide's, and type and event codes have Halide's values, so such code compiles and
 * runs here as it is. halide_device_interface_t names dsl's device interface, whose members
 * differ from Halide's: code may pass its pointers around, not call through them. Left out
 * where Halide's own runtime header came first (a program that uses both, as bench/ does) or
 * DSL_NO_HALIDE_NAMES is defined; include Halide's after this header only with that macro. */
#if !defined(HALIDE_HALIDERUNTIME_H) && !defined(DSL_NO_HALIDE_NAMES)
typedef dsl_buffer_t halide_buffer_t;
typedef dsl_dimension_t halide_dimension_t;
typedef dsl_type_t halide_type_t;
typedef dsl_type_code_t halide_type_code_t;
typedef dsl_device_interface_t halide_device_interface_t;
typedef dsl_trace_event_t halide_trace_event_t;
typedef dsl_trace_event_code_t halide_trace_event_code_t;

#define halide_type_int dsl_type_int
#define halide_type_uint dsl_type_uint
#define halide_type_float dsl_type_float
#define halide_type_handle dsl_type_handle
#define halide_type_bfloat dsl_type_bfloat

#define halide_buffer_flag_host_dirty dsl_buffer_flag_host_dirty
#define halide_buffer_flag_device_dirty dsl_buffer_flag_device_dirty

#define halide_trace_load dsl_trace_load
#define halide_trace_store dsl_trace_store
#define halide_trace_begin_realization dsl_trace_begin_realization
#define halide_trace_end_realization dsl_trace_end_realization
#define halide_trace_produce dsl_trace_produce
#define halide_trace_end_produce dsl_trace_end_produce
#define halide_trace_consume dsl_trace_consume
#define halide_trace_end_consume dsl_trace_end_consume
#define halide_trace_begin_pipeline dsl_trace_begin_pipeline
#define halide_trace_end_pipeline dsl_trace_end_pipeline
#define halide_trace_tag dsl_trace_tag

/* The memoization cache, with the arguments of Halide's functions (the user context is
 * ignored). */
static inline void halide_memoization_cache_set_size(int64_t size) {
    dsl_memoization_cache_set_size(size);
}
static inline void halide_memoization_cache_evict(void *user_context, uint64_t eviction_key) {
    (void)user_context;
    dsl_memoization_cache_evict(eviction_key);
}
static inline void halide_memoization_cache_cleanup(void) {
    dsl_memoization_cache_cleanup();
}

/* What an extern stage's function returns when it succeeds. */
#define halide_error_code_success dsl_error_none

#ifdef __cplusplus
template <typename T>
constexpr halide_type_t halide_type_of() {
    return dsl_type_of<T>();
}
#endif
#endif /* Halide's names */

#endif /* DSL_RUNTIME_H */
