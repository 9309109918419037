// Error reporting from generated code. Each function formats a message that names the buffer or
// parameter involved, hands it to dsl_runtime_report_error, and returns the error code for the
// generated function to return. The default handler keeps the message in a per-thread buffer,
// where the JIT's realize() picks it up to throw a RuntimeError.
#include <stdarg.h>
#include <stdio.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

// As long as the longest message the reporters format; longer ones are cut.
enum { kMessageCapacity = DSL_RUNTIME_MESSAGE_CAPACITY };

static _Thread_local char last_error[kMessageCapacity];

DSL_RUNTIME_EXPORT void dsl_runtime_keep_error(const char *message) {
    // Inside an iteration of a parallel loop, the message goes to the loop's caller.
    if (dsl_runtime_forward_error(message)) return;
    snprintf(last_error, sizeof(last_error), "%s", message);
}

static void default_handler(const char *message) {
    dsl_runtime_keep_error(message);
}

// Set by one thread and read by any: accessed atomically.
static dsl_error_handler_t handler = NULL;

DSL_RUNTIME_EXPORT int dsl_runtime_report(int code, const char *format, ...) {
    char message[kMessageCapacity];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);
    dsl_runtime_report_error(message);
    return code;
}

static const char *type_name(int code, int bits, char *out, size_t n) {
    const char *names[] = {"int", "uint", "float", "bfloat", "handle"};
    if (code == 1 && bits == 1) {
        snprintf(out, n, "bool");
    } else if (code >= 0 && code <= 4) {
        snprintf(out, n, "%s%d", names[code], bits);
    } else {
        snprintf(out, n, "(type code %d, %d bits)", code, bits);
    }
    return out;
}

DSL_RUNTIME_EXPORT void dsl_set_error_handler(dsl_error_handler_t h) {
    __atomic_store_n(&handler, h, __ATOMIC_RELEASE);
}

static _Thread_local const dsl_runtime_hooks_t *current_hooks = NULL;

DSL_RUNTIME_EXPORT const dsl_runtime_hooks_t *dsl_runtime_swap_hooks(
    const dsl_runtime_hooks_t *hooks) {
    const dsl_runtime_hooks_t *previous = current_hooks;
    current_hooks = hooks;
    return previous;
}

DSL_RUNTIME_EXPORT const dsl_runtime_hooks_t *dsl_runtime_current_hooks(void) {
    return current_hooks;
}

DSL_RUNTIME_EXPORT void *dsl_runtime_user_context(void) {
    return current_hooks ? current_hooks->user_context : NULL;
}

DSL_RUNTIME_EXPORT void dsl_runtime_report_error(const char *message) {
    const dsl_runtime_hooks_t *hooks = current_hooks;
    if (hooks && hooks->error) {
        hooks->error(hooks->context, message);
        return;
    }
    dsl_error_handler_t h = __atomic_load_n(&handler, __ATOMIC_ACQUIRE);
    if (h) {
        h(message);
    } else {
        default_handler(message);
    }
}

DSL_RUNTIME_EXPORT const char *dsl_runtime_last_error(void) {
    return last_error;
}

