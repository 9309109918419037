/* A plain C program calling an int8 matmul that runs on the NPU (the simulator is part of the
 * library's runtime): results against a C loop for sizes that are and are not multiples of the
 * GEMM block, and an error (a K the on-chip buffers cannot hold) reported through the handler. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_npu_matmul.h"
#include "test_buffers.h"

static int failures = 0;

static dsl_buffer_t buffer_2d(void *host, int code, int bits, dsl_dimension_t *dim, int w, int h) {
    dsl_buffer_t b;
    memset(&b, 0, sizeof(b));
    b.host = (uint8_t *)host;
    b.type.code = (uint8_t)code;
    b.type.bits = (uint8_t)bits;
    b.type.lanes = 1;
    b.dimensions = 2;
    memset(dim, 0, 2 * sizeof(*dim));
    dim[0].extent = w;
    dim[0].stride = 1;
    dim[1].extent = h;
    dim[1].stride = w;
    b.dim = dim;
    return b;
}

static void check(int m, int n, int k) {
    int8_t *a = malloc((size_t)m * k), *b = malloc((size_t)k * n);
    int32_t *c = malloc((size_t)m * n * 4);
    unsigned seed = (unsigned)(m * 131 + n * 7 + k);
    for (int i = 0; i < m * k; i++)
        a[i] = (int8_t)((seed = seed * 1103515245u + 12345u) >> 24);
    for (int i = 0; i < k * n; i++)
        b[i] = (int8_t)((seed = seed * 1103515245u + 12345u) >> 24);
    dsl_dimension_t da[2], db[2], dc[2];
    dsl_buffer_t ba = buffer_2d(a, dsl_type_int, 8, da, k, m);
    dsl_buffer_t bb = buffer_2d(b, dsl_type_int, 8, db, n, k);
    dsl_buffer_t bc = buffer_2d(c, dsl_type_int, 32, dc, n, m);
    int status = aot_npu_matmul(&ba, &bb, &bc);
    CHECK(status == 0, "%dx%dx%d: status %d (%s)", m, n, k, status, last_message);
    int bad = 0;
    for (int i = 0; i < m && !status; i++) {
        for (int j = 0; j < n; j++) {
            int32_t s = 0;
            for (int q = 0; q < k; q++)
                s += (int32_t)a[i * k + q] * (int32_t)b[q * n + j];
            if (c[i * n + j] != s && bad++ < 3)
                CHECK(0, "%dx%dx%d at (%d, %d): %d, not %d", m, n, k, j, i, c[i * n + j], s);
        }
    }
    free(a);
    free(b);
    free(c);
}

int main(void) {
    dsl_set_error_handler(keep_message);
    check(64, 64, 64);
    check(33, 17, 70);
    check(5, 100, 3);
    /* K of 40000 needs 2500 WGT blocks a column block: more than the NPU's 1024. */
    int8_t *a = calloc(40000, 1), *b = calloc(40000, 1);
    int32_t c[1];
    dsl_dimension_t da[2], db[2], dc[2];
    dsl_buffer_t ba = buffer_2d(a, dsl_type_int, 8, da, 40000, 1);
    dsl_buffer_t bb = buffer_2d(b, dsl_type_int, 8, db, 1, 40000);
    dsl_buffer_t bc = buffer_2d(c, dsl_type_int, 32, dc, 1, 1);
    last_message[0] = 0;
    CHECK(aot_npu_matmul(&ba, &bb, &bc) != 0, "a contraction of 40000 ran");
    CHECK(strstr(last_message, "NPU GEMM of \"c\"") && strstr(last_message, "does not fit"),
          "message: %s", last_message);
    free(a);
    free(b);
    if (failures) return 1;
    printf("aot_npu_test: passed\n");
    return 0;
}
