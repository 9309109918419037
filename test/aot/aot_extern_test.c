/* A library with an extern stage (Func::define_extern) calls back into this C program. */
#include <stdio.h>

#include "aot_extern.h"

static int queries, calls;

/* out(x) = in(-x) + offset; asks for the mirror image of its output's region. */
int aot_test_mirror(dsl_buffer_t *in, int32_t offset, dsl_buffer_t *out) {
    const int min = out->dim[0].min, extent = out->dim[0].extent;
    if (!in->host) {
        __atomic_fetch_add(&queries, 1, __ATOMIC_SEQ_CST);
        in->dim[0].min = -(min + extent - 1);
        in->dim[0].extent = extent;
        return 0;
    }
    __atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST);
    const int32_t *src = (const int32_t *)in->host;
    int32_t *dst = (int32_t *)out->host;
    for (int x = min; x < min + extent; x++) {
        int i = -x - in->dim[0].min;
        if (i < 0 || i >= in->dim[0].extent) return 5; /* not what it asked for */
        dst[(x - min) * out->dim[0].stride] = src[i * in->dim[0].stride] + offset;
    }
    return 0;
}

int main(void) {
    enum { N = 40 };
    int32_t base[N], total[N];
    for (int i = 0; i < N; i++)
        base[i] = 1000 * i;
    dsl_dimension_t base_dim[1] = {{0, N, 1, 0}};
    dsl_dimension_t total_dim[1] = {{0, N, 1, 0}};
    dsl_buffer_t base_buffer = {0,        NULL, (uint8_t *)base, 0, {dsl_type_int, 32, 1}, 1,
                                base_dim, NULL};
    dsl_buffer_t total_buffer = {0,         NULL, (uint8_t *)total, 0, {dsl_type_int, 32, 1}, 1,
                                 total_dim, NULL};
    int failures = 0;
    /* The stage is memoized: the second call with offset 7 computes nothing; offset 8 is a
     * new key. */
    const int offsets[3] = {7, 7, 8}, expected_calls[3] = {3, 3, 6};
    for (int run = 0; run < 3; run++) {
        const int offset = offsets[run];
        for (int x = 0; x < N; x++)
            total[x] = -1;
        int status = aot_extern(&base_buffer, offset, &total_buffer);
        if (status != 0) {
            printf("aot_extern returned %d\n", status);
            return 1;
        }
        for (int x = 0; x < N; x++) {
            if (total[x] != x * x + offset + 1000 * x) {
                if (failures++ < 5)
                    printf("run %d: total(%d) = %d, expected %d\n", run, x, total[x],
                           x * x + offset + 1000 * x);
            }
        }
        if (calls != expected_calls[run]) {
            printf("run %d: %d calls in all, expected %d (one per tile of 16 and new offset)\n",
                   run, calls, expected_calls[run]);
            failures++;
        }
    }
    if (queries == 0) {
        printf("no bounds query\n");
        failures++;
    }
    printf(failures ? "FAILED\n" : "Success!\n");
    return failures != 0;
}
