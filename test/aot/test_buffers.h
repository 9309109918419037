/* Buffers for the C tests of generated libraries. */
#ifndef DSL_TEST_AOT_TEST_BUFFERS_H
#define DSL_TEST_AOT_TEST_BUFFERS_H

#include <stdio.h>
#include <string.h>

#include "dsl/runtime/dsl_runtime.h"

/* CHECK(cond, printf-arguments): counts a failure in `failures` (which the test defines) and
 * says where. */
#define CHECK(cond, ...)                                    \
    do {                                                    \
        if (!(cond)) {                                      \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fprintf(stderr, "\n");                          \
            failures++;                                     \
        }                                                   \
    } while (0)

/* The last error message, kept by keep_message (installed with dsl_set_error_handler). */
static char last_message[1024];
static inline void keep_message(const char *message) {
    strncpy(last_message, message, sizeof(last_message) - 1);
}

/* A dense 2-D uint16 buffer over [x0, x0 + w) x [y0, y0 + h) at `host` (NULL for a bounds
 * query), described in `dim` (two entries, owned by the caller). */
static inline dsl_buffer_t test_buffer_u16(uint16_t *host, dsl_dimension_t *dim, int x0, int w,
                                           int y0, int h) {
    dsl_buffer_t b;
    memset(&b, 0, sizeof(b));
    b.host = (uint8_t *)host;
    b.type.code = dsl_type_uint;
    b.type.bits = 16;
    b.type.lanes = 1;
    b.dimensions = 2;
    dim[0].min = x0;
    dim[0].extent = w;
    dim[0].stride = 1;
    dim[0].flags = 0;
    dim[1].min = y0;
    dim[1].extent = h;
    dim[1].stride = w;
    dim[1].flags = 0;
    b.dim = dim;
    return b;
}

#endif /* DSL_TEST_AOT_TEST_BUFFERS_H */
