// Heap memory for generated code: buffers that a pipeline allocates (compute_root storage,
// scratch that does not fit on the stack).
#include <stdlib.h>

#include "runtime/Runtime.h"

DSL_RUNTIME_EXPORT void *dsl_runtime_malloc(uint64_t bytes) {
    // aligned_alloc needs a size that is a multiple of the alignment.
    uint64_t rounded = (bytes + 63) & ~(uint64_t)63;
    if (rounded == 0) rounded = 64;
    if (rounded < bytes) return NULL;  // the rounding wrapped around
    return aligned_alloc(64, rounded);
}

DSL_RUNTIME_EXPORT void dsl_runtime_free(void *pointer) {
    free(pointer);
}
