/* Stands in for a second generated pipeline, in its own static library runtime_test_library_b
 * with its own copy of the runtime's objects. */
#include <stdint.h>

#include "runtime/Runtime.h"

static int32_t sums[16];

static int add_row(void *closure, int32_t j) {
    int32_t i = *(const int32_t *)closure;
    __atomic_add_fetch(&sums[i], j, __ATOMIC_RELAXED);
    return 0;
}

static int sum_rows(void *closure, int32_t i) {
    (void)closure;
    return dsl_runtime_parallel_for(add_row, &i, 0, 100);
}

/* Sums 0 + 1 + ... + 99 into each of 16 rows in nested parallel loops; `gain` above 10 is an
 * error reported the way generated code reports one. */
int pipeline_b(double gain, int32_t *row_sum) {
    if (gain > 10) return dsl_runtime_error_param_too_large("gain", gain, 10);
    int result = dsl_runtime_parallel_for(sum_rows, 0, 0, 16);
    *row_sum = sums[15];
    return result;
}
