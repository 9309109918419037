/* Stands in for a generated pipeline: the static library runtime_test_library_a holds this object
 * and a copy of the runtime's objects, as a library the compiler writes will. */
#include <stdint.h>

#include "runtime/Runtime.h"

struct doubling {
    int32_t *out;
};

static int double_one(void *closure, int32_t i) {
    struct doubling *d = (struct doubling *)closure;
    d->out[i] = 2 * i;
    return 0;
}

int pipeline_a(int32_t *out, int32_t n) {
    struct doubling d = {out};
    return dsl_runtime_parallel_for(double_one, &d, 0, n);
}