DSL_RUNTIME_EXPORT void dsl_runtime_clear_last_error(void) {
    last_error[0] = '\0';
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_bad_dimensions(const char *buffer, int expected,
                                                        int actual) {
    return dsl_runtime_report(dsl_error_bad_dimensions,
                              "Error: buffer \"%s\" has %d dimensions, but the pipeline needs %d.",
                              buffer, actual, expected);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_bad_type(const char *buffer, int expected_code,
                                                  int expected_bits, int code, int bits) {
    char want[32], got[32];
    return dsl_runtime_report(dsl_error_bad_type,
                              "Error: buffer \"%s\" holds %s, but the pipeline needs %s.", buffer,
                              type_name(code, bits, got, sizeof(got)),
                              type_name(expected_code, expected_bits, want, sizeof(want)));
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_buffer_is_null(const char *buffer) {
    return dsl_runtime_report(
        dsl_error_buffer_argument_is_null,
        "Error: buffer \"%s\" has no memory (its host pointer is null). Allocate it, "
        "or wrap memory that holds its elements.",
        buffer);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_buffer_extent_negative(const char *buffer, int dim,
                                                                int extent) {
    return dsl_runtime_report(
        dsl_error_buffer_extents_negative,
        "Error: buffer \"%s\" has extent %d in dimension %d; extents cannot be "
        "negative. Pass a buffer whose extents are 0 or more.",
        buffer, extent, dim);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_buffer_span_too_large(const char *buffer, double span) {
    return dsl_runtime_report(
        dsl_error_buffer_too_large,
        "Error: buffer \"%s\" spans %.0f elements from its first element to its last "
        "(its strides times its extents), more than the 2^31 - 1 a pipeline addresses. "
        "Pass a smaller buffer, or crop it and process it in pieces.",
        buffer, span);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_output_overlaps(const char *buffer, int dim_a,
                                                         int stride_a, int extent_a, int dim_b,
                                                         int stride_b, int extent_b) {
    if (dim_a == dim_b) {
        return dsl_runtime_report(
            dsl_error_buffer_overlaps,
            "Error: output buffer \"%s\" has stride 0 in dimension %d (extent %d), so "
            "its elements share memory. Every element of an output needs its own "
            "memory: pass a buffer whose strides keep elements apart (a dense one).",
            buffer, dim_a, extent_a);
    }
    return dsl_runtime_report(
        dsl_error_buffer_overlaps,
        "Error: output buffer \"%s\" may have elements that share memory: dimension "
        "%d (stride %d, extent %d) and dimension %d (stride %d, extent %d) interleave. "
        "Every element of an output needs its own memory: pass a buffer where one of "
        "each two dimensions steps over the whole of the other (a dense buffer, or a "
        "crop, transpose or slice of one).",
        buffer, dim_a, stride_a, extent_a, dim_b, stride_b, extent_b);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_access_out_of_bounds(const char *buffer, int dim,
                                                              int need_min, int need_max,
                                                              int have_min, int have_max) {
    return dsl_runtime_report(
        dsl_error_access_out_of_bounds,
        "Error: the pipeline reads input \"%s\" at [%d, %d] in dimension %d, but the "
        "buffer only covers [%d, %d]. Pass a larger buffer, or wrap the input in a "
        "boundary condition such as BoundaryConditions::repeat_edge(%s).",
        buffer, need_min, need_max, dim, have_min, have_max, buffer);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_output_too_small(const char *buffer, int dim, int need_min,
                                                          int need_max, int have_min,
                                                          int have_max) {
    return dsl_runtime_report(
        dsl_error_access_out_of_bounds,
        "Error: the pipeline writes output \"%s\" at [%d, %d] in dimension %d, but the "
        "buffer only covers [%d, %d]. (An update writes where its arguments say, and a "
        "split with TailStrategy::RoundUp or ShiftInwards whole multiples of its "
        "factor.) Pass a larger buffer, or use TailStrategy::GuardWithIf.",
        buffer, need_min, need_max, dim, have_min, have_max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_tuple_shapes_differ(const char *func, const char *buffer,
                                                             int dim, int min, int extent,
                                                             int first_min, int first_extent) {
    return dsl_runtime_report(
        dsl_error_bad_dimensions,
        "Error: the buffers of the Tuple values of Func \"%s\" differ in shape: \"%s\" covers "
        "[%d, %d] in dimension %d, the first value's buffer [%d, %d]. Pass buffers of one "
        "shape (the same mins and extents) for all the values.",
        func, buffer, min, min + extent - 1, dim, first_min, first_min + first_extent - 1);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_output_read_out_of_bounds(const char *buffer, int dim,
                                                                   int need_min, int need_max,
                                                                   int have_min, int have_max) {
    return dsl_runtime_report(
        dsl_error_access_out_of_bounds,
        "Error: an update of output \"%s\" reads it at [%d, %d] in dimension %d, but the "
        "buffer only covers [%d, %d]. Realize the output over a region that holds what its "
        "updates read, or keep their reads inside it (start the RDom later, or clamp the "
        "coordinate).",
        buffer, need_min, need_max, dim, have_min, have_max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_bound_too_small(const char *func, const char *var,
                                                         int need_min, int need_max, int bound_min,
                                                         int bound_max) {
    return dsl_runtime_report(
        dsl_error_access_out_of_bounds,
        "Error: Bounds given for %s in %s (from %d to %d) do not cover required region (from "
        "%d to %d): Func \"%s\" is needed there. Widen its bound() (or bound_extent()) of %s, "
        "or remove it.",
        func, var, bound_min, bound_max, need_min, need_max, func, var);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_fused_ranges_differ(const char *loop, const char *func,
                                                             int min, int extent, const char *other,
                                                             int other_min, int other_extent) {
    return dsl_runtime_report(
        dsl_error_generic,
        "Error: compute_with fuses the vectorized loop %s of Func \"%s\", over [%d, %d], with "
        "that of Func \"%s\", over [%d, %d]: a vectorized fused loop needs the same range in "
        "both (lined up by its LoopAlignStrategy). Fuse at a loop outside the vectorized one, "
        "or give both Funcs the same region (bound()).",
        loop, func, min, min + extent - 1, other, other_min, other_min + other_extent - 1);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_extern_stage_failed(const char *func, const char *function,
                                                             int status, int bounds_query) {
    return dsl_runtime_report(
        dsl_error_extern_stage_failed,
        "Error: the extern stage \"%s\" of Func \"%s\" returned %d%s. "
        "Its function decides what that means; it must return 0 on "
        "success.",
        function, func, status,
        bounds_query ? " when asked which region it reads (a bounds query)" : "");
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_extern_region_too_small(const char *func,
                                                                 const char *function,
                                                                 const char *var, int need_min,
                                                                 int need_max, int min, int max) {
    return dsl_runtime_report(
        dsl_error_extern_stage_failed,
        "Error: the extern stage \"%s\" of Func \"%s\", asked in a bounds query for [%d, %d] in "
        "%s, answered [%d, %d], which does not hold it. Its function may widen the region of its "
        "outputs in a bounds query, never narrow it.",
        function, func, need_min, need_max, var, min, max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_extern_region_outside_storage(const char *func,
                                                                       const char *function,
                                                                       const char *var, int min,
                                                                       int max, int storage_min,
                                                                       int storage_max) {
    return dsl_runtime_report(
        dsl_error_access_out_of_bounds,
        "Error: the extern stage \"%s\" of Func \"%s\" widened the region it computes in one "
        "iteration to [%d, %d] in %s, outside its storage, [%d, %d], which is allocated further "
        "out for what the function answered of all the iterations together. Store the Func where "
        "it is computed (no store_at or store_root).",
        function, func, min, max, var, storage_min, storage_max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_specialize_fail(const char *func, int stage,
                                                         const char *message) {
    return dsl_runtime_report(
        dsl_error_specialize_fail,
        "Error: %s (Func \"%s\", %s %d: none of its specializations held, and "
        "specialize_fail() says the stage must not run otherwise)",
        message, func, stage == 0 ? "pure definition, stage" : "update",
        stage == 0 ? 0 : stage - 1);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_fold_too_small(const char *func, const char *var,
                                                        int factor, int needed) {
    return dsl_runtime_report(
        dsl_error_access_out_of_bounds,
        "Error: Func \"%s\" is stored folded along %s into %d points (fold_storage), but one "
        "of its computations needs %d points of %s at once. Fold by %d or more, or remove "
        "fold_storage().",
        func, var, factor, needed, var, needed);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_region_smaller_than_window(const char *func,
                                                                    const char *var, int window,
                                                                    int have_min, int have_max) {
    return dsl_runtime_report(
        dsl_error_access_out_of_bounds,
        "Error: Func \"%s\" is computed %d points of %s at a time (its loops over them "
        "are unrolled or vectorized, and a consumer's tile needs that many), but the "
        "pipeline needs only [%d, %d] of it. Make the output at least a tile wide, or "
        "split the consumer by a smaller factor.",
        func, window, var, have_min, have_max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_param_too_small(const char *param, double value,
                                                         double min) {
    if (value != value) {
        return dsl_runtime_report(
            dsl_error_param_too_small,
            "Error: Param \"%s\" is NaN, which is outside any range (its minimum is "
            "%g). Set it to a number within its range.",
            param, min);
    }
    return dsl_runtime_report(
        dsl_error_param_too_small,
        "Error: Param \"%s\" is %g, below its minimum %g. Set it within its range.", param, value,
        min);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_param_too_large(const char *param, double value,
                                                         double max) {
    if (value != value) {
        return dsl_runtime_report(
            dsl_error_param_too_large,
            "Error: Param \"%s\" is NaN, which is outside any range (its maximum is "
            "%g). Set it to a number within its range.",
            param, max);
    }
    return dsl_runtime_report(
        dsl_error_param_too_large,
        "Error: Param \"%s\" is %g, above its maximum %g. Set it within its range.", param, value,
        max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_int_param_too_small(const char *param, int64_t value,
                                                             int64_t min) {
    return dsl_runtime_report(
        dsl_error_param_too_small,
        "Error: Param \"%s\" is %lld, below its minimum %lld. Set it within its range.", param,
        (long long)value, (long long)min);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_int_param_too_large(const char *param, int64_t value,
                                                             int64_t max) {
    return dsl_runtime_report(
        dsl_error_param_too_large,
        "Error: Param \"%s\" is %lld, above its maximum %lld. Set it within its range.", param,
        (long long)value, (long long)max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_uint_param_too_small(const char *param, uint64_t value,
                                                              uint64_t min) {
    return dsl_runtime_report(
        dsl_error_param_too_small,
        "Error: Param \"%s\" is %llu, below its minimum %llu. Set it within its range.", param,
        (unsigned long long)value, (unsigned long long)min);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_uint_param_too_large(const char *param, uint64_t value,
                                                              uint64_t max) {
    return dsl_runtime_report(
        dsl_error_param_too_large,
        "Error: Param \"%s\" is %llu, above its maximum %llu. Set it within its range.", param,
        (unsigned long long)value, (unsigned long long)max);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_out_of_memory(const char *buffer, double bytes) {
    return dsl_runtime_report(dsl_error_out_of_memory,
                              "Error: out of memory allocating %.0f bytes for \"%s\".", bytes,
                              buffer);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_buffer_too_large(const char *buffer, double elements) {
    return dsl_runtime_report(
        dsl_error_buffer_too_large,
        "Error: \"%s\" would need %.0f elements (2^31 at most); is a coordinate "
        "unbounded? Clamp the coordinates that index it.",
        buffer, elements);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_bounds_overflow(const char *func, const char *bound,
                                                         double value) {
    return dsl_runtime_report(
        dsl_error_buffer_too_large,
        "Error: the region of \"%s\" overflows 32-bit arithmetic: computing its bound "
        "%s needs the value %.0f. A coordinate that indexes it grows too large with "
        "these sizes and Params; clamp the coordinate, or give the Params in it a range "
        "(set_range).",
        func, bound, value);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_stride_not_one(const char *buffer, int stride) {
    return dsl_runtime_report(
        dsl_error_bad_stride,
        "Error: buffer \"%s\" has stride %d in its first dimension, but this version of "
        "the pipeline was compiled only for buffers whose first dimension is dense "
        "(stride 1). realize() picks the version for any strides itself; code that "
        "calls the compiled function directly must pass dense buffers.",
        buffer, stride);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_constraint_violated(const char *owner, const char *buffer,
                                                             const char *field, int dim, int value,
                                                             int required) {
    return dsl_runtime_report(
        dsl_error_constraint_violated,
        "Error: buffer \"%s\" has %s %d in dimension %d, but %s requires %d there "
        "(dim(%d).set_%s). Pass a buffer that meets the constraint (crop it, or copy "
        "it into one with that layout), or remove the constraint.",
        buffer, field, value, dim, owner, required, dim, field);
}
