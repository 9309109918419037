// Buffers with device memory: the coherence protocol shared by every device API. A buffer's
// flags say which side holds newer data (dsl_buffer_flag_host_dirty, _device_dirty); its
// device_interface says which API owns its `device` handle. Generated code copies a buffer to
// the device before a kernel reads it, back to the host before host code touches it, and the
// caller of a pipeline brings outputs back with dsl_buffer_copy_to_host.
#include <stddef.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

DSL_RUNTIME_EXPORT uint64_t dsl_runtime_buffer_span(const dsl_buffer_t *b, int *ok) {
    *ok = 1;
    uint64_t last = 0;
    for (int d = 0; d < b->dimensions; d++) {
        const dsl_dimension_t *dim = &b->dim[d];
        if (dim->extent <= 0) return 0;
        if (dim->stride < 0) {
            dsl_runtime_report(dsl_error_device_error,
                               "Error: a buffer with a negative stride (%d in dimension %d) "
                               "cannot be copied to a GPU; pass a buffer with non-negative "
                               "strides.",
                               dim->stride, d);
            *ok = 0;
            return 0;
        }
        last += (uint64_t)(dim->extent - 1) * (uint64_t)dim->stride;
    }
    return (last + 1) * (uint64_t)((b->type.bits + 7) / 8);
}

/// Whether the buffer's elements fill its span (no gaps between rows that belong to others).
static int is_dense(const dsl_buffer_t *b, uint64_t span) {
    uint64_t elements = 1;
    for (int d = 0; d < b->dimensions; d++)
        elements *= (uint64_t)b->dim[d].extent;
    return elements * (uint64_t)((b->type.bits + 7) / 8) == span;
}

DSL_RUNTIME_EXPORT int dsl_runtime_copy_to_device(dsl_buffer_t *b,
                                                  const dsl_device_interface_t *api,
                                                  int overwritten) {
    int ok;
    uint64_t bytes = dsl_runtime_buffer_span(b, &ok);
    if (!ok) return dsl_error_device_error;
    if (b->device && b->device_interface != api) {
        // On another device: bring it home first.
        int status = dsl_buffer_copy_to_host(b);
        if (status) return status;
        status = dsl_buffer_device_free(b);
        if (status) return status;
    }
    int fresh = 0;
    if (!b->device) {
        int status = api->device_malloc(b, bytes);
        if (status) return status;
        b->device_interface = api;
        fresh = 1;
    }
    // A fresh device copy takes the host's data (the host holds the truth until a kernel
    // writes), unless the kernel only writes the buffer and the host has written nothing the
    // device lacks: then the kernel's writes are all that is read back (a buffer with gaps in
    // its span is copied all the same, so that copying back keeps what is in the gaps).
    // Later copies happen only when the host wrote since.
    int host_needed = !fresh ? 0 : !overwritten || !is_dense(b, bytes);
    if ((host_needed || (b->flags & dsl_buffer_flag_host_dirty)) && b->host && bytes) {
        int status = api->copy_to_device(b, bytes);
        if (status) return status;
    }
    b->flags &= ~(uint64_t)dsl_buffer_flag_host_dirty;
    return 0;
}

DSL_RUNTIME_EXPORT int dsl_buffer_copy_to_host(dsl_buffer_t *b) {
    if (!b || !b->device || !(b->flags & dsl_buffer_flag_device_dirty)) return 0;
    const dsl_device_interface_t *api = b->device_interface;
    int ok;
    uint64_t bytes = dsl_runtime_buffer_span(b, &ok);
    if (!ok) return dsl_error_device_error;
    if (b->host && bytes) {
        int status = api->copy_to_host(b, bytes);
        if (status) return status;
    }
    b->flags &= ~(uint64_t)dsl_buffer_flag_device_dirty;
    return 0;
}

DSL_RUNTIME_EXPORT int dsl_buffer_device_free(dsl_buffer_t *b) {
    if (!b || !b->device) return 0;
    int status = b->device_interface->device_free(b);
    b->device = 0;
    b->device_interface = NULL;
    b->flags &= ~(uint64_t)dsl_buffer_flag_device_dirty;
    return status;
}

DSL_RUNTIME_EXPORT int dsl_buffer_device_sync(dsl_buffer_t *b) {
    if (!b || !b->device) return 0;
    return b->device_interface->sync();
}

DSL_RUNTIME_EXPORT void dsl_buffer_set_host_dirty(dsl_buffer_t *b) {
    if (b) b->flags |= dsl_buffer_flag_host_dirty;
}

DSL_RUNTIME_EXPORT int dsl_runtime_copy_to_host(dsl_buffer_t *b) {
    return dsl_buffer_copy_to_host(b);
}

DSL_RUNTIME_EXPORT int dsl_runtime_set_host_dirty(dsl_buffer_t *b) {
    // Also without a device copy: one made later must start from what the host wrote.
    dsl_buffer_set_host_dirty(b);
    return 0;
}

DSL_RUNTIME_EXPORT int dsl_runtime_device_free(dsl_buffer_t *b) {
    return dsl_buffer_device_free(b);
}

DSL_RUNTIME_EXPORT int dsl_runtime_gpu_prepare_launch(const int32_t *blocks, const int32_t *threads,
                                                      int32_t count, void *const *args,
                                                      const uint8_t *kinds,
                                                      const dsl_device_interface_t *api,
                                                      int *empty) {
    *empty = 0;
    for (int d = 0; d < 3; d++) {
        if (blocks[d] <= 0 || threads[d] <= 0) *empty = 1;  // nothing to run
    }
    for (int32_t i = 0; i < count && !*empty; i++) {
        if (!(kinds[i] & dsl_kernel_arg_buffer)) continue;  // a scalar, or shared memory
        int status = dsl_runtime_copy_to_device((dsl_buffer_t *)args[i], api,
                                                kinds[i] == dsl_kernel_arg_written);
        if (status) return status;
    }
    return 0;
}

DSL_RUNTIME_EXPORT void dsl_runtime_gpu_mark_written(int32_t count, void *const *args,
                                                     const uint8_t *kinds) {
    for (int32_t i = 0; i < count; i++) {
        if (kinds[i] & dsl_kernel_arg_written)
            ((dsl_buffer_t *)args[i])->flags |= dsl_buffer_flag_device_dirty;
    }
}
